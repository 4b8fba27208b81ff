"""Where the camera shows a king's height: how far, in picture pixels, a king's top lands beyond a man's.

A king is two men stacked (čl. 3.6), so its top stands one man's height above a man's. Under a tilted camera
that extra height moves the top away from the camera's foot in the picture; straight below the camera it
moves nowhere, and no reader can tell a king from a man there from one picture (the issue: kings are
recognized "where the camera angle shows their height; elsewhere the referee knows"). The crown reader
found 99.6 % of the benchmark's kings whose top lands at least 6 px beyond a man's and 95 % of those at
3–6 px (docs/vision.md, "Where the camera shows a king's height"). So this module tells, for a board fit,
which squares those are, and the pipeline passes it on (``FrameResult.crown_px``): `dama calibrate` says
how much of the board the camera shows kings on and how to place it better, and `dama recognize`'s
overlay marks the squares where a king can pass for a man.

Pure geometry on the camera's place (:mod:`vision.viewpoint`): a point ``z`` squares above lattice point
``p`` is seen where the ray from the camera through it meets the board, ``p + (p − nadir)·z/(H − z)``,
and that board point maps to the picture by the lattice homography.
"""

from __future__ import annotations

import numpy as np

from vision.viewpoint import Viewpoint

MAN_HEIGHT = 0.2  # squares: a man's thickness when the set's is not known (28–33 mm discs 7–9 mm thick on
# 40–45 mm squares; the renders draw 0.18–0.3). Taller men show more, so this errs towards "does not show".
KING_SHOWN_PX = 6.0  # a king's top this far beyond a man's: found 99.6 % of the time on the benchmark


def top_at(view: Viewpoint, uv: np.ndarray, z: float) -> np.ndarray:
    """(N, 2) lattice point where a point ``z`` squares above each lattice point ``uv`` is seen; NaN when the
    camera is not above that height (the ray from it through the point never meets the board)."""
    uv = np.asarray(uv, dtype=np.float64).reshape(-1, 2)
    lift = z / (view.height - z) if view.height > z else np.nan
    return uv + (uv - view.nadir) * lift


def crown_px(view: Viewpoint, h_lattice: np.ndarray, centres: np.ndarray,
             man_height: float = MAN_HEIGHT) -> np.ndarray:
    """(N,) picture pixels between where a king's top and a man's top land, on lattice ``centres`` (N, 2),
    for a camera at ``view`` and the lattice → picture homography ``h_lattice``. Where a top would land
    at or beyond the horizon (a degenerate fit) the answer is 0: nothing can be said to show there."""
    base = np.asarray(centres, dtype=np.float64).reshape(-1, 2)
    man = top_at(view, base, man_height)
    king = top_at(view, base, 2.0 * man_height)
    h = np.asarray(h_lattice, dtype=np.float64)
    p = np.c_[np.concatenate([base, man, king]), np.ones(3 * len(base))] @ h.T
    with np.errstate(divide="ignore", invalid="ignore"):
        img = p[:, :2] / p[:, 2:3]
    on, m, k = np.split(np.arange(len(p)), 3)
    d = np.linalg.norm(img[k] - img[m], axis=1)
    # the tops lie in front of the camera where the homography's scale has the sign it has on the board
    ahead = (np.sign(p[m, 2]) == np.sign(p[on, 2])) & (np.sign(p[k, 2]) == np.sign(p[on, 2]))
    return np.where(np.isfinite(d) & ahead, d, 0.0)


def verdict(px: np.ndarray, least: float = KING_SHOWN_PX) -> str:
    """One line for a person setting up the camera: on how many of the 32 squares (``px`` in observation
    order, :data:`vision.geometry.SQUARE_NAMES`) a king's height shows, and what to do where it does not."""
    from vision.geometry import SQUARE_NAMES

    px = np.asarray(px, dtype=np.float64)
    shown = px >= least
    n, total = int(np.count_nonzero(shown)), len(px)
    if n == total:
        return f"a king's height shows on all {total} dark squares: kings are read from the picture"

    def listed(want: bool) -> str:  # the squares that do (or do not) show it, the first eight named
        names = [s for s, ok in zip(SQUARE_NAMES, shown, strict=True) if ok == want]
        return ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")

    if n == 0:
        where = f"a king's height shows on none of the {total} dark squares: a king may pass for a man anywhere"
    elif 2 * n >= total:
        where = f"a king's height shows on {n}/{total} dark squares; on {listed(False)} a king may pass for a man"
    else:
        where = (f"a king's height shows on {n}/{total} dark squares, only on {listed(True)}; elsewhere a king "
                 "may pass for a man")
    return (where + ". In a game the referee knows every king; to read kings from the picture too (a position "
            "set up with kings), move the camera off to a side of the board and tilt it towards it (25-45 "
            "degrees from straight down), bring it closer, or give it a larger picture")


__all__ = ["KING_SHOWN_PX", "MAN_HEIGHT", "crown_px", "top_at", "verdict"]
