"""Plain-text announcements of events for the page's aria-live region (issue 7 item 2).

Screen-reader users want short plain text their own reader speaks fast, square and piece together. Each
event becomes at most one sentence and a politeness: ``"polite"`` for the run of play, ``"assertive"``
for what needs attention now (violations, game over, the board lost or turned wrongly).

This is the one place the wording comes from; when ``board_io.announce`` lands it replaces
:func:`describe`'s body and the page keeps working unchanged.
"""

from __future__ import annotations

from typing import Any

# Rule articles for each violation kind (ČFD text in shared/rules-cs.md).
ARTICLES: dict[str, str] = {
    "missed_capture": "čl. 4.1",
    "king_priority": "čl. 4.14",
    "incomplete_capture": "čl. 4.13",
    "illegal_move": "čl. 5.4",
    "orientation": "čl. 2.4",
    "accepted": "čl. 5.7",
}

VIOLATION_TITLES: dict[str, str] = {
    "missed_capture": "missed capture — capturing is compulsory",
    "king_priority": "king must capture — a king has priority over a man",
    "incomplete_capture": "incomplete capture — the capture must be finished",
    "illegal_move": "illegal move",
}


def side_name(side: Any) -> str:
    return str(side).capitalize() if side else "Someone"


def violation_title(kind: str) -> str:
    """``"missed capture — capturing is compulsory (čl. 4.1)"``: what an alert headline says."""
    title = VIOLATION_TITLES.get(kind, kind.replace("_", " "))
    article = ARTICLES.get(kind)
    return f"{title} ({article})" if article else title


def move_phrase(event: dict[str, Any]) -> str:
    """``"c3 takes d4, lands on e5"`` or ``"c3 to d4"``: a move said so that it can be followed blind."""
    path = [str(s) for s in event.get("path") or []]
    captured = [str(s) for s in event.get("captured") or []]
    if len(path) < 2:
        text = str(event.get("move", "?"))
        sep = "x" if "x" in text or ":" in text else "-"
        path = text.replace(":", "x").split(sep) if text else []
    if len(path) < 2:
        return str(event.get("move", "a move"))
    if captured:
        stops = ", ".join(path[1:-1])
        via = f", via {stops}" if stops else ""
        return f"{path[0]} takes {_join(captured)}{via}, lands on {path[-1]}"
    return f"{path[0]} to {path[-1]}"


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def describe(event: dict[str, Any]) -> tuple[str, str] | None:
    """``(text, politeness)`` for an event, or None for events not worth saying (hand over the board)."""
    kind = event.get("event")
    if kind == "move":
        text = f"{side_name(event.get('side'))}: {move_phrase(event)}."
        if event.get("promoted") or event.get("crowned"):
            text += " Becomes a king."
        return text, "polite"
    if kind == "violation":
        vkind = str(event.get("kind", "illegal_move"))
        message = str(event.get("message") or "").strip()
        squares = _join([str(s) for s in event.get("squares") or []])
        text = f"Warning, {side_name(event.get('side'))}: {violation_title(vkind)}."
        if message:
            text += f" {message.rstrip('.')}."
        elif squares:
            text += f" Squares {squares}."
        return text, "assertive"
    if kind == "corrected":
        return "Corrected: the board is back to a legal position.", "polite"
    if kind == "accepted":
        return f"The position stands as played ({ARTICLES['accepted']}).", "polite"
    if kind == "pending":
        remaining = [str(s) for s in event.get("remaining") or []]
        if remaining:
            pieces = "pieces" if len(remaining) > 1 else "piece"
            return f"Capture under way: remove the {pieces} on {_join(remaining)}.", "polite"
        return "Capture under way.", "polite"
    if kind == "reminder":
        return str(event.get("message") or "Reminder.").rstrip(".") + ".", "polite"
    if kind == "game_over":
        reason = str(event.get("reason") or "").strip()
        return f"Game over: {result_words(event.get('result'))}{', ' + reason if reason else ''}.", "assertive"
    if kind == "game_start":
        return "New game.", "polite"
    if kind == "takeback":
        return f"Move {event.get('ply', '')} taken back.".replace("  ", " "), "polite"
    return None


def result_words(result: Any) -> str:
    return {"1-0": "White wins", "0-1": "Black wins", "1/2-1/2": "draw"}.get(str(result), str(result))


class StatusAnnouncer:
    """Says status changes that matter (board lost, orientation wrong, board found again), not every frame."""

    def __init__(self) -> None:
        self._last: dict[Any, str] = {}

    def describe(self, event: dict[str, Any]) -> tuple[str, str] | None:
        state = str(event.get("state", ""))
        if event.get("board_found") is False:
            state = "no_board"
        elif event.get("orientation_ok") is False:
            state = "orientation_wrong"
        key = event.get("board")
        previous = self._last.get(key)
        self._last[key] = state
        if state == previous:
            return None
        if state == "no_board":
            return "Board not found by the camera.", "assertive"
        if state == "orientation_wrong":
            return ("The board is turned wrongly: a dark square must be at each player's left "
                    f"({ARTICLES['orientation']}).", "assertive")
        if previous in ("no_board", "orientation_wrong"):
            return "Board found and placed correctly.", "polite"
        return None
