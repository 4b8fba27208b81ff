"""The crown reader: for a piece, man or king, from its height strip (a small convolutional network).

A crowned king is two men stacked (čl. 3.6). Under a tilted camera its height strip (``vision.heights``:
the square's lightness along the direction away from the camera, at the picture's own resolution) shows
two discs: the near rim, the seam between the discs, the top landing twice as far as a man's. Where
along the strip those arcs fall depends on the camera and the board's size in the picture, so the reader
slides the same small filters along the strip (two convolution layers) rather than learning every
position apart, as the earlier multilayer perceptron did. The committed pair (2026-12-01) was trained on
fourteen sets: two of thick pieces (0.3–0.48 of a square, as the real discs of the fhgr photos) and three
of pieces set down up to 0.22 of a square off centre (``vision.render.params.with_pieces_off_centre``);
on ``dama bench vision --off-centre`` 10 of the 341 kings it reports are men, against 271 of 565 for the
pair before it, which had seen pieces only within 0.08 of the centre (an off-centre piece's strip looks
stretched, as a king's does). The pair before that, trained on thin pieces only, took 418 of 549 thick
men for kings on ``dama bench vision --thick-pieces`` (docs/vision.md).

Inputs, per dark square, shape only (:func:`crown_inputs`):

* the strip folded across its middle (a piece seen in a mirror is the same piece; the two halves
  differ only by the scene's light), less its own mean: light and dark pieces, bright and dim scenes
  look alike;
* the top view's two lightness profiles along and across that direction (``vision.squarenet``) less
  their mean, and the shift per unit height at the square (how far a king's top can land), standardised.

The network: convolution 7 × 5 → 24 filters, ReLU, max-pool 2, convolution 5 × 24 → 32, ReLU, flattened
beside the shape features, then 128 → 64 → 1 (the logit of "king"). Plain numpy: 32 squares cost about
0.8 ms per network (with the weights' subnormal numbers flushed as they load, ``read_weights``: 11 ms
before), and the pipeline reads crowns again only when something on the board moved, and only for
squares that may hold a piece. Trained by ``vision/train_crowns.py``; several trained networks
may be stored in one file, their logits averaged (the committed file holds two).

Beside a man of this set (the *pair reader*, ``PAIR_PATH``, 2026-12-02). Read alone, a piece's absolute
height decides, and a man of thick discs looks like a king of thin ones; a king drawn as one tall disc
(as real kings sit, with no seam between them) looked to the lone reader like a man. The pair reader
sees the piece's strip and, beside it as further channels, the strip of a man of the same set under the
same camera: the man seen on its square in a known position (``vision.men_seen``), or one near it (within
``NEAR_SQUARES``), or, in a picture with no known position, the board's least king-like piece near it,
else anywhere on the board (:func:`least_king_like_near`). Its shape features follow the piece's. The
same network otherwise, trained with ``--pairs`` on pieces each drawn a man of their scene afresh every
epoch, half of the time from its own square in another board of the scene. The pipeline adds a share
of its logit to the lone reader's weighed one (``vision.pipeline.PAIR_WEIGHT``, ``PAIR_KING_FROM``;
docs/vision.md, "Beside a man of this set").
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision.heights import ACROSS, ALONG
from vision.squarenet import KING_THRESHOLD, N_PROFILE, STRIP_IN_DESC, _blas, read_weights

CROWN_PATH = Path(__file__).resolve().parent / "models" / "crownnet.npz"
PAIR_PATH = Path(__file__).resolve().parent / "models" / "crownpair.npz"
HALF = len(ACROSS) // 2  # rows of the folded strip
PARAMS = ("c1", "cb1", "c2", "cb2", "w0", "b0", "w1", "b1", "w2", "b2")
# Strips come in units of the board's light-minus-dark contrast (vision.squarenet.board_inputs), in which a
# strip's own spread is a fraction of one: adding this keeps a faint strip (a dark piece on a dark square)
# from being blown up to wood grain and noise, so the spread only tempers the scale.
SPREAD_FLOOR = 2.0
PROFILES = slice(STRIP_IN_DESC.start - 2 * N_PROFILE, STRIP_IN_DESC.start)  # describe(): along, across
SHIFT_NORM = STRIP_IN_DESC.stop  # describe(): how far a unit of height moves a top, in squares
# One board's men are one set of discs (:func:`on_this_board`): how much of a surface through its pieces' king
# logits (least squares in the board's coordinates, kings left out) and of their median is taken off each
# piece's, how far each may pull, and the bar on that scale (docs/vision.md, "Kings on this board").
BOARD_SURFACE = 0.2
BOARD_PULL = 0.15
BOARD_PULL_LIMIT = 4.0
BOARD_KING_FROM = 2.5
SURFACE_TRIM = 3.0  # a piece this far above the surface is left out of the next fit (a king, most likely)
N_CROWN_INPUTS = len(ALONG) * HALF + 2 * N_PROFILE + 1  # a row of flat_inputs: folded strip, then shape
NEAR_SQUARES = 2.3  # squares: how far a pair reader's man may stand (a diagonal step, or two along a file or rank)
KING_LOGIT = float(np.log(KING_THRESHOLD / (1.0 - KING_THRESHOLD)))  # the pipeline's king bar as a logit


def crown_inputs(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(strips (N, along, HALF), shape (N, 2·N_PROFILE + 1)) from rows of :func:`vision.squarenet.describe`.

    Only shape: the folded strip less its own mean, the top view's two height profiles less theirs, and
    how far a unit of height moves a top at this square. Colours are the square network's business; a
    reader that also saw them found as many kings on the woods and pieces it was trained on, but on
    held-out ones crowned two and a half times as many men (docs/vision.md).
    """
    d = np.asarray(d, dtype=np.float32)
    st = d[:, STRIP_IN_DESC].reshape(len(d), len(ACROSS), len(ALONG))
    folded = 0.5 * (st[:, :HALF] + st[:, ::-1][:, :HALF])
    mu = folded.mean(axis=(1, 2), keepdims=True)
    sd = folded.std(axis=(1, 2), keepdims=True) + SPREAD_FLOOR
    strips = ((folded - mu) / sd).transpose(0, 2, 1)
    profiles = d[:, PROFILES]
    shape = np.concatenate([profiles - profiles.mean(axis=1, keepdims=True), d[:, SHIFT_NORM:SHIFT_NORM + 1]], axis=1)
    return np.ascontiguousarray(strips, dtype=np.float32), np.ascontiguousarray(shape, dtype=np.float32)


def flat_inputs(strips: np.ndarray, other: np.ndarray) -> np.ndarray:
    """(N, K) :func:`crown_inputs` flattened side by side, a row a piece (what ``vision.men_seen`` keeps)."""
    return np.concatenate([np.asarray(strips, dtype=np.float32).reshape(len(strips), -1),
                           np.asarray(other, dtype=np.float32)], axis=1)


def split_inputs(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`crown_inputs` again from rows of :func:`flat_inputs`."""
    flat = np.asarray(flat, dtype=np.float32)
    n_strip = len(ALONG) * HALF
    return np.ascontiguousarray(flat[:, :n_strip].reshape(len(flat), len(ALONG), HALF)), flat[:, n_strip:].copy()


def least_king_like_near(logits: np.ndarray, pieces: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """(N,) for every square, the square of ``pieces`` (N, bool) within ``NEAR_SQUARES`` of it at ``centres``
    (N, 2) whose king ``logits`` are lowest (its likeliest man, to weigh it against); where none is that
    near, the least king-like of the board's other pieces wherever it stands; -1 where there is no other.

    Near is better: how tall a man looks changes across the board with the camera's slant. But a man
    further off still tells the set's height, which a piece read alone cannot: on the fhgr photos the
    kings stand on boards of five pieces, none within 2.3 squares of another, and beside the farther
    man 6 of their 9 are found in single pictures (3 alone) and 19 of 27 calibrated on another photo
    (9), with no man crowned (docs/vision.md, "Beside a man of this set").
    """
    logits = np.asarray(logits, dtype=np.float64)
    centres = np.asarray(centres, dtype=np.float64)
    dist = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=2)
    other = (dist > 0) & np.asarray(pieces, dtype=bool)[None, :] & np.isfinite(logits)[None, :]
    rows = np.arange(len(logits))
    out = np.full(len(logits), -1)
    for ok in (other & (dist <= NEAR_SQUARES), other):
        score = np.where(ok, logits[None, :], np.inf)
        best = score.argmin(axis=1)
        found = (out < 0) & np.isfinite(score[rows, best])
        out[found] = best[found]
    return out


def unfold(x: np.ndarray, k: int) -> np.ndarray:
    """(B, L − k + 1, k·C) windows of ``k`` positions of ``x`` (B, L, C), position-major within a window."""
    w = np.lib.stride_tricks.sliding_window_view(x, k, axis=1)  # (B, P, C, k)
    return np.ascontiguousarray(w.transpose(0, 1, 3, 2)).reshape(x.shape[0], x.shape[1] - k + 1, -1)


def conv_outputs(k1: int, k2: int, f2: int) -> int:
    """Values the convolutions hand to the first dense layer: filters ``k1`` and ``k2`` long (the second
    after max-pooling by 2) over a strip of ``len(ALONG)`` samples, ``f2`` filters in the second."""
    return ((len(ALONG) - k1 + 1) // 2 - k2 + 1) * f2


def conv_forward(p: dict[str, np.ndarray], strips: np.ndarray, other: np.ndarray,
                 keep: bool = False) -> tuple[np.ndarray, tuple | None]:
    """(B,) king logits of one network's parameters ``p`` (``other`` already standardised); with ``keep``
    also what :func:`vision.train_crowns.backward` needs."""
    b = len(strips)
    k1 = p["c1"].shape[0] // strips.shape[2]
    c1 = unfold(strips, k1)
    h1 = np.maximum(c1 @ p["c1"] + p["cb1"], 0.0)
    pooled_len = h1.shape[1] // 2
    pairs = h1[:, :2 * pooled_len].reshape(b, pooled_len, 2, h1.shape[2])
    pooled = pairs.max(axis=2)
    k2 = p["c2"].shape[0] // pooled.shape[2]
    c2 = unfold(pooled, k2)
    h2 = np.maximum(c2 @ p["c2"] + p["cb2"], 0.0)
    z0 = np.concatenate([h2.reshape(b, -1), other], axis=1)
    a0 = np.maximum(z0 @ p["w0"] + p["b0"], 0.0)
    a1 = np.maximum(a0 @ p["w1"] + p["b1"], 0.0)
    logit = (a1 @ p["w2"] + p["b2"])[:, 0]
    cache = (strips, c1, h1, pairs.argmax(axis=2), pooled, c2, h2, z0, a0, a1) if keep else None
    return logit, cache


class CrownReader:
    """One or more trained crown networks (their logits averaged) with the input scaling they share."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        try:
            self.mu = np.asarray(weights["mu"], dtype=np.float32)
            self.sd = np.asarray(weights["sd"], dtype=np.float32)
            n = int(np.asarray(weights.get("n_nets", 1)))
            keys = [[f"{name}_{i}" if n > 1 else name for name in PARAMS] for i in range(n)]
            self.nets = [{name: np.asarray(weights[k], dtype=np.float32) for name, k in zip(PARAMS, ks, strict=True)}
                         for ks in keys]
        except KeyError as exc:
            raise ValueError(f"crown model lacks array {exc}") from None
        self.pair = bool(int(np.asarray(weights.get("pair", 0))))  # a pair reader: piece beside a man
        self.channels = HALF * (2 if self.pair else 1)
        if not all(self._fits(p, self.mu.shape[0], self.channels) for p in self.nets):
            raise ValueError("crown model does not match this version's inputs (retrain it)")
        # names these weights: logits kept in a profile (vision.men_seen) are only comparable with the same
        sha = hashlib.sha1()
        for key in sorted(weights):
            sha.update(key.encode())
            sha.update(np.ascontiguousarray(weights[key]).tobytes())
        self.digest = sha.hexdigest()[:12]

    @staticmethod
    def _fits(p: dict[str, np.ndarray], n_shape: int, channels: int) -> bool:
        """Do one network's filters and layers fit ``channels`` rows of folded strip and ``n_shape`` shape features?"""
        k1, odd1 = divmod(p["c1"].shape[0], channels)
        k2, odd2 = divmod(p["c2"].shape[0], p["c1"].shape[1])
        flat = conv_outputs(k1, k2, p["c2"].shape[1])
        return not odd1 and not odd2 and p["w0"].shape[0] == flat + n_shape and p["w2"].shape[1] == 1

    @classmethod
    def load(cls, path: Path | str = CROWN_PATH) -> CrownReader:
        """Load weights saved by ``vision/train_crowns.py``; ValueError with the reason if unusable."""
        return cls(read_weights(path, "crown model"))

    def logits(self, d: np.ndarray) -> np.ndarray:
        """(N,) mean king logit of the networks for rows of :func:`vision.squarenet.describe`."""
        return self.logits_of(crown_inputs(d))

    def logits_of(self, pieces: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """:meth:`logits` from the pieces' :func:`crown_inputs` (the pipeline computes them once)."""
        if self.pair:
            raise ValueError("a pair crown reader reads a piece beside a man: pair_logits")
        return self._forward(*pieces)

    def pair_logits(self, d: np.ndarray, men: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """(N,) mean king logit of a pair reader's networks for rows of :func:`vision.squarenet.describe`,
        each piece beside the man whose :func:`crown_inputs` are the same row of ``men``."""
        return self.pair_logits_of(crown_inputs(d), men)

    def pair_logits_of(self, pieces: tuple[np.ndarray, np.ndarray], men: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """:meth:`pair_logits` from the pieces' :func:`crown_inputs`."""
        if not self.pair:
            raise ValueError("this crown reader reads one piece alone: logits")
        return self._forward(np.concatenate([pieces[0], np.asarray(men[0], dtype=np.float32)], axis=2),
                             np.concatenate([pieces[1], np.asarray(men[1], dtype=np.float32)], axis=1))

    def _forward(self, strips: np.ndarray, other: np.ndarray) -> np.ndarray:
        other = (other - self.mu) / self.sd
        with _blas().limit(limits=1, user_api="blas"):  # threaded BLAS costs far more than these small products
            return np.mean([conv_forward(p, np.ascontiguousarray(strips), other)[0] for p in self.nets], axis=0)

    def king_share(self, d: np.ndarray) -> np.ndarray:
        """(N,) probability that a piece on each square is a king (meaningless for an empty square), each
        square alone (the pipeline also weighs the board's other pieces: :func:`on_this_board`)."""
        return share_of(self.logits(d))


def on_this_board(logits: np.ndarray, pieces: np.ndarray, centres: np.ndarray | None = None,
                  king_logit: float = KING_LOGIT) -> np.ndarray:
    """``logits`` (N,) weighed against the board's other pieces, on the scale whose bar is ``king_logit``
    (the pipeline's, ``vision.squarenet.KING_THRESHOLD`` as a logit): less ``BOARD_SURFACE`` times a
    surface through the logits of the squares ``pieces`` (N, bool) marks, at ``centres`` (N, 2, board
    coordinates in squares; None: a flat surface), and ``BOARD_PULL`` times their median, each clipped to
    ``BOARD_PULL_LIMIT``, the bar moved to ``BOARD_KING_FROM``. With fewer than three pieces nothing changes.

    The reader sees one square, so a piece's absolute height decides: a man of thick discs looks like a
    king of thin ones, and how king-like a man looks changes across the board with the camera's slant.
    On a board the men outnumber the kings nearly always and all pieces are one set, so where this
    board's pieces look king-like (thick discs, a camera that stretches them there) a piece needs more to
    be crowned, and where they look plainly like men a king stands out with less. The surface is a
    least-squares quadratic in the board's coordinates (a plane from 6 pieces, flat below), fitted three
    times, each time without the pieces more than ``SURFACE_TRIM`` above it (the kings). Only a share of
    each, clipped, so a board of many kings (an endgame) raises the bar a little rather than taking its
    kings for men: at most 1.4 either way, against 1.2 for the median alone (docs/vision.md, "Kings on
    this board": a pull of 2.4 crowned men of woods and pieces the readers never saw).
    """
    logits = np.asarray(logits, dtype=np.float64)
    pieces = np.asarray(pieces, dtype=bool)
    if pieces.sum() < 3:
        return logits.copy()
    at = np.zeros((len(logits), 2)) if centres is None else np.asarray(centres, dtype=np.float64)
    surface = np.clip(_board_surface(logits, pieces, at), -BOARD_PULL_LIMIT, BOARD_PULL_LIMIT)
    return logits - BOARD_SURFACE * surface - BOARD_PULL * board_median(logits, pieces) - (BOARD_KING_FROM - king_logit)


def board_median(logits: np.ndarray, pieces: np.ndarray) -> float:
    """The median logit of the squares ``pieces`` marks, clipped to ``BOARD_PULL_LIMIT``; 0 below three pieces."""
    pieces = np.asarray(pieces, dtype=bool)
    if pieces.sum() < 3:
        return 0.0
    return float(np.clip(np.median(np.asarray(logits)[pieces]), -BOARD_PULL_LIMIT, BOARD_PULL_LIMIT))


def board_terms(at: np.ndarray, degree: int = 2) -> np.ndarray:
    """(N, 1 / 3 / 6) the terms of a polynomial of ``degree`` 0–2 in board coordinates ``at`` (N, 2, squares),
    centred on the board: what the surfaces through a board's king logits are fitted on."""
    u, v = at[:, 0] / 8.0 - 0.5, at[:, 1] / 8.0 - 0.5
    cols = [np.ones(len(at))] + ([u, v] if degree >= 1 else []) + ([u * u, u * v, v * v] if degree >= 2 else [])
    return np.stack(cols, axis=1)


def _board_surface(logits: np.ndarray, pieces: np.ndarray, at: np.ndarray) -> np.ndarray:
    """(N,) the trimmed least-squares surface through ``logits[pieces]`` at ``at``, evaluated at every ``at``."""
    n = int(pieces.sum())
    terms = board_terms(at, 2 if n >= 12 else 1 if n >= 6 else 0)
    a, y = terms[pieces], logits[pieces]
    coef = np.linalg.lstsq(a, y, rcond=None)[0]
    for _ in range(2):
        keep = y - a @ coef < SURFACE_TRIM
        if keep.sum() <= a.shape[1]:
            break
        coef = np.linalg.lstsq(a[keep], y[keep], rcond=None)[0]
    return terms @ coef


def share_of(logits: np.ndarray) -> np.ndarray:
    """Probabilities from king logits (clipped where the exponential would overflow)."""
    return 1.0 / (1.0 + np.exp(-np.clip(np.asarray(logits, dtype=np.float64), -40.0, 40.0)))


@lru_cache(maxsize=1)
def default_crown_reader() -> CrownReader:
    """The committed crown reader (loaded once)."""
    return CrownReader.load(CROWN_PATH)


@lru_cache(maxsize=1)
def default_pair_reader() -> CrownReader:
    """The committed pair reader: a piece beside a man of its set (loaded once)."""
    reader = CrownReader.load(PAIR_PATH)
    if not reader.pair:
        raise ValueError(f"{PAIR_PATH} is not a pair crown reader")
    return reader


__all__ = ["BOARD_KING_FROM", "BOARD_PULL", "BOARD_PULL_LIMIT", "BOARD_SURFACE", "CROWN_PATH", "CrownReader",
           "KING_LOGIT", "NEAR_SQUARES", "N_CROWN_INPUTS", "PAIR_PATH", "board_median", "board_terms",
           "conv_forward", "conv_outputs", "crown_inputs", "default_crown_reader", "default_pair_reader",
           "flat_inputs", "least_king_like_near", "on_this_board", "share_of", "split_inputs", "unfold"]
