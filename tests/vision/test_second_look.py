"""The second look (vision/second_look.py): a piece set down off its square's centre is read as the
piece, not as a hand, and a fingertip stays a hand."""

from __future__ import annotations

import numpy as np
import pytest

import vision.pipeline as pipeline
import vision.second_look as look
from vision.bench import _mirror, square_right
from vision.render import render_scene


def _picture(get_bench_draw, seed: int, i: int, **variant: bool) -> tuple[np.ndarray, dict, str, str]:
    """(image, corners, board, occluded) of the benchmark's scene, mirrored as the benchmark shows it."""
    _, params, board, hand, mirrored = get_bench_draw(seed, i, **variant)
    r = render_scene(board, params, hand=hand, seed=i)
    image, corners, occluded = r.image, r.corners, r.occluded
    if mirrored:
        image, corners, board, occluded = _mirror(image, corners, board, occluded)
    return image, corners, board, occluded


def _read(image: np.ndarray, corners: dict):
    """A single picture read uncalibrated, told only where White's left corner is (as the benchmark does)."""
    return pipeline.VisionPipeline(profile={"corners": {"a1": list(corners["a1"])}}).process(image)


def _colours_right(got: str, board: str, occluded: str) -> bool:
    """Every square right as the benchmark counts it with kings read as men."""
    return all(square_right(g, t, o)[1] for g, t, o in zip(got, board, occluded, strict=True))


def test_patches_cut_without_a_shift_are_the_networks_own_inputs(monkeypatch, get_bench_draw):
    """What the pipeline gives the network, cut again around the square's own centre, is the same row;
    cut around another centre only the patches change (the strips and the scalars stay the square's)."""
    seen = {}

    def record(forward, x, prob, feat, bright_parity, departure, arm):
        seen.update(x=x, feat=feat, bp=bright_parity)
        return prob

    monkeypatch.setattr(pipeline, "second_look", record)
    image, corners, _, _ = _picture(get_bench_draw, 1, 0, off_centre=True)
    _read(image, corners)
    x, feat, bp = seen["x"], seen["feat"], seen["bp"]
    for k in range(32):  # edge and corner squares included: their margins are mirrored alike
        again = look.recentred_inputs(x, feat, bp, k, ((0, 0), (4, -2)))
        np.testing.assert_allclose(again[0], x[k], atol=1e-5)
        assert not np.allclose(again[1, :look.AB_END], x[k, :look.AB_END])
        np.testing.assert_array_equal(again[1, look.AB_END:], x[k, look.AB_END:])


@pytest.mark.parametrize("i", [0, 18, 92])
def test_pieces_set_down_off_centre_are_read_and_no_hand_is_reported(monkeypatch, get_bench_draw, i):
    """Scenes of `dama bench vision --off-centre` with no hand in the picture, which the network alone
    reported a hand over: with the second look the board reads right (kings as men) and no hand."""
    image, corners, board, occluded = _picture(get_bench_draw, 1, i, off_centre=True)
    assert "1" not in occluded
    res = _read(image, corners)
    assert not res.hand, res.board
    assert _colours_right(res.board, board, occluded), (res.board, board)
    monkeypatch.setattr(pipeline, "second_look", lambda forward, x, prob, *rest: prob)
    assert _read(image, corners).hand  # the network alone calls an off-centre piece a hand


def test_a_piece_may_spill_onto_the_light_square_it_was_pushed_towards(monkeypatch, get_bench_draw):
    """Scene 82 of `dama bench vision --off-centre`: a piece pushed towards a light neighbour covers part
    of it. That neighbour may depart from the empty colour up to SPILL_DEPARTURE; held to the bar of the
    other neighbours, the piece stays a hand."""
    image, corners, board, occluded = _picture(get_bench_draw, 1, 82, off_centre=True)
    res = _read(image, corners)
    assert not res.hand and _colours_right(res.board, board, occluded), (res.board, board)
    monkeypatch.setattr(look, "SPILL_DEPARTURE", look.NEIGHBOUR_DEPARTURE)
    assert _read(image, corners).hand


def test_a_fingertip_over_a_piece_stays_a_hand(monkeypatch, get_bench_draw):
    """Scene 278 of `dama bench vision --seed 2`: a finger over a dark man at the board's edge, seen
    nowhere else. Cut around another centre the man shows beside the finger, so the second look would
    read the man and lose the hand; the light square beside it and the arm in the margin keep it a hand."""
    image, corners, board, occluded = _picture(get_bench_draw, 2, 278)
    assert "1" in occluded
    assert _read(image, corners).hand
    monkeypatch.setattr(look, "NEIGHBOUR_DEPARTURE", np.inf)
    real = look.second_look
    monkeypatch.setattr(pipeline, "second_look",
                        lambda forward, x, prob, feat, bp, departure, arm:
                        real(forward, x, prob, feat, bp, departure, lambda: np.zeros(32, dtype=bool)))
    assert not _read(image, corners).hand  # without the neighbours' word it would be read as the man
