"""Per-cell appearance features from a lattice-aligned top view (shared by classification and occlusion).

The frame is warped once to a top view of the 8×8 lattice (``CELL`` pixels per square) in CIE Lab.
For each of the 64 cells we measure its centre disc (where a piece would be), its four corner patches
(the bare square around a round piece) and its texture. Everything is vectorised over the cells.
"""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass
class CellFeatures:
    """Lab statistics of the 64 cells, indexed [j, i] (lattice row v, column u)."""

    centre: np.ndarray  # (8, 8, 3) mean Lab of the centre disc
    corner: np.ndarray  # (8, 8, 3) median of the four corner patches' mean Lab
    corners4: np.ndarray  # (8, 8, 4, 3) mean Lab of each corner patch (TL, TR, BL, BR)
    inner: np.ndarray  # (8, 8, 3) median Lab of the inner square (robust to a partial cover)
    spread: np.ndarray  # (8, 8) fraction of inner pixels far from the cell's median colour
    texture: np.ndarray  # (8, 8) std of L in the centre disc
    ring: np.ndarray  # (8, 8) edge strength on the ring where a piece's rim lies, minus the corners'


def warp_lattice(frame: np.ndarray, h_lattice: np.ndarray) -> np.ndarray:
    """Top view (8·CELL)² of the lattice from the frame; ``h_lattice`` maps (u, v) to image pixels."""
    scale = np.diag([1.0 / CELL, 1.0 / CELL, 1.0])
    m = h_lattice @ scale  # top-view pixels -> image pixels
    size = 8 * CELL
    return cv2.warpPerspective(frame, m, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def features(top_bgr: np.ndarray) -> CellFeatures:
    """Cell statistics of a lattice top view (BGR uint8)."""
    lab = cv2.cvtColor(top_bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    cells = lab.reshape(8, CELL, 8, CELL, 3).transpose(0, 2, 1, 3, 4).reshape(8, 8, CELL * CELL, 3)
    cm = CENTRE_MASK.ravel()
    km = CORNER_MASK.ravel()
    im = INNER_MASK.ravel()
    centre = cells[:, :, cm].mean(axis=2)
    corners4 = np.stack([cells[:, :, m.ravel()].mean(axis=2) for m in CORNER4_MASKS], axis=2)
    corner = np.median(corners4, axis=2)  # a piece leaning over one or two corners does not move it
    inner_px = cells[:, :, im]
    inner = np.median(inner_px, axis=2)
    dist = np.linalg.norm(inner_px - inner[:, :, None, :], axis=3)
    spread = (dist > 12.0).mean(axis=2)
    texture = cells[:, :, cm, 0].std(axis=2)
    gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt((gx ** 2 + gy ** 2).sum(axis=2)) / 8.0
    mcells = mag.reshape(8, CELL, 8, CELL).transpose(0, 2, 1, 3).reshape(8, 8, CELL * CELL)
    ring = mcells[:, :, RING_MASK.ravel()].mean(axis=2) - np.median(mcells[:, :, km], axis=2)
    return CellFeatures(centre=centre, corner=corner, corners4=corners4, inner=inner, spread=spread,
                        texture=texture, ring=ring)
