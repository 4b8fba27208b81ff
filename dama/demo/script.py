"""The demo game: a whole game of Czech draughts, checked move by move with the rules API, and the
sequence of boards a camera sees while it is played.

The game (24 plies, Black wins because White cannot move, čl. 7) was chosen to show in one minute what
the companion does:

- ply 4: Black must capture (čl. 4.1) but first plays a quiet move; the missed capture is flagged,
  Black puts the piece back (corrected) and captures;
- multi-captures (e3xa7, c1xc5, c5xh4, h4xc3): the capturing piece lands first and the captured pieces
  are then removed one by one, in jump order (čl. 4.11), so the companion shows a capture pending;
- a promotion: with a3xc1 Black's man reaches c1 and is crowned at once (čl. 3.5, 3.6); the new
  king captures two moves later (c1xc5, a flying king capture).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rules import Color, Position, parse_square, square_name

DEMO_MOVES = [
    "a3-b4", "b6-c5", "c3-d4", "c5xa3", "d2-c3", "a7-b6", "d4-e5", "f6xd4", "e3xa7", "d6-e5",
    "c1-d2", "a3xc1", "c3-d4", "c1xc5", "f2-e3", "c5xh4", "e1-d2", "h4-e1", "g1-f2", "e1xh4",
    "h2-g3", "h4xc3", "a1-b2", "c3xa1",
]
MISSED_CAPTURE_PLY = 4  # 1-based ply at which the side to move first ignores its compulsory capture
RESULT = "0-1"


@dataclass(frozen=True)
class Step:
    """One board the camera sees (an observation string) and why."""

    board: str
    kind: str  # start | move | illegal | correct | partial
    note: str


@dataclass
class DemoScript:
    start_fen: str
    moves: list[str]
    steps: list[Step]
    result: str
    violations: list[tuple[str, str]] = field(default_factory=list)  # (side, kind) flagged once each

    @property
    def boards(self) -> list[str]:
        return [s.board for s in self.steps]


def _forward_step(position: Position) -> tuple[str, str]:
    """A quiet man step of the side to move (the illegal move when a capture is compulsory)."""
    board = position.board_string()
    own = "w" if position.turn == Color.WHITE else "b"
    direction = 1 if position.turn == Color.WHITE else -1
    for i, ch in enumerate(board):
        if ch != own:
            continue
        name = square_name(i)
        file, rank = ord(name[0]) - ord("a"), int(name[1])
        for df in (-1, 1):
            f, r = file + df, rank + direction
            if 0 <= f < 8 and 1 <= r <= 8:
                target = f"{chr(ord('a') + f)}{r}"
                if board[parse_square(target)] == ".":
                    return name, target
    raise ValueError("no quiet step available")


def _with(board: str, changes: dict[str, str]) -> str:
    chars = list(board)
    for name, ch in changes.items():
        chars[parse_square(name)] = ch
    return "".join(chars)


def demo_script(moves: tuple[str, ...] = DEMO_MOVES, missed_capture_ply: int = MISSED_CAPTURE_PLY) -> DemoScript:
    """Build the boards of the demo with the rules API; raises ValueError if a move is illegal."""
    position = Position.start()
    steps = [Step(position.board_string(), "start", "the start position (čl. 2.8)")]
    played: list[str] = []
    violations: list[tuple[str, str]] = []
    for ply, text in enumerate(moves, 1):
        move = position.parse_move(text)
        side = "white" if position.turn == Color.WHITE else "black"
        if ply == missed_capture_ply:
            if not position.has_capture():
                raise ValueError(f"ply {ply}: no capture to miss")
            a, b = _forward_step(position)
            before = position.board_string()
            steps.append(Step(_with(before, {a: ".", b: before[parse_square(a)]}), "illegal",
                              f"{side} plays {a}-{b} although a capture is compulsory (čl. 4.1)"))
            steps.append(Step(before, "correct", f"{side} puts the piece back on {a}"))
            violations.append((side, "missed_capture"))
        after = position.play(move)
        if len(move.captured) >= 2:
            board = position.board_string()
            piece = board[move.start]
            board = _with(board, {square_name(move.start): ".", square_name(move.end): piece})
            steps.append(Step(board, "partial", f"{side} lands on {square_name(move.end)}; "
                              f"{len(move.captured)} pieces to remove"))
            for sq in move.captured[:-1]:
                board = _with(board, {square_name(sq): "."})
                steps.append(Step(board, "partial", f"{square_name(sq)} removed"))
        steps.append(Step(after.board_string(), "move", f"{ply}. {side} {text}"))
        played.append(position.notation(move))
        position = after
    if position.legal_moves():
        raise ValueError("the demo game does not end")
    return DemoScript(Position.start().fen(), played, steps, RESULT, violations)
