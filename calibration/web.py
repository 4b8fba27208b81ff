"""Plain functions behind the dashboard's calibration page (JSON in, JSON out; no Flask here).

The page shows the live picture with four draggable corners and the grid drawn through them, White's
side, and the checklist (board found, orientation correct, pieces read correctly, lighting acceptable).
Corners are pixels of the picture the dashboard shows, which is the picture the pipeline sees.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from calibration import vision_adapter
from calibration.board import board_calibration, check_quad, grid_lines, label_corners, orient_from_start, rule_2_4
from calibration.colours import START, check_start, classify, dark_square_samples, lighting, square_vectors
from calibration.colours import learn as learn_model
from calibration.profile import CORNER_NAMES, WHITE_SIDES, Profile


def decode_jpeg(data: bytes | None) -> np.ndarray | None:
    """The dashboard's frame bytes as a BGR image (None when there is no frame or it is unreadable)."""
    if not data:
        return None
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    return img if img is not None and img.size else None


def state(profile: Profile | None) -> dict[str, Any]:
    """What the page needs to draw: named corners, White's side, the grid, and the choices."""
    out: dict[str, Any] = {"white_sides": list(WHITE_SIDES), "corners": None, "white_side": None,
                           "grid": [], "source": None, "lens": bool(profile and profile.camera),
                           "colours": bool(profile and vision_adapter.colour_model(profile))}
    if profile is not None and profile.board is not None:
        c = profile.board.corners
        out.update(corners={k: list(c[k]) for k in CORNER_NAMES}, white_side=profile.board.white_side,
                   grid=[[list(p) for p in line] for line in grid_lines(c)], source=profile.board.source)
    return out


def parse_points(value: Any) -> np.ndarray:
    """Four [x, y] pairs (a list, or a dict keyed a1/h1/h8/a8) → (4, 2); ValueError naming the problem."""
    if isinstance(value, dict):
        value = [value.get(k) for k in CORNER_NAMES]
    if not isinstance(value, list) or len(value) != 4:
        raise ValueError("corners must be four [x, y] points")
    pts = []
    for p in value:
        if (not isinstance(p, (list, tuple)) or len(p) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v) for v in p)):
            raise ValueError(f"corner {p!r} is not an [x, y] pair of numbers")
        pts.append([float(p[0]), float(p[1])])
    return np.array(pts)


def set_corners(profile: Profile, points: Any, white_side: str | None, frame: np.ndarray | None,
                image_size: tuple[int, int] | None = None) -> dict[str, Any]:
    """Manual override from the page: name the corners, store them in ``profile`` and return the state.

    With ``white_side`` None and a frame showing the start position, the side is read from the pieces.
    Raises ValueError (or :class:`calibration.board.CornerError`, a ValueError) for bad corners.
    """
    pts = parse_points(points)
    if frame is not None:
        image_size = (frame.shape[1], frame.shape[0])
    check_quad(pts, image_size)
    if white_side is not None and white_side not in WHITE_SIDES:
        raise ValueError(f"white side {white_side!r}: expected one of {', '.join(WHITE_SIDES)}")
    if white_side is None and frame is not None:
        corners = orient_from_start(frame, pts).corners
    else:
        corners = label_corners(pts, white_side or "bottom")
    profile.board = board_calibration(corners, "manual", image_size)
    return state(profile)


def check(profile: Profile, frame: np.ndarray | None) -> dict[str, Any]:
    """The pre-game checklist on the current frame (start position expected)."""
    items: list[dict[str, Any]] = []
    problems: list[dict[str, str]] = []
    if frame is None:
        return {"ok": False, "checklist": [{"name": "board found", "ok": False, "detail": "no camera picture"}],
                "problems": []}
    found = vision_adapter.find_board_points(frame)
    if profile.board is None:
        items.append({"name": "board found", "ok": found is not None,
                      "detail": "found; press Save corners to keep them" if found is not None else
                      "not found: drag the four corners onto the playing area and save"})
        return {"ok": False, "checklist": items, "problems": [], "suggested": None if found is None else
                {k: list(v) for k, v in label_corners(found, "bottom").items()}}
    corners = profile.board.corners
    saved = np.array([corners[k] for k in CORNER_NAMES])
    square = float(np.linalg.norm(saved[1] - saved[0])) / 8
    if found is not None and max(np.min(np.linalg.norm(found - p, axis=1)) for p in saved) > 0.5 * square:
        items.append({"name": "board found", "ok": False,
                      "detail": "the board or the camera moved since the corners were saved: find or drag "
                                "them again and save"})
        return {"ok": False, "checklist": items, "problems": [],
                "suggested": {k: list(v) for k, v in label_corners(found, profile.board.white_side).items()}}
    items.append({"name": "board found", "ok": True, "detail": f"{profile.board.source} corners"})
    rule_ok, _ = rule_2_4(frame, corners)
    items.append({"name": "orientation correct", "ok": rule_ok,
                  "detail": f"White at the {profile.board.white_side}; dark square at each player's left"
                  if rule_ok else "the square at White's left is light: turn the board 90 degrees (čl. 2.4) "
                                  "or choose the other side for White"})
    dark, light = dark_square_samples(frame, corners)
    vec = square_vectors(frame, corners)
    saved_model = vision_adapter.colour_model(profile)
    model = saved_model or learn_model(vec)  # unsaved: judge this picture as if learned from it
    result = vision_adapter.pipeline_result(frame, profile)
    reading = result.board if result is not None else classify(model, vec)[0]
    found_problems = check_start(reading, dark, START)
    problems = [{"square": p.square, "message": p.message} for p in found_problems]
    items.append({"name": "pieces read correctly", "ok": not found_problems,
                  "detail": f"{32 - len(found_problems)}/32 squares"
                  + ("" if saved_model else " (colours not learned yet: press Learn colours)")})
    report = lighting(frame, corners, model, light, dark, vec)
    items.append({"name": "lighting acceptable", "ok": report.ok, "detail": report.message()})
    kings = vision_adapter.crown_verdict(result)
    if kings is not None:  # advice, not a fault (null): in a game the referee knows the kings (čl. 3.6)
        items.append({"name": "kings' height in view", "ok": True if kings[0] else None, "detail": kings[1]})
    return {"ok": all(i["ok"] is not False for i in items), "checklist": items, "problems": problems}


def learn(profile: Profile, frame: np.ndarray | None) -> dict[str, Any]:
    """Re-learn the colours from the start position on the current frame, then run the check."""
    if frame is None or profile.board is None:
        raise ValueError("the corners and a camera picture are needed before learning colours")
    profile.colours = {}
    learned, reason = vision_adapter.learn_with_pipeline(frame, profile)
    if learned is not None:
        profile.colours["vision"] = learned
    if vision_adapter.colour_model(profile) is None:  # learned at the saved corners instead
        vision_adapter.set_colour_model(profile, learn_model(square_vectors(frame, profile.board.corners)))
    out = check(profile, frame)
    if reason:
        out["problems"].insert(0, {"square": "", "message": f"the recognizer could not learn this picture "
                                                             f"({reason}): clear the board and try again"})
    return out
