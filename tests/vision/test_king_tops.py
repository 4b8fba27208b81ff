"""A torn king's colour read from its upper disc (vision/king_tops.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vision.pipeline as pipeline
from vision import king_tops
from vision.bench import render_bench_scene
from vision.cells import CELL
from vision.geometry import SQUARE_NAMES

FLOATS = st.floats(-2.5, 2.5, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(FLOATS, FLOATS)
def test_the_cuts_go_away_from_the_camera_by_each_height_and_stay_even_and_within_reach(u, v):
    cuts = np.array(king_tops.top_cuts(np.array([u, v])))
    assert cuts.shape == (len(king_tops.PIECE_HEIGHTS), 2)
    assert (cuts % 2 == 0).all() and (np.abs(cuts) <= king_tops.MAX_CUT).all()
    for (dy, dx), h in zip(cuts, king_tops.PIECE_HEIGHTS, strict=True):
        want = np.array([v, u]) * h * CELL
        inside = np.abs(want) <= king_tops.MAX_CUT - 1
        # rounded to the even pixel grid where the cut is within reach, clipped to the reach beyond it
        assert (np.abs(np.array([dy, dx]) - want)[inside] <= 1.0 + 1e-9).all()
        assert (np.abs(np.array([dy, dx]))[~inside] >= king_tops.MAX_CUT - 2).all()


def _prob(light: float, dark: float, king: float, empty: float = 0.0, covered: float = 0.0) -> np.ndarray:
    """One row (6,) with the piece's colours split ``light`` : ``dark`` and a ``king`` share of the piece."""
    row = np.array([empty, light * (1 - king), dark * (1 - king), light * king, dark * king, covered])
    return row / row.sum()


def test_only_kings_the_network_is_torn_on_are_looked_at():
    prob = np.stack([
        _prob(0.35, 0.65, 0.97),  # torn king: looked at
        _prob(0.02, 0.98, 0.97),  # a king of a sure colour
        _prob(0.35, 0.65, 0.1),  # a torn man: its top is on its square
        _prob(0.35, 0.65, 0.97, empty=4.0),  # more likely empty
        _prob(0.35, 0.65, 0.97, covered=4.0),  # more likely a hand
    ])
    assert king_tops.torn_kings(prob).tolist() == [0]


class _Reader:
    """Stands in for the pipeline's square readers: the same reading for every row, rows counted."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows, self.asked = rows, 0

    def __call__(self, x: np.ndarray) -> np.ndarray:
        self.asked += len(x)
        return np.resize(self.rows, (len(x), 6))


@pytest.fixture
def board_rows(get_scene, monkeypatch):
    """A board's inputs, cell features and lattice parity from a small render, as the pipeline computes them."""
    seen = {}

    def record(forward, x, prob, feat, bp, *rest):
        seen.update(x=x, feat=feat, bp=bp)
        return prob

    monkeypatch.setattr(pipeline, "second_look", record)
    pipeline.VisionPipeline().process(get_scene(0).image)
    monkeypatch.undo()
    return seen["x"], seen["feat"], seen["bp"]


def test_a_torn_king_takes_the_colour_its_upper_disc_reads_surely_and_keeps_its_shares(board_rows):
    x, feat, bp = board_rows
    prob = np.tile(_prob(1.0, 0.0, 0.0, empty=9.0), (32, 1))
    prob[5] = _prob(0.3, 0.7, 0.96)
    shift = np.tile([1.6, 0.4], (32, 1))
    light_king = _Reader(np.array([[0.01, 0.02, 0.01, 0.95, 0.01, 0.0]]))
    out = king_tops.with_king_tops(prob, x, feat, bp, shift, light_king)
    assert light_king.asked == len(king_tops.PIECE_HEIGHTS)  # one torn king, read at each height
    np.testing.assert_allclose(out[np.arange(32) != 5], prob[np.arange(32) != 5])
    np.testing.assert_allclose(out[5, [0, 5]], prob[5, [0, 5]])  # empty and covered stay
    np.testing.assert_allclose(out[5, 1:5].sum(), prob[5, 1:5].sum())  # the piece's share stays
    np.testing.assert_allclose(out[5, 3] / out[5, 1:5].sum(), 0.96)  # and its king share
    assert out[5, 2] == out[5, 4] == 0.0


def test_a_torn_king_keeps_its_reading_unless_every_look_at_its_top_is_sure_of_one_colour(board_rows):
    x, feat, bp = board_rows
    prob = np.tile(_prob(1.0, 0.0, 0.0, empty=9.0), (32, 1))
    prob[5] = _prob(0.3, 0.7, 0.96)
    shift = np.tile([1.6, 0.4], (32, 1))
    unsure = _Reader(np.array([[0.1, 0.05, 0.05, 0.75, 0.05, 0.0]]))  # light 0.8: under SURE_TOP
    disagree = _Reader(np.array([[0.0, 0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0, 0.0]]))
    empty = _Reader(np.array([[0.98, 0.01, 0.01, 0.0, 0.0, 0.0]]))
    for reader in (unsure, disagree, empty):
        np.testing.assert_array_equal(king_tops.with_king_tops(prob, x, feat, bp, shift, reader), prob)


def test_nothing_is_read_again_where_no_king_is_torn(board_rows):
    x, feat, bp = board_rows
    prob = np.tile(_prob(0.02, 0.98, 0.97), (32, 1))
    reader = _Reader(np.array([[0.0, 0.0, 0.0, 1.0, 0.0, 0.0]]))
    assert king_tops.with_king_tops(prob, x, feat, bp, np.ones((32, 2)), reader) is prob
    assert reader.asked == 0


def test_a_light_king_at_48_degrees_whose_walls_look_dark_reads_light(get_bench_draw, monkeypatch):
    """Seed 3, scene 460 of `dama bench vision`: a light king on b4 seen at 48°, its top beyond its square. Its
    own square leaves the readers torn (light 0.33, dark 0.64), and without the look at its upper disc it
    reads as a dark king; with it, a light one, uncalibrated as calibrated."""
    draw = get_bench_draw(3, 460)
    scene = render_bench_scene(*draw)
    b4 = SQUARE_NAMES.index("b4")
    assert scene.board[b4] == "W" and draw[1].tilt_deg > 45

    def read() -> str:
        profile = {"corners": {"a1": list(scene.corners["a1"])}}
        return pipeline.VisionPipeline(profile=profile).process(scene.image).board

    assert read()[b4] == "W"
    monkeypatch.setattr(pipeline, "with_king_tops", lambda prob, *args: prob)
    if read()[b4] != "B":
        # The readers' tear on this scene is fine-grained: on the machines it was measured on they read b4 dark
        # without the upper disc; on another CPU (AMD EPYC, 2026-12-08) the render's pixels leave them sure it
        # is light, and the look is never asked for. The mechanism itself: the tests above.
        pytest.skip("the readers are not torn on b4 on this machine: nothing for the upper disc to decide")
