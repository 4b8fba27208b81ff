"""Per-cell statistics of the top view (vision/cells.py) on a rendered scene."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cells import features, warp_lattice
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
