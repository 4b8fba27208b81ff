"""Per-cell appearance features from a lattice-aligned top view (shared by classification and occlusion).

The frame is warped once to a top view of the 8×8 lattice (``CELL`` pixels per square) in CIE Lab.
For each of the 64 cells we measure its centre disc (where a piece would be), its four corner patches
(the bare square around a round piece) and its texture. Everything is vectorised over the cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

CELL = 20  # top-view pixels per square


def _masks(cell: int) -> tuple[np.ndarray, ...]:
    yy, xx = np.mgrid[0:cell, 0:cell] + 0.5
    r = np.hypot(xx - cell / 2, yy - cell / 2) / cell
    centre = r < 0.26
    # Corner patches kept off the square's edges: a slightly misregistered grid must not bleed the
    # neighbouring light squares in.
    corner = (np.minimum(xx, cell - xx) < 0.2 * cell) & (np.minimum(yy, cell - yy) < 0.2 * cell)
    corner &= (np.minimum(xx, cell - xx) > 0.08 * cell) & (np.minimum(yy, cell - yy) > 0.08 * cell)
    inner = (np.minimum(xx, cell - xx) > 0.12 * cell) & (np.minimum(yy, cell - yy) > 0.12 * cell)
    ring = (r > 0.28) & (r < 0.47)
    quadrant = (xx > cell / 2).astype(int) + 2 * (yy > cell / 2).astype(int)  # 0 TL, 1 TR, 2 BL, 3 BR
    corners4 = np.stack([corner & (quadrant == q) for q in range(4)])
    return centre, corner, inner, ring, corners4


CENTRE_MASK, CORNER_MASK, INNER_MASK, RING_MASK, CORNER4_MASKS = _masks(CELL)
INNER_INDEX = np.flatnonzero(INNER_MASK)
_SUM_OVER_64 = np.full((1, 3), 1.0 / 64.0, np.float32)  # channel sum of squares, over 8² under the root
# OpenCV's 8-bit Lab stores L·255/100, a + 128, b + 128: one affine map back to float Lab
_LAB8_TO_LAB = np.array([[100.0 / 255.0, 0, 0, 0], [0, 1, 0, -128.0], [0, 0, 1, -128.0]], dtype=np.float32)


def lab_of(bgr: np.ndarray) -> np.ndarray:
    """Float Lab (L 0–100, a and b signed) of a BGR uint8 image via OpenCV's fast 8-bit conversion.

    The 8-bit tables take a third of the float conversion's time (0.12 against 0.37 ms for a top view);
    their steps (0.4 of L, 1 of a and b) are far below the differences anything here looks at, and the
    cell statistics average them over many pixels.
    """
    return cv2.transform(cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab).astype(np.float32), _LAB8_TO_LAB)


@dataclass
class CellFeatures:
    """Lab statistics of the 64 cells, indexed [j, i] (lattice row v, column u)."""

    centre: np.ndarray  # (8, 8, 3) mean Lab of the centre disc
    corner: np.ndarray  # (8, 8, 3) median of the four corner patches' mean Lab
    corners4: np.ndarray  # (8, 8, 4, 3) mean Lab of each corner patch (TL, TR, BL, BR)
    inner: np.ndarray  # (8, 8, 3) median Lab of the inner square (robust to a partial cover); light cells
    spread: np.ndarray  # (8, 8) fraction of inner pixels far from the cell's median colour; light cells
    texture: np.ndarray  # (8, 8) std of L in the centre disc
    ring: np.ndarray  # (8, 8) edge strength on the ring where a piece's rim lies, minus the corners'
    lab: np.ndarray  # (8·CELL, 8·CELL, 3) the top view in float Lab (lab_of), kept for the square network


def warp_lattice(frame: np.ndarray, h_lattice: np.ndarray) -> np.ndarray:
    """Top view (8·CELL)² of the lattice from the frame; ``h_lattice`` maps (u, v) to image pixels."""
    scale = np.diag([1.0 / CELL, 1.0 / CELL, 1.0])
    return warp_square(frame, h_lattice @ scale, 8 * CELL)  # top-view pixels -> image pixels


def warp_square(frame: np.ndarray, m: np.ndarray, size: int) -> np.ndarray:
    """A ``size``² view of ``frame`` whose pixel (x, y) is the frame's at ``m`` · (x, y, 1), bilinear.

    What ``cv2.warpPerspective`` with ``WARP_INVERSE_MAP`` gives (to within 2 grey levels on a few pixels:
    both round the source position to 1/32 px, from coordinates computed apart), by ``cv2.remap`` through
    fixed-point maps kept for the last few matrices. Tracking reuses one homography frame after frame, and
    the warp then costs the pixels fetched and not the per-pixel division: 0.55 → 0.41 ms per tracking frame
    for the top view and the hand watch's view together (docs/benchmarks.md, 2026-12-03 21:20).
    """
    m = np.ascontiguousarray(m, dtype=np.float64)
    mx, my = _inverse_maps(m.tobytes(), size)
    return cv2.remap(frame, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


# Two views per board, so 32 boards watched by one process (a broadcast's companion) keep theirs: 150 kB a map
# pair of the top view, 9.6 MB at most.
@lru_cache(maxsize=64)
def _inverse_maps(m_bytes: bytes, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Fixed-point ``cv2.remap`` maps of :func:`warp_square` for the 3×3 matrix in ``m_bytes``; a point the
    matrix sends to infinity (a degenerate fit) reads the frame's corner pixel, as warpPerspective's does."""
    m = np.frombuffer(m_bytes, dtype=np.float64).reshape(3, 3)
    g = np.arange(size, dtype=np.float64)
    x, y = g[None, :], g[:, None]
    w = m[2, 0] * x + m[2, 1] * y + m[2, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        mx = np.nan_to_num((m[0, 0] * x + m[0, 1] * y + m[0, 2]) / w, nan=0.0, posinf=0.0, neginf=0.0)
        my = np.nan_to_num((m[1, 0] * x + m[1, 1] * y + m[1, 2]) / w, nan=0.0, posinf=0.0, neginf=0.0)
    mx, my = mx.astype(np.float32), my.astype(np.float32)
    maps = cv2.convertMaps(mx, my, cv2.CV_16SC2)
    for a in maps:
        a.flags.writeable = False  # shared by every later frame of this homography
    return maps


def _light_index(bright_parity: int) -> tuple[np.ndarray, np.ndarray]:
    jj, ii = np.nonzero((np.add.outer(np.arange(8), np.arange(8)) % 2) == bright_parity)
    return jj, ii


def _on_cells(values: np.ndarray, jj: np.ndarray, ii: np.ndarray) -> np.ndarray:
    """An (8, 8, ...) grid holding ``values`` (n, ...) at cells (jj, ii), NaN elsewhere."""
    out = np.full((8, 8, *values.shape[1:]), np.nan, dtype=values.dtype)
    out[jj, ii] = values
    return out


def pad1(a: np.ndarray, value: float | bool = 0) -> np.ndarray:
    """``a`` with a one-cell border of ``value`` around its first two axes (np.pad's result, without its
    per-call overhead, which on these 8×8 grids costs more than the copy)."""
    out = np.full((a.shape[0] + 2, a.shape[1] + 2, *a.shape[2:]), value, dtype=np.result_type(a, np.asarray(value)))
    out[1:-1, 1:-1] = a
    return out


def median_last(a: np.ndarray) -> np.ndarray:
    """Median along the last axis of a contiguous array (one partition, no copies of the wrapper)."""
    n = a.shape[-1]
    if n % 2:
        return np.partition(a, n // 2, axis=-1)[..., n // 2]
    p = np.partition(a, [n // 2 - 1, n // 2], axis=-1)
    return 0.5 * (p[..., n // 2 - 1] + p[..., n // 2])


def features(top_bgr: np.ndarray, bright_parity: int | None = None) -> CellFeatures:
    """Cell statistics of a lattice top view (BGR uint8).

    Given ``bright_parity``, each statistic is computed only where it is used (NaN elsewhere), which
    halves the cost of the frame's largest medians: ``inner`` and ``spread`` on the light squares (the
    hand test and the light references), ``corner``, ``corners4``, ``texture`` and ``ring`` on the dark
    ones (the colour model and the square network); ``centre`` everywhere (both use it).
    """
    lab = lab_of(top_bgr)
    cells = lab.reshape(8, CELL, 8, CELL, 3).transpose(0, 2, 1, 3, 4).reshape(8, 8, CELL * CELL, 3)
    cm = CENTRE_MASK.ravel()
    km = CORNER_MASK.ravel()
    centre = cells[:, :, cm].mean(axis=2)
    if bright_parity is None:
        jj, ii = np.nonzero(np.ones((8, 8), dtype=bool))
        dj, di = jj, ii
    else:
        jj, ii = _light_index(bright_parity)
        dj, di = _light_index(1 - bright_parity)
    dark = cells[dj, di]  # (n, pixels, 3)
    dark4 = np.stack([dark[:, m.ravel()].mean(axis=1) for m in CORNER4_MASKS], axis=1)  # (n, 4, 3)
    corners4 = _on_cells(dark4, dj, di)
    # a piece leaning over one or two corners does not move it
    corner = _on_cells(median_last(np.ascontiguousarray(dark4.transpose(0, 2, 1))), dj, di)
    inner_px = cells[jj, ii][:, INNER_INDEX]  # (n, pixels, 3)
    med = median_last(np.ascontiguousarray(inner_px.transpose(0, 2, 1)))
    d = inner_px - med[:, None, :]
    far = (np.einsum("npc,npc->np", d, d) > 144.0).mean(axis=1)  # farther than 12 Lab units
    inner = _on_cells(med, jj, ii)
    spread = _on_cells(far, jj, ii)
    texture = _on_cells(dark[:, cm, 0].std(axis=1), dj, di)
    gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3)
    # |∇Lab| / 8 with OpenCV's per-pixel ops (numpy's sum over a 3-long last axis is five times slower)
    mag = cv2.sqrt(cv2.transform(cv2.multiply(gx, gx) + cv2.multiply(gy, gy), _SUM_OVER_64))
    mcells = mag.reshape(8, CELL, 8, CELL).transpose(0, 2, 1, 3).reshape(8, 8, CELL * CELL)[dj, di]
    ring = _on_cells(mcells[:, RING_MASK.ravel()].mean(axis=1) - median_last(np.ascontiguousarray(mcells[:, km])),
                     dj, di)
    return CellFeatures(centre=centre, corner=corner, corners4=corners4, inner=inner, spread=spread,
                        texture=texture, ring=ring, lab=lab)
