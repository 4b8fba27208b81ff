"""Height strips (vision/heights.py): samples of the picture along each square's direction away from the camera."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.classify import dark_cells
from vision.heights import ACROSS, ALONG, N_STRIP, height_strips, strip_maps
from vision.render import random_scene_params
from vision.viewpoint import viewpoint

LATTICE = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], dtype=np.float32)


def _tilted(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Homography, dark-cell centres and their shift per unit height of a rendered camera pose."""
    params = random_scene_params(np.random.default_rng(300 + seed), size=(1280, 720), tilt_max=50.0)
    corners = params.camera.project(params.geometry.playing_corners3d()[:4]).astype(np.float32)
    h = cv2.getPerspectiveTransform(LATTICE, corners)
    centres = dark_cells(1) + 0.5
    return h, centres, viewpoint(h, (1280, 720)).shift(centres)


@pytest.mark.parametrize("seed", range(4))
def test_strip_runs_from_each_square_away_from_the_camera(seed):
    """A bright mark where a point above a square lands (the top of a stack) is found at its distance along."""
    h, centres, shift = _tilted(seed)
    maps = strip_maps(h, centres, shift)
    assert maps[0].shape[:2] == (32 * len(ACROSS), len(ALONG))
    rng = np.random.default_rng(seed)
    k = int(rng.integers(32))
    d = float(rng.uniform(0.2, 1.1))  # squares away from the camera, as a king's top under a steep camera
    e = shift[k] / np.linalg.norm(shift[k])
    x, y = cv2.perspectiveTransform((centres[k] + d * e).reshape(1, 1, 2), h)[0, 0]
    frame = np.full((720, 1280, 3), 40, np.uint8)
    side = np.linalg.norm(h[:2, 0])  # about a square's size in pixels
    cv2.circle(frame, (int(round(x)), int(round(y))), max(2, int(0.06 * side)), (250, 250, 250), -1)
    strips = height_strips(frame, maps).reshape(32, len(ACROSS), len(ALONG))
    middle = strips[k, len(ACROSS) // 2 - 1:len(ACROSS) // 2 + 1].mean(axis=0)
    step = ALONG[1] - ALONG[0]
    bright = middle > 0.5 * (middle.max() + middle.min())  # the mark spans a few samples: its middle
    assert abs(float(ALONG[bright].mean()) - d) <= 1.5 * step
    # across the direction the mark lies in the middle of the strip, not at its sides
    assert max(strips[k, 0].max(), strips[k, -1].max()) < middle.max() - 20


def test_strips_are_lightness_of_the_picture():
    h, centres, shift = _tilted(0)
    maps = strip_maps(h, centres, shift)
    grey = height_strips(np.full((720, 1280, 3), 128, np.uint8), maps)
    assert grey.shape == (32, N_STRIP)
    lab = float(cv2.cvtColor(np.full((1, 1, 3), 128, np.uint8), cv2.COLOR_BGR2Lab)[0, 0, 0]) * 100 / 255
    assert np.allclose(grey, lab, atol=0.5)
    # a grey frame gives the same strips as its BGR copy (the pipeline may pass either)
    assert np.allclose(height_strips(np.full((720, 1280), 128, np.uint8), maps), grey)


def test_straight_below_the_camera_a_strip_still_has_a_direction():
    h, centres, _ = _tilted(1)
    maps = strip_maps(h, centres, np.zeros((32, 2)))
    assert np.isfinite(maps[0]).all() and np.isfinite(maps[1]).all()
