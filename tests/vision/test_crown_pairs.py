"""The pair reader (vision/crowns.py, "Beside a man of this set"): its inputs, its file and its training pairs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.classify import dark_cells
from vision.crowns import (
    NEAR_SQUARES,
    CrownReader,
    conv_forward,
    crown_inputs,
    default_crown_reader,
    default_pair_reader,
    flat_inputs,
    least_king_like_near,
    split_inputs,
)
from vision.train_crowns import References, main

from .conftest import lively_rows

CELLS = dark_cells(1).astype(np.float64)


def test_crown_inputs_flattened_come_back_the_same():
    strips, other = crown_inputs(lively_rows(5))
    again = split_inputs(flat_inputs(strips, other))
    assert np.array_equal(again[0], strips) and np.array_equal(again[1], other)


def test_the_pair_reader_reads_a_piece_beside_a_man_and_refuses_to_read_one_alone():
    pair, lone = default_pair_reader(), default_crown_reader()
    assert pair.pair and not lone.pair
    d = lively_rows(6, 1)
    men = crown_inputs(lively_rows(6, 2))
    z = pair.pair_logits(d, men)
    strips, other = crown_inputs(d)
    s_in = np.concatenate([strips, men[0]], axis=2)
    o_in = (np.concatenate([other, men[1]], axis=1) - pair.mu) / pair.sd
    assert np.allclose(z, np.mean([conv_forward(p, s_in, o_in)[0] for p in pair.nets], axis=0), atol=1e-5)
    assert not np.allclose(z, pair.pair_logits(d, crown_inputs(lively_rows(6, 3))))  # the man matters
    with pytest.raises(ValueError, match="pair_logits"):
        pair.logits(d)
    with pytest.raises(ValueError, match="alone"):
        lone.pair_logits(d, men)


def test_a_lone_readers_weights_do_not_load_as_a_pair_reader(tmp_path):
    from vision.crowns import CROWN_PATH

    weights = dict(np.load(CROWN_PATH))
    wrong = tmp_path / "pair.npz"
    np.savez(wrong, **weights, pair=np.array(1))  # a lone reader's filters see half the channels
    with pytest.raises(ValueError, match="does not match"):
        CrownReader.load(wrong)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(st.none(), st.floats(-20, 20)), min_size=32, max_size=32))
def test_the_man_beside_a_piece_is_its_least_king_like_neighbour_else_the_boards(values):
    """The least king-like other piece within NEAR_SQUARES; where none is that near, the least king-like
    other piece of the board; -1 only on a board with no other piece."""
    logits = np.array([np.nan if v is None else v for v in values])
    pieces = np.isfinite(logits)
    near = least_king_like_near(logits, pieces, CELLS)
    for s in range(32):
        dist = np.linalg.norm(CELLS - CELLS[s], axis=1)
        cands = np.flatnonzero(pieces & (dist > 0) & (dist <= NEAR_SQUARES))
        if len(cands) == 0:
            cands = np.flatnonzero(pieces & (dist > 0))
        if len(cands) == 0:
            assert near[s] == -1
        else:
            assert near[s] in cands and logits[near[s]] == logits[cands].min()


def test_a_piece_with_no_neighbour_is_weighed_against_a_man_further_off():
    """Two pieces on the two dark corner squares, nothing between them: each is weighed against the other."""
    logits = np.full(32, np.nan)
    a1, h8 = 0, 31  # lattice cells (0, 0) and (7, 7)
    assert np.linalg.norm(CELLS[a1] - CELLS[h8]) > NEAR_SQUARES
    logits[[a1, h8]] = [4.0, -3.0]
    near = least_king_like_near(logits, np.isfinite(logits), CELLS)
    assert near[a1] == h8 and near[h8] == a1
    lone = np.full(32, np.nan)
    lone[a1] = 4.0
    assert least_king_like_near(lone, np.isfinite(lone), CELLS)[a1] == -1


def _references(seed: int):
    """A made-up set: 6 scenes of 3 boards, random pieces (0 empty, 1 man, 2 king) on the 32 squares."""
    rng = np.random.default_rng(seed)
    kind = rng.integers(0, 3, (6, 3, 32))
    group, board, square = np.nonzero(kind)
    board = board + 3 * group  # boards numbered across the set, as rows // 32 are
    man = kind[kind > 0] == 1
    return References.of(group, board, square, man), group, board, square, man


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_pieces_men_are_of_its_scene_on_its_square_in_another_board_or_near_it(seed):
    refs, group, board, square, man = _references(seed)
    for i in range(len(group)):
        same = refs.same[refs.same_at[i]:refs.same_at[i + 1]]
        near = refs.near[refs.near_at[i]:refs.near_at[i + 1]]
        assert man[same].all() and man[near].all()
        assert (group[same] == group[i]).all() and (group[near] == group[i]).all()
        assert (square[same] == square[i]).all() and (board[same] != board[i]).all()
        dist = np.linalg.norm(CELLS[square[near]] - CELLS[square[i]], axis=1)
        assert ((dist > 0) & (dist <= NEAR_SQUARES)).all()
        expected = man & (group == group[i]) & (square == square[i]) & (board != board[i])
        assert sorted(same) == sorted(np.flatnonzero(expected))
    drawn = refs.draw(np.random.default_rng(seed), p_same=1.0)
    has_same = np.diff(refs.same_at) > 0
    assert (square[drawn[has_same]] == square[has_same]).all()
    assert ((drawn >= 0) == refs.any()).all()


def test_training_a_pair_reader_end_to_end(tmp_path, capsys):
    """`python -m vision.train_crowns --pairs` on a tiny rendered set: a pair reader, scored beside a man on
    the piece's square and beside one near it."""
    from vision.train_squares import main as render_main

    data = tmp_path / "rendered.npz"
    assert render_main(["render", "--scenes", "10", "--boards", "3", "--seed", "79", "--sizes", "480x270",
                        "--covered", "--out", str(data)]) == 0
    out = tmp_path / "pairs.npz"
    assert main(["--data", str(data), "--epochs", "1", "--pairs", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "beside a man on its square" in printed and "beside a man on a square near it" in printed
    reader = CrownReader.load(out)
    assert reader.pair and len(reader.mu) == 2 * crown_inputs(lively_rows(1))[1].shape[1]


@pytest.mark.parametrize("i", [17, 48])
@pytest.mark.parametrize("calibrated", [True, False])
def test_seamless_kings_the_lone_reader_misses_are_found_beside_a_man(monkeypatch, get_bench_draw, i, calibrated):
    """Scenes of `dama bench vision --seed 2 --seamless-kings` (the family the pair's weights were fitted on)
    where the lone reader, weighed against the men seen or its board, gets two or more pieces wrong whose
    height shows (kings one tall disc, no seam: what the real kings look like); beside a man, the men seen
    at calibration or the board's own, every one is right."""
    import vision.pipeline as pipeline
    from vision.bench import CROWN_SHOWS_PX, crown_px, render_bench_scene
    from vision.pipeline import VisionPipeline

    draw = get_bench_draw(2, i, seamless=True)
    params = draw[1]
    sc = render_bench_scene(*draw)
    shows = crown_px(params) >= CROWN_SHOWS_PX

    def wrong(pair_weight: float) -> int:
        monkeypatch.setattr(pipeline, "PAIR_WEIGHT", pair_weight)
        vp = VisionPipeline() if calibrated else VisionPipeline(profile={"corners": {"a1": list(sc.corners["a1"])}})
        if calibrated:
            assert vp.learn_start_position(sc.start)["ok"] and vp.men_seen.inputs is not None
            vp.reset_tracking()
        got = vp.process(sc.image).board
        assert [g.lower() for g in got] == [t.lower() for t in sc.board]  # colours right either way
        return sum(t != "." and (g in "WB") != (t in "WB") and (s or t in "wb")
                   for g, t, s in zip(got, sc.board, shows, strict=True))

    weight = pipeline.PAIR_WEIGHT
    alone = wrong(0.0)
    assert alone >= 2
    assert wrong(weight) == 0, alone
