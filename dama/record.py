"""The game as the events tell it: moves, open alerts, pending capture, result.

Both the PDN sink and the dashboard's :class:`~dama.companion.Companion` fold the one event stream with
:class:`GameRecord`, so what is shown, what is written and what a resumed run rebuilds from the journal
can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
    comments: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"ply": self.ply, "side": self.side, "move": self.move, "t": self.t}


def _clock(seconds: float) -> str:
    seconds = max(0.0, seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{int(h)}:{int(m):02d}:{s:04.1f}"


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
        self.start_fen = fen
        self.fen = fen
        self.t0 = t
        self.moves: list[RecordedMove] = []
        self.preface: list[str] = []  # comments before the first move
        self.alerts: list[Event] = []
        self.pending: Event | None = None
        self.result: str | None = None
        self.result_reason: str | None = None
        self.violations = 0

    def _comment(self, text: str) -> None:
        (self.moves[-1].comments if self.moves else self.preface).append(text)

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
            self._comment(f"position accepted as it stands (čl. 5.7): {event.get('fen', '')}")
        elif kind == "pending":
            self.pending = event
        elif kind == "takeback":
            if self.moves:
                self.moves.pop()
            self.alerts = []
            self.pending = None
            self.result = None
        elif kind == "game_over":
            self.result = event.get("result")
            self.result_reason = event.get("reason")
            if self.result_reason:
                self._comment(str(self.result_reason))
        if event.get("fen") and kind in ("move", "accepted", "takeback", "game_start"):
            self.fen = event["fen"]

    @property
    def last_move(self) -> RecordedMove | None:
        return self.moves[-1] if self.moves else None

    def move_list(self) -> list[str]:
        return [m.move for m in self.moves]

    def pdn(self, tags: dict[str, str] | None = None) -> str:
        """The game as PDN: standard tags, the time of each move as a comment (``at`` the time since the
        game began and ``[%emt]`` the time the move took), violations and corrections as comments."""
        all_tags = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?",
                    "Black": "?"}
        all_tags.update(tags or {})
        all_tags["Result"] = self.result or "*"
        all_tags["GameType"] = "29,W,8,8,A0,0"
        if self.start_fen != START_FEN:
            all_tags["SetUp"] = "1"
            all_tags["FEN"] = self.start_fen
        lines = [f'[{k} "{v}"]' for k, v in all_tags.items()]
        words: list[str] = [f"{{{c}}}" for c in self.preface]
        previous = self.t0
        for i, m in enumerate(self.moves):
            number = (m.ply + 1) // 2
            if m.side == "white":
                words.append(f"{number}.")
            elif i == 0:
                words.append(f"{number}...")
            words.append(m.move)
            notes = []
            if m.t is not None:
                at = m.t - (self.t0 if self.t0 is not None else 0.0)
                took = m.t - previous if previous is not None else at
                notes.append(f"at {_clock(at)} [%emt {_clock(took)}]")
                previous = m.t
            notes.extend(m.comments)
            words.extend(f"{{{n}}}" for n in notes)
        words.append(self.result or "*")
        body, line = [], ""
        for w in words:
            if line and len(line) + 1 + len(w) > 100:
                body.append(line)
                line = w
            else:
                line = f"{line} {w}" if line else w
        body.append(line)
        return "\n".join(lines) + "\n\n" + "\n".join(body) + "\n"


def pdn_moves(text: str) -> list[str]:
    """The moves of a one-game PDN text, without numbers, comments, tags or result."""
    import re

    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"^\s*\[.*\]\s*$", " ", text, flags=re.M)
    moves = []
    for word in text.split():
        if re.fullmatch(r"\d+\.(\.\.)?", word) or word in ("*", "1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1"):
            continue
        word = re.sub(r"^\d+\.(\.\.)?", "", word)
        if word:
            moves.append(word.replace(":", "x"))
    return moves
