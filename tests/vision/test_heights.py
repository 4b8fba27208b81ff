"""Height strips (vision/heights.py): samples of the picture along each square's direction away from the camera."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.heights as heights
from vision.classify import dark_cells
from vision.heights import ACROSS, ALONG, N_STRIP, SUB_LINES, height_strips, strip_maps
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
    assert maps[0].shape[:2] == (32 * len(ACROSS) * SUB_LINES, len(ALONG))
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


def _large_board() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A board of about 75 px a square, straight on, every strip running the same way (its +x)."""
    h = cv2.getPerspectiveTransform(LATTICE, np.float32([[340, 60], [940, 60], [940, 660], [340, 660]]))
    return h, dark_cells(1) + 0.5, np.tile([0.05, 0.0], (32, 1))


def test_a_sample_averages_noise_across_the_strip(monkeypatch):
    """Sensor noise over a dark piece hides the faint edge of a dark king's second disc; each sample is the
    mean of SUB_LINES lines across the strip, so the noise in a strip is well under a single line's."""
    h, centres, shift = _large_board()
    rng = np.random.default_rng(5)
    frame = np.clip(60 + rng.normal(0, 12, (720, 1280, 3)), 0, 255).astype(np.uint8)
    averaged = height_strips(frame, strip_maps(h, centres, shift))
    monkeypatch.setattr(heights, "SUB_LINES", 1)
    monkeypatch.setattr(heights, "SUB_OFFSETS", np.zeros(1))
    single = heights.height_strips(frame, heights.strip_maps(h, centres, shift))
    assert SUB_LINES >= 2
    assert averaged.std() < 0.75 * single.std()
    assert abs(float(averaged.mean()) - float(single.mean())) < 0.5  # the same lightness, less noise


def test_averaging_across_keeps_an_edge_along_the_strip_sharp():
    """The lines are spread across the strip only: an edge square to it (a disc's rim, where a king's top
    ends) still changes from dark to light within two samples on every row."""
    h, centres, shift = _large_board()
    k = 9
    edge = centres[k, 0] + 0.41  # lattice x of the edge, between two samples
    quad = np.float32([[edge, -1], [9, -1], [9, 9], [edge, 9]]).reshape(-1, 1, 2)
    frame = np.full((720, 1280, 3), 30, np.uint8)
    cv2.fillConvexPoly(frame, np.round(cv2.perspectiveTransform(quad, h)[:, 0]).astype(np.int32), (230, 230, 230))
    strips = height_strips(frame, strip_maps(h, centres, shift)).reshape(32, len(ACROSS), len(ALONG))[k]
    lo, hi = strips.min(), strips.max()
    between = (strips > lo + 0.1 * (hi - lo)) & (strips < hi - 0.1 * (hi - lo))
    assert between.sum(axis=1).max() <= 2
    assert np.all(np.abs(ALONG[np.argmax(strips > 0.5 * (lo + hi), axis=1)] - 0.41) <= 0.05)
