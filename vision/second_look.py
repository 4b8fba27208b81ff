"""A second look at squares the square network takes for a hand: the patch cut again around the piece.

The square network (``vision.squarenet``) was trained on pieces standing within 0.08 of a square of
their squares' centres. In a quick game a piece lands where the hand lets go, up to about a quarter of
a square off; the network's ring descriptors, centred on the square, then see a lopsided disc and call
it "covered" (a hand), and a single picture with no hand in it reports one (``dama bench vision
--off-centre``: 19 / 63 of about 266 such pictures, calibrated / uncalibrated, docs/vision.md).

So a square the network calls covered is read again with its patch cut around other centres, up to
0.2 of a square away (:data:`SHIFTS`). A piece off centre reads as a piece, sure of it, around its own
centre; a fingertip reads as covered wherever the patch is cut. A fingertip over a piece can read as
that piece from one side, though, so the second reading is taken only where nothing else suggests a
hand: no hand seen elsewhere in the picture, no light square beside the square departing from the
empty light colour by more than :data:`NEIGHBOUR_DEPARTURE` of the hand test's tolerance (part of a
hand over it), but for those a piece pushed the full 0.2 along either axis lies towards
(:data:`SPILL_DEPARTURE`, :func:`spill_sides`: its rim and shadow lie there), and no arm in the margin
beside an edge square (``vision.occlusion.arm_beside``).
With it, 6 / 13 of those pictures report a hand and 92.33 % / 88.33 % of the boards read right (kings
as men), against 85.67 % / 70.33 %; the plain scenes read as before (docs/vision.md, "A second look
around the piece").
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.cells import CELL, CellFeatures
from vision.classify import dark_cells
from vision.squarenet import (
    AB_END,
    COVERED,
    MARGIN,
    N_SCALARS,
    PATCH,
    SIDE,
    colour_shares,
    contrast_of,
    mirror_edges,
)

STEP = 2  # top-view px between centres tried: even, so colour patches keep board_inputs' grid of 2×2 means
REACH = 4  # top-view px (0.2 of a square at CELL = 20): as far as a piece set down carelessly lands
SHIFTS = tuple((dy, dx) for dy in range(-REACH, REACH + 1, STEP) for dx in range(-REACH, REACH + 1, STEP)
               if (dy, dx) != (0, 0))
LOOK_AGAIN = 0.3  # the network's "covered" from which a square is looked at again
SURE_PIECE = 0.8  # the second reading's likeliest colour (empty, light, dark) must be at least this sure
NEIGHBOUR_DEPARTURE = 0.7  # of vision.occlusion.light_cover's tolerance: beyond it a light neighbour may show a hand
# Lab units (L halved) the square's centre must lie from the bare dark square's colour for a piece reading: a
# piece set down off centre still covers its square's centre, a neighbour's piece leaning in does not.
PIECE_AT_CENTRE = 5.0
# The light neighbour on the side the piece's centre lies towards, when the best patch was cut the full
# REACH towards it, holds the piece's own rim and shadow: it may depart up to where the hand test calls a
# light square surely covered (2.5 of its tolerance), the other neighbours only NEIGHBOUR_DEPARTURE.
SPILL_DEPARTURE = 2.5
SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))  # (rows, columns) to the four light neighbours
LIGHTNESS_HALVED = np.array([0.5, 1.0, 1.0], dtype=np.float32)
# The patch reader's "covered" on the second reading's patch from which that reading is not taken: it reads a
# piece set down off centre as a piece, and a fingertip still as a hand where the square network sees past it.
HAND_IN_CUT = 0.5


def recentred_inputs(x: np.ndarray, feat: CellFeatures, bright_parity: int, square: int,
                     shifts: tuple[tuple[int, int], ...] = SHIFTS, reach: int = REACH) -> np.ndarray:
    """(len(shifts), N_INPUT) rows of :func:`vision.squarenet.board_inputs` for dark square ``square``
    (lattice order) with its patches cut ``(dy, dx)`` top-view px away (even, each within ``reach``);
    everything else is its own row's.

    The row's scalars give back what :func:`board_inputs` scaled by: the board's contrast and the
    square's light reference (its centre's colour less the first cell vector).
    """
    row = x[square]
    scale = contrast_of(row)
    inv = np.float32(1.0 / scale)
    i, j = (int(v) for v in dark_cells(bright_parity)[square])
    ref = feat.centre[j, i] - row[-N_SCALARS:-N_SCALARS + 3] * scale
    pad = MARGIN + reach
    lab = cv2.copyMakeBorder(feat.lab[max(j * CELL - pad, 0):(j + 1) * CELL + pad,
                                      max(i * CELL - pad, 0):(i + 1) * CELL + pad],
                             max(pad - j * CELL, 0), max((j + 1) * CELL + pad - 8 * CELL, 0),
                             max(pad - i * CELL, 0), max((i + 1) * CELL + pad - 8 * CELL, 0), cv2.BORDER_REPLICATE)
    # 2×2 means of the whole neighbourhood once: the shifts are even, so each colour patch is a crop of it
    half = cv2.resize(lab[..., 1:], None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    dy, dx = (np.array(shifts).reshape(-1, 2) + reach).T
    lum = np.lib.stride_tricks.sliding_window_view(lab[..., 0], (SIDE, SIDE))[dy, dx]
    ab = np.lib.stride_tricks.sliding_window_view(half, (PATCH, PATCH), axis=(0, 1))[dy // 2, dx // 2]
    out = np.repeat(row[None], len(shifts), axis=0)
    out[:, :SIDE * SIDE] = ((lum - ref[0]) * inv).reshape(len(shifts), -1)
    out[:, SIDE * SIDE:AB_END] = ((ab.transpose(0, 2, 3, 1) - ref[1:]) * inv).reshape(len(shifts), -1)
    return mirror_edges(out, np.full(len(shifts), j), np.full(len(shifts), i))


def centre_unlike_bare(row: np.ndarray) -> float:
    """Lab distance (L halved) of a square's centre from the bare dark square, from its
    :func:`board_inputs` row (its first cell vector is the centre less the light reference, and the bare
    square is stored less the same reference, both scaled by the board's contrast)."""
    scale = contrast_of(row)
    return float(np.linalg.norm((row[-N_SCALARS:-N_SCALARS + 3] - row[-6:-3]) * scale * LIGHTNESS_HALVED))


def spill_sides(shifts: np.ndarray) -> np.ndarray:
    """(4, N) bool: the light neighbours (:data:`SIDES`) a piece read around each centre of ``shifts``
    (N, 2) may spill onto (:data:`SPILL_DEPARTURE`): those the centre lies towards when it was cut the full
    :data:`REACH` away along either axis. A piece pushed the full 0.2 along one axis and 0.1 along the
    other lays its rim and shadow on both neighbours it was pushed towards; a piece nearer its centre keeps
    them off the neighbours' inner area (and a finger beside a piece is read from a shift of 0.1)."""
    return (np.array(SIDES) @ shifts.T >= STEP) & (np.abs(shifts).max(axis=1) >= REACH)


def second_look(forward: Callable[[np.ndarray], np.ndarray], x: np.ndarray, prob: np.ndarray,
                feat: CellFeatures, bright_parity: int, light_departure: Callable[[], np.ndarray],
                arm: Callable[[], np.ndarray],
                hand_in: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """``prob`` (32, 6) with the squares the network calls covered read again around shifted centres.

    ``forward`` maps rows of :func:`board_inputs` to class probabilities (the pipeline's square readers),
    ``x`` are the board's rows, ``light_departure()`` gives :func:`vision.occlusion.light_departure`
    and ``arm()`` :func:`vision.occlusion.arm_beside` of the margin (both asked for only when needed).
    A square takes its second reading when that reading is an empty square or a piece of one colour
    (man or king: the crown reader tells those apart) at least :data:`SURE_PIECE` sure, at most half as
    sure of "covered" as the first, its light neighbours within their bars (:data:`SPILL_DEPARTURE` on
    the sides the best patch was cut towards when it was cut the full :data:`REACH` away along either
    axis, :func:`spill_sides`; :data:`NEIGHBOUR_DEPARTURE` elsewhere; ``light_departure()`` may give a
    square the hand test calls covered as infinite), and, for a piece,
    when the square's centre is unlike the bare square (:data:`PIECE_AT_CENTRE`; cut around another
    centre, a patch can take in a neighbour's piece leaning over the square). Call it only when no hand
    is seen elsewhere over the board.

    ``hand_in(rows)`` gives the patch reader's "covered" (``vision.patchnet``) on rows of :func:`board_inputs`;
    where it gives at least :data:`HAND_IN_CUT` on the patch the second reading came from, that reading is
    not taken. Cut around another centre, a patch can leave out most of a fingertip over part of the square,
    and the square network then reads the piece beside the finger, or the finger's edge as a dark piece: a
    fingertip over an empty square read as a dark king (``dama bench vision --seed 4``, scene 460). The
    patch reader, trained on pieces set down off centre as well as on hands, still sees the finger there
    (docs/vision.md, "The second look asks the patch reader").
    """
    look = np.flatnonzero(prob[:, COVERED] > LOOK_AGAIN)
    if not len(look):
        return prob
    cells = dark_cells(bright_parity)
    jj, ii = cells[:, 1], cells[:, 0]
    near = np.pad(light_departure(), 1)
    sides = np.stack([near[jj + 1 + a, ii + 1 + b] for a, b in SIDES], axis=1)  # (32, 4)
    look = look[sides[look].max(axis=1) <= max(NEIGHBOUR_DEPARTURE, SPILL_DEPARTURE)]
    edge = (jj[look] % 7 == 0) | (ii[look] % 7 == 0)  # only an edge square has margin beside it
    if edge.any():
        look = look[~(edge & arm()[look])]
    if not len(look):
        return prob
    rows = np.concatenate([recentred_inputs(x, feat, bright_parity, int(k), SHIFTS) for k in look])
    again = forward(rows).reshape(len(look), len(SHIFTS), -1)
    bests = again[:, :, COVERED].argmin(axis=1)
    best_read = again[np.arange(len(look)), bests]  # each square's least covered second reading
    shares = colour_shares(best_read)  # empty, light, dark
    toward = spill_sides(np.array(SHIFTS))
    taken = []  # indices into look of the squares whose second reading passes the tests above
    for n, (k, best, colours) in enumerate(zip(look, bests, shares, strict=True)):
        allowed = np.where(toward[:, best], SPILL_DEPARTURE, NEIGHBOUR_DEPARTURE)
        reading = int(np.argmax(colours))
        if (best_read[n, COVERED] < 0.5 * prob[k, COVERED] and colours[reading] >= SURE_PIECE
                and (sides[k] <= allowed).all()
                and (reading == 0 or centre_unlike_bare(x[k]) >= PIECE_AT_CENTRE)):
            taken.append(n)
    if not taken:
        return prob
    taken = np.array(taken)
    if hand_in is not None:  # the patch reader's word, asked only on the patches a reading would come from
        best_rows = rows.reshape(len(look), len(SHIFTS), -1)[taken, bests[taken]]
        taken = taken[hand_in(best_rows) < HAND_IN_CUT]
    out = prob.copy()
    out[look[taken]] = best_read[taken]
    return out
