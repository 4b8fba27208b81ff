"""Board calibration: which image points are a1, h1, h8, a8, which side White sits on, and čl. 2.4.

Corners come from the vision pipeline (automatic) or from the user (command line or the dashboard's
drag handles). Either way the user gives or confirms *where* the corners are; the names follow from the
side White sits on, because a1…a8 always run counter-clockwise on the screen starting at White's left
(čl. 2.4 puts a dark square at each player's left). On the start position both the side and the rule
can be read from the picture: White's twelve light pieces fill ranks 1–3, and the empty middle ranks
show whether the square at White's left is dark.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.profile import CORNER_NAMES, WHITE_SIDES, BoardCalibration

TOP_SQUARE = 32  # pixels per square in the rectified top view


class CornerError(ValueError):
    """Corners that cannot describe a board (wrong count, not numbers, crossed or degenerate)."""


def order_clockwise(points: np.ndarray) -> np.ndarray:
    """Four image points in screen order top-left, top-right, bottom-right, bottom-left."""
    pts = np.asarray(points, np.float64).reshape(4, 2)
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])  # y down: increasing angle is clockwise
    pts = pts[np.argsort(ang)]
    start = int(np.argmin(pts.sum(axis=1)))  # top-left has the smallest x + y
    return np.roll(pts, -start, axis=0)


def label_corners(points: np.ndarray, white_side: str = "bottom") -> dict[str, tuple[float, float]]:
    """Name four corners (any order) a1, h1, h8, a8 for White sitting at ``white_side`` of the image."""
    if white_side not in WHITE_SIDES:
        raise CornerError(f"white side {white_side!r}: expected one of {', '.join(WHITE_SIDES)}")
    tl, tr, br, bl = order_clockwise(points)
    ccw_from_bottom_left = [bl, br, tr, tl]  # a1 h1 h8 a8 for White at the bottom
    k = WHITE_SIDES.index(white_side)
    named = ccw_from_bottom_left[k:] + ccw_from_bottom_left[:k]
    return {n: (float(p[0]), float(p[1])) for n, p in zip(CORNER_NAMES, named, strict=True)}


def white_side_of(corners: dict[str, tuple[float, float]]) -> str:
    """Which image side the a1–h1 edge (White's side) is nearest to."""
    mid = (np.array(corners["a1"]) + np.array(corners["h1"])) / 2 - np.mean(
        [corners[k] for k in CORNER_NAMES], axis=0)
    if abs(mid[1]) >= abs(mid[0]):
        return "bottom" if mid[1] > 0 else "top"
    return "right" if mid[0] > 0 else "left"


def parse_corners(text: str, image_size: tuple[int, int] | None = None) -> np.ndarray:
    """``"x1,y1 x2,y2 x3,y3 x4,y4"`` (commas/spaces/semicolons) → (4, 2) array, checked for sanity."""
    parts = text.replace(";", " ").replace(",", " ").split()
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise CornerError(f"corners {text!r}: expected eight numbers, e.g. \"102,388 540,380 500,80 140,82\"") \
            from None
    if len(values) != 8:
        raise CornerError(f"corners {text!r}: expected eight numbers (x,y of four corners), got {len(values)}")
    pts = np.array(values, np.float64).reshape(4, 2)
    check_quad(pts, image_size)
    return pts


def check_quad(points: np.ndarray, image_size: tuple[int, int] | None = None) -> None:
    """CornerError unless the four points form a convex quadrilateral of reasonable size."""
    pts = order_clockwise(points)
    if image_size is not None:
        w, h = image_size
        outside = [f"({x:g}, {y:g})" for x, y in pts if not (-0.05 * w <= x <= 1.05 * w and -0.05 * h <= y <= 1.05 * h)]
        if outside:
            raise CornerError(f"corner {', '.join(outside)} lies outside the {w}x{h} picture")
    cross = []
    for i in range(4):
        a, b, c = pts[i], pts[(i + 1) % 4], pts[(i + 2) % 4]
        cross.append((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]))
    if not (all(v > 0 for v in cross) or all(v < 0 for v in cross)):
        raise CornerError("the four corners do not form a convex board outline (two are swapped or in line)")
    area = abs(cv2.contourArea(pts.astype(np.float32)))
    if area < 64 * 16:
        raise CornerError(f"the outline is only {area:.0f} px²: a board needs at least 4 px per square")


def homography_to_top(corners: dict[str, tuple[float, float]], square: int = TOP_SQUARE) -> np.ndarray:
    """Image → top view with White at the bottom: a1 square at the bottom-left, ``square`` px each."""
    n = 8 * square
    src = np.array([corners[k] for k in CORNER_NAMES], np.float32)
    dst = np.array([(0, n), (n, n), (n, 0), (0, 0)], np.float32)
    return cv2.getPerspectiveTransform(src, dst)


def top_view(frame: np.ndarray, corners: dict[str, tuple[float, float]], square: int = TOP_SQUARE) -> np.ndarray:
    """The playing area rectified, White at the bottom."""
    return cv2.warpPerspective(frame, homography_to_top(corners, square), (8 * square, 8 * square),
                               flags=cv2.INTER_AREA)


def grid_lines(corners: dict[str, tuple[float, float]], steps: int = 8) -> list[list[tuple[float, float]]]:
    """The 9 + 9 grid lines in image pixels (end points), for drawing the grid on the live image."""
    inv = np.linalg.inv(homography_to_top(corners, 1))
    lines = []
    for i in range(steps + 1):
        for seg in (((i, 0), (i, 8)), ((0, i), (8, i))):
            pts = cv2.perspectiveTransform(np.array([seg], np.float64), inv)[0]
            lines.append([(float(x), float(y)) for x, y in pts])
    return lines


def square_means(top: np.ndarray, square: int = TOP_SQUARE, inset: float = 0.3) -> np.ndarray:
    """Mean BGR of the centre of each of the 64 squares, indexed [rank][file] (rank 0 = rank 1)."""
    out = np.zeros((8, 8, top.shape[2] if top.ndim == 3 else 1))
    pad = int(square * inset)
    for r in range(8):
        for f in range(8):
            y = (7 - r) * square
            x = f * square
            patch = top[y + pad:y + square - pad, x + pad:x + square - pad]
            out[r, f] = patch.reshape(-1, out.shape[2]).mean(axis=0)
    return out


@dataclass
class OrientationReport:
    """What the start position says about the corner names (all brightness in 0–255 grey levels)."""

    white_side: str
    corners: dict[str, tuple[float, float]]
    rule_ok: bool  # čl. 2.4: the square at each player's left is dark
    piece_contrast: float  # mean grey of ranks 1–3 minus ranks 6–8 (light pieces − dark pieces)
    square_contrast: float  # light minus dark empty squares on ranks 4–5

    def message(self) -> str:
        if self.rule_ok:
            return f"White sits at the {self.white_side} of the picture; a dark square is at each player's left"
        return ("the board is turned a quarter: the corner square at White's left is light. Turn the board "
                "90 degrees so each player has a dark square at the left (čl. 2.4), keep the pieces on "
                "the dark squares")


def _grey(frame: np.ndarray) -> np.ndarray:
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def _rank_means(grey: np.ndarray, corners: dict[str, tuple[float, float]]) -> np.ndarray:
    return square_means(top_view(grey[..., None], corners))[..., 0]


def rule_2_4(frame: np.ndarray, corners: dict[str, tuple[float, float]]) -> tuple[bool, float]:
    """čl. 2.4 on the start position: are the squares named dark on the empty ranks 4–5 darker?

    Returns (holds, light minus dark grey level).
    """
    means = _rank_means(_grey(frame), corners)[3:5]
    dark = np.array([[(f + r) % 2 == 0 for f in range(8)] for r in (3, 4)])
    contrast = float(means[~dark].mean() - means[dark].mean())
    return contrast > 0, contrast


def start_score(frame: np.ndarray, corners: dict[str, tuple[float, float]]) -> float:
    """How much ranks 1–3 look like White's pieces: about 1 on the start position, about 0 on an empty
    board (dark squares of ranks 1–3 minus those of the empty ranks 4–5, over the light/dark contrast)."""
    means = _rank_means(_grey(frame), corners)
    dark = np.add.outer(np.arange(8), np.arange(8)) % 2 == 0  # [rank][file]
    rank = np.arange(8)[:, None].repeat(8, axis=1)
    empty_dark = float(means[dark & ((rank == 3) | (rank == 4))].mean())
    pieces = float(means[dark & (rank < 3)].mean())
    light = float(means[~dark].mean())
    return (pieces - empty_dark) / max(1.0, abs(light - empty_dark))


def orient_from_start(frame: np.ndarray, points: np.ndarray) -> OrientationReport:
    """Find White's side and check čl. 2.4 on a frame showing the start position.

    Of the four ways to name the corners, White's side is the one with the light pieces on ranks
    1–3; the rule holds when, on the empty ranks 4–5, the squares named dark really are darker.
    """
    grey = _grey(frame)
    best: tuple[float, str, dict] | None = None
    for side in WHITE_SIDES:
        corners = label_corners(points, side)
        means = _rank_means(grey, corners)
        contrast = float(means[0:3].mean() - means[5:8].mean())
        if best is None or contrast > best[0]:
            best = (contrast, side, corners)
    assert best is not None
    contrast, side, corners = best
    ok, square_contrast = rule_2_4(grey, corners)
    return OrientationReport(white_side=white_side_of(corners), corners=corners, rule_ok=ok,
                             piece_contrast=contrast, square_contrast=square_contrast)


def board_calibration(corners: dict[str, tuple[float, float]], source: str,
                      image_size: tuple[int, int] | None, fixed: bool | None = None) -> BoardCalibration:
    """The profile's ``board`` section for named corners.

    ``fixed`` (default: corners given by hand) makes the recognizer use them as its grid; automatic
    corners are left to the recognizer, which then follows a camera that is bumped during the game.
    """
    return BoardCalibration(corners=dict(corners), white_side=white_side_of(corners), source=source,
                            image_size=image_size, fixed=source == "manual" if fixed is None else fixed)


def corner_error(found: dict[str, tuple[float, float]], truth: dict[str, tuple[float, float]]) -> float:
    """Largest distance in pixels between two sets of named corners."""
    return max(float(np.hypot(found[k][0] - truth[k][0], found[k][1] - truth[k][1])) for k in CORNER_NAMES)
