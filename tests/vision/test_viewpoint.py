"""The camera's foot and height recovered from the board's homography (vision/viewpoint.py)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.render import random_scene_params
from vision.render.view import View
from vision.viewpoint import focal_from_homography, viewpoint

LATTICE = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], dtype=np.float32)


def _truth(params):
    """Camera centre in lattice units (u along a1→h1, v along a1→a8, height along the normal)."""
    a1, h1, _, a8 = params.geometry.playing_corners3d()[:4]
    ex, ey = (h1 - a1) / 8, (a8 - a1) / 8
    n = np.cross(ex, ey)
    n /= np.linalg.norm(n)
    loc = np.linalg.solve(np.column_stack([ex, ey, n]), View(params.camera).centre - a1)
    return loc[:2], abs(loc[2]) / np.linalg.norm(ex)


@pytest.mark.parametrize("seed", range(6))
def test_recovers_the_camera_of_rendered_scenes(seed):
    params = random_scene_params(np.random.default_rng(100 + seed), size=(1280, 720), tilt_max=50.0)
    corners = params.camera.project(params.geometry.playing_corners3d()[:4]).astype(np.float32)
    h = cv2.getPerspectiveTransform(LATTICE, corners)
    vp = viewpoint(h, (1280, 720))
    nadir, height = _truth(params)
    centre = np.array([4.0, 4.0])
    # what the pipeline uses: the shift per unit height at the board's middle (squares per square)
    want = (centre - nadir) / height
    got = vp.shift(centre[None])[0]
    assert np.linalg.norm(got - want) < 0.05 + 0.1 * np.linalg.norm(want), (got, want, params.tilt_deg)


def test_square_on_view_has_no_focal_and_no_shift():
    f = 900.0
    k = np.array([[f, 0, 639.5], [0, f, 359.5], [0, 0, 1]])
    # camera 40 squares straight above the board's middle, looking down
    h = k @ np.array([[1.0, 0, -4.0], [0, 1.0, -4.0], [0, 0, 40.0]])
    assert focal_from_homography(h, (1280, 720)) is None
    vp = viewpoint(h, (1280, 720))
    assert np.allclose(vp.shift(np.array([[4.0, 4.0]])), 0.0, atol=1e-6)
    # the height is then known only up to the guessed focal length: the direction is right, the size
    # within the spread of webcam lenses
    edge = vp.shift(np.array([[8.0, 4.0]]))[0]
    assert edge[0] > 0 and abs(edge[1]) < 1e-6 and 0.05 < edge[0] < 0.2


def _board_homography(params, noise_px: float = 0.0, rng=None):
    """Lattice → picture homography of a scene's playing area, its corners moved by up to ``noise_px``."""
    corners = params.camera.project(params.geometry.playing_corners3d()[:4]).astype(np.float64)
    if noise_px:
        corners = corners + rng.uniform(-noise_px, noise_px, corners.shape)
    return cv2.getPerspectiveTransform(LATTICE, corners.astype(np.float32))


def _square_on_scenes(n: int):
    """Scenes of cameras tilted under 5°, the board anywhere in the picture (often at its edge)."""
    rng = np.random.default_rng(7)
    out = []
    while len(out) < n:
        params = random_scene_params(rng, size=(1280, 720), tilt_max=5.0, fill=(0.33, 0.6))
        out.append(params)
    return out


def test_a_square_on_view_keeps_a_webcam_lens_where_the_homography_says_little():
    """A square-on view leaves the focal length to the board's faint perspective: with the corners a
    fraction of a pixel off (as a fitted lattice's are), solving for it alone strays far from the lens;
    weighed against the webcam prior, the shift a piece's height makes stays within the lenses' spread."""
    from vision.viewpoint import likely_focal

    rng = np.random.default_rng(3)
    solved, likely = [], []
    for params in _square_on_scenes(40):
        h = _board_homography(params, 0.4, rng)
        f_true = params.camera.K[0, 0]
        f = focal_from_homography(h, (1280, 720))
        solved.append(abs(np.log(f / f_true)) if f else np.inf)
        likely.append(abs(np.log(likely_focal(h, (1280, 720)) / f_true)))
    solved, likely = np.array(solved), np.array(likely)
    assert likely.max() < np.log(1.7), likely.max()  # lenses of 45–70° across, the prior at 58°
    assert np.median(likely) < np.median(solved)
    assert (solved > np.log(1.7)).sum() >= 5  # what the prior is for


@pytest.mark.parametrize("seed", range(4))
def test_a_steep_view_fixes_the_focal_length_whatever_the_prior(seed):
    """Tilted 25° or more, the lattice alone fixes the lens (to the principal point's few pixels off the
    picture's centre, which the model does not know)."""
    from vision.viewpoint import likely_focal

    rng = np.random.default_rng(200 + seed)
    params = random_scene_params(rng, size=(1280, 720), tilt_max=50.0)
    while params.tilt_deg < 25:
        params = random_scene_params(rng, size=(1280, 720), tilt_max=50.0)
    f = likely_focal(_board_homography(params), (1280, 720))
    assert abs(f / params.camera.K[0, 0] - 1) < 0.06, (f, params.camera.K[0, 0], params.tilt_deg)


@pytest.mark.parametrize("params", _square_on_scenes(3) + [random_scene_params(np.random.default_rng(5))])
def test_a_calibrated_camera_gives_the_camera_itself(params):
    """With the lens's camera matrix the camera's foot and height are the scene's, square-on or not."""
    vp = viewpoint(_board_homography(params), (1280, 720), params.camera.K)
    nadir, height = _truth(params)
    assert np.allclose(vp.nadir, nadir, atol=0.02) and abs(vp.height / height - 1) < 0.01, (vp, nadir, height)


def test_the_solved_focal_length_stands_where_it_is_steady_and_the_likeliest_elsewhere():
    """`uncalibrated_focal`: a steep view's own solution (what the networks were trained with); a square-on
    view's, which half a pixel moves by more than a fifth, gives way to the likeliest webcam lens."""
    from vision.viewpoint import likely_focal, solved_focal_is_steady, uncalibrated_focal

    rng = np.random.default_rng(9)
    steep = random_scene_params(rng, size=(1280, 720), tilt_max=50.0)
    while steep.tilt_deg < 30:
        steep = random_scene_params(rng, size=(1280, 720), tilt_max=50.0)
    h = _board_homography(steep)
    solved = focal_from_homography(h, (1280, 720))
    assert solved_focal_is_steady(h, (1280, 720), solved)
    assert uncalibrated_focal(h, (1280, 720)) == solved
    unsteady = 0
    for params in _square_on_scenes(12):
        h = _board_homography(params, 0.4, rng)
        solved = focal_from_homography(h, (1280, 720))
        if solved is None or not solved_focal_is_steady(h, (1280, 720), solved):
            unsteady += 1
            assert uncalibrated_focal(h, (1280, 720)) == likely_focal(h, (1280, 720))
    assert unsteady >= 6
