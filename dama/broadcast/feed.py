"""The broadcast feed: each board's game as PDN, and the round as one PDN, with validators for pollers.

Relay tools (lidraughts relay, lichess broadcasts, DGT LiveChess viewers) poll a URL every few seconds,
so every document carries an ETag and a Last-Modified time and is rendered once per change, not once
per request: 200 pollers cost 200 dictionary look-ups.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any

from dama.record import GameRecord

FEED_EVENTS = frozenset({"game_start", "move", "violation", "corrected", "accepted", "takeback", "game_over"})


@dataclass(frozen=True)
class Document:
    """A rendered feed document and its HTTP validators."""

    body: str
    etag: str
    modified: float  # seconds since the epoch

    @classmethod
    def of(cls, body: str, modified: float) -> Document:
        return cls(body, '"' + hashlib.sha1(body.encode()).hexdigest()[:20] + '"', modified)

    @property
    def last_modified(self) -> str:
        return formatdate(self.modified, usegmt=True)


@dataclass
class BoardFeed:
    board: str
    tags: dict[str, str]
    record: GameRecord = field(default_factory=GameRecord)
    modified: float = field(default_factory=time.time)
    last_event: dict[str, Any] | None = None


class BroadcastFeed:
    """Per-board PDN and the round PDN, kept current from events. Also an event-bus sink.

    ``tags`` sets the PDN tags of every board (Event, Site, Round …); ``board_tags`` those of one board
    (White, Black, Board …). A board appears when its first event arrives or when it is declared.
    """

    name = "broadcast"

    def __init__(self, tags: dict[str, str] | None = None,
                 board_tags: dict[str, dict[str, str]] | None = None, clock=time.time) -> None:
        self.tags = dict(tags or {})
        self.board_tags = {b: dict(t) for b, t in (board_tags or {}).items()}
        self.clock = clock
        self._boards: dict[str, BoardFeed] = {}
        self._cache: dict[str, Document] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self.version = 0
        for board in self.board_tags:
            self._board(board)

    def _board(self, board: str) -> BoardFeed:
        feed = self._boards.get(board)
        if feed is None:
            number = str(len(self._boards) + 1)
            tags = {**self.tags, "Board": number, **self.board_tags.get(board, {})}
            feed = self._boards[board] = BoardFeed(board, tags)
        return feed

    # --- writing ----------------------------------------------------------------------------------

    def apply(self, event: dict[str, Any], board: str | None = None) -> bool:
        """Fold one event; returns whether a feed document changed."""
        board = board or str(event.get("board") or "board1")
        with self._lock:
            feed = self._board(board)
            feed.last_event = event if event.get("event") in FEED_EVENTS else feed.last_event
            if event.get("event") not in FEED_EVENTS:
                return False
            feed.record.apply(event)
            feed.modified = self.clock()
            self._cache.clear()
            self.version += 1
            self._changed.notify_all()
            return True

    def handle(self, event: dict[str, Any]) -> None:
        self.apply(event)

    def close(self) -> None:
        pass

    def reset_board(self, board: str) -> None:
        """Forget a board's game (its computer started a new run); its tags stay."""
        with self._lock:
            feed = self._board(board)
            feed.record = GameRecord()
            feed.modified = self.clock()
            self._cache.clear()
            self.version += 1
            self._changed.notify_all()

    def set_tags(self, board: str, **tags: str) -> None:
        with self._lock:
            self._board(board).tags.update(tags)
            self._cache.clear()
            self.version += 1

    # --- reading ----------------------------------------------------------------------------------

    def boards(self) -> list[str]:
        with self._lock:
            return list(self._boards)

    @contextlib.contextmanager
    def reading(self, board: str) -> Iterator[BoardFeed | None]:
        """A board's feed (its record and tags) held still while the caller reads it; None if unknown."""
        with self._lock:
            yield self._boards.get(board)

    def wait_for_change(self, version: int, timeout: float) -> int:
        """Block until the feed's version differs from ``version`` (or timeout); returns the version."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != version, timeout)
            return self.version

    def board_pdn(self, board: str) -> Document | None:
        with self._lock:
            feed = self._boards.get(board)
            if feed is None:
                return None
            key = f"board:{board}"
            if key not in self._cache:
                self._cache[key] = Document.of(feed.record.pdn(feed.tags), feed.modified)
            return self._cache[key]

    def round_pdn(self) -> Document:
        """Every game of the round in one PDN file, in board order (the file relays poll)."""
        with self._lock:
            if "round" not in self._cache:
                feeds = list(self._boards.values())
                body = "\n".join(f.record.pdn(f.tags) for f in feeds)
                modified = max((f.modified for f in feeds), default=self.clock())
                self._cache["round"] = Document.of(body, modified)
            return self._cache["round"]

    def index(self) -> Document:
        """JSON list of the games: board, players, result, moves so far, last move, file name."""
        with self._lock:
            if "index" not in self._cache:
                games = []
                for number, feed in enumerate(self._boards.values(), 1):
                    last = feed.record.last_move
                    games.append({
                        "board": feed.board, "number": number, "file": f"game-{number}.pdn",
                        "white": feed.tags.get("White", "?"), "black": feed.tags.get("Black", "?"),
                        "result": feed.record.result or "*", "moves": len(feed.record.moves),
                        "last_move": last.move if last else None, "fen": feed.record.fen,
                        "alerts": len(feed.record.alerts),
                    })
                body = json.dumps({"event": self.tags.get("Event", "?"), "round": self.tags.get("Round", "?"),
                                   "games": games}, ensure_ascii=False, indent=1)
                modified = max((f.modified for f in self._boards.values()), default=self.clock())
                self._cache["index"] = Document.of(body, modified)
            return self._cache["index"]
