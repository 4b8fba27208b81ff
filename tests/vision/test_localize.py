"""Stage 1 alone: the outer corners of the playing area on rendered scenes with known corners."""

from __future__ import annotations

import numpy as np
import pytest

from vision.localize import NotFound, localize, to_gray

CORNERS = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], dtype=np.float64)


def _image_corners(fit) -> np.ndarray:
    ph = CORNERS @ fit.h[:, :2].T + fit.h[:, 2]
    return ph[:, :2] / ph[:, 2:3]


def _corner_errors(found: np.ndarray, truth: dict) -> np.ndarray:
    """Distances after matching the lattice corners to the true ones (orientation is stage 2)."""
    t = np.array([truth[k] for k in ("a1", "h1", "h8", "a8")])
    cands = [np.roll(f, r, axis=0) for f in (found, found[::-1]) for r in range(4)]
    best = min(cands, key=lambda f: np.linalg.norm(f - t, axis=1).sum())
    return np.linalg.norm(best - t, axis=1)


@pytest.mark.parametrize("seed", [0, 1, 3, 6, 8])
def test_corners_within_two_pixels(get_scene, seed):
    sc = get_scene(seed)
    fit = localize(to_gray(sc.image))
    err = _corner_errors(_image_corners(fit), sc.corners)
    assert err.max() < 2.0, (seed, err)


def test_start_position_corners(get_scene):
    # Six full ranks of pieces hide many squares; the light squares and X-corners still place the window.
    sc = get_scene(2)
    fit = localize(to_gray(sc.start_image))
    assert _corner_errors(_image_corners(fit), sc.corners).max() < 2.0


def test_light_parity_is_the_brighter_one(get_scene):
    sc = get_scene(4)
    fit = localize(to_gray(sc.image))
    assert fit.contrast > 20
    assert fit.inliers >= 20


@pytest.mark.parametrize("what", ["black", "noise", "half"])
def test_no_board(get_scene, what):
    sc = get_scene(5)
    rng = np.random.default_rng(0)
    if what == "black":
        img = np.zeros((360, 640), np.uint8)
    elif what == "noise":
        img = rng.integers(0, 255, (360, 640), dtype=np.uint8)
    else:
        # Keep the half of the frame with the a1 corner and blank the rest: the board is cut.
        g = to_gray(sc.image).copy()
        xs = [c[0] for c in sc.corners.values()]
        cut = int((min(xs) + max(xs)) / 2)
        g[:, cut:] = 0
        img = g
    with pytest.raises(NotFound):
        localize(img)
