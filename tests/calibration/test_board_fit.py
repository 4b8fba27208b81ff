"""Edge-based corner refinement on rendered start positions: it pulls rough corners onto the render's."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.board import corner_error
from calibration.board_fit import refine_corners
from calibration.colours import START
from vision.render import random_scene_params, render_scene

NAMES = ("a1", "h1", "h8", "a8")


def _scene(seed: int):
    params = random_scene_params(np.random.default_rng(seed), size=(640, 480), tilt_max=35.0, fill=(0.6, 0.8))
    frames = [render_scene(START, params, seed=i) for i in range(3)]
    still = np.median(np.stack([f.image for f in frames]), axis=0).astype(np.uint8)
    return still, frames[0].corners


@pytest.mark.parametrize("seed", [3, 11])
def test_rough_corners_are_pulled_onto_the_board(seed):
    still, truth = _scene(seed)
    rng = np.random.default_rng(seed)
    rough = np.array([truth[k] for k in NAMES]) + rng.uniform(-3.0, 3.0, (4, 2))
    start_error = corner_error(dict(zip(NAMES, map(tuple, rough), strict=True)), truth)
    fit = refine_corners(still, rough)
    assert fit is not None
    found = dict(zip(NAMES, map(tuple, fit.points), strict=True))
    assert start_error > 1.5
    assert corner_error(found, truth) < 1.0
    assert fit.used > 300  # edges from the whole board, not a handful


def test_corners_keep_their_order():
    still, truth = _scene(3)
    rough = np.array([truth[k] for k in ("h8", "a8", "a1", "h1")])  # any consistent order
    fit = refine_corners(still, rough)
    assert fit is not None
    assert np.max(np.linalg.norm(fit.points - rough, axis=1)) < 2.0


def test_no_board_gives_none():
    rng = np.random.default_rng(0)
    noise = rng.integers(90, 110, (480, 640, 3), dtype=np.uint8)
    quad = np.array([(100, 400), (500, 400), (450, 80), (150, 80)], np.float64)
    assert refine_corners(noise, quad) is None
