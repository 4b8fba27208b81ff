"""The 32 dark squares and the geometry of their diagonals.

A square is an ``int`` from 0 to 31 in the observation order of DESIGN.md (a1 c1 e1 g1 b2 d2 f2 h2 a3 …
h8), so bit ``i`` of a bitboard is square ``i`` and character ``i`` of an observation string is the same
square. Files a–h run from White's left, ranks 1–8 from White's side (čl. 2.6); a square is dark when
file index + rank index is even, so a1 and h8 are the dark corners of the main diagonal (čl. 2.3, 2.4).
"""

from __future__ import annotations

Square = int

FILES = "abcdefgh"
ALL_SQUARES = (1 << 32) - 1

# Diagonal directions as (file step, rank step). White's men move "up" (NE, NW), Black's "down".
NE, NW, SE, SW = 0, 1, 2, 3
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 1), (-1, 1), (1, -1), (-1, -1))
WHITE_FORWARD = (NE, NW)
BLACK_FORWARD = (SE, SW)


def file_of(sq: Square) -> int:
    rank = sq >> 2
    return 2 * (sq & 3) + (rank & 1)


def rank_of(sq: Square) -> int:
    return sq >> 2


def square_at(file: int, rank: int) -> Square | None:
    """The dark square at ``file``, ``rank`` (0-based), or None off the board or on a light square."""
    if not (0 <= file < 8 and 0 <= rank < 8) or (file + rank) % 2:
        return None
    return rank * 4 + file // 2


SQUARE_NAMES: tuple[str, ...] = tuple(f"{FILES[file_of(s)]}{rank_of(s) + 1}" for s in range(32))
_BY_NAME = {name: s for s, name in enumerate(SQUARE_NAMES)}


def square_name(sq: Square) -> str:
    return SQUARE_NAMES[sq]


def parse_square(name: str) -> Square:
    """``"d4"`` → its index. Raises ValueError naming the problem (unknown, or a light square)."""
    text = name.strip().lower()
    if text in _BY_NAME:
        return _BY_NAME[text]
    if len(text) == 2 and text[0] in FILES and text[1] in "12345678":
        raise ValueError(f"{name!r} is a light square; play is on the 32 dark squares only (čl. 2.2)")
    raise ValueError(f"unknown square {name!r} (squares are a1 … h8)")


def _rays() -> tuple[tuple[tuple[Square, ...], ...], ...]:
    rays = []
    for s in range(32):
        per_dir = []
        for df, dr in DIRECTIONS:
            f, r, ray = file_of(s), rank_of(s), []
            while True:
                f, r = f + df, r + dr
                t = square_at(f, r)
                if t is None:
                    break
                ray.append(t)
            per_dir.append(tuple(ray))
        rays.append(tuple(per_dir))
    return tuple(rays)


RAYS = _rays()
"""``RAYS[sq][direction]``: the squares along that diagonal from ``sq`` outwards, nearest first."""

PROMOTION_ROW = {True: sum(1 << s for s in range(28, 32)), False: sum(1 << s for s in range(4))}
"""Keyed by ``white``: the far row where a man becomes a king (čl. 3.5)."""

MAIN_DIAGONAL = sum(1 << s for s in range(32) if file_of(s) == rank_of(s))
"""a1 … h8, the main diagonal (čl. 2.3); matters for the draw rules of čl. 6.3–6.4."""


def _step_groups() -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per direction: (mask of source squares, index delta) for one diagonal step.

    In the 32-square layout a step in one direction adds one of two deltas depending on the rank's
    parity; grouping sources by delta lets a whole side's men move with two shifts per direction.
    """
    out = []
    for d in range(4):
        groups: dict[int, int] = {}
        for s in range(32):
            if RAYS[s][d]:
                delta = RAYS[s][d][0] - s
                groups[delta] = groups.get(delta, 0) | (1 << s)
        out.append(tuple((mask, delta) for delta, mask in sorted(groups.items())))
    return tuple(out)


def _jump_groups() -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """Per direction: (mask of source squares, delta to the jumped square, delta to the landing square)."""
    out = []
    for d in range(4):
        groups: dict[tuple[int, int], int] = {}
        for s in range(32):
            ray = RAYS[s][d]
            if len(ray) >= 2:
                key = (ray[0] - s, ray[1] - s)
                groups[key] = groups.get(key, 0) | (1 << s)
        out.append(tuple((mask, d1, d2) for (d1, d2), mask in sorted(groups.items())))
    return tuple(out)


STEP_GROUPS = _step_groups()
JUMP_GROUPS = _jump_groups()


def shift(bb: int, delta: int) -> int:
    """Move every bit of ``bb`` by ``delta`` squares (callers mask the sources, so nothing wraps)."""
    return (bb << delta) & ALL_SQUARES if delta > 0 else bb >> -delta


def squares_of(bb: int) -> list[Square]:
    """The squares set in a bitboard, in ascending order."""
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
    return out
