"""Words the dashboard shows and says: alert headlines with their rule article, sides, lists, results.

The announcements of events (the aria-live region) come from ``board_io.announce``, the wording shared
with the speech sink and ``dama watch --say``; this module holds what only the dashboard needs.
"""

from __future__ import annotations

from typing import Any

from board_io.announce import ARTICLES

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


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
