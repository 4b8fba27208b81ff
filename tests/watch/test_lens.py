"""A profile with calibrated intrinsics straightens every frame before vision reads it (issue 5 item 1)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.profile import CameraIntrinsics, Profile, save_profile
from dama.watch import UndistortedVision, WatchError, real_vision
from vision.render import random_scene_params, render_scene

START = "wwwwwwwwwwww........bbbbbbbbbbbb"


def distorted_scene(seed: int):
    """A wide-angle view: strong barrel distortion, the board filling much of the frame."""
    rng = np.random.default_rng(seed)
    params = random_scene_params(rng, size=(960, 540), tilt_max=25.0, fill=(0.6, 0.8), distortion=True)
    params.camera.dist[:] = [-0.32, 0.12, 0.0, 0.0, 0.0]
    return params, render_scene(START, params, seed=seed)


def straight(points, camera):
    """Where distorted image points lie in the undistorted image (same camera matrix)."""
    pts = np.array(points, np.float64).reshape(-1, 1, 2)
    return cv2.undistortPoints(pts, camera.K, camera.dist, P=camera.K).reshape(-1, 2)


def test_profile_with_a_lens_makes_vision_read_the_straightened_frame(tmp_path):
    params, rendered = distorted_scene(7)
    cam = params.camera
    profile = Profile(name="wide", camera=CameraIntrinsics(cam.size, cam.K.tolist(), cam.dist.tolist()))
    path = save_profile(profile, tmp_path / "wide.json")

    vision = real_vision(str(path))
    assert isinstance(vision, UndistortedVision)
    result = vision.process(rendered.image, 0.0)
    assert result.found, result.reason
    truth = straight([rendered.corners[k] for k in ("a1", "h1", "h8", "a8")], cam)
    found = np.array([result.corners[k] for k in ("a1", "h1", "h8", "a8")], np.float64)
    # corners are named from the pieces; compare as a set of points, each to its nearest truth
    errors = [np.min(np.linalg.norm(truth - p, axis=1)) for p in found]
    assert max(errors) < 3.0, errors
    overlay = vision.draw_overlay(rendered.image, result, highlight=["d4"])
    assert overlay.shape == rendered.image.shape


def test_profile_without_a_lens_uses_the_frames_as_they_are(tmp_path):
    path = save_profile(Profile(name="plain"), tmp_path / "plain.json")
    assert not isinstance(real_vision(str(path)), UndistortedVision)


def test_broken_profile_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(WatchError, match="bad.json"):
        real_vision(str(bad))


def test_dashboard_can_reload_a_saved_profile_without_touching_the_game(tmp_path):
    from dama.bus import EventBus
    from dama.companion import BoardSession, Companion
    from vision.stabilizer import Stabilizer

    params, _ = distorted_scene(3)
    cam = params.camera
    path = save_profile(Profile(name="wide", camera=CameraIntrinsics(cam.size, cam.K.tolist(), cam.dist.tolist())),
                        tmp_path / "wide.json")
    companion = Companion(EventBus())
    events = companion.subscribe()
    session = companion.add(BoardSession("b1", companion.bus, vision=real_vision(None), stabilizer=Stabilizer(),
                                         vision_loader=real_vision))
    fen = session.referee.position.fen()
    assert companion.control("b1", "reload_profile", path=str(path))["ok"]
    assert isinstance(session.vision, UndistortedVision)
    notices = [e for e in iter(lambda: events.get(0.5), None) if e.get("event") == "notice"]
    assert notices and str(path) in notices[0]["message"]
    before = session.vision
    with pytest.raises(ValueError, match="missing.json"):
        companion.control("b1", "reload_profile", path=str(tmp_path / "missing.json"))
    assert session.vision is before and session.referee.position.fen() == fen
    companion.close()
