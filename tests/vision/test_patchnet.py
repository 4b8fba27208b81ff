"""The patch reader (vision/patchnet.py): its numpy convolution, its vote beside the square network, the
committed weights and the PyTorch trainer (vision/train_patches.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.patchnet import (
    HAND_DOUBT,
    HAND_SHARED,
    HAND_SURE,
    PATCH_MODEL_PATH,
    SURE,
    UNCOVER_BELOW,
    PatchNet,
    as_matrix,
    both_see_a_hand,
    conv2d,
    patch_images,
    patch_net,
    seen_past_a_fingertip,
    with_patch_opinion,
)
from vision.squarenet import AB_END, CLASSES, COLOUR_OF, COVERED, N_INPUT, PATCH, SIDE, describe


def _direct_conv(h: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int) -> np.ndarray:
    """The textbook loop: out[n, y, x, o] = b[o] + Σ h[n, y·s + i, x·s + j, c] · w[o, c, i, j]."""
    n, hh, ww, _ = h.shape
    o, _, k, _ = w.shape
    ho, wo = (hh - k) // stride + 1, (ww - k) // stride + 1
    out = np.zeros((n, ho, wo, o))
    for y in range(ho):
        for x in range(wo):
            window = h[:, y * stride:y * stride + k, x * stride:x * stride + k, :]  # n k k c
            out[:, y, x] = np.einsum("nijc,ocij->no", window, w) + b
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 5), st.integers(2, 4), st.integers(1, 2),
       st.integers(0, 2**31))
def test_conv2d_is_the_textbook_cross_correlation(n, channels, outs, k, stride, seed):
    """For every shape and stride the column trick computes what PyTorch's Conv2d does (weights kept in its
    layout, images channels-last)."""
    rng = np.random.default_rng(seed)
    side = k + stride * 3 + 1
    h = rng.normal(size=(n, side, side + 1, channels)).astype(np.float32)
    w = rng.normal(size=(outs, channels, k, k)).astype(np.float32)
    b = rng.normal(size=outs).astype(np.float32)
    np.testing.assert_allclose(conv2d(h, as_matrix(w), b, k, stride), _direct_conv(h, w, b, stride),
                               rtol=1e-4, atol=1e-4)


def test_patch_images_put_colour_pixels_over_the_lightness_pixels_they_cover():
    """Channel 0 is the lightness patch as it is; each half-resolution colour pixel covers the 2 × 2 lightness
    pixels it was averaged from."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, N_INPUT)).astype(np.float32)
    img = patch_images(x[:, :SIDE * SIDE], x[:, SIDE * SIDE:AB_END])
    assert img.shape == (2, SIDE, SIDE, 3)
    np.testing.assert_array_equal(img[..., 0], x[:, :SIDE * SIDE].reshape(2, SIDE, SIDE))
    ab = x[:, SIDE * SIDE:AB_END].reshape(2, PATCH, PATCH, 2)
    for y, xx in ((0, 0), (7, 3), (PATCH - 1, PATCH - 1)):
        for dy in (0, 1):
            for dx in (0, 1):
                np.testing.assert_array_equal(img[:, 2 * y + dy, 2 * xx + dx, 1:], ab[:, y, xx])


class _Fixed:
    """A patch reader that answers the same probabilities for every square, and counts what it was shown."""

    def __init__(self, p: np.ndarray) -> None:
        self.p, self.seen = np.asarray(p, dtype=np.float64), 0

    def forward(self, x: np.ndarray, d: np.ndarray) -> np.ndarray:
        assert len(x) == len(d)
        self.seen += len(x)
        return np.tile(self.p, (len(x), 1))


_probs = st.lists(st.floats(0.001, 1.0), min_size=6, max_size=6).map(lambda v: np.array(v) / sum(v))


@settings(max_examples=80, deadline=None)
@given(st.lists(_probs, min_size=1, max_size=12), _probs)
def test_the_patch_reader_votes_only_where_the_square_network_is_not_sure(rows, other):
    """Where a hand is seen: squares the square network gives one reading (a colour, kings with their men,
    or "covered") at least SURE keep its probabilities; the others get the normalised geometric mean of
    both readers', and the patch reader is asked about those only."""
    prob = np.array(rows)
    reader = _Fixed(other)
    x = np.zeros((len(prob), N_INPUT), dtype=np.float32)
    out = with_patch_opinion(prob, x, np.zeros((len(prob), 4)), reader, hand_seen=True)
    merged = np.stack([prob[:, 0], prob[:, 1] + prob[:, 3], prob[:, 2] + prob[:, 4], prob[:, 5]], axis=1)
    sure = merged.max(axis=1) >= SURE
    assert reader.seen == int((~sure).sum())
    np.testing.assert_array_equal(out[sure], prob[sure])
    pooled = np.sqrt(prob[~sure] * other)
    np.testing.assert_allclose(out[~sure], pooled / pooled.sum(axis=1, keepdims=True), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(out.sum(axis=1), 1.0)


@settings(max_examples=80, deadline=None)
@given(st.lists(_probs, min_size=1, max_size=12), _probs)
def test_with_no_hand_seen_the_patch_reader_never_adds_a_hand(rows, other):
    """With no hand seen over the board, no square's "covered" rises above the square network's; where the
    patch reader alone sees a hand (at least HAND_DOUBT, the square network under it) the square network's
    reading stands whole; elsewhere the other classes keep the geometric mean's proportions."""
    prob = np.array(rows)
    out = with_patch_opinion(prob, np.zeros((len(prob), N_INPUT)), np.zeros((len(prob), 4)), _Fixed(other),
                             hand_seen=False)
    assert (out[:, COVERED] <= prob[:, COVERED] + 1e-12).all()
    np.testing.assert_allclose(out.sum(axis=1), 1.0)
    merged = np.stack([prob[:, 0], prob[:, 1] + prob[:, 3], prob[:, 2] + prob[:, 4], prob[:, 5]], axis=1)
    voted = merged.max(axis=1) < SURE
    if other[COVERED] >= HAND_DOUBT:
        voted &= prob[:, COVERED] >= HAND_DOUBT
    np.testing.assert_array_equal(out[~voted], prob[~voted])
    pooled = np.sqrt(prob[voted] * other)
    np.testing.assert_allclose(out[voted, :COVERED] / out[voted, :COVERED].sum(axis=1, keepdims=True),
                               pooled[:, :COVERED] / pooled[:, :COVERED].sum(axis=1, keepdims=True), rtol=1e-6,
                               atol=1e-9)


class _CoveredInFirstColumn:
    """A patch reader whose "covered" for a row is that row's first number; counts the rows it was shown."""

    def __init__(self) -> None:
        self.seen = 0

    def forward(self, x: np.ndarray, d: np.ndarray) -> np.ndarray:
        self.seen += len(x)
        out = np.zeros((len(x), 6))
        out[:, COVERED] = x[:, 0]
        out[:, 0] = 1.0 - x[:, 0]
        return out


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)), min_size=1, max_size=32))
def test_both_readers_see_a_hand_exactly_where_each_is_sure_enough(rows):
    """A square counts as under a hand seen by both readers exactly when the square network gives "covered" at
    least HAND_SHARED and the patch reader at least HAND_SURE; the patch reader is shown no other square."""
    square, patch = (np.array(v) for v in zip(*rows, strict=True))
    x = np.zeros((len(rows), N_INPUT))
    x[:, 0] = patch
    reader = _CoveredInFirstColumn()
    got = both_see_a_hand(x, np.zeros((len(rows), 4)), square, reader)
    np.testing.assert_array_equal(got, (square >= HAND_SHARED) & (patch >= HAND_SURE))
    assert reader.seen == int((square >= HAND_SHARED).sum())


class _RowsAsGiven:
    """A patch reader whose probabilities for a row are that row's first six numbers; counts the rows it saw."""

    def __init__(self) -> None:
        self.seen = 0

    def forward(self, x: np.ndarray, d: np.ndarray) -> np.ndarray:
        self.seen += len(x)
        return x[:, :6]


_DISTRIBUTIONS = st.lists(st.floats(0.0, 1.0), min_size=6, max_size=6).filter(lambda v: sum(v) > 0.01).map(
    lambda v: np.array(v) / sum(v))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_DISTRIBUTIONS, _DISTRIBUTIONS, st.booleans(), st.floats(0.0, 1.0)), min_size=1, max_size=32),
       st.booleans())
def test_a_fingertip_is_seen_past_only_where_both_readers_see_the_same_light_or_empty_square(rows, own_bars):
    """A row asked about reads the pipeline's likeliest class other than "covered" exactly when the patch
    reader's "covered" is under the row's bar (UNCOVER_BELOW unless given), its own likeliest such class has the
    same colour class, and that is empty or light (a hand's shade reads as a dark piece); every other row stays
    -1 and is not shown to the reader."""
    prob, patch, ask, bars = (np.array(v) for v in zip(*rows, strict=True))
    x = np.zeros((len(rows), N_INPUT))
    x[:, :6] = patch
    reader = _RowsAsGiven()
    got = seen_past_a_fingertip(x, np.zeros((len(rows), 4)), prob, ask, reader, bars if own_bars else None)
    ours, theirs = prob[:, :COVERED].argmax(axis=1), patch[:, :COVERED].argmax(axis=1)
    bar = bars if own_bars else UNCOVER_BELOW
    free = ask & (patch[:, COVERED] < bar) & (COLOUR_OF[ours] == COLOUR_OF[theirs]) & (COLOUR_OF[ours] < 2)
    np.testing.assert_array_equal(got, np.where(free, ours, -1))
    assert reader.seen == int(ask.sum())


def test_a_sure_board_never_asks_the_patch_reader():
    prob = np.zeros((32, 6))
    prob[:, 1] = 0.995
    prob[:, 3] = 0.005  # a light piece, man or king: sure of the colour
    reader = _Fixed(np.full(6, 1 / 6))
    assert with_patch_opinion(prob, np.zeros((32, N_INPUT)), np.zeros((32, 4)), reader) is prob
    assert reader.seen == 0


def test_malformed_weights_are_refused_with_the_reason(tmp_path):
    good = dict(np.load(PATCH_MODEL_PATH))
    missing = {k: v for k, v in good.items() if k != "c2_weight"}
    with pytest.raises(ValueError, match="lacks array"):
        PatchNet(missing)
    wrong = dict(good, c1_weight=np.zeros((16, 1, 4, 4), np.float32))
    with pytest.raises(ValueError, match="does not match"):
        PatchNet(wrong)
    narrow = dict(good, mu=good["mu"][:-1], sd=good["sd"][:-1])
    with pytest.raises(ValueError, match="do not fit"):
        PatchNet(narrow)
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="cannot read patch model"):
        PatchNet.load(bad)


def test_the_committed_reader_reads_a_rendered_board(get_bench_draw):
    """On a bench scene with no hand, read alone, the committed patch reader gets every square's colour
    (kings as men) right; its probabilities are proper."""
    from vision.bench import render_bench_scene
    from vision.train_squares import board_samples

    for i in range(3):
        sc = render_bench_scene(*get_bench_draw(1, i))
        if not sc.hand_on_board:
            break
    assert not sc.hand_on_board
    x = board_samples(sc.image, sc.corners, None)
    p = patch_net().forward(x, describe(x))
    assert p.shape == (32, len(CLASSES)) and np.allclose(p.sum(axis=1), 1.0)
    as_men = ".wbwb?"
    assert "".join(as_men[k] for k in p.argmax(axis=1)) == "".join(as_men[CLASSES.index(c)] for c in sc.board)


def test_training_writes_weights_the_numpy_reader_reads_as_pytorch_does(tmp_path):
    """`python -m vision.train_patches` on a tiny rendered set: the weights load, and the numpy forward pass
    gives PyTorch's own probabilities for the same inputs (layouts, flattening order, colour upsampling)."""
    torch = pytest.importorskip("torch")
    from vision.train_patches import _model, images, load_patches, main
    from vision.train_squares import main as render

    data = tmp_path / "rendered.npz"
    assert render(["render", "--scenes", "2", "--boards", "1", "--seed", "78", "--sizes", "480x270",
                   "--covered", "--out", str(data)]) == 0
    out = tmp_path / "patches.npz"
    assert main(["--data", str(data), "--epochs", "1", "--threads", "1", "--out", str(out)]) == 0
    weights = dict(np.load(out))
    net = PatchNet(weights)
    patches = load_patches([str(data)])
    twin = _model(patches["desc"].shape[1])
    layers = {k: v for k, v in weights.items() if k not in ("mu", "sd")}
    twin.load_state_dict({k.replace("_", "."): torch.from_numpy(v) for k, v in layers.items()})
    desc = ((patches["desc"] - weights["mu"]) / weights["sd"]).astype(np.float32)
    with torch.no_grad():
        want = torch.softmax(twin(images(patches["lum"], patches["ab"]), torch.from_numpy(desc)), 1).numpy()
    got = net.forward_patches(patches["lum"], patches["ab"], patches["desc"])
    np.testing.assert_allclose(got, want, atol=1e-5)
