"""Candidate board squares: convex quadrilateral blobs of both polarities in an adaptive threshold.

A checkerboard's squares touch only at their corners, so a thin erosion of a locally thresholded image
splits them into separate blobs that each approximate to four vertices. Squares covered by pieces or
hands simply do not appear; the lattice fit (``vision.lattice``) only needs a part of them.
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np

WINDOWS = (0.05, 0.12)  # adaptive-threshold windows, as fractions of the image's longer side: a few squares wide


def find_quads(gray: np.ndarray, min_side: float = 5.0,
               windows: tuple[float, ...] = WINDOWS) -> tuple[np.ndarray, np.ndarray]:
    """Quadrilaterals in a grayscale image: ``(quads (N, 4, 2) clockwise, polarity (N,) 1=bright)``.

    ``windows``: the adaptive threshold's window sizes as fractions of the image's longer side.
    """
    h, w = gray.shape
    blur = cv2.GaussianBlur(gray, (3, 3), 0)
    kernel = np.ones((3, 3), np.uint8)
    raw: list[tuple] = []  # clockwise vertices of the eroded blobs, grown back together at the end
    erosions: list[int] = []
    pols: list[int] = []
    max_area = 0.05 * h * w
    for block in _block_sizes(max(h, w), windows):
        binary = cv2.adaptiveThreshold(blur, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, 0)
        for (pol, img), it in itertools.product(((1, binary), (0, 255 - binary)), (1, 2)):
            eroded = cv2.erode(img, kernel, iterations=it)
            contours, _ = cv2.findContours(eroded, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
            for c in contours:
                if len(c) < 4:
                    continue
                area = cv2.contourArea(c)
                if area < min_side * min_side or area > max_area:
                    continue
                q = _approx_quad(c, area)
                if q is not None:
                    raw.append(q)
                    erosions.append(it)
                    pols.append(pol)
    if not raw:
        return np.zeros((0, 4, 2)), np.zeros(0, dtype=np.int64)
    quads = _grown_back(np.array(raw, dtype=np.float64), np.array(erosions, dtype=np.float64))
    return quads, np.array(pols, dtype=np.int64)


def side_contrast(gray: np.ndarray, quads: np.ndarray, pols: np.ndarray) -> np.ndarray:
    """(N,) how much each quad stands out from the four cells beside it, signed by its polarity (grey levels).

    On a checkerboard the cell across each side of a square is of the other colour, so a bright square is
    brighter than all four and a dark one darker; a blob of a table's grain or a cloth's weave is not. The
    second weakest of the four counts: one neighbour may hold a piece of the square's own shade. Sampled
    at the quads' centres and the centres mirrored across their sides' midpoints, on a lightly blurred copy
    (JPEG noise), so a few thousand quads cost about 3 ms.
    """
    if len(quads) == 0:
        return np.zeros(0)
    smooth = cv2.GaussianBlur(gray, (5, 5), 0).astype(np.float32)
    h, w = gray.shape

    def grey_at(pts: np.ndarray) -> np.ndarray:
        x = np.clip(np.rint(pts[..., 0]).astype(np.int64), 0, w - 1)
        y = np.clip(np.rint(pts[..., 1]).astype(np.int64), 0, h - 1)
        return smooth[y, x]

    centres = quads.mean(axis=1)
    mids = (quads + np.roll(quads, -1, axis=1)) / 2.0
    beside = grey_at(2.0 * mids - centres[:, None, :])  # (N, 4) the cells across the four sides
    sign = np.where(np.asarray(pols) == 1, 1.0, -1.0)
    stands_out = (grey_at(centres)[:, None] - beside) * sign[:, None]
    return np.sort(stands_out, axis=1)[:, 1]


def _block_sizes(size: int, windows: tuple[float, ...] = WINDOWS) -> list[int]:
    """Adaptive-threshold windows: a few squares wide for boards from a third of the frame to all of it;
    odd and at least 3 px, as OpenCV requires (a picture under 40 px across would otherwise ask for 1)."""
    return [max(3, int(size * f) // 2 * 2 + 1) for f in windows]


def _approx_quad(contour: np.ndarray, area: float) -> tuple | None:
    """Four clockwise vertices ((x, y), …) if the blob is a convex, not too thin quadrilateral.

    Called for about a thousand blobs per frame: scalar tests on plain floats, no numpy (its per-call
    overhead on four points cost more than the tests; the survivors are grown back together).
    """
    peri = cv2.arcLength(contour, True)
    if peri * peri > 40.0 * area:  # far from compact (a square has 16, a 50° foreshortened one ~20)
        return None
    for eps in (0.04, 0.07):
        approx = cv2.approxPolyDP(contour, eps * peri, True)
        if len(approx) == 4:
            break
    else:
        return None
    if not cv2.isContourConvex(approx):
        return None
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = approx.reshape(4, 2).tolist()
    signed = 0.5 * ((x0 * y1 - x1 * y0) + (x1 * y2 - x2 * y1) + (x2 * y3 - x3 * y2) + (x3 * y0 - x0 * y3))
    quad_area = abs(signed)
    if quad_area <= 0 or area / quad_area < 0.75:
        return None
    sides = [math.hypot(x1 - x0, y1 - y0), math.hypot(x2 - x1, y2 - y1), math.hypot(x3 - x2, y3 - y2),
             math.hypot(x0 - x3, y0 - y3)]
    if min(sides) < 0.25 * max(sides):
        return None
    if signed < 0:  # clockwise in image coordinates (y down)
        return (x3, y3), (x2, y2), (x1, y1), (x0, y0)
    return (x0, y0), (x1, y1), (x2, y2), (x3, y3)


def _grown_back(quads: np.ndarray, erosion: np.ndarray) -> np.ndarray:
    """(N, 4, 2) quads of eroded blobs grown back by their erosion (N,), so that vertices sit nearer the
    squares' true corners."""
    d = quads - quads.mean(axis=1, keepdims=True)
    n = np.sqrt((d * d).sum(axis=2, keepdims=True))
    return quads + d / np.maximum(n, 1e-6) * 1.4 * erosion[:, None, None]
