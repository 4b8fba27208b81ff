"""Server-Sent Events: the companion's event stream as ``data: <json>`` messages.

One subscription per open page. Each event is sent as one ``data:`` line (JSON, one line), with the
plain-text announcement for screen readers added as ``say``/``politeness`` when there is one. A comment
line is sent every ``heartbeat`` seconds so that idle connections stay open and a vanished client is
noticed (the write fails and the subscription is closed). A reconnecting client fetches ``/api/state``
afresh instead of replaying missed events: the snapshot is the truth, events only tell what changed.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

from board_io.announce import Announcer
from webui.companion import Subscription

RETRY_MS = 2000


class StreamSlots:
    """At most ``limit`` open event streams. Each holds a server thread for as long as the page is open;
    without a limit, enough open pages would leave no thread for the requests of the pages themselves."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self._open >= self.limit:
                return False
            self._open += 1
            return True

    def give_back(self) -> None:
        with self._lock:
            self._open = max(0, self._open - 1)

    @property
    def open(self) -> int:
        with self._lock:
            return self._open


def format_event(event: dict[str, Any], event_id: int | None = None) -> str:
    """One SSE message: optional ``id:``, one ``data:`` line of JSON, blank line."""
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}data: {data}\n\n"


class Annotator:
    """Adds the announcement of each event for the page's aria-live region, one listener per board (so
    status changes are said once per board, not every frame)."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang
        self._per_board: dict[Any, Announcer] = {}

    def __call__(self, event: dict[str, Any]) -> dict[str, Any]:
        key = event.get("board")
        if key not in self._per_board:
            self._per_board[key] = Announcer(self.lang)
        said = self._per_board[key](event)
        if said is None:
            return event
        out = dict(event)
        out.setdefault("say", said.text)
        out.setdefault("politeness", said.politeness)
        out.setdefault("lang", self.lang)
        return out


def stream(sub: Subscription, board: str | None, heartbeat: float, lang: str = "en") -> Iterator[str]:
    """Yield SSE text for every event (of ``board`` if given) until the client goes away."""
    annotate = Annotator(lang)
    counter = 0
    try:
        yield f"retry: {RETRY_MS}\n: connected\n\n"
        last_sent = time.monotonic()
        while True:
            wait = max(0.05, heartbeat - (time.monotonic() - last_sent))
            asked = time.monotonic()
            event = sub.get(timeout=wait)
            if event is None and wait >= 0.2 and time.monotonic() - asked < wait / 2:
                return  # get() gave up at once: the subscription is closed (the companion shut down)
            if event is None:
                if time.monotonic() - last_sent >= heartbeat:
                    yield ": heartbeat\n\n"
                    last_sent = time.monotonic()
                continue
            if board is not None and event.get("board", board) != board:
                continue
            counter += 1
            yield format_event(annotate(event), counter)
            last_sent = time.monotonic()
    finally:
        sub.close()
