"""Stage 2, orientation (čl. 2.4): which lattice corner is a1, and is the board placed correctly?

The lattice found by localization has four possible rotations onto the board. A rotation puts White's
edge (a1–h1) on one lattice edge; a1 is White's left corner. The board is placed correctly when that
corner is a dark square (then h8 is dark too). Where White sits comes from, in order: the caller
(``white_at``: the image side nearest White), the pieces (light men on White's half, as in the start
position), the calibration profile (the a1 corner saved there, if the board has not moved much), and
otherwise it is unknown (``orientation_ok`` None) — then a1 is taken as the dark corner on the edge
nearest the bottom of the image, which is where a camera usually looks from.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from vision.geometry import DARK_SQUARES

LATTICE_CORNERS = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], dtype=np.float64)
SIDES = ("bottom", "top", "left", "right")


def rotation_corners(k: int) -> np.ndarray:
    """Lattice points of a1, h1, h8, a8 for rotation ``k`` (image handedness: a1→h1→h8 turns left)."""
    return np.array([LATTICE_CORNERS[(k - n) % 4] for n in range(4)])


@lru_cache(maxsize=8)
def square_cells(k: int, ok: bool) -> np.ndarray:
    """(32, 2) lattice cells of the observation squares under rotation ``k``.

    When the board is misplaced (``ok`` False) the playing squares are named with files counted from
    White's right, so that the pieces still land on the 32 named squares (čl. 5.1 voids such a game;
    the names only keep the observation usable until the board is turned).
    """
    a1, h1, _, a8 = rotation_corners(k)
    ef = (h1 - a1) / 8.0
    er = (a8 - a1) / 8.0
    out = np.zeros((32, 2), dtype=np.int64)
    for n, (f, r) in enumerate(DARK_SQUARES):
        ff = f if ok else 7 - f
        p = a1 + (ff + 0.5) * ef + (r + 0.5) * er
        out[n] = np.floor(p).astype(np.int64)
    out.flags.writeable = False  # cached: shared by every caller
    return out


def a1_is_dark(k: int, bright_parity: int) -> bool:
    a1 = rotation_corners(k)[0]
    cell = np.minimum(a1, 7).astype(int)
    return (int(cell[0]) + int(cell[1])) % 2 != bright_parity


def from_pieces(cells: np.ndarray, labels: np.ndarray, min_gap: float = 2.5) -> int | None:
    """Rotation whose White edge has the light pieces nearest and the dark ones farthest, if clear.

    ``cells`` (32, 2) lattice cells of the dark squares, ``labels`` 0 empty / 1 light / 2 dark.
    """
    light = cells[labels == 1] + 0.5
    dark = cells[labels == 2] + 0.5
    if len(light) < 2 or len(dark) < 2:
        return None
    scores = []
    for k in range(4):
        a1, h1, _, a8 = rotation_corners(k)
        er = (a8 - a1) / 8.0
        rank = lambda p, a1=a1, er=er: ((p - a1) @ er) / (er @ er)  # noqa: E731
        scores.append(rank(dark).mean() - rank(light).mean())
    k = int(np.argmax(scores))
    return k if scores[k] >= min_gap else None


def from_image_side(h_lattice: np.ndarray, side: str) -> int:
    """Rotation whose a1–h1 edge lies nearest the given image side."""
    if side not in SIDES:
        raise ValueError(f"white_at must be one of {', '.join(SIDES)}, not {side!r}")
    best, best_v = 0, -np.inf
    for k in range(4):
        a1, h1 = _img(h_lattice, rotation_corners(k)[:2])
        mid = (a1 + h1) / 2
        v = {"bottom": mid[1], "top": -mid[1], "right": mid[0], "left": -mid[0]}[side]
        if v > best_v:
            best, best_v = k, v
    return best


def from_a1_point(h_lattice: np.ndarray, a1_xy: tuple[float, float], max_dist: float) -> int | None:
    """Rotation whose a1 corner lies nearest a remembered image point (None if none is close)."""
    pts = _img(h_lattice, LATTICE_CORNERS)
    d = np.linalg.norm(pts - np.asarray(a1_xy, dtype=np.float64), axis=1)
    i = int(np.argmin(d))
    if d[i] > max_dist:
        return None
    # corner i is a1 for the rotation k with (k - 0) % 4 == i
    return i


def default_rotation(h_lattice: np.ndarray, bright_parity: int) -> int:
    """Among the two rotations with a dark a1, the one whose White edge is lower in the image."""
    cands = [k for k in range(4) if a1_is_dark(k, bright_parity)]
    return max(cands, key=lambda k: _img(h_lattice, rotation_corners(k)[:2])[:, 1].mean())


def _img(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    ph = pts @ h[:, :2].T + h[:, 2]
    return ph[:, :2] / ph[:, 2:3]
