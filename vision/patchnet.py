"""The patch reader: a small convolutional network over each dark square's patch (empty / light / dark /
light king / dark king / covered), beside the square network (``vision.squarenet``).

The square network reads ring profiles of the patch: turn-invariant means, spreads and harmonics. A
fingertip's rounded end and a piece's disc give much the same rings, so under a hand it took fingertips
for pieces and left squares beside the hand at "covered" (docs/vision.md). This reader sees the patch
itself, lightness at full resolution and colour (a and b, each pixel repeated to full resolution) as
three channels, in the same units as the square network (:func:`vision.squarenet.board_inputs`), and the
square network's own description beside it.

Layers: convolution 4 × 4 stride 2 → 16, ReLU; 3 × 3 → 32, ReLU, max-pool 2; 3 × 3 → 32, ReLU; flattened
(512) beside the standardised description (:func:`vision.squarenet.describe` without the height strip) →
128 → 64 → 6, softmax. Plain numpy at run time; trained offline with PyTorch by
``vision/train_patches.py`` on the square network's rendered sets, every patch in all eight turns and
mirror images of the square.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from vision.squarenet import (
    AB_END,
    CLASSES,
    COLOUR_OF,
    COVERED,
    PATCH,
    SIDE,
    _blas,
    colour_shares,
    dense_softmax,
    read_weights,
    without_strip,
)

PATCH_MODEL_PATH = Path(__file__).resolve().parent / "models" / "patchnet.npz"
CHANNELS = 3  # lightness, a, b
# the stored layers, named as PyTorch names them (``c1_weight``, ``c1_bias``, …) and in its layouts: convolutions
# (out, in, k, k), dense (out, in)
CONVS = (("c1", 2), ("c2", 1), ("c3", 1))  # name, stride
POOL_AFTER = "c2"
DENSE = ("f1", "f2", "f3")
HAND_DOUBT = 0.1  # with no hand seen: its "covered" from which, the square network's under it, it has no vote
# the square network's share for one reading (a colour, or covered) below which the patch reader votes: at 0.99 a
# dark man on dark wood the square network took for bare wood at 0.990 (the patch reader: dark 0.998) had no vote;
# at 0.999 it votes on about 5 squares of a board instead of 1 (docs/vision.md, "A torn king read from its upper
# disc; the patch reader votes more")
SURE = 0.999
# Both readers see a hand where the patch reader's "covered" is at least HAND_SURE and the square network's at least
# HAND_SHARED (vision.pipeline, one picture): on the labelled real photos the patch reader's highest "covered" on a
# piece (a tall fhgr man) is 0.96, with the square network's 1.0; on the renders a square under a hand that the
# light squares do not show had 0.99-1.0 from the patch reader and 0.2-0.8 from the square network. Over seeds
# 1-8, bars of 0.993-0.995 and 0.1-0.2 read the same boards right; 0.99 took a finger over 16 % of a square's
# centre for a hand, 0.998 missed three hands (docs/vision.md, "A hand both readers see")
HAND_SURE = 0.995
HAND_SHARED = 0.2
# One picture: a square read "covered" that nothing else shows under a hand is read as the piece (or the bare
# square) beneath when the patch reader's "covered" is under UNCOVER_BELOW and both readers see the same colour
# class there, not a dark one. On the renders such squares are mostly a fingertip over a square's edge (0-16 % of
# its centre, in view by the benchmark's 20 %), but a square a hand really hides reads "covered" 0.76-0.95 from
# the patch reader too, and the hand's skin and shade then read as a dark piece. 0.97 is the highest bar that broke
# no board of seeds 1-5 (docs/vision.md, "A fingertip over a square's edge in one picture").
UNCOVER_BELOW = 0.97
# ... and a square the light squares beside it show a hand next to (vision.occlusion.hidden_dark_cells) when the
# patch reader's "covered" is under UNCOVER_BESIDE_HAND: there a hand is known to be near. Over the pictures with
# a hand of seeds 1-9, bars of 0.2-0.9 each fixed the same three boards and broke none (docs/vision.md).
UNCOVER_BESIDE_HAND = 0.5
DARK = 2  # the dark colour class of COLOUR_OF


def patch_images(lum: np.ndarray, ab: np.ndarray) -> np.ndarray:
    """(N, SIDE, SIDE, 3) float32 channels-last images from the lightness patches (N, SIDE²) and colour patches
    (N, PATCH²·2) of :func:`vision.squarenet.board_inputs` rows, each colour pixel repeated twice each way."""
    n = len(lum)
    out = np.empty((n, SIDE, SIDE, CHANNELS), dtype=np.float32)
    out[..., 0] = np.asarray(lum, dtype=np.float32).reshape(n, SIDE, SIDE)
    colour = np.asarray(ab, dtype=np.float32).reshape(n, PATCH, PATCH, 2)
    out[..., 1:] = colour.repeat(2, axis=1).repeat(2, axis=2)
    return out


def conv2d(h: np.ndarray, w: np.ndarray, b: np.ndarray, k: int, stride: int = 1) -> np.ndarray:
    """Valid cross-correlation of channels-last ``h`` (N, H, W, C) with a k × k kernel ``w`` (k·k·C, O) from
    :func:`as_matrix`.

    The columns are the k·k shifted views of ``h`` side by side: each a copy of whole pixels (C numbers
    in a row), where a six-axis sliding-window view copied a number at a time (three times slower)."""
    n, hh, ww, _ = h.shape
    ho, wo = (hh - k) // stride + 1, (ww - k) // stride + 1
    cols = np.concatenate([h[:, i:i + stride * (ho - 1) + 1:stride, j:j + stride * (wo - 1) + 1:stride]
                           for i in range(k) for j in range(k)], axis=3)
    return (cols.reshape(n * ho * wo, -1) @ w + b).reshape(n, ho, wo, -1)


def as_matrix(w: np.ndarray) -> np.ndarray:
    """A PyTorch convolution weight (O, C, k, k) as the (k·k·C, O) matrix :func:`conv2d` multiplies by."""
    return np.ascontiguousarray(w.transpose(2, 3, 1, 0).reshape(-1, w.shape[0]))


class PatchNet:
    """A trained patch reader: ``forward(x, d)`` (N, 6) for :func:`board_inputs` rows ``x`` and their
    :func:`describe` rows ``d``."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        try:
            self.mu = np.asarray(weights["mu"], dtype=np.float32)
            self.sd = np.asarray(weights["sd"], dtype=np.float32)
            raw = [np.asarray(weights[f"{name}_weight"], dtype=np.float32) for name, _ in CONVS]
            self.convs = [(as_matrix(w), np.asarray(weights[f"{name}_bias"], dtype=np.float32), w.shape[2], stride)
                          for w, (name, stride) in zip(raw, CONVS, strict=True)]
            self.dense = [(np.ascontiguousarray(np.asarray(weights[f"{name}_weight"], dtype=np.float32).T),
                           np.asarray(weights[f"{name}_bias"], dtype=np.float32)) for name in DENSE]
        except KeyError as exc:
            raise ValueError(f"patch model lacks array {exc}") from None
        if raw[0].shape[1] != CHANNELS or self.dense[-1][0].shape[1] != len(CLASSES):
            raise ValueError("patch model does not match this version's inputs (retrain it)")
        if self.dense[0][0].shape[0] != self._flat_size() + self.mu.shape[0]:
            raise ValueError("patch model's layers do not fit together (retrain it)")

    def _flat_size(self) -> int:
        side = SIDE
        for (_, _, k, stride), (name, _) in zip(self.convs, CONVS, strict=True):
            side = (side - k) // stride + 1
            if name == POOL_AFTER:
                side //= 2
        return side * side * self.convs[-1][0].shape[1]

    @classmethod
    def load(cls, path: Path | str = PATCH_MODEL_PATH) -> PatchNet:
        """Load weights saved by ``vision/train_patches.py``; ValueError with the reason if unusable."""
        return cls(read_weights(path, "patch model"))

    def forward(self, x: np.ndarray, d: np.ndarray) -> np.ndarray:
        """(N, 6) class probabilities for :func:`board_inputs` rows ``x`` and their :func:`describe` rows ``d``."""
        x = np.asarray(x, dtype=np.float32)
        return self.forward_patches(x[:, :SIDE * SIDE], x[:, SIDE * SIDE:AB_END],
                                    without_strip(np.asarray(d, dtype=np.float32)))

    def forward_patches(self, lum: np.ndarray, ab: np.ndarray, desc: np.ndarray) -> np.ndarray:
        """(N, 6) class probabilities from the patches and the descriptions without the height strip (what
        :meth:`forward` cuts out of its rows; a training set stores them so). Small products: one BLAS thread,
        as ``SquareNet.forward``."""
        h = patch_images(lum, ab)
        with _blas().limit(limits=1, user_api="blas"):
            for (w, b, k, stride), (name, _) in zip(self.convs, CONVS, strict=True):
                h = np.maximum(conv2d(h, w, b, k, stride), 0.0)
                if name == POOL_AFTER:
                    n, s, _, c = h.shape
                    h = h[:, :s // 2 * 2, :s // 2 * 2].reshape(n, s // 2, 2, s // 2, 2, c).max(axis=(2, 4))
            flat = h.transpose(0, 3, 1, 2).reshape(len(h), -1)  # PyTorch flattens channels first
            z = np.concatenate([flat, (np.asarray(desc, np.float32) - self.mu) / self.sd], axis=1)
            return dense_softmax(z, self.dense)


def with_patch_opinion(prob: np.ndarray, x: np.ndarray, d: np.ndarray, net: PatchNet, hand_seen: bool = True,
                       sure: float = SURE) -> np.ndarray:
    """``prob`` (N, 6) of the square network (rows ``x`` of :func:`board_inputs`, ``d`` of :func:`describe`)
    with the squares it is not ``sure`` of (no colour, kings with their men, nor "covered" that likely) read
    by the patch reader too: their probabilities the normalised geometric mean of both readers'.

    A vote, not a replacement: the pipeline's rules around the square network (its "covered" bars, the
    colour model's bounded vote, the second look) were measured with its probabilities, and a square it
    is sure of keeps them. The patch reader runs only where it may change something (about 5 of a rendered
    board's 32 squares, 4 at the median), so a frame costs about half a millisecond more.

    ``hand_seen``: whether a hand is seen over the board elsewhere (covered light squares, an arm in the
    margin). Without one, the vote may lower "covered" but not raise it above the square network's, and
    on a square where the patch reader alone sees a hand ("covered" at least ``HAND_DOUBT``, the square
    network's under it) it has no vote. The tall discs of real photos, taller than any rendered piece,
    look to it like fingertips: on the fhgr photos it took a white man the square network half took for a
    hand for a hand outright, and a white king for half a hand, half a dark king, and the pipeline then
    reported a hand over a still board, which holds every board back (docs/vision.md, "The patch reader").
    """
    unsure = np.maximum(colour_shares(prob).max(axis=1), prob[:, COVERED]) < sure
    if not unsure.any():
        return prob
    first = prob[unsure]
    second = net.forward(x[unsure], d[unsure])
    pooled = np.sqrt(first * second) + 1e-12
    pooled /= pooled.sum(axis=1, keepdims=True)
    if not hand_seen:
        # no hand is seen: the vote may lower "covered" but not raise it, and where the patch reader alone
        # sees a hand (the square network under HAND_DOUBT) it has no vote at all
        covered = np.minimum(pooled[:, COVERED], first[:, COVERED])
        rest = pooled[:, :COVERED]
        pooled[:, :COVERED] = rest * ((1.0 - covered) / rest.sum(axis=1))[:, None]
        pooled[:, COVERED] = covered
        alone = (second[:, COVERED] >= HAND_DOUBT) & (first[:, COVERED] < HAND_DOUBT)
        pooled[alone] = first[alone]
    out = prob.copy()
    out[unsure] = pooled
    return out


def both_see_a_hand(x: np.ndarray, d: np.ndarray, square_covered: np.ndarray, net: PatchNet) -> np.ndarray:
    """(N,) bool: rows (``x`` of :func:`board_inputs`, ``d`` their :func:`describe`) where the patch reader is
    at least ``HAND_SURE`` sure of "covered" and the square network's own "covered" (``square_covered``) is at
    least ``HAND_SHARED``.

    A hand that covers a dark square but hardly any light one is seen by neither the light-square test nor the
    margin, and then :func:`with_patch_opinion` may not raise "covered" and the colour model's veto can turn the
    skin into a piece or the bare square. Where both readers see the hand, it is one. The patch reader runs
    only on the rows the square network gives at least ``HAND_SHARED``: none on most boards."""
    out = np.zeros(len(square_covered), dtype=bool)
    ask = square_covered >= HAND_SHARED
    if ask.any():
        out[ask] = net.forward(x[ask], d[ask])[:, COVERED] >= HAND_SURE
    return out


def seen_past_a_fingertip(x: np.ndarray, d: np.ndarray, prob: np.ndarray, ask: np.ndarray, net: PatchNet,
                          below: np.ndarray | None = None) -> np.ndarray:
    """(N,) the class (0-4, of ``CLASSES``) to read on each row of ``ask`` instead of "covered", -1 where it stays.

    ``prob``: the pipeline's probabilities (N, 6) after every vote; its likeliest class other than "covered" is
    read where the patch reader gives "covered" under the row's bar (``below``, (N,); ``UNCOVER_BELOW`` for every
    row if None), its own likeliest such class is of the same colour class, and that colour is not dark. The
    patch reader runs on the rows of ``ask`` alone."""
    out = np.full(len(prob), -1, dtype=np.int64)
    rows = np.flatnonzero(ask)
    if len(rows):
        patch = net.forward(x[rows], d[rows])
        ours = prob[rows, :COVERED].argmax(axis=1)
        theirs = patch[:, :COVERED].argmax(axis=1)
        bar = UNCOVER_BELOW if below is None else below[rows]
        free = ((patch[:, COVERED] < bar) & (COLOUR_OF[ours] == COLOUR_OF[theirs])
                & (COLOUR_OF[ours] != DARK))
        out[rows[free]] = ours[free]
    return out


@lru_cache(maxsize=1)
def patch_net() -> PatchNet:
    """The committed patch reader (loaded once)."""
    return PatchNet.load(PATCH_MODEL_PATH)


__all__ = ["HAND_SHARED", "HAND_SURE", "PATCH_MODEL_PATH", "UNCOVER_BELOW", "UNCOVER_BESIDE_HAND", "PatchNet",
           "as_matrix", "both_see_a_hand", "conv2d", "patch_images", "patch_net", "seen_past_a_fingertip",
           "with_patch_opinion"]
