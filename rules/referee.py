"""The referee: turns stable board observations into moves and flags illegal play (issue 2).

>>> ref = Referee()
>>> [e["move"] for e in ref.observe("wwwwwwwwwww....w....bbbbbbbbbbbb") if e["event"] == "move"]
['g3-h4']

Each observation is a board after hands have left it (32 characters of ``.wbWB?``, DESIGN.md). The referee
compares it by colour with the position it believes in and answers with events (DESIGN.md, CONTRIBUTING.md):

- the same board: nothing; the result of a legal move: ``move`` (then ``game_over`` when the game ends);
- a capture under way (čl. 4.9–4.12: hops shown one by one, jumped pieces taken off in any order, even
  before the jumper moved): ``pending``, once per distinct board;
- a king's looping capture held at a stop that is itself a legal capture's result, then carried on before the
  opponent moved: ``takeback`` (with a ``reason``) and the longer capture's ``move``;
- anything else: one ``violation`` per distinct illegal board, then, as the opponent decides (čl. 5.4,
  5.7), ``corrected`` (the board is put back, or on to a legal move from the position before) or
  ``accepted`` (the opponent played on from the illegal board, which then stands, recorded with a comment).

Squares with ``?`` are unknown: such a board confirms a move only when exactly one explanation fits its
known squares, and never raises a violation. Kings are the referee's own bookkeeping: ``W``/``B`` only say
that a piece is seen crowned, which is used to remind the players to crown a new king (čl. 3.6) once the
camera has shown it can see crowns.

The game record is a :class:`rules.game.Game`, which also decides when the game is over (čl. 6, 7).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.game import DrawRules, Game
from rules.position import Color, Move, Position
from rules.referee_explain import Finding, classify, illegal_position, side_name
from rules.referee_match import Observation, PartWay, PositionIndex, names
from rules.squares import PROMOTION_ROW, SQUARE_NAMES

Event = dict[str, Any]

WAITING, CAPTURE_PENDING, VIOLATION, GAME_OVER = "waiting", "capture_pending", "violation", "game_over"


@dataclass
class _Flagged:
    """An illegal board already reported, and the position that stands if the opponent plays on."""

    finding: Finding
    event: Event
    stands: Position
    index: PositionIndex | None = None  # of ``stands``, built on first use

    def stands_index(self) -> PositionIndex:
        if self.index is None:
            self.index = PositionIndex(self.stands)
        return self.index


@dataclass
class _OpenViolation:
    base: PositionIndex  # the position before the violation: the one a correction goes back to
    boards: dict[tuple[int, int], _Flagged] = field(default_factory=dict)
    current: tuple[int, int] = (0, 0)  # the illegal board on the table now

    @property
    def flagged(self) -> _Flagged:
        return self.boards[self.current]


@dataclass
class _Crown:
    owner: Color
    reminded: bool = False


class Referee:
    """Explain each stable board by the rules; see the module docstring for the events."""

    def __init__(self, position: Position | None = None, tags: dict | None = None,
                 draw_rules: DrawRules | None = None) -> None:
        self.tags: dict = dict(tags or {})
        self.draw_rules = draw_rules
        self.crowns_visible = False  # has the camera ever shown a crowned piece?
        self._setup(position)

    # --- public API -------------------------------------------------------------------------------

    @property
    def position(self) -> Position:
        """The position the referee believes in (an accepted illegal position counts)."""
        return self.game.position

    @property
    def open_violation(self) -> Event | None:
        """The violation event of the illegal board on the table, or None."""
        return self._violation.flagged.event if self._violation else None

    def observe(self, observation: str, t: float | None = None) -> list[Event]:
        """Events for one stable board (``t``: seconds, recorded as the move time). ValueError if malformed."""
        obs = Observation.parse(observation)
        self._last = obs
        if obs.crowned:
            self.crowns_visible = True
            for sq in [s for s in self._crowns if (obs.crowned >> s) & 1]:
                del self._crowns[sq]
        if self.state == GAME_OVER:
            return []
        if obs.unknown:
            return self._observe_partly_seen(obs, t)
        if self._violation:
            return self._observe_after_violation(obs, t)
        return self._observe(obs, t)

    def accept(self) -> list[Event]:
        """Accept the board as it stands (čl. 5.7), e.g. from the dashboard: the illegal board on the table,
        or the last board seen when it differs from the position. Nothing when there is nothing to accept."""
        if self._violation:
            flagged = self._violation.flagged
            return self._accept(flagged.finding, flagged.stands, None)
        obs = self._last
        if obs is None or obs.unknown or obs.colours == self._index.colours() or self.state == GAME_OVER:
            return []
        finding = classify(self._index, obs)
        return self._accept(finding, illegal_position(self.position, obs, finding.side), None)

    def takeback(self) -> list[Event]:
        """Take back the last entry of the record (a move, or an accepted position)."""
        if not self.game.moves:
            return []
        entry = self.game.pop()
        self._crowns = self._crown_history.pop()
        self._enter(WAITING)
        events: list[Event] = [{"event": "takeback", "ply": entry.ply, "fen": self.position.fen()}]
        return events + self._check_end()

    def reset(self, position: Position | None = None) -> list[Event]:
        """Begin a new game from ``position`` (default: the start position)."""
        self._setup(position)
        return [{"event": "game_start", "fen": self.position.fen()}] + self._check_end()

    def pdn(self, tags: dict | None = None) -> str:
        return self.game.to_pdn(tags)

    # --- state ------------------------------------------------------------------------------------

    def _setup(self, position: Position | None) -> None:
        self.game = Game(start=position, tags=self.tags, draw_rules=self.draw_rules)
        self._crowns: dict[int, _Crown] = {}  # new kings not yet seen crowned
        self._crown_history: list[dict[int, _Crown]] = []
        self._last: Observation | None = None
        self._enter(WAITING)
        if self.game.outcome():
            self.state = GAME_OVER

    def _enter(self, state: str) -> None:
        """Back to a settled position: forget the capture under way and any open violation."""
        self.state = state
        self._index = PositionIndex(self.game.position)
        self._violation: _OpenViolation | None = None
        self._pending_seen: set[tuple[int, int]] = set()
        self._hops: list[int] = []

    # --- observing --------------------------------------------------------------------------------

    def _observe(self, obs: Observation, t: float | None) -> list[Event]:
        index = self._index
        if obs.colours == index.colours():
            if self.state == CAPTURE_PENDING:  # the capture was taken back before it was finished
                self.state = WAITING
                self._hops.clear()
            return []
        move = index.results.get(obs.colours)
        if move is not None:
            return self._play(move, obs, t)
        events = self._pending(index, obs)
        if events is not None:
            self.state = CAPTURE_PENDING
            return events
        events = self._capture_went_on(obs, t)
        if events is not None:
            return events
        return self._flag(index, obs)

    def _observe_after_violation(self, obs: Observation, t: float | None) -> list[Event]:
        v = self._violation
        assert v is not None
        base = v.base
        if obs.colours == base.colours():
            return self._corrected()
        move = base.results.get(obs.colours)
        if move is not None:
            hops = self._hops  # a correction shown hop by hop still tells the route
            events = self._corrected()
            self._hops = hops
            return events + self._play(move, obs, t)
        if obs.colours in v.boards:
            v.current = obs.colours
            return []
        stands = v.flagged.stands_index()
        move = stands.results.get(obs.colours)
        if move is not None:
            return self._accept(v.flagged.finding, v.flagged.stands, t) + self._play(move, obs, t)
        for index in (base, stands):  # a correction, or the opponent's capture from the illegal board, under way
            events = self._pending(index, obs)
            if events is not None:
                return events
        return self._flag(base, obs)

    def _observe_partly_seen(self, obs: Observation, t: float | None) -> list[Event]:
        """Confirm a move only if the known squares fit it and no other explanation (čl. DESIGN: ``?``)."""
        if self._violation or obs.fits(*self._index.colours()):
            return []
        fitting = self._index.moves_fitting(obs)
        if len(fitting) != 1:
            return []
        move = fitting[0]
        if any((obs.unknown >> c) & 1 for c in move.captured):
            return []  # the piece may still be there: a capture under way fits as well
        return self._play(move, obs, t)

    def _capture_went_on(self, obs: Observation, t: float | None) -> list[Event] | None:
        """The last capture recorded was a stop on a longer one by the same piece: take it back, record that.

        A king's capture can run round in a loop (čl. 4.9–4.12 let the player take the pieces off before
        the jumper moves): a1 over c3 to d4, on over e3, g3 and g5 to f6 is also a1 round f6, h4 and f2 back
        to d4. The board with the king held still on d4 is then the result of a legal capture, and it is
        recorded; when, before the opponent has moved, the king goes on and the board becomes the result of
        another capture from the same position by the same piece, through that stop and taking all its
        pieces, the player had not finished. Without this the next board reads as the same side moving
        twice (čl. 3.3).
        """
        if self.state != WAITING or not self.game.moves:
            return None
        last = self.game.moves[-1]
        done = last.move
        if last.illegal or done is None or not done.is_capture:
            return None
        before = PositionIndex(list(self.game.positions())[-2])
        longer = before.results.get(obs.colours)
        if longer is None or longer.start != done.start or done.end not in longer.path \
                or not set(done.captured) <= set(longer.captured):
            return None
        events = self.takeback()
        events[0]["reason"] = f"the capture went on from {SQUARE_NAMES[done.end]} (čl. 4.9–4.12)"
        return events + self._play(longer, obs, t)

    # --- events -----------------------------------------------------------------------------------

    def _pending(self, index: PositionIndex, obs: Observation) -> list[Event] | None:
        """``pending`` events if ``obs`` is a capture under way from ``index`` (empty when already said)."""
        pos = index.position
        own, opp = (obs.white, obs.black) if pos.turn is Color.WHITE else (obs.black, obs.white)
        part = index.part_way(own, opp)
        if part is None:
            return None
        if part.jumper != part.move.start and (not self._hops or self._hops[-1] != part.jumper):
            self._hops.append(part.jumper)
        if obs.colours in self._pending_seen:
            return []
        self._pending_seen.add(obs.colours)
        return [_pending_event(pos, part)]

    def _play(self, move: Move, obs: Observation, t: float | None) -> list[Event]:
        before = self.position
        index = self._index
        route, comment = self._route(index, move)
        self._crown_history.append(dict(self._crowns))
        entry = self.game.push(route, comment, t)
        after = entry.position
        side = before.turn
        events: list[Event] = [{
            "event": "move", "ply": entry.ply, "side": side.value, "move": entry.notation,
            "path": route.path_names(), "captured": route.captured_names(), "fen": after.fen(),
        }]
        self._track_crowns(before, route, obs)
        self._enter(WAITING)
        events += self._reminders(side, obs)
        return events + self._check_end()

    def _route(self, index: PositionIndex, move: Move) -> tuple[Move, str | None]:
        """The capture route to record. The camera sees only the result; hops it saw shown one by one pick
        the route, otherwise the first in a stable order is taken and the comment says so (issue 2, item 7)."""
        routes = index.routes(move)
        if len(routes) == 1:
            return routes[0], None
        seen = [r for r in routes if _contains_in_order(r.path[1:], self._hops)]
        if len(seen) == 1 and self._hops:
            return seen[0], None
        chosen = (seen or routes)[0]
        others = ", ".join(r.full_notation() for r in routes if r is not chosen)
        return chosen, f"route not seen by the camera; recorded as {chosen.full_notation()} (also possible: {others})"

    def _flag(self, base: PositionIndex, obs: Observation) -> list[Event]:
        finding = classify(base, obs)
        before = base.position
        event: Event = {
            "event": "violation", "kind": finding.kind, "side": finding.side.value,
            "squares": names(finding.squares), "legal": [before.notation(m) for m in finding.legal],
            "message": finding.message, "article": finding.article,
            "legal_moves": [{"path": m.path_names(), "captured": m.captured_names()} for m in finding.legal],
        }
        flagged = _Flagged(finding, event, illegal_position(before, obs, finding.side))
        v = self._violation
        same = v is not None and _same_finding(v.flagged.finding, finding)
        if v is None:
            v = self._violation = _OpenViolation(base)
        v.boards[obs.colours] = flagged
        v.current = obs.colours
        self.state = VIOLATION
        self._pending_seen.clear()
        if same:  # e.g. the man that captured against king priority now also took the piece off
            return []
        self.game.add_comment(f"{finding.side.value} {finding.kind.replace('_', ' ')}: {finding.message}")
        return [event]

    def _corrected(self) -> list[Event]:
        self.game.add_comment("corrected: the position was put right")
        self._enter(WAITING)
        return [{"event": "corrected"}]

    def _accept(self, finding: Finding, stands: Position, t: float | None) -> list[Event]:
        """The illegal board stands (čl. 5.7): record it with a comment, carry on from it."""
        before = self.position
        self._crown_history.append(dict(self._crowns))
        explained = finding.move if finding.side is before.turn else None
        comment = f"position accepted as it stands (čl. 5.7) after {finding.kind.replace('_', ' ')}"
        self.game.push_illegal(explained, stands, comment, t)
        for sq in [s for s in self._crowns if not ((stands.white | stands.black) >> s) & 1]:
            del self._crowns[sq]
        new_kings = stands.kings & ~before.kings
        for colour, bb in ((Color.WHITE, stands.white), (Color.BLACK, stands.black)):
            for sq in range(32):
                if (new_kings & bb) >> sq & 1 and (PROMOTION_ROW[colour is Color.WHITE] >> sq) & 1:
                    self._crowns[sq] = _Crown(colour)
        self._enter(WAITING)
        event: Event = {"event": "accepted", "fen": stands.fen(), "side": finding.side.value, "comment": comment}
        if explained is not None:  # the move that broke the rules, so a record built from events matches ours
            event.update(move=explained.full_notation(), path=explained.path_names(),
                         captured=explained.captured_names())
        return [event] + self._check_end()

    def _check_end(self) -> list[Event]:
        outcome = self.game.outcome()
        if outcome is None:
            return []
        result, reason, article = outcome
        self.state = GAME_OVER
        return [{"event": "game_over", "result": result, "reason": reason, "article": article}]

    # --- crowning (čl. 3.5, 3.6) ------------------------------------------------------------------

    def _track_crowns(self, before: Position, move: Move, obs: Observation) -> None:
        for c in move.captured:
            self._crowns.pop(c, None)
        crown = self._crowns.pop(move.start, None)
        if crown is not None and not (obs.crowned >> move.end) & 1:
            self._crowns[move.end] = crown
        promoted = not (before.kings >> move.start) & 1 and (PROMOTION_ROW[before.turn is Color.WHITE] >> move.end) & 1
        if promoted and not (obs.crowned >> move.end) & 1:
            self._crowns[move.end] = _Crown(before.turn)

    def _reminders(self, mover: Color, obs: Observation) -> list[Event]:
        """Remind once, after the opponent of the new king has moved, if the camera can see crowns and the
        king is still shown uncrowned: the opponent crowns it (čl. 3.6)."""
        if not self.crowns_visible:
            return []
        events = []
        for sq, crown in self._crowns.items():
            if crown.owner is not mover and not crown.reminded and not ((obs.crowned | obs.unknown) >> sq) & 1:
                crown.reminded = True
                name = SQUARE_NAMES[sq]
                events.append({"event": "reminder", "kind": "crown", "squares": [name],
                               "message": f"crown the piece on {name} (čl. 3.6)"})
        return events


def _same_finding(a: Finding, b: Finding) -> bool:
    """The same broken rule said in the same words: one board on from the last, not a new violation."""
    return (a.kind, a.side, a.message) == (b.kind, b.side, b.message)


def _contains_in_order(path: tuple[int, ...], hops: list[int]) -> bool:
    it = iter(path)
    return all(any(h == p for p in it) for h in hops)


def _pending_event(pos: Position, part: PartWay) -> Event:
    side = pos.turn
    route = part.move.full_notation()
    remaining = names(list(part.remaining))
    todo = []
    if part.jumper != part.move.end:
        where = "is still on" if part.jumper == part.move.start else "is on"
        todo.append(f"the piece {where} {SQUARE_NAMES[part.jumper]} and ends on {SQUARE_NAMES[part.move.end]}")
    if remaining:
        todo.append("take off " + ", ".join(remaining))
    return {"event": "pending", "side": side.value, "move": route, "remaining": remaining,
            "message": f"{side_name(side)} is capturing {route}: {'; '.join(todo)}"}
