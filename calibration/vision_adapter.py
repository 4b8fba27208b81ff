"""The few things calibration asks of ``vision``, in one place so a change there is a change here only.

- :func:`find_board_points`: the four outer corners of the playing area in a frame (unnamed; naming is
  calibration's job, see :mod:`calibration.board`). Uses the vision pipeline when it exists, otherwise
  the localization stage directly.
- :func:`pipeline_result`: what the vision pipeline reads on a frame with a profile, so the pre-game
  check tests the very recognizer the game will use. ``None`` when the pipeline is not available.
- :func:`crown_verdict`: where that reading's camera shows a king's height, as the check says it.
- :func:`pipeline_profile`: the dict the vision pipeline is built from, taken from a calibration profile
  (the pipeline's own learned data, with the calibrated corners put in).
- :func:`colour_model` / :func:`set_colour_model`: the one colour model (vision's), as the profile
  stores it (``colours.vision.colour_model``).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from calibration.profile import CORNER_NAMES, Profile, ProfileError
from vision.classify import ColourModel


def _pipeline_class() -> Any | None:
    for module in ("vision.pipeline", "vision"):
        try:
            cls = getattr(importlib.import_module(module), "VisionPipeline", None)
        except ImportError:
            cls = None
        if cls is not None:
            return cls
    return None


def find_board_points(frame: np.ndarray) -> np.ndarray | None:
    """(4, 2) outer corners of the playing area, or None when no board is seen."""
    cls = _pipeline_class()
    if cls is not None:
        result = cls().process(frame, 0.0)
        if not getattr(result, "found", False) or not getattr(result, "corners", None):
            return None
        return np.array([result.corners[k] for k in CORNER_NAMES], np.float64)
    from vision.localize import NotFound, localize_frame

    try:
        fit = localize_frame(frame)
    except NotFound:
        return None
    uv = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], np.float64)
    ph = uv @ fit.h[:, :2].T + fit.h[:, 2]
    return ph[:, :2] / ph[:, 2:3]


def pipeline_profile(profile: Profile) -> dict[str, Any]:
    """The vision pipeline's profile dict: its own learned data with our corners.

    Fixed corners (set or confirmed by the user) are the pipeline's grid; otherwise they only tell it
    where a1 is (it keeps White's side by that point) and it finds the board itself in every frame.
    """
    data = dict(profile.colours.get("vision") or {})
    data.pop("fixed_corners", None)
    if profile.board is not None:
        data["corners"] = {k: list(profile.board.corners[k]) for k in CORNER_NAMES}
        data["fixed_corners"] = bool(profile.board.fixed)
        if profile.board.image_size:  # the pictures the corners were set in: another camera resolution scales them
            data["image_size"] = list(profile.board.image_size)
    if profile.camera is not None:  # the lens's focal length: how far a piece's top shifts (vision.viewpoint)
        data["camera"] = {"size": list(profile.camera.size), "K": [list(map(float, r)) for r in profile.camera.K]}
    else:
        data.pop("camera", None)
    return data


def learn_with_pipeline(frame: np.ndarray, profile: Profile) -> tuple[dict[str, Any] | None, str | None]:
    """Let the vision pipeline learn the start position: (its profile dict, None) on success,
    (None, reason) when it could not, (None, None) when there is no pipeline."""
    cls = _pipeline_class()
    if cls is None:
        return None, None
    pipeline = cls(pipeline_profile(profile))
    report = pipeline.learn_start_position(frame)
    if isinstance(report, dict) and not report.get("ok", True):
        return None, str(report.get("reason") or "unknown reason")
    return dict(pipeline.profile()), None


def pipeline_result(frame: np.ndarray, profile: Profile) -> Any | None:
    """What the vision pipeline reads on ``frame`` with this profile (its ``FrameResult``), or None without a
    pipeline or where it finds no board."""
    cls = _pipeline_class()
    if cls is None:
        return None
    result = cls(pipeline_profile(profile)).process(frame, 0.0)
    return result if getattr(result, "found", False) else None


def crown_verdict(result: Any | None) -> tuple[bool, str] | None:
    """Whether the camera shows kings' height on every dark square, and the line saying where it does
    (``vision.crown_view.verdict``), for a pipeline result; None without one."""
    px = getattr(result, "crown_px", None)
    if px is None:
        return None
    from vision.crown_view import KING_SHOWN_PX, verdict

    return bool(np.all(np.asarray(px) >= KING_SHOWN_PX)), verdict(px)


def colour_model(profile: Profile) -> ColourModel | None:
    """The profile's colour model (vision's, learned from the start position); None before learning.

    A damaged model is a :class:`ProfileError` telling the user to learn the colours again.
    """
    data = (profile.colours.get("vision") or {}).get("colour_model")
    if data is None:
        return None
    try:
        return ColourModel.from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise ProfileError(f"profile {profile.name}: its colour model is damaged ({exc}); "
                           "run dama calibrate colours") from None


def set_colour_model(profile: Profile, model: ColourModel) -> None:
    """Store ``model`` where the pipeline will find it (keeps the rest of the pipeline's data)."""
    vision = dict(profile.colours.get("vision") or {})
    vision["colour_model"] = model.to_json()
    profile.colours["vision"] = vision
