"""The value types: :class:`Color`, :class:`Move` and :class:`Position` (immutable, hashable).

>>> pos = Position.start()
>>> [pos.notation(m) for m in pos.legal_moves()][:3]
['a3-b4', 'c3-b4', 'c3-d4']
>>> pos.play(pos.parse_move("c3-d4")).turn
<Color.BLACK: 'black'>
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from rules import movegen
from rules.squares import ALL_SQUARES, SQUARE_NAMES, Square, parse_square, squares_of


class Color(enum.Enum):
    WHITE = "white"
    BLACK = "black"

    @property
    def opponent(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE

    @property
    def czech(self) -> str:
        return "bílý" if self is Color.WHITE else "černý"


@dataclass(frozen=True, slots=True)
class Move:
    """A whole move: the squares the piece stands on in turn, and the pieces it jumped, in jump order."""

    path: tuple[Square, ...]
    captured: tuple[Square, ...] = ()

    @property
    def start(self) -> Square:
        return self.path[0]

    @property
    def end(self) -> Square:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)

    @property
    def key(self) -> tuple[Square, Square, frozenset[Square]]:
        """What makes two moves the same move: start, end and the set of captured pieces."""
        return (self.start, self.end, frozenset(self.captured))

    def path_names(self) -> list[str]:
        return [SQUARE_NAMES[s] for s in self.path]

    def captured_names(self) -> list[str]:
        return [SQUARE_NAMES[s] for s in self.captured]

    def full_notation(self) -> str:
        """Every square of the path, e.g. ``a1xc3xe5`` (unambiguous without a position)."""
        return ("x" if self.captured else "-").join(self.path_names())

    def __str__(self) -> str:
        return self.full_notation()


START_WHITE = 0x00000FFF  # a1 … h2 and a3 … g3 (čl. 2.8)
START_BLACK = 0xFFF00000


@dataclass(frozen=True, slots=True)
class Position:
    """Pieces on the 32 dark squares and the side to move. Bit ``i`` of each board is square ``i``."""

    white: int
    black: int
    kings: int = 0
    turn: Color = Color.WHITE

    def __post_init__(self) -> None:
        if self.white & self.black:
            raise ValueError(f"squares {', '.join(SQUARE_NAMES[s] for s in squares_of(self.white & self.black))} "
                             "hold both a white and a black piece")
        if (self.white | self.black | self.kings) & ~ALL_SQUARES or self.kings & ~(self.white | self.black):
            raise ValueError("kings must stand on occupied squares")

    # --- construction -----------------------------------------------------------------------------

    @classmethod
    def start(cls) -> Position:
        """The start position of čl. 2.8, White to move (čl. 3.3)."""
        return cls(START_WHITE, START_BLACK, 0, Color.WHITE)

    @classmethod
    def empty(cls, turn: Color = Color.WHITE) -> Position:
        return cls(0, 0, 0, turn)

    @classmethod
    def from_fen(cls, fen: str) -> Position:
        from rules.fen import parse_fen

        return parse_fen(fen)

    @classmethod
    def from_board_string(cls, board: str, turn: Color = Color.WHITE) -> Position:
        """From 32 characters of ``.wbWB`` in observation order (``?`` is not a position)."""
        if len(board) != 32:
            raise ValueError(f"a board string has 32 characters, got {len(board)}")
        w = b = k = 0
        for i, c in enumerate(board):
            bit = 1 << i
            if c in "wW":
                w |= bit
            elif c in "bB":
                b |= bit
            elif c != ".":
                raise ValueError(f"character {i + 1} ({SQUARE_NAMES[i]}) is {c!r}; expected one of . w b W B")
            if c in "WB":
                k |= bit
        return cls(w, b, k, turn)

    # --- reading ----------------------------------------------------------------------------------

    def fen(self) -> str:
        from rules.fen import write_fen

        return write_fen(self)

    def board_string(self) -> str:
        """32 characters in observation order, kings as ``W``/``B``."""
        out = []
        for i in range(32):
            bit = 1 << i
            king = self.kings & bit
            if self.white & bit:
                out.append("W" if king else "w")
            elif self.black & bit:
                out.append("B" if king else "b")
            else:
                out.append(".")
        return "".join(out)

    def piece_at(self, sq: Square | str) -> str:
        """``.``, ``w``, ``b``, ``W`` or ``B`` on a square."""
        sq = parse_square(sq) if isinstance(sq, str) else sq
        return self.board_string()[sq]

    def pieces(self, color: Color) -> int:
        return self.white if color is Color.WHITE else self.black

    @property
    def own(self) -> int:
        return self.pieces(self.turn)

    @property
    def opp(self) -> int:
        return self.pieces(self.turn.opponent)

    # --- moves ------------------------------------------------------------------------------------

    def _raw(self) -> tuple[int, int, int, bool]:
        return self.own, self.opp, self.kings, self.turn is Color.WHITE

    def legal_moves(self) -> list[Move]:
        """The legal moves, one per (start, end, captured set), in a stable order.

        Capturing is compulsory (čl. 4.1) and a king capture has priority over a man's (čl. 4.14).
        """
        return [Move(p, c) for p, c in movegen.legal_moves(*self._raw())]

    def capture_sequences(self) -> list[Move]:
        """Every legal capture with every distinct landing path (a flying king may reach the same result
        by different routes); empty when no capture is possible. The referee matches part-way states
        against these."""
        return [Move(p, c) for p, c in sorted(movegen.captures(*self._raw()))]

    def has_capture(self) -> bool:
        return movegen.has_capture(*self._raw())

    def is_legal(self, move: Move) -> bool:
        return any(move.key == m.key for m in self.legal_moves())

    def play(self, move: Move) -> Position:
        """The position after ``move`` (not checked for legality: use :meth:`is_legal`)."""
        own, opp, kings = movegen.apply(*self._raw(), (move.path, move.captured))
        if self.turn is Color.WHITE:
            return Position(own, opp, kings, Color.BLACK)
        return Position(opp, own, kings, Color.WHITE)

    def notation(self, move: Move) -> str:
        from rules.notation import format_move

        return format_move(self, move)

    def parse_move(self, text: str) -> Move:
        from rules.notation import parse_move

        return parse_move(self, text)

    def perft(self, depth: int) -> int:
        w, b = self.white, self.black
        return movegen.perft(w, b, self.kings, self.turn is Color.WHITE, depth)

    def __str__(self) -> str:
        """An 8×8 diagram, White at the bottom."""
        rows = []
        board = self.board_string()
        for rank in range(7, -1, -1):
            cells = []
            for file in range(8):
                cells.append(board[rank * 4 + file // 2] if (file + rank) % 2 == 0 else " ")
            rows.append(f"{rank + 1} " + " ".join(cells))
        rows.append("  a b c d e f g h")
        return "\n".join(rows)
