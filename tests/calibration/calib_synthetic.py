"""A tiny hand-made board picture (flat squares and discs under a perspective warp) for geometry tests.

It is deliberately simpler than ``vision.render``: these tests check naming and colour logic, not
recognition, and must not depend on the renderer's looks.
"""

from __future__ import annotations

import cv2
import numpy as np

SQ = 24
LIGHT_SQ, DARK_SQ = (170, 200, 225), (40, 70, 110)
LIGHT_PIECE, DARK_PIECE = (225, 235, 240), (25, 25, 30)


def top_board(observation: str, quarter_turned: bool = False) -> np.ndarray:
    """Top view, White at the bottom; ``quarter_turned`` paints a light square at a1 (breaks čl. 2.4)."""
    img = np.zeros((8 * SQ, 8 * SQ, 3), np.uint8)
    k = 0
    for r in range(8):
        for f in range(8):
            dark = (f + r) % 2 == (1 if quarter_turned else 0)
            y, x = (7 - r) * SQ, f * SQ
            img[y:y + SQ, x:x + SQ] = DARK_SQ if dark else LIGHT_SQ
            if (f + r) % 2 == 0:
                ch = observation[k]
                k += 1
                if ch in "wb":
                    cv2.circle(img, (x + SQ // 2, y + SQ // 2), int(SQ * 0.4),
                               LIGHT_PIECE if ch == "w" else DARK_PIECE, -1)
    return img


def scene(observation: str, image_corners: np.ndarray, size=(320, 240), quarter_turned: bool = False):
    """Warp the top view so that its a1, h1, h8, a8 corners land on ``image_corners`` (in that order)."""
    top = top_board(observation, quarter_turned)
    n = 8 * SQ
    src = np.array([(0, n), (n, n), (n, 0), (0, 0)], np.float32)
    h = cv2.getPerspectiveTransform(src, np.asarray(image_corners, np.float32))
    table = np.full((size[1], size[0], 3), (90, 120, 90), np.uint8)
    warped = cv2.warpPerspective(top, h, size)
    mask = cv2.warpPerspective(np.full(top.shape[:2], 255, np.uint8), h, size) > 0
    table[mask] = warped[mask]
    return table
