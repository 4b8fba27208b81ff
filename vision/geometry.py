"""Board geometry shared by the vision stages: square order, the canonical top view, corner names.

The canonical top view is the board seen from White's side: file a on the left, rank 8 at the top, each
square ``S`` pixels wide. Lattice coordinates (u, v) in the localizer are square units on an 8×8 grid;
this module converts between them, square names and the 32-character observation order (DESIGN.md).
"""

from __future__ import annotations

import numpy as np

FILES = "abcdefgh"
# Observation order: a1 c1 e1 g1 b2 d2 ... h8 (dark squares, file index + rank index even).
DARK_SQUARES: list[tuple[int, int]] = [(f, r) for r in range(8) for f in range(8) if (f + r) % 2 == 0]
SQUARE_NAMES: list[str] = [f"{FILES[f]}{r + 1}" for f, r in DARK_SQUARES]
CORNER_NAMES = ("a1", "h1", "h8", "a8")
START_BOARD = "w" * 12 + "." * 8 + "b" * 12


def light_squares() -> list[tuple[int, int]]:
    """(file, rank) of the 32 light squares, which are always empty in a legal game."""
    return [(f, r) for r in range(8) for f in range(8) if (f + r) % 2 == 1]


def topview_corners(size: int) -> np.ndarray:
    """Outer corners a1, h1, h8, a8 in top-view pixels for a top view ``size`` pixels wide."""
    s = float(size)
    return np.array([[0, s], [s, s], [s, 0], [0, 0]], dtype=np.float64)


def square_center_topview(f: int, r: int, size: int) -> tuple[float, float]:
    """Centre of square (file, rank) in the top view."""
    cell = size / 8.0
    return ((f + 0.5) * cell, (7 - r + 0.5) * cell)


def image_to_topview(corners: dict[str, tuple[float, float]], size: int) -> np.ndarray:
    """Homography mapping image pixels to the canonical top view, from the four outer corners."""
    src = np.array([corners[n] for n in CORNER_NAMES], dtype=np.float64)
    h, _ = _homography(src, topview_corners(size))
    return h


FILES_RANKS = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], dtype=np.float64)  # a1 h1 h8 a8: u = file, v = rank


def files_ranks_homography(corners: dict[str, tuple[float, float]], lattice: np.ndarray = FILES_RANKS) -> np.ndarray:
    """Lattice (u along the files, v along the ranks, one unit per square) → image, from the outer corners.

    Square (f, r) of ``DARK_SQUARES`` has its centre at (f + 0.5, r + 0.5), so the dark cells come in
    observation order. ``lattice`` may be the corners' lattice points moved (a fit's jitter).
    """
    dst = np.array([corners[n] for n in CORNER_NAMES], dtype=np.float64)
    return _homography(np.asarray(lattice, dtype=np.float64), dst)[0]


def _homography(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, None]:
    import cv2

    return cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)), None


def project(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply homography ``h`` to an (N, 2) array of points."""
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    ph = np.hstack([pts, np.ones((len(pts), 1))]) @ h.T
    return ph[:, :2] / ph[:, 2:3]
