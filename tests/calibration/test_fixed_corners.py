"""Corners set by the user are the recognizer's grid: the reading follows them, a moved board is reported."""

from __future__ import annotations

import json

import numpy as np
import pytest

import vision.pipeline as pipeline_module
from calibration.board import board_calibration
from calibration.profile import Profile, load_profile
from calibration.vision_adapter import pipeline_profile
from vision.localize import BoardFit, NotFound
from vision.pipeline import VisionPipeline
from vision.render import random_scene_params, render_scene

START = "wwwwwwwwwwww........bbbbbbbbbbbb"
LATER = "wwwwwwwwwww.w.......bbbbbbbbbbbb"  # g3-f4 ... a move away from the start, White's side


def _scene(seed: int):
    params = random_scene_params(np.random.default_rng(seed), size=(640, 480), tilt_max=35.0, fill=(0.6, 0.8))
    return params, render_scene(START, params, seed=0)


def _pipeline(corners: dict, fixed: bool) -> VisionPipeline:
    profile = Profile(name="t", board=board_calibration(corners, "manual", (640, 480), fixed=fixed))
    # the colour reader: this test is about the grid, not about which square reader runs on it
    vp = VisionPipeline(pipeline_profile(profile), squares="colour")
    return vp


def _shifted_fit(corners: dict) -> BoardFit:
    """A wrong localization: the true grid moved one square along both axes (same colour parity)."""
    import cv2

    src = np.float32([[0, 0], [8, 0], [8, 8], [0, 8]])
    h = cv2.getPerspectiveTransform(src, np.float32([corners[k] for k in ("a1", "h1", "h8", "a8")]))
    shift = np.array([[1, 0, 1], [0, 1, 1], [0, 0, 1]], np.float64)
    return BoardFit(h=h @ shift, bright_parity=1, inliers=40, contrast=80.0)


@pytest.mark.parametrize("seed", [1, 5])
@pytest.mark.parametrize("auto", ["absent", "wrong"])
def test_reading_follows_the_given_corners_when_localization_fails(monkeypatch, seed, auto):
    params, first = _scene(seed)
    later = render_scene(LATER, params, seed=1)
    fixed = _pipeline(first.corners, fixed=True)
    assert fixed.learn_start_position(first.image)["ok"]

    def broken(frame):
        if auto == "absent":
            raise NotFound("no checkerboard found")
        return _shifted_fit(first.corners)

    monkeypatch.setattr(pipeline_module, "localize_frame", broken)
    fixed.reset_tracking()
    res = fixed.process(later.image)
    assert res.found and res.board == LATER
    assert all(np.allclose(res.corners[k], first.corners[k], atol=1e-6) for k in first.corners)

    hint_only = _pipeline(first.corners, fixed=False)
    res = hint_only.process(later.image)
    assert not res.found or res.board != LATER  # the auto path is at the mercy of the broken localizer


def test_bumped_camera_is_reported_not_read(seed: int = 3):
    params, first = _scene(seed)
    fixed = _pipeline(first.corners, fixed=True)
    assert fixed.process(first.image).found
    square = float(np.hypot(*np.subtract(first.corners["h1"], first.corners["a1"]))) / 8
    turn = float(np.degrees(np.arctan(0.5 * square / params.camera.K[0, 0])))  # half a square sideways
    bumped = render_scene(START, params, seed=2, camera_rotation=(0.0, turn, 0.0))
    res = fixed.process(bumped.image)
    assert not res.found
    assert "moved" in res.reason


def test_hand_corners_from_a_version_1_profile_become_fixed(tmp_path):
    corners = {"a1": [100.0, 400.0], "h1": [540.0, 400.0], "h8": [500.0, 80.0], "a8": [140.0, 80.0]}
    for source, fixed in (("manual", True), ("auto", False)):
        path = tmp_path / f"{source}.json"
        path.write_text(json.dumps({"version": 1, "board": {"corners": corners, "source": source}}))
        profile = load_profile(path)
        assert profile.board is not None and profile.board.fixed is fixed
        assert pipeline_profile(profile)["fixed_corners"] is fixed
