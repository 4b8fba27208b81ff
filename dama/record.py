"""The game as the events tell it: moves, open alerts, pending capture, result.

Both the PDN sink and the dashboard's :class:`~dama.companion.Companion` fold the one event stream with
:class:`GameRecord`, so what is shown, what is written and what a resumed run rebuilds from the journal
can never disagree.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from rules import Move, Position, parse_square
from rules.game import Game
from rules.pdn import read_games

log = logging.getLogger("dama.record")

START_FEN = "W:Wa1,a3,b2,c1,c3,d2,e1,e3,f2,g1,g3,h2:Ba7,b6,b8,c7,d6,d8,e7,f6,f8,g7,h6,h8"

Event = dict[str, Any]


@dataclass
class RecordedMove:
    ply: int
    side: str
    move: str
    t: float | None
    fen: str | None
    event: Event = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"ply": self.ply, "side": self.side, "move": self.move, "t": self.t}


def violation_text(event: Event) -> str:
    side = event.get("side", "")
    kind = str(event.get("kind", "violation")).replace("_", " ")
    message = event.get("message") or ""
    text = f"{side} {kind}".strip()
    return f"{text}: {message}" if message else text


class GameRecord:
    """Fold events into the game record. ``apply`` takes events in stream order."""

    def __init__(self, fen: str = START_FEN) -> None:
        self.reset(fen, None)

    def reset(self, fen: str, t: float | None) -> None:
        self.game = Game(Position.from_fen(fen))  # the PDN: written by rules.pdn, like the referee's own
        self.start_fen = fen
        self.fen = fen
        self.t0 = t
        self.moves: list[RecordedMove] = []
        self.alerts: list[Event] = []
        self.pending: Event | None = None
        self.result: str | None = None
        self.result_reason: str | None = None
        self.violations = 0

    def _comment(self, text: str) -> None:
        self.game.add_comment(text)

    def _elapsed(self, t: float | None) -> float | None:
        return None if t is None else max(0.0, t - (self.t0 if self.t0 is not None else t))

    @staticmethod
    def _move(event: Event) -> Move | None:
        """The move an event names by its path and captured squares (None when it names none)."""
        path = event.get("path") or []
        if len(path) < 2:
            return None
        return Move(tuple(parse_square(s) for s in path), tuple(parse_square(s) for s in event.get("captured") or []))

    def _push(self, event: Event, t: float | None) -> None:
        move = self._move(event)
        try:
            self.game.push(move if move is not None else str(event.get("move", "")), t=self._elapsed(t))
        except ValueError as exc:  # the stream disagrees with the rules: keep the move, as it stands
            log.warning("move %s does not follow from the recorded position (%s); kept as played",
                        event.get("move"), exc)
            if event.get("fen"):
                self.game.push_illegal(move, Position.from_fen(event["fen"]), "recorded as played", self._elapsed(t))

    def apply(self, event: Event) -> None:
        kind = event.get("event")
        t = event.get("t")
        if kind == "game_start":
            self.reset(event.get("fen") or START_FEN, t)
        elif kind == "move":
            if self.t0 is None:
                self.t0 = t
            ply = int(event.get("ply") or len(self.moves) + 1)
            self.moves.append(RecordedMove(ply, str(event.get("side", "")), str(event.get("move", "")),
                                           t, event.get("fen"), event))
            self._push(event, t)
            self.pending = None
        elif kind == "violation":
            self.violations += 1
            self.alerts.append(event)
            self.pending = None
            self._comment(violation_text(event))
        elif kind == "corrected":
            if self.alerts:
                self._comment("corrected: the position was put right")
            self.alerts = []
        elif kind == "accepted":
            self.alerts = []
            comment = str(event.get("comment") or "position accepted as it stands (čl. 5.7)")
            if event.get("fen"):
                self.game.push_illegal(self._move(event), Position.from_fen(event["fen"]), comment, self._elapsed(t))
        elif kind == "pending":
            self.pending = event
        elif kind == "takeback":
            if self.moves:
                self.moves.pop()
            if len(self.game):
                self.game.pop()
            self.alerts = []
            self.pending = None
            self.result = None
        elif kind == "game_over":
            self.result = event.get("result")
            self.result_reason = event.get("reason")
            outcome = self.game.outcome()
            if self.result and (outcome is None or outcome[0] != self.result):
                self.game.set_result(self.result, self.result_reason)  # declared, e.g. resignation
        if event.get("fen") and kind in ("move", "accepted", "takeback", "game_start"):
            self.fen = event["fen"]

    @property
    def last_move(self) -> RecordedMove | None:
        return self.moves[-1] if self.moves else None

    def summary(self, position: Position) -> dict[str, Any]:
        """The game part of a dashboard snapshot, with ``position`` as the referee (or the feed) has it."""
        last = self.last_move
        last_move = None
        if last is not None:
            last_move = {**last.as_dict(), "path": list(last.event.get("path", [])),
                         "captured": list(last.event.get("captured", []))}
        return {
            "fen": position.fen(),
            "board_string": position.board_string(),
            "turn": position.turn.value,
            "start_fen": self.start_fen,
            "moves": [m.as_dict() for m in self.moves],
            "alerts": [dict(a) for a in self.alerts],
            "pending": dict(self.pending) if self.pending else None,
            "result": self.result,
            "result_reason": self.result_reason,
            "last_move": last_move,
        }

    def move_list(self) -> list[str]:
        return [m.move for m in self.moves]

    def pdn(self, tags: dict[str, str] | None = None) -> str:
        """The game as PDN (written by :mod:`rules.pdn`, the same writer as the referee's): standard tags,
        the time since the game began after each move (``{elapsed h:mm:ss}``), violations, corrections
        and accepted positions (with their FEN) as comments."""
        all_tags = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?", "Black": "?",
                    **(tags or {})}
        return self.game.to_pdn(all_tags)


def pdn_moves(text: str) -> list[str]:
    """The moves of a one-game PDN text, in notation (tests and tools compare recorded games by them)."""
    games = read_games(text)
    return [m.notation for m in games[0].moves if m.notation] if games else []
