"""Events -> LED frame: which squares light, how and in which colour. Pure logic, no I/O.

Default mapping (every role's state and colour is configurable through :class:`LedStyle`):

- ``move``: the last move's from and to squares steady on (green);
- ``violation``: the squares involved blink fast (red), and the last move is hidden meanwhile; for
  ``missed_capture`` and ``king_priority`` also the pieces that had to capture and the pieces they had
  to take (from ``legal_moves`` when the event carries it, else from the ``legal`` notations with the
  diagonal rule);
- ``pending``: the captured pieces still on the board blink slowly (yellow);
- ``reminder``: the squares named (a man to crown, čl. 3.6) blink slowly (yellow);
- ``game_over``: a pattern: the winner's two home rows, or the long diagonal a1-h8 for a draw;
- ``notice`` of kind ``setting_up`` (before the first move the board does not show the game's position yet):
  the squares that differ blink slowly (blue), until the status leaves ``setting_up``; of kind ``misread``
  (a square the camera likely misreads): that square on (white) until it is masked or the game restarts;
- ``status`` with ``orientation_ok`` false (board turned wrong, čl. 2.4): only the four corner squares
  blink (blue); nothing else is shown, because every other square would be misplaced anyway;
- ``corrected``, ``accepted``, ``takeback``: clear the alert; ``game_start`` clears everything.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from board_io.leds.protocol import (
    CORNERS,
    SQUARE_INDEX,
    SQUARES,
    Colour,
    Frame,
    LedState,
    SquareLed,
    parse_colour,
    squares_in_order,
)

log = logging.getLogger(__name__)

RED: Colour = (255, 0, 0)
GREEN: Colour = (0, 200, 0)
YELLOW: Colour = (255, 160, 0)
BLUE: Colour = (0, 64, 255)
WHITE: Colour = (255, 255, 255)


@dataclass(frozen=True)
class LedStyle:
    """How each role is shown. Build variants with :meth:`with_options`."""

    last_move: SquareLed = SquareLed(LedState.ON, GREEN)
    violation: SquareLed = SquareLed(LedState.BLINK_FAST, RED)
    pending: SquareLed = SquareLed(LedState.BLINK_SLOW, YELLOW)
    reminder: SquareLed = SquareLed(LedState.BLINK_SLOW, YELLOW)
    orientation: SquareLed = SquareLed(LedState.BLINK_FAST, BLUE)
    game_over: SquareLed = SquareLed(LedState.ON, WHITE)
    setup: SquareLed = SquareLed(LedState.BLINK_SLOW, BLUE)
    misread: SquareLed = SquareLed(LedState.ON, WHITE)

    @classmethod
    def roles(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    def with_options(self, options: Mapping[str, Any]) -> LedStyle:
        """Apply ``<role>_state`` (off/on/blinkslow/blinkfast) and ``<role>_colour`` (rrggbb) options;
        ValueError naming the bad key or value."""
        style = self
        for key, value in options.items():
            role, _, what = key.rpartition("_")
            if role not in self.roles() or what not in ("state", "colour", "color"):
                raise ValueError(f"unknown LED style option {key!r} (roles: {', '.join(self.roles())})")
            led: SquareLed = getattr(style, role)
            if what == "state":
                try:
                    led = replace(led, state=LedState(str(value)))
                except ValueError:
                    raise ValueError(f"{key}: state must be off/on/blinkslow/blinkfast, got {value!r}") from None
            else:
                led = replace(led, colour=parse_colour(str(value)))
            style = replace(style, **{role: led})
        return style


_DIAG = re.compile(r"[a-h][1-8]")


def _coords(square: str) -> tuple[int, int]:
    return "abcdefgh".index(square[0]), int(square[1]) - 1


def between(a: str, b: str) -> list[str]:
    """Squares strictly between two squares on one diagonal (empty if they are not on one)."""
    (fa, ra), (fb, rb) = _coords(a), _coords(b)
    df, dr = fb - fa, rb - ra
    if df == 0 or abs(df) != abs(dr):
        return []
    sf, sr = (1 if df > 0 else -1), (1 if dr > 0 else -1)
    return ["abcdefgh"[fa + sf * k] + str(ra + sr * k + 1) for k in range(1, abs(df))]


def occupied_from_fen(fen: str) -> set[str]:
    """Occupied squares of a PDN FEN with algebraic squares (``W:Wa1,Kb2:Bc7``); empty set if unreadable."""
    squares: set[str] = set()
    for part in fen.split(":")[1:]:
        for token in part[1:].split(","):
            token = token.strip().lstrip("K")
            if token in SQUARE_INDEX:
                squares.add(token)
    return squares


def capture_squares(notation: str, occupied: set[str] | None = None) -> tuple[str, list[str]]:
    """``'a1xc3xe5'`` -> ('a1', captured squares). Between two path squares a man jumps exactly one square;
    a flying king may cross several: then the occupied ones (if the position is known) are the captured
    pieces, else all squares between are returned (better too many lit than none)."""
    path = _DIAG.findall(notation.lower())
    if not path:
        raise ValueError(f"no squares in move {notation!r}")
    captured: list[str] = []
    if "x" in notation.lower() or ":" in notation:
        for a, b in zip(path, path[1:], strict=False):
            middle = between(a, b)
            if len(middle) > 1 and occupied:
                hits = [s for s in middle if s in occupied]
                middle = hits or middle
            captured.extend(middle)
    return path[0], captured


class LedPlanner:
    """Keeps what the board should show and turns each event into the next :class:`Frame`."""

    def __init__(self, style: LedStyle | None = None) -> None:
        self.style = style or LedStyle()
        self._last_move: list[str] = []
        self._alert: list[str] = []
        self._pending: list[str] = []
        self._reminder: list[str] = []
        self._result: str | None = None
        self._orientation_bad = False
        self._occupied: set[str] | None = None
        self._setup: list[str] = []
        self._misread: list[str] = []

    def update(self, event: Mapping[str, Any]) -> Frame:
        """Apply one event and return the frame to show; unknown events leave the frame unchanged."""
        kind = event.get("event")
        handler = getattr(self, f"_on_{kind}", None) if isinstance(kind, str) else None
        if handler is not None:
            handler(event)
        return self.frame()

    # -- event handlers -------------------------------------------------------------------------------

    def _on_game_start(self, event: Mapping[str, Any]) -> None:
        self._last_move, self._alert, self._pending, self._reminder = [], [], [], []
        self._setup, self._misread = [], []
        self._result = None
        self._set_position(event)

    def _on_move(self, event: Mapping[str, Any]) -> None:
        path = [s for s in event.get("path") or [] if isinstance(s, str)]
        if not path and isinstance(event.get("move"), str):
            path = _DIAG.findall(event["move"].lower())
        self._last_move = _valid([path[0], path[-1]]) if path else []
        self._alert, self._pending, self._reminder = [], [], []
        self._set_position(event)

    def _on_violation(self, event: Mapping[str, Any]) -> None:
        squares = list(_names(event.get("squares")))
        if event.get("kind") in ("missed_capture", "king_priority"):
            squares += self._capture_pieces(event)
        self._alert = _valid(squares)
        self._pending = []

    def _on_corrected(self, event: Mapping[str, Any]) -> None:
        self._alert, self._pending = [], []

    def _on_accepted(self, event: Mapping[str, Any]) -> None:
        self._alert, self._pending = [], []
        self._set_position(event)

    def _on_takeback(self, event: Mapping[str, Any]) -> None:
        self._alert, self._pending, self._reminder, self._last_move = [], [], [], []
        self._result = None
        self._set_position(event)

    def _on_pending(self, event: Mapping[str, Any]) -> None:
        self._pending = _valid(_names(event.get("remaining")))

    def _on_reminder(self, event: Mapping[str, Any]) -> None:
        self._reminder = _valid(_names(event.get("squares")))

    def _on_game_over(self, event: Mapping[str, Any]) -> None:
        self._result = str(event.get("result", ""))
        self._alert, self._pending = [], []

    def _on_status(self, event: Mapping[str, Any]) -> None:
        if "orientation_ok" in event:
            self._orientation_bad = event["orientation_ok"] is False
        if event.get("state") not in (None, "setting_up", "hand", "no_board"):  # the set-up is over
            self._setup = []

    def _on_notice(self, event: Mapping[str, Any]) -> None:
        if event.get("kind") == "setting_up":
            self._setup = _valid(_names(event.get("squares")))
        elif event.get("kind") == "misread":
            self._misread = _valid([*self._misread, *_names(event.get("squares"))])
        elif event.get("kind") == "masked":
            self._misread = [sq for sq in self._misread if sq not in _names(event.get("squares"))]

    # -- helpers --------------------------------------------------------------------------------------

    def _set_position(self, event: Mapping[str, Any]) -> None:
        fen = event.get("fen")
        if isinstance(fen, str) and fen:
            self._occupied = occupied_from_fen(fen)

    def _capture_pieces(self, event: Mapping[str, Any]) -> list[str]:
        """The pieces that had to capture and the pieces they had to take."""
        squares: list[str] = []
        moves = event.get("legal_moves")
        if isinstance(moves, list) and moves:
            for move in moves:
                if isinstance(move, Mapping):
                    path = list(_names(move.get("path")))
                    squares += path[:1] + list(_names(move.get("captured")))
            return squares
        for notation in event.get("legal") or []:
            if not isinstance(notation, str):
                continue
            try:
                start, captured = capture_squares(notation, self._occupied)
            except ValueError:
                log.debug("ignoring unreadable legal move %r", notation)
                continue
            squares += [start, *captured]
        return squares

    def frame(self) -> Frame:
        """The frame for the current state (layers: last move < set-up < misread < reminder < pending < alert)."""
        s = self.style
        if self._orientation_bad:
            return Frame.from_squares({sq: s.orientation for sq in CORNERS})
        lit: dict[str, SquareLed] = {}
        if self._result is not None:
            lit.update({sq: s.game_over for sq in _result_pattern(self._result)})
        elif not self._alert:  # during an alert only the problem shows, nothing to confuse it with
            lit.update({sq: s.last_move for sq in self._last_move})
        layers = ((self._setup, s.setup), (self._misread, s.misread), (self._reminder, s.reminder),
                  (self._pending, s.pending), (self._alert, s.violation))
        for layer, led in layers:
            lit.update({sq: led for sq in layer})
        return Frame.from_squares(lit)


def _result_pattern(result: str) -> list[str]:
    """White won: ranks 1-2 light; Black won: ranks 7-8; a draw (or anything else): the long diagonal."""
    if result == "1-0":
        return [sq for sq in SQUARES if sq[1] in "12"]
    if result == "0-1":
        return [sq for sq in SQUARES if sq[1] in "78"]
    return [sq for sq in SQUARES if sq[0] == "abcdefgh"[int(sq[1]) - 1]]


def _names(value: Any) -> Iterable[str]:
    if isinstance(value, (list, tuple)):
        return [v.lower() for v in value if isinstance(v, str)]
    return []


def _valid(names: Iterable[str]) -> list[str]:
    """Known dark squares only, in observation order; bad names are logged and skipped."""
    good = [n for n in names if n in SQUARE_INDEX]
    bad = [n for n in names if n not in SQUARE_INDEX]
    if bad:
        log.debug("ignoring squares that are not dark squares: %s", bad)
    return squares_in_order(good)
