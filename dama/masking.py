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
from dataclasses import replace

from rules import SQUARE_NAMES, Position, parse_square
from rules.referee_match import Observation, PositionIndex

# Stable boards in a row on which a square must read the same, against the game, with the rest of the board
# as in the game, before the session suggests masking it; one of them must show a legal move elsewhere (a
# real illegal piece does not outlast the opponent's next move: čl. 5.7 then accepts it).
SUGGEST_AFTER = 2
PIECE_WORDS = {".": "empty", "w": "a light piece", "b": "a dark piece"}


def read_through_masks(observation: str, position: Position, masked: Collection[int]) -> str:
    """``observation`` with each masked square (0..31, observation order) replaced as the module says.

    Kings fill in as men of their colour: the referee compares colours, and only the camera may report
    a crown it has seen.
    """
    if not masked:
        return observation
    obs = _unseen(Observation.parse(observation), masked)
    fitting = [colours for colours in game_colours(position) if obs.fits(*colours)]
    now = position.board_string().lower()
    out = list(observation)
    for i in masked:
        values = {_piece(colours, i) for colours in fitting}
        out[i] = values.pop() if len(values) == 1 else ("?" if fitting else now[i])
    return "".join(out)


def game_colours(position: Position) -> list[tuple[int, int]]:
    """Colour bitboards (white, black) of ``position`` and of the result of each legal move from it."""
    return [(position.white, position.black), *PositionIndex(position).results]


def _unseen(obs: Observation, squares: Collection[int]) -> Observation:
    """``obs`` with ``squares`` not seen (what the camera said there dropped)."""
    bits = sum(1 << i for i in set(squares))
    return replace(obs, white=obs.white & ~bits, black=obs.black & ~bits, crowned=obs.crowned & ~bits,
                   unknown=obs.unknown | bits)


def _piece(colours: tuple[int, int], square: int) -> str:
    white, black = colours
    return "w" if white >> square & 1 else "b" if black >> square & 1 else "."


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


class StandingDifferences:
    """Squares the camera likely misreads: each reads the same, against the game, on ``after`` stable boards
    in a row while the rest of the board is the position or the result of a legal move from it (at least
    once a move). A real illegal piece does not outlast the opponent's next move: the referee then accepts
    it (čl. 5.7). Each square is suggested once, until it agrees with the game again."""

    def __init__(self, after: int = SUGGEST_AFTER) -> None:
        self.after = after
        self._streak: dict[int, tuple[str, int, bool]] = {}  # square -> (reading, boards, a move seen)
        self._said: set[int] = set()

    def update(self, observation: str, position: Position, masked: Collection[int] = ()) -> list[int]:
        """Squares that have just become likely misreads on this stable board."""
        seen, now = observation.lower(), position.board_string().lower()
        obs = Observation.parse(observation)
        here, *results = game_colours(position)
        new: list[int] = []
        for i in range(32):
            if seen[i] == "?" or seen[i] == now[i] or i in masked:
                self._streak.pop(i, None)
                self._said.discard(i)
                continue
            rest = _unseen(obs, [i])
            moved = any(rest.fits(*colours) for colours in results)
            if not (moved or rest.fits(*here)):  # the rest of the board does not fit the game: no evidence
                self._streak.pop(i, None)
                continue
            reading, count, any_move = self._streak.get(i, (seen[i], 0, False))
            if reading != seen[i]:
                count, any_move = 0, False
            self._streak[i] = (seen[i], count + 1, any_move or moved)
            if count + 1 >= self.after and (any_move or moved) and i not in self._said:
                self._said.add(i)
                new.append(i)
        return new

    def message(self, squares: list[int], observation: str, position: Position) -> str:
        """What the players are told about new likely misreads."""
        seen, now = observation.lower(), position.board_string().lower()
        parts = [f"{SQUARE_NAMES[i]} reads as {PIECE_WORDS[seen[i]]} where the game has "
                 + ("it empty" if now[i] == "." else f"{PIECE_WORDS[now[i]]} there") for i in squares]
        options = " ".join(f"--mask-square {SQUARE_NAMES[i]}" for i in squares)
        one = len(squares) == 1
        return (f"{'; '.join(parts)}, while the rest of the board follows the game. If the camera misreads "
                f"{'it' if one else 'them'}, read {'it' if one else 'them'} from the game: 'Squares the camera "
                f"misreads' on the dashboard, or {options}.")
