"""A calibrated lens tells the pipeline where the camera stands (vision/viewpoint.py, vision/pipeline.py)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.pipeline import VisionPipeline


def _centre_shift(vp: VisionPipeline, params, scale: float = 1.0) -> tuple[float, float]:
    """(the pipeline's, the camera's) top-view shift per unit height at the board's middle, in squares.
    The middle is the same lattice point whichever way the pipeline turned the board."""
    from vision.viewpoint import viewpoint

    size = (round(params.camera.size[0] * scale), round(params.camera.size[1] * scale))
    g = params.geometry
    cx, cy = g.center_mm
    lift = 0.02 * g.square_mm
    img = params.camera.project(np.array([[cx, cy, 0.0], [cx, cy, lift]])).reshape(-1, 1, 2) * scale
    lat = cv2.perspectiveTransform(img, np.linalg.inv(vp._fit.h)).reshape(-1, 2)
    want = float(np.linalg.norm(lat[1] - lat[0]) / 0.02)
    got = float(np.linalg.norm(viewpoint(vp._fit.h, size, vp._camera_matrix(size)).shift(lat[:1])))
    return got, want


@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_a_square_on_view_gets_its_shift_from_the_calibrated_lens(get_bench_draw, scale):
    """Scene 56 of `dama bench vision` (seed 1): the camera tilted 2.3°, a long lens (1.19 of the picture's
    width), so the lattice shows hardly any perspective and the webcam prior guesses a shorter lens: the
    shift a piece's height makes comes out 40 % too large. With the profile's camera matrix (also for
    frames of half the calibrated size) it is within a tenth of the camera's own."""
    from vision.bench import render_bench_scene

    _, params, board, hand, mirrored = draw = get_bench_draw(1, 56)
    sc = render_bench_scene(*draw)
    image = sc.image if scale == 1.0 else cv2.resize(sc.image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    k = params.camera.K.copy()
    if mirrored:  # the picture is shown mirrored: its principal point too
        k[0, 2] = params.camera.size[0] - 1 - k[0, 2]
    camera = {"size": list(params.camera.size), "K": k.tolist()}
    vp = VisionPipeline(profile={"camera": camera})
    assert vp.process(image).found
    got, want = _centre_shift(vp, params, scale)
    assert abs(got / want - 1) < 0.12, (got, want)  # what remains: the fitted lattice's own slant, 2.3° ± noise
    guessed = VisionPipeline()
    assert guessed.process(image).found
    got, want = _centre_shift(guessed, params, scale)
    assert got / want > 1.25, (got, want)


@pytest.mark.parametrize("camera", [{"size": [1280, 720]}, {"size": [0, 720], "K": np.eye(3).tolist()},
                                    {"size": [1280, 720], "K": [[1, 0], [0, 1]]}, "wide"])
def test_a_damaged_camera_in_the_profile_is_refused_with_the_reason(camera):
    with pytest.raises(ValueError, match="profile camera"):
        VisionPipeline(profile={"camera": camera})


def test_the_calibration_profile_hands_its_lens_to_the_pipeline():
    from calibration.profile import CameraIntrinsics, Profile
    from calibration.vision_adapter import pipeline_profile

    k = [[900.0, 0.0, 640.0], [0.0, 905.0, 360.0], [0.0, 0.0, 1.0]]
    data = pipeline_profile(Profile(name="cam", camera=CameraIntrinsics((1280, 720), k, [0.1, 0, 0, 0, 0])))
    assert data["camera"] == {"size": [1280, 720], "K": k}
    vp = VisionPipeline(profile=data)
    assert np.allclose(vp._camera_matrix((640, 360)), [[450.0, 0, 320.0], [0, 452.5, 180.0], [0, 0, 1]])
    assert "camera" not in pipeline_profile(Profile(name="none"))
