"""Squares the camera misreads, read from the game instead.

One misread square (a shadow the camera takes for a dark man, a marker printed in a square, a scratch)
would make every later board illegal: the top complaint about camera referees (ANCHORS.md). The players
can tell a session to mask such squares (``mask_squares`` control, ``dama watch --mask-square``). The
rules then supply what the camera cannot: a masked square reads as it stands after the one legal move
the rest of the board shows (or as in the position, if the board has not changed); where no legal move
explains the rest, as in the position, so that the referee still judges every other square (čl. 5.4);
``?`` only where legal moves that fit the rest disagree about it (a capture whose only trace is on a
masked square), which the referee treats as not seen.
"""

from __future__ import annotations

from collections.abc import Collection

from rules import SQUARE_NAMES, Position, parse_square


def read_through_masks(observation: str, position: Position, masked: Collection[int]) -> str:
    """``observation`` with each masked square (0..31, observation order) replaced as the module says.

    Kings fill in as men of their colour: the referee compares colours, and only the camera may report
    a crown it has seen.
    """
    if not masked:
        return observation
    seen = observation.lower()
    free = [i for i in range(32) if i not in masked]
    now = position.board_string().lower()
    boards = [now] + [position.play(m).board_string().lower() for m in position.legal_moves()]
    fitting = [b for b in boards if all(seen[i] in ("?", b[i]) for i in free)]
    out = list(observation)
    for i in masked:
        values = {b[i] for b in fitting}
        out[i] = values.pop() if len(values) == 1 else ("?" if fitting else now[i])
    return "".join(out)


def parse_squares(value: object) -> list[int]:
    """Squares from a list of names or a string of them (``"e5 a1"``, ``"e5,a1"``; empty: none); ValueError
    naming a bad one (a light square, or not a square)."""
    if value is None:
        return []
    if isinstance(value, str):
        names = value.replace(",", " ").split()
    elif isinstance(value, (list, tuple)):
        names = [str(v) for v in value]
    else:
        raise ValueError("squares must be a list of square names such as ['e5', 'a1']")
    out: list[int] = []
    for name in names:
        square = parse_square(name)
        if square not in out:
            out.append(square)
    return out


def square_names(squares: Collection[int]) -> list[str]:
    """Names of ``squares`` in observation order."""
    return [SQUARE_NAMES[s] for s in sorted(squares)]
