"""Matching an observed board against a position: what the referee can explain by legal play.

An observation is compared by colour only (``W``/``B`` say a piece is seen crowned, the referee tracks kings
itself), as three bitboards: white pieces, black pieces and unknown (``?``) squares. Every candidate is
compared the same way, so one observation costs a dictionary lookup when it shows a whole legal move and a
few integer operations per capture sequence when it shows a capture under way (čl. 4.9–4.12).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.position import Move, Position
from rules.squares import SQUARE_NAMES, squares_of

OBSERVATION_CHARS = frozenset(".wbWB?")


@dataclass(frozen=True, slots=True)
class Observation:
    """A stable board as the camera saw it: colour bitboards, crowned pieces and unknown squares."""

    white: int
    black: int
    crowned: int
    unknown: int
    text: str

    @classmethod
    def parse(cls, text: str) -> Observation:
        """From 32 characters of ``.wbWB?`` in observation order; ValueError naming the problem."""
        board = text.strip()
        if len(board) != 32:
            raise ValueError(f"an observation has 32 characters (one per dark square), got {len(board)}")
        w = b = k = u = 0
        for i, c in enumerate(board):
            bit = 1 << i
            if c == "w":
                w |= bit
            elif c == "b":
                b |= bit
            elif c == "W":
                w |= bit
                k |= bit
            elif c == "B":
                b |= bit
                k |= bit
            elif c == "?":
                u |= bit
            elif c != ".":
                raise ValueError(f"character {i + 1} ({SQUARE_NAMES[i]}) is {c!r}; expected one of . w b W B ?")
        return cls(w, b, k, u, board)

    @property
    def colours(self) -> tuple[int, int]:
        return self.white, self.black

    def fits(self, white: int, black: int) -> bool:
        """Do the known squares show exactly these colour bitboards?"""
        known = ~self.unknown
        return (white & known) == self.white and (black & known) == self.black


@dataclass(frozen=True, slots=True)
class PartWay:
    """A capture under way: which sequence, where its jumper stands and which captured pieces are still on."""

    move: Move
    jumper: int
    remaining: tuple[int, ...]


class PositionIndex:
    """Everything the referee compares observations against, computed once per position.

    ``results`` maps the colour bitboards after each legal move to that move (one per start, end and
    captured set, as :meth:`Position.legal_moves` chooses; two moves never give the same colours).
    ``sequences`` are all capture routes (čl. 4.13: free choice, but complete), for part-way states.
    """

    def __init__(self, position: Position) -> None:
        self.position = position
        self.legal: list[Move] = position.legal_moves()
        self.sequences: list[Move] = position.capture_sequences()
        self.results: dict[tuple[int, int], Move] = {}
        for m in self.legal:
            after = position.play(m)
            self.results[(after.white, after.black)] = m
        self._own = position.own
        self._opp = position.opp

    def colours(self) -> tuple[int, int]:
        return self.position.white, self.position.black

    def routes(self, move: Move) -> list[Move]:
        """Every capture route with the same start, end and captured pieces as ``move``."""
        return [s for s in self.sequences if s.key == move.key] or [move]

    def moves_fitting(self, obs: Observation) -> list[Move]:
        """Legal moves whose result fits the known squares of ``obs`` (all of them when nothing is unknown)."""
        if not obs.unknown:
            m = self.results.get(obs.colours)
            return [m] if m is not None else []
        return [m for (w, b), m in self.results.items() if obs.fits(w, b)]

    def part_way(self, own: int, opp: int) -> PartWay | None:
        """The first capture route (in a stable order) of which the board ``own``/``opp`` is a part-way state.

        Part-way: the jumper stands on its start or on any of its landing squares, the other pieces of the
        side to move are untouched, nothing of the opponent has appeared, and any subset of the pieces the
        route captures is gone. Not part-way: the position itself, the whole move, and the jumper resting on
        an intermediate landing square with exactly the pieces jumped so far removed, which is how a player
        shows a capture is over (čl. 4.12): that is an incomplete capture (čl. 4.13).
        """
        if not self.sequences or opp & ~self._opp:
            return None
        gone_own = self._own & ~own
        came_own = own & ~self._own
        removed = self._opp & ~opp
        for seq in self.sequences:
            start = seq.start
            if gone_own:
                if gone_own != 1 << start or came_own.bit_count() != 1:
                    continue
                jumper = came_own.bit_length() - 1
            elif came_own:
                continue
            else:
                jumper = start
            capmask = 0
            for c in seq.captured:
                capmask |= 1 << c
            if removed & ~capmask:
                continue
            path = seq.path
            last = len(path) - 1
            for k, sq in enumerate(path):
                if sq != jumper:
                    continue
                if k == 0 and not removed:
                    continue  # nothing happened yet (or a king loop not begun)
                if k == last and removed == capmask:
                    continue  # the whole move
                if 0 < k < last and removed and removed == _mask(seq.captured[:k]):
                    continue  # stopped part-way with the jumped pieces removed: incomplete (čl. 4.13)
                return PartWay(seq, jumper, tuple(c for c in seq.captured if (opp >> c) & 1))
        return None


def _mask(squares) -> int:
    m = 0
    for s in squares:
        m |= 1 << s
    return m


def names(bb_or_squares) -> list[str]:
    """Square names of a bitboard or an iterable of squares."""
    squares = squares_of(bb_or_squares) if isinstance(bb_or_squares, int) else bb_or_squares
    return [SQUARE_NAMES[s] for s in squares]
