"""What the board picture shows: which squares to mark and why, from a companion snapshot.

The drawing itself is ``rules.svg.board_svg`` (wooden board, and every highlight kind has its own pattern
as well as its colour, so nothing is told by colour alone).
"""

from __future__ import annotations

import re
from typing import Any

from rules.squares import SQUARE_NAMES
from rules.svg import board_svg

_SPLIT = re.compile(r"[-x:]")


def last_move_path(snapshot: dict[str, Any]) -> list[str]:
    """Squares of the last move (``["c3", "e5"]``) from ``last_move`` or the move list."""
    last = snapshot.get("last_move")
    if isinstance(last, dict):
        if last.get("path"):
            return [str(s) for s in last["path"]]
        last = last.get("move")
    if not last and snapshot.get("moves"):
        last = snapshot["moves"][-1].get("move")
    if not isinstance(last, str) or not last:
        return []
    return [s for s in _SPLIT.split(last) if s in SQUARE_NAMES]


def pending_squares(snapshot: dict[str, Any]) -> list[str]:
    pending = snapshot.get("pending") or snapshot.get("pending_capture") or {}
    return [str(s) for s in pending.get("remaining", [])] if isinstance(pending, dict) else []


# Violation kind -> highlight kind of rules.svg (a cross over the square, besides the colour).
ALERT_MARK = {"missed_capture": "missed", "king_priority": "missed", "incomplete_capture": "missed",
              "illegal_move": "illegal"}


def highlights(snapshot: dict[str, Any]) -> dict[str, str]:
    """Square → highlight kind: an alert beats a pending capture beats the last move."""
    marks: dict[str, str] = {}
    for sq in last_move_path(snapshot):
        marks[sq] = "last"
    for sq in pending_squares(snapshot):
        marks[sq] = "pending"
    for alert in snapshot.get("alerts") or []:
        for sq in alert.get("squares") or []:
            if str(sq) in SQUARE_NAMES:
                marks[str(sq)] = ALERT_MARK.get(str(alert.get("kind")), "illegal")
    return marks


def board_svg_for(snapshot: dict[str, Any], size: int = 480) -> str:
    """The board of ``snapshot`` as SVG, seen from the side the dashboard shows (``flipped``)."""
    board = str(snapshot.get("board_string") or "." * 32)
    path = last_move_path(snapshot)
    arrows = list(zip(path, path[1:], strict=False))  # one arrow per leg of a multi-capture
    return board_svg(board, highlight=highlights(snapshot), arrows=arrows,
                     flipped=bool(snapshot.get("flipped")), size=size)
