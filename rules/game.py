"""A game record: the moves played from a start position, their comments and times, and the end of the game
by the rules (čl. 6 draws, čl. 7 results).

>>> g = Game()
>>> g.push("c3-d4").notation
'c3-d4'
>>> g.position.turn
<Color.BLACK: 'black'>
>>> g.outcome() is None
True

How the draw articles are read (see docs/rules.md, "Draws"):

- čl. 6.1: the same position (pieces and side to move) for the third time.
- čl. 6.2: "15 consecutive moves" without a man move and without a capture. By default a move is a move of
  *each* player (30 plies), as DESIGN.md says, as čl. 6.3/6.4 count ("each ... moves") and as the FMJD rules
  the ČFD text follows count their 25-move rule; reading it as 15 plies would declare draws the players do
  not expect, and a draw declared too late costs nothing (the players can always agree one, čl. 7.3).
  ``DrawRules(count_plies=True)`` gives the literal 15-ply reading.
- čl. 6.3/6.4: the side with the lone king has exactly one king and nothing else. Against it: at most two
  kings, or one king and one man (čl. 6.4, 5 more moves each), or three kings with the lone king on the main
  diagonal a1–h8 (čl. 6.4, 5 moves), or three kings with the lone king off it (čl. 6.3, 15 moves). The count
  starts at the ply where this material first stood on the board and the lone king's square *at that ply*
  decides between 6.3 and 6.4; any capture or promotion changes the material and starts a new count.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from rules.position import Color, Move, Position
from rules.squares import MAIN_DIAGONAL

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


@dataclass(frozen=True)
class DrawRules:
    """Parameters of the draw articles of čl. 6 (see the module docstring for the reading).

    ``quiet_moves_limit`` moves without a man move or capture draw (čl. 6.2); with ``count_plies`` the limit
    counts plies (single moves of one player) instead of moves of each player.
    """

    quiet_moves_limit: int = 15
    count_plies: bool = False
    repetitions: int = 3
    long_endgame_moves: int = 15  # čl. 6.3
    short_endgame_moves: int = 5  # čl. 6.4

    @property
    def quiet_plies(self) -> int:
        return self.quiet_moves_limit if self.count_plies else 2 * self.quiet_moves_limit


@dataclass
class GameMove:
    """One entry of the record: a legal move, or a position the opponent accepted as it stands (čl. 5.7).

    ``ply`` counts from 1; ``side`` is the player who moved; ``notation`` is computed from the position
    before (for an accepted illegal move without an explaining move it is ``None``); ``t`` is seconds since
    the game began (camera or clock time); ``clock`` is the mover's remaining clock time in seconds if known.
    """

    ply: int
    side: Color
    notation: str | None
    move: Move | None
    position: Position  # after the move
    comments: list[str] = field(default_factory=list)
    t: float | None = None
    clock: float | None = None
    annotations: list[str] = field(default_factory=list)  # čl. 9 signs: "!", "?!", "*", "a.l." …
    nags: list[int] = field(default_factory=list)
    illegal: bool = False


Outcome = tuple[str, str, str]  # (result, reason, article)


def material(position: Position) -> tuple[int, int, int, int]:
    """(white men, white kings, black men, black kings)."""
    k = position.kings
    return ((position.white & ~k).bit_count(), (position.white & k).bit_count(),
            (position.black & ~k).bit_count(), (position.black & k).bit_count())


def endgame_limit(position: Position, rules: DrawRules) -> tuple[int, str] | None:
    """Moves each player may still play in a king endgame of čl. 6.3/6.4, with the article, or None."""
    wm, wk, bm, bk = material(position)
    for strong_men, strong_kings, weak_men, weak_kings, weak_bb in (
            (wm, wk, bm, bk, position.black), (bm, bk, wm, wk, position.white)):
        if weak_men or weak_kings != 1:
            continue
        on_main = bool(weak_bb & MAIN_DIAGONAL)
        if (strong_men == 0 and 1 <= strong_kings <= 2) or (strong_men == 1 and strong_kings == 1):
            return rules.short_endgame_moves, "čl. 6.4"
        if strong_men == 0 and strong_kings == 3:
            return (rules.short_endgame_moves, "čl. 6.4") if on_main else (rules.long_endgame_moves, "čl. 6.3")
    return None


class Game:
    """The record of one game, with the draw rules of čl. 6 and the results of čl. 7."""

    def __init__(self, start: Position | None = None, tags: dict | None = None,
                 draw_rules: DrawRules | None = None) -> None:
        self.start: Position = start if start is not None else Position.start()
        self.tags: dict[str, str] = dict(tags or {})
        self.draw_rules: DrawRules = draw_rules or DrawRules()
        self.moves: list[GameMove] = []
        self.comments: list[str] = []  # before the first move
        self.result: str | None = None  # declared (resignation, agreement, read from a PDN); see set_result
        self.result_reason: str | None = None

    # --- reading ----------------------------------------------------------------------------------

    @property
    def position(self) -> Position:
        return self.moves[-1].position if self.moves else self.start

    def positions(self) -> Iterator[Position]:
        """The start position and the position after every entry, in order."""
        yield self.start
        for m in self.moves:
            yield m.position

    def __len__(self) -> int:
        return len(self.moves)

    # --- recording --------------------------------------------------------------------------------

    def push(self, move: Move | str, comment: str | None = None, t: float | None = None,
             clock: float | None = None) -> GameMove:
        """Record a legal move (a :class:`Move` or its notation). ValueError if it is not legal."""
        before = self.position
        if isinstance(move, str):
            move = before.parse_move(move)
        elif not before.is_legal(move):
            legal = ", ".join(before.notation(m) for m in before.legal_moves()) or "none"
            raise ValueError(f"{move.full_notation()} is not legal here ({before.turn.value} to move; legal: {legal})")
        entry = GameMove(len(self.moves) + 1, before.turn, before.notation(move), move, before.play(move),
                         [comment] if comment else [], t, clock)
        self.moves.append(entry)
        self._clear_declared_result()
        return entry

    def push_illegal(self, move: Move | None, new_position: Position, comment: str | None = None,
                     t: float | None = None) -> GameMove:
        """Record a position the opponent accepted as it stands (čl. 5.7), explained by ``move`` if one does
        (a move that broke the rules, e.g. a missed capture) or by nothing."""
        before = self.position
        entry = GameMove(len(self.moves) + 1, before.turn, move.full_notation() if move else None, move,
                         new_position, [comment] if comment else [], t, illegal=True)
        self.moves.append(entry)
        self._clear_declared_result()
        return entry

    def pop(self) -> GameMove:
        """Take back the last entry (IndexError when there is none)."""
        if not self.moves:
            raise IndexError("no move to take back")
        self._clear_declared_result()
        return self.moves.pop()

    def add_comment(self, text: str) -> None:
        """Attach a comment to the last entry (or to the game before its first move)."""
        (self.moves[-1].comments if self.moves else self.comments).append(text)

    def set_result(self, result: str, reason: str | None = None) -> None:
        """Declare a result the rules cannot see: resignation (čl. 7.2a), agreement (čl. 7.3a), forfeit."""
        if result not in RESULTS:
            raise ValueError(f"result {result!r} is not one of {', '.join(RESULTS)}")
        self.result, self.result_reason = result, reason

    def _clear_declared_result(self) -> None:
        self.result = self.result_reason = None

    # --- the end of the game ----------------------------------------------------------------------

    def outcome(self) -> Outcome | None:
        """(result, reason, article) when the rules end the game in the current position, else None.

        A player to move without a legal move loses (čl. 7.2b/c); then the draws of čl. 6.
        """
        pos = self.position
        side = pos.turn
        if not pos.legal_moves():
            result = "0-1" if side is Color.WHITE else "1-0"
            if not pos.own:
                return result, f"{side.value} has no pieces left", "čl. 7.2c"
            return result, f"{side.value} to move has no legal move (all pieces blocked)", "čl. 7.2b"
        rules = self.draw_rules
        history = list(self.positions())
        if history.count(pos) >= rules.repetitions:
            return "1/2-1/2", f"the same position occurred {rules.repetitions} times with {side.value} to move", \
                "čl. 6.1"
        ended = self._endgame_draw(history)
        if ended:
            return ended
        quiet = self._quiet_plies()
        if quiet >= rules.quiet_plies:
            unit = f"{rules.quiet_moves_limit} plies" if rules.count_plies else \
                f"{rules.quiet_moves_limit} moves by each player"
            return "1/2-1/2", f"{unit} without a man move or a capture", "čl. 6.2"
        return None

    def _quiet_plies(self) -> int:
        """Plies at the end of the record without a man move, a capture or an accepted illegal change."""
        n = 0
        before_positions = list(self.positions())[:-1]
        for entry, before in zip(reversed(self.moves), reversed(before_positions), strict=True):
            if entry.illegal or entry.move is None or entry.move.is_capture:
                break
            if not (before.kings >> entry.move.start) & 1:
                break
            n += 1
        return n

    def _endgame_draw(self, history: list[Position]) -> Outcome | None:
        current = material(history[-1])
        first = len(history) - 1
        while first > 0 and material(history[first - 1]) == current:
            first -= 1
        limit = endgame_limit(history[first], self.draw_rules)
        if limit is None:
            return None
        moves, article = limit
        if len(history) - 1 - first >= 2 * moves:
            return "1/2-1/2", f"king endgame: each player played {moves} more moves", article
        return None

    # --- PDN --------------------------------------------------------------------------------------

    def to_pdn(self, tags: dict | None = None) -> str:
        """The game as PDN text (one game, ending with its result and a newline)."""
        from rules.pdn import write_game

        return write_game(self, tags)

    @classmethod
    def from_pdn(cls, text: str, draw_rules: DrawRules | None = None) -> Game:
        """The first game of a PDN text (PdnError naming the problem and where it is)."""
        from rules.pdn import PdnError, read_games

        games = read_games(text, draw_rules=draw_rules)
        if not games:
            raise PdnError("no game found in the PDN text")
        return games[0]
