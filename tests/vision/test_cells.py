"""Per-cell statistics of the top view (vision/cells.py) on a rendered scene."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cells import CELL, features, warp_lattice, warp_square
from vision.geometry import FILES_RANKS, files_ranks_homography

LIGHT_ONLY = ("inner", "spread")
DARK_ONLY = ("corner", "corners4", "texture", "ring")


@pytest.mark.parametrize("parity", [0, 1])
def test_statistics_of_one_parity_are_those_of_all_cells_where_they_are_used(get_scene, parity):
    """Given which cells are light, each statistic is computed only on the cells that use it, with the same
    numbers as for all 64 cells, and NaN elsewhere (so a caller that reads the wrong cells sees NaN)."""
    sc = get_scene(4)
    top = warp_lattice(sc.image, files_ranks_homography(sc.corners, FILES_RANKS))
    every, some = features(top), features(top, parity)
    light = (np.add.outer(np.arange(8), np.arange(8)) % 2) == parity
    assert np.array_equal(every.centre, some.centre) and np.array_equal(every.lab, some.lab)
    for name in LIGHT_ONLY + DARK_ONLY:
        used = light if name in LIGHT_ONLY else ~light
        a, b = getattr(every, name), getattr(some, name)
        assert a.shape == b.shape and a.dtype == b.dtype, name
        assert np.isfinite(a[used]).all() and np.array_equal(a[used], b[used]), name
        assert np.isnan(b[~used]).all(), name


@pytest.mark.parametrize("size", [8 * CELL, 90])
def test_warp_square_is_the_inverse_perspective_warp(get_scene, size):
    """The cached-map warp reads what cv2.warpPerspective reads (within the 1/32 px both round to), at the
    board and beyond the frame's edge (replicated), and a second frame of the same homography reads its own
    pixels, not the first frame's."""
    sc = get_scene(4)
    h = files_ranks_homography(sc.corners, FILES_RANKS)
    m = h @ np.array([[8.0 / size * 1.25, 0.0, -1.0], [0.0, 8.0 / size * 1.25, -1.0], [0.0, 0.0, 1.0]])
    want = cv2.warpPerspective(sc.image, m, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    got = warp_square(sc.image, m, size)
    assert got.shape == want.shape and got.dtype == want.dtype
    diff = np.abs(got.astype(int) - want)
    assert diff.max() <= 3 and diff.mean() < 0.5
    other = 255 - sc.image
    assert np.abs(warp_square(other, m, size).astype(int) - (255 - got)).max() <= 1  # rounding of 0.5


def test_warp_square_of_a_degenerate_matrix_is_an_image_not_an_error(get_scene):
    """A matrix that sends a row of the view to infinity (w = 0 there) still gives a view, no warning."""
    sc = get_scene(4)
    m = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, -10.0]])  # w = 0 on row 10
    with np.errstate(all="raise"):
        out = warp_square(sc.image, m, 20)
    assert out.shape == (20, 20, 3) and out.dtype == np.uint8
