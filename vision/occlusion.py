"""Stage 4, occlusion: a hand or arm over the board, and which dark squares it hides.

The 32 light squares are always empty, so each of them must look like an empty light square. A light
cell whose inner area departs from the board's light-square colour (in Lab, robust medians: a piece's
top leaning over from a neighbour at a steep angle covers only an edge) is covered by something. A dark
square next to covered light cells is marked ``?``: a hand over it cannot be seen through.
"""

from __future__ import annotations

import numpy as np

from vision.cells import CellFeatures
from vision.classify import dark_cells, light_cells


def covered_light_cells(feat: CellFeatures, bright_parity: int, board_contrast: float) -> np.ndarray:
    """(8, 8) bool: light cells that do not look like an empty light square."""
    cells = light_cells(bright_parity)
    jj, ii = cells[:, 1], cells[:, 0]
    lab = feat.inner[jj, ii]
    ref = np.median(lab, axis=0)
    # Lighting varies smoothly; a hand changes hue and lightness abruptly. Allow a fraction of the
    # light/dark contrast for the gradient, plus the cell's own spread of colours.
    dist = np.linalg.norm((lab - ref) * np.array([0.7, 1.0, 1.0]), axis=1)
    # Unoccluded light squares agree within a few Lab units; lighting gradients widen the spread a
    # little, so the tolerance follows the squares' own robust spread.
    mad = float(np.median(np.abs(dist - np.median(dist))))
    tol = max(8.0, float(np.median(dist)) + 5.0 * 1.4826 * mad, 0.06 * board_contrast)
    bad = (dist > tol) | (feat.spread[jj, ii] > 0.6)
    out = np.zeros((8, 8), dtype=bool)
    out[jj[bad], ii[bad]] = True
    return out


def hidden_dark_cells(covered: np.ndarray, bright_parity: int, outlier: np.ndarray | None = None) -> np.ndarray:
    """(32,) bool: dark cells under the hand.

    Two covered light neighbours (edge-adjacent) mean the hand spans the cell; one is enough when the
    cell itself fits none of the colour classes (``outlier``, from the learned model).
    """
    cells = dark_cells(bright_parity)
    padded = np.pad(covered, 1).astype(np.int64)
    ii, jj = cells[:, 0] + 1, cells[:, 1] + 1
    neigh = padded[jj - 1, ii] + padded[jj + 1, ii] + padded[jj, ii - 1] + padded[jj, ii + 1]
    hidden = neigh >= 2
    if outlier is not None:
        hidden |= (neigh >= 1) & outlier
    return hidden
