"""An exact board picture with dark lines inlaid between the squares, pieces and their shadows.

Drawn by mapping every (supersampled) pixel back onto the board through a known homography, so the
square edges are exactly where the corners say, to a small fraction of a pixel; the edge fit can then
be checked against truth without the renderer's own approximations.
"""

from __future__ import annotations

import cv2
import numpy as np

BOARD_UV = np.float32([[0, 0], [8, 0], [8, 8], [0, 8]])
LIGHT, DARK, LINE, FRAME, PIECE, SHADOW = 200.0, 70.0, 35.0, 120.0, 230.0, 40.0


def start_pieces() -> list[tuple[float, float]]:
    """Board-unit centres of the 24 pieces of the start position (dark squares of ranks 1-3 and 6-8)."""
    return [(f + 0.5, r + 0.5) for r in (0, 1, 2, 5, 6, 7) for f in range(8) if (f + r) % 2 == 0]


def lined_board(corners: np.ndarray, size: tuple[int, int] = (480, 360), line: float = 0.0,
                pieces: list[tuple[float, float]] = (), shadow: tuple[float, float] = (0.0, 0.0),
                radius: float = 0.42, ss: int = 3) -> np.ndarray:
    """Grey picture of the board whose a1, h1, h8, a8 corners are ``corners`` (pixels).

    ``line`` is the inlaid lines' width in squares (centred on the square edges), ``pieces`` light discs
    at board-unit centres, each with a dark shadow disc offset by ``shadow`` (board units).
    """
    hi = np.linalg.inv(cv2.getPerspectiveTransform(BOARD_UV, np.float32(corners)))
    w, h = size
    o = (np.arange(ss) + 0.5) / ss - 0.5
    x, y = np.meshgrid((np.arange(w)[:, None] + o).ravel(), (np.arange(h)[:, None] + o).ravel())
    d = hi[2, 0] * x + hi[2, 1] * y + hi[2, 2]
    u = (hi[0, 0] * x + hi[0, 1] * y + hi[0, 2]) / d
    v = (hi[1, 0] * x + hi[1, 1] * y + hi[1, 2]) / d
    inside = (u >= 0) & (u < 8) & (v >= 0) & (v < 8)
    img = np.where((np.floor(u) + np.floor(v)) % 2 == 0, DARK, LIGHT)
    if line > 0:
        img[(np.abs(u - np.round(u)) < line / 2) | (np.abs(v - np.round(v)) < line / 2)] = LINE
    img[~inside] = FRAME
    for pu, pv in pieces:
        img[(u - pu - shadow[0]) ** 2 + (v - pv - shadow[1]) ** 2 < radius ** 2] = SHADOW
    for pu, pv in pieces:
        img[(u - pu) ** 2 + (v - pv) ** 2 < radius ** 2] = PIECE
    return img.reshape(h, ss, w, ss).mean(axis=(1, 3)).astype(np.uint8)
