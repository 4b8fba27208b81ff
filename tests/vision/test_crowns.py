"""The crown reader (vision/crowns.py): its inputs, its gradients, its file format and its training."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.crowns import (
    BOARD_PULL,
    BOARD_PULL_LIMIT,
    CrownReader,
    conv_forward,
    crown_inputs,
    default_crown_reader,
    on_this_board,
    share_of,
)
from vision.heights import ACROSS, ALONG
from vision.squarenet import KING_THRESHOLD, N_INPUT, STRIP_IN_DESC, describe
from vision.train_crowns import backward, init, main


def _rows(n: int, seed: int = 0) -> np.ndarray:
    """Rows of describe() with lively strips (lightness 10–90) and other features."""
    rng = np.random.default_rng(seed)
    d = describe(rng.uniform(-1, 1, (n, N_INPUT)).astype(np.float32))
    d[:, STRIP_IN_DESC] = rng.uniform(10, 90, (n, STRIP_IN_DESC.stop - STRIP_IN_DESC.start))
    return d


def test_a_piece_seen_in_a_mirror_or_in_other_light_reads_the_same():
    reader = default_crown_reader()
    d = _rows(6)
    base = reader.king_share(d)
    strips = d[:, STRIP_IN_DESC].reshape(-1, len(ACROSS), len(ALONG))
    mirrored = d.copy()
    mirrored[:, STRIP_IN_DESC] = strips[:, ::-1].reshape(len(d), -1)
    brighter = d.copy()
    brighter[:, STRIP_IN_DESC] = 0.8 * d[:, STRIP_IN_DESC] + 15.0  # its own level and spread are divided out
    assert np.allclose(reader.king_share(mirrored), base, atol=1e-6)
    folded, _ = crown_inputs(brighter)
    assert np.allclose(folded, crown_inputs(d)[0], rtol=0.05, atol=0.02)  # up to the spread floor


def test_backward_matches_finite_differences():
    rng = np.random.default_rng(3)
    p = {k: v.astype(np.float64) for k, v in init(rng, len(ACROSS) // 2, 6, f1=4, f2=5,
                                                   hidden=(7, 3)).items()}
    strips = rng.normal(size=(3, len(ALONG), len(ACROSS) // 2))
    other = rng.normal(size=(3, 6))
    _, cache = conv_forward(p, strips, other, keep=True)
    grads = backward(p, cache, np.ones(3))
    for name in ("c1", "cb1", "c2", "w0", "b1", "w2"):
        for flat in (0, 5):
            idx = np.unravel_index(flat % p[name].size, p[name].shape)
            keep = p[name][idx]
            p[name][idx] = keep + 1e-6
            up = conv_forward(p, strips, other)[0].sum()
            p[name][idx] = keep - 1e-6
            down = conv_forward(p, strips, other)[0].sum()
            p[name][idx] = keep
            assert (up - down) / 2e-6 == pytest.approx(float(grads[name][idx]), rel=1e-4, abs=1e-7), name


def test_bad_crown_files_are_refused_with_the_reason(tmp_path):
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="cannot read crown model"):
        CrownReader.load(broken)
    weights = dict(np.load(default_crown_reader_path()))
    partial = tmp_path / "partial.npz"
    np.savez(partial, **{k: v for k, v in weights.items() if not k.startswith("w2")})
    with pytest.raises(ValueError, match="lacks array"):
        CrownReader.load(partial)
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, **{**weights, "mu": weights["mu"][:10], "sd": weights["sd"][:10]})
    with pytest.raises(ValueError, match="does not match"):
        CrownReader.load(wrong)


def default_crown_reader_path():
    from vision.crowns import CROWN_PATH

    return CROWN_PATH


def test_training_end_to_end_with_two_networks(tmp_path, capsys):
    """`python -m vision.train_crowns` on a tiny rendered set (its last tenth held back): two networks in one
    file, read back as one reader whose logits are their mean."""
    from vision.train_squares import main as render_main

    data = tmp_path / "rendered.npz"
    assert render_main(["render", "--scenes", "10", "--boards", "1", "--seed", "78", "--sizes", "480x270",
                        "--out", str(data)]) == 0
    out = tmp_path / "crowns.npz"
    assert main(["--data", str(data), "--epochs", "1", "--nets", "2", "--out", str(out)]) == 0
    assert "kings found" in capsys.readouterr().out
    reader = CrownReader.load(out)
    assert len(reader.nets) == 2
    with np.load(data) as f:
        d = describe(f["x"][:20])
    strips, other = crown_inputs(d)
    other = (other - reader.mu) / reader.sd
    mean = np.mean([conv_forward(p, strips, other)[0] for p in reader.nets], axis=0)
    assert np.allclose(reader.logits(d), mean)
    assert main(["--data", str(tmp_path / "missing.npz"), "--out", str(out)]) == 2
    assert main(["--data", str(data), "--nets", "0", "--out", str(out)]) == 2


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-30, 30), min_size=1, max_size=32), st.data())
def test_the_board_moves_every_piece_alike_and_only_so_far(logits, data):
    """Weighing a piece against its board shifts every logit by the same amount, at most the pull times its
    limit: the order of the pieces is kept, and no board can crown a piece the reader is sure is a man."""
    logits = np.array(logits)
    pieces = np.array(data.draw(st.lists(st.booleans(), min_size=len(logits), max_size=len(logits))))
    moved = on_this_board(logits, pieces)
    shift = moved - logits
    assert np.allclose(shift, shift[0])
    assert abs(shift[0]) <= BOARD_PULL * BOARD_PULL_LIMIT + 1e-9
    if pieces.sum() < 3:
        assert np.array_equal(moved, logits)


def test_a_board_of_plain_men_lets_an_unsure_king_through_and_a_board_of_kings_keeps_its_kings():
    king_at = np.log(KING_THRESHOLD / (1 - KING_THRESHOLD))
    unsure = king_at - 0.8  # the reader alone: a man
    men = np.array([unsure, -9.0, -8.0, -10.0, -7.5])
    assert share_of(np.array([unsure]))[0] < KING_THRESHOLD
    assert share_of(on_this_board(men, np.ones(5, dtype=bool)))[0] >= KING_THRESHOLD
    # the same piece among thick men that all look half like kings stays a man
    thick = np.array([unsure, 1.0, 0.5, 1.5, 0.0])
    assert share_of(on_this_board(thick, np.ones(5, dtype=bool)))[0] < KING_THRESHOLD
    # an endgame of kings only: they all stay kings
    kings = np.array([5.0, 6.0, 7.0, 5.5])
    assert (share_of(on_this_board(kings, np.ones(4, dtype=bool))) >= KING_THRESHOLD).all()
    # squares that are not pieces (empty, a hand) do not count
    assert np.array_equal(on_this_board(men, np.array([True, True, False, False, False])), men)


@pytest.mark.parametrize("i", [17, 123, 159])
def test_kings_the_reader_alone_misses_are_found_against_their_board(monkeypatch, get_bench_draw, i):
    """Scenes of `dama bench vision` where a king whose height shows (its top 3 px or more beyond a man's)
    read as a man from its square alone: weighed against the board's men it reads as a king, and no man
    is crowned for it."""
    import vision.crowns as crowns
    from vision.bench import CROWN_SHOWS_PX, crown_px
    from vision.pipeline import VisionPipeline
    from vision.render import render_scene

    _, params, board, hand, mirrored = get_bench_draw(1, i)
    r = render_scene(board, params, hand=hand, seed=i)
    shows = crown_px(r.corners, params.piece_height, r.image.shape[1::-1]) >= CROWN_SHOWS_PX

    def read(pull: float) -> tuple[int, int]:
        monkeypatch.setattr(crowns, "BOARD_PULL", pull)
        got = VisionPipeline(profile={"corners": {"a1": list(r.corners["a1"])}}).process(r.image).board
        missed = sum(t in "WB" and g == t.lower() and s for g, t, s in zip(got, board, shows, strict=True))
        crowned = sum(t in "wb" and g == t.upper() for g, t in zip(got, board, strict=True))
        return missed, crowned

    rule = crowns.BOARD_PULL
    alone, weighed = read(0.0), read(rule)
    assert alone[0] > 0, alone
    assert weighed == (0, 0), (alone, weighed)
