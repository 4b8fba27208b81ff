"""Board geometry in millimetres, shared by every part of the renderer.

Board frame: origin at the outer corner of a1 (White's left), x along files a→h, y along ranks 1→8,
z up from the playing surface. Dark squares are listed in observation order (see DESIGN.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FILES = "abcdefgh"


def _dark_square_names() -> tuple[str, ...]:
    names = []
    for i in range(32):
        rank = i // 4
        file = 2 * (i % 4) + (rank % 2)
        names.append(f"{FILES[file]}{rank + 1}")
    return tuple(names)


SQUARE_NAMES: tuple[str, ...] = _dark_square_names()
"""The 32 dark squares in observation order: a1 c1 e1 g1 b2 … h8."""

CORNER_NAMES: tuple[str, ...] = ("a1", "h1", "h8", "a8")


def square_index(name: str) -> int:
    """Observation index (0-31) of a dark square name like ``"d4"``; ValueError for anything else."""
    try:
        return SQUARE_NAMES.index(name.strip().lower())
    except ValueError:
        raise ValueError(f"{name!r} is not a dark square (a1, c1, …, h8)") from None


def file_rank(index: int) -> tuple[int, int]:
    """0-based (file, rank) of the dark square with observation index ``index``."""
    rank = index // 4
    return 2 * (index % 4) + (rank % 2), rank


@dataclass(frozen=True)
class BoardGeometry:
    """Physical board: square size, frame width around the 8×8 area, and board thickness (all mm)."""

    square_mm: float = 45.0
    frame_mm: float = 0.0
    thickness_mm: float = 18.0

    @property
    def playing_mm(self) -> float:
        return 8.0 * self.square_mm

    @property
    def center_mm(self) -> tuple[float, float]:
        half = 4.0 * self.square_mm
        return half, half

    def square_center(self, index: int) -> tuple[float, float]:
        """Centre (x, y) in mm of the dark square with observation index ``index``."""
        f, r = file_rank(index)
        return (f + 0.5) * self.square_mm, (r + 0.5) * self.square_mm

    def square_centers(self) -> np.ndarray:
        """(32, 2) centres of the dark squares in observation order."""
        return np.array([self.square_center(i) for i in range(32)], dtype=np.float64)

    def corners(self) -> dict[str, tuple[float, float]]:
        """Outer corners of the 64-square playing area, keyed a1, h1, h8, a8."""
        s = self.playing_mm
        return {"a1": (0.0, 0.0), "h1": (s, 0.0), "h8": (s, s), "a8": (0.0, s)}

    def outer_rect(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of the whole board including its frame."""
        f = self.frame_mm
        return -f, -f, self.playing_mm + f, self.playing_mm + f

    def outer_corners3d(self, z: float = 0.0) -> np.ndarray:
        x0, y0, x1, y1 = self.outer_rect()
        return np.array([[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]], dtype=np.float64)

    def playing_corners3d(self, z: float = 0.0) -> np.ndarray:
        return np.array([(*self.corners()[n], z) for n in CORNER_NAMES], dtype=np.float64)


def parse_board(board: str) -> str:
    """Validate a 32-character observation string of ``.wbWB``; ValueError naming the problem."""
    if not isinstance(board, str):
        raise ValueError(f"board must be a string, not {type(board).__name__}")
    b = board.strip()
    if len(b) != 32:
        raise ValueError(f"board must have 32 characters, got {len(b)}")
    bad = sorted(set(b) - set(".wbWB"))
    if bad:
        raise ValueError(f"board has invalid characters {''.join(bad)!r} (allowed: . w b W B)")
    return b
