"""A king's colour read from its upper disc where its own square leaves the square network torn.

A king is two men stacked (čl. 3.6). Under a tilted camera anything above the board lands in the top view
shifted away from the camera by its height times the square's shift per unit height (``vision.viewpoint``):
a man's top face one piece height beyond its square's centre, a king's two. At 44–49° of tilt the shift is
1.5–2 squares per square of height, so with discs 0.2–0.3 of a square tall a king's top face lands 0.6–1.2
of a square away, mostly outside the patch the square network reads (its square and a quarter square
around it). What the patch holds then is the two discs' side walls, and under light from above a light
king's walls are grey: the network is torn between a light and a dark piece (``dama bench vision --seed
3``, scene 460: light 0.33, dark 0.64, read as a dark king).

The upper disc stands on the lower one as a man stands on its square, one piece height further from the
camera. So where the crown reader takes a piece for a king and the network is torn between its colours, the
patch is cut again that far away (``vision.second_look.recentred_inputs``) and read: there the upper disc
looks like a man on the square, top face and all. A set's piece height is not known, so the cut is tried
at three heights (:data:`PIECE_HEIGHTS`), and only a colour all three readings are sure of is taken.
Where the network is sure of the colour, nothing changes: a dark king's cut one height on can take in
the light square beyond it and read light (seeds 3–5, dark kings at 42–48°), which is why the top is
asked only where the square itself cannot tell.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vision.cells import CELL, CellFeatures
from vision.second_look import recentred_inputs
from vision.squarenet import colour_shares

PIECE_HEIGHTS = (0.18, 0.24, 0.3)  # disc heights tried, in squares (wooden draughts sets: 0.18–0.3)
KING_FROM = 0.5  # the crown reader's share of a piece from which its upper disc is looked at
TORN = 0.9  # the likelier colour's share of the piece under which the network is torn between colours
SURE_TOP = 0.9  # colour share each reading of the upper disc needs, all three agreeing
MAX_CUT = 12  # top-view px (0.6 of a square): the farthest cut, a 0.3-square disc at a shift of 2


def top_cuts(shift: np.ndarray, heights: tuple[float, ...] = PIECE_HEIGHTS) -> tuple[tuple[int, int], ...]:
    """(dy, dx) top-view px, even, within :data:`MAX_CUT`, to the upper disc of a king on a square whose
    shift per unit height (lattice (u, v) squares) is ``shift`` (2,), for each disc height in ``heights``."""
    cuts = []
    for h in heights:
        dx, dy = np.asarray(shift, dtype=np.float64) * h * CELL  # lattice u, v run along top-view x, y
        cuts.append(tuple(int(np.clip(2 * round(v / 2), -MAX_CUT, MAX_CUT)) for v in (dy, dx)))
    return tuple(cuts)


def torn_kings(prob: np.ndarray) -> np.ndarray:
    """Indices of the squares ``prob`` (N, 6; with the crown reader's split) reads as a king, more likely a
    piece than not and at least :data:`KING_FROM` of it a king, whose colour is under :data:`TORN` sure."""
    light, dark = prob[:, 1] + prob[:, 3], prob[:, 2] + prob[:, 4]
    piece = light + dark
    king = prob[:, 3] + prob[:, 4]
    return np.flatnonzero((piece >= 0.5) & (king >= KING_FROM * piece)
                          & (np.maximum(light, dark) < TORN * np.maximum(piece, 1e-12)))


def with_king_tops(prob: np.ndarray, x: np.ndarray, feat: CellFeatures, bright_parity: int, shift: np.ndarray,
                   forward: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``prob`` (32, 6, lattice order, the crown reader's split in) with each torn king's colour taken from
    its upper disc where every reading of it (:func:`top_cuts`) names the same colour at least
    :data:`SURE_TOP` sure; the piece's share and its king share stay.

    ``x``: the board's rows of :func:`vision.squarenet.board_inputs`; ``shift`` (32, 2): each square's
    shift per unit height; ``forward`` maps rows to class probabilities (the pipeline's square readers).
    """
    torn = torn_kings(prob)
    if not len(torn):
        return prob
    out = prob.copy()
    for k in torn:
        rows = recentred_inputs(x, feat, bright_parity, int(k), top_cuts(shift[k]), reach=MAX_CUT)
        shares = colour_shares(forward(rows))
        colour = shares.argmax(axis=1)
        if colour[0] == 0 or (colour != colour[0]).any() or shares[np.arange(len(rows)), colour].min() < SURE_TOP:
            continue
        piece = prob[k, 1:5].sum()
        king = (prob[k, 3] + prob[k, 4]) / piece
        man_class, king_class = (1, 3) if colour[0] == 1 else (2, 4)
        out[k, 1:5] = 0.0
        out[k, man_class] = piece * (1.0 - king)
        out[k, king_class] = piece * king
    return out
