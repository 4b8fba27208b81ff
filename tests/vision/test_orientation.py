"""Stage 2 alone: which corner is a1, and is the board placed with a dark square on the left (čl. 2.4)?"""

from __future__ import annotations

import numpy as np
import pytest

from vision import orientation as orient
from vision.geometry import START_BOARD
from vision.pipeline import VisionPipeline


def _dist(a, b) -> float:
    return float(np.hypot(a[0] - b[0], a[1] - b[1]))


@pytest.mark.parametrize("seed", [2, 3, 5])
def test_start_position_tells_white_side(get_scene, seed):
    sc = get_scene(seed)
    res = VisionPipeline().process(sc.start_image)
    assert res.found
    assert res.orientation_ok is True
    assert _dist(res.corners["a1"], sc.corners["a1"]) < 2.0
    assert _dist(res.corners["h8"], sc.corners["h8"]) < 2.0


def test_mirrored_board_is_misplaced(get_scene):
    # A mirror image of a correctly placed board is a board with a light square in White's left corner.
    sc = get_scene(3)
    mirrored = np.ascontiguousarray(sc.start_image[:, ::-1])
    res = VisionPipeline().process(mirrored)
    assert res.found and res.orientation_ok is False
    w = sc.start_image.shape[1]
    h1 = sc.corners["h1"]
    assert _dist(res.corners["a1"], (w - 1 - h1[0], h1[1])) < 2.0
    # The men still read as the start position (files counted from White's right on such a board).
    assert res.board == START_BOARD


def test_empty_board_is_undecided(get_scene):
    from vision.render import render_scene

    sc = get_scene(4)
    empty = render_scene("." * 32, sc.params).image
    res = VisionPipeline().process(empty)
    assert res.found and res.orientation_ok is None
    assert res.board == "." * 32


def test_white_at_from_caller(get_scene):
    sc = get_scene(5)
    a1, h1 = np.array(sc.corners["a1"]), np.array(sc.corners["h1"])
    mid = (a1 + h1) / 2 - np.mean([sc.corners[k] for k in sc.corners], axis=0)
    side = ("bottom" if mid[1] > 0 else "top") if abs(mid[1]) > abs(mid[0]) else ("right" if mid[0] > 0 else "left")
    res = VisionPipeline(white_at=side).process(sc.image)
    assert res.orientation_ok is True
    assert _dist(res.corners["a1"], sc.corners["a1"]) < 2.0
    with pytest.raises(ValueError):
        VisionPipeline(white_at="north")


def test_from_pieces_on_lattice_cells():
    # Rotation 0 puts a1 at lattice (0, 0) and White's edge along the lattice v axis (u = 0 line).
    cells = np.array([(i, j) for j in range(8) for i in range(8) if (i + j) % 2 == 0])
    labels = np.zeros(32, dtype=np.int64)
    for k in range(4):
        a1, h1, _, a8 = orient.rotation_corners(k)
        er = (a8 - a1) / 8
        rank = ((cells + 0.5 - a1) @ er) / (er @ er)
        labels[:] = 0
        labels[rank < 3] = 1
        labels[rank > 5] = 2
        assert orient.from_pieces(cells, labels) == k
    labels[:] = 0
    assert orient.from_pieces(cells, labels) is None
