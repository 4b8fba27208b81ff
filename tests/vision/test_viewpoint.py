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
