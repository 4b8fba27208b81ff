"""Move notation (čl. 8, 9): ``c3-d4`` for a move, ``c3xe5`` for a capture, more squares of the path
(``a1xc3xe5xg3``) only where needed to tell two legal moves apart. ``:`` is read as ``x``.

Reading is relative to a position: the squares given must be the start, some of the landing squares in
order, and the end of exactly one legal move.
"""

from __future__ import annotations

import itertools
import re

from rules.squares import SQUARE_NAMES, parse_square

_TOKEN = re.compile(r"^\s*([a-hA-H][1-8])((?:\s*[-x:X]\s*[a-hA-H][1-8])+)\s*[!?*+=]*\s*$")


def _matches(squares: list[int], path: tuple[int, ...]) -> bool:
    if squares[0] != path[0] or squares[-1] != path[-1]:
        return False
    inner = iter(path[1:-1])
    return all(any(s == p for p in inner) for s in squares[1:-1])


def format_move(position, move) -> str:
    """The shortest notation that names ``move`` and no other legal move of ``position``."""
    sep = "x" if move.captured else "-"
    others = [m for m in position.capture_sequences() or position.legal_moves() if m.key != move.key]
    inner = move.path[1:-1]
    for n in range(len(inner) + 1):
        for chosen in itertools.combinations(inner, n):
            squares = [move.start, *chosen, move.end]
            if not any(_matches(squares, m.path) for m in others):
                return sep.join(SQUARE_NAMES[s] for s in squares)
    return move.full_notation()


def parse_move(position, text: str):
    """The legal move of ``position`` that ``text`` names; ValueError saying why there is none."""
    from rules.position import Move

    m = _TOKEN.match(text)
    if not m:
        raise ValueError(f"{text!r} is not a move (write it like c3-d4 or c3xe5)")
    names = re.findall(r"[a-hA-H][1-8]", text)
    try:
        squares = [parse_square(n) for n in names]
    except ValueError as exc:
        raise ValueError(f"{text!r}: {exc}") from None
    candidates = position.capture_sequences() or position.legal_moves()
    found: dict = {}
    for cand in candidates:
        if _matches(squares, cand.path):
            found.setdefault(cand.key, cand)
    if len(found) == 1:
        key = next(iter(found))
        return next(mv for mv in position.legal_moves() if mv.key == key)
    if not found:
        legal = ", ".join(position.notation(mv) for mv in position.legal_moves()) or "none"
        raise ValueError(f"{text.strip()} is not legal here ({position.turn.value} to move; legal: {legal})")
    options = " or ".join(Move(c.path, c.captured).full_notation() for c in found.values())
    raise ValueError(f"{text.strip()} is ambiguous: {options}")
