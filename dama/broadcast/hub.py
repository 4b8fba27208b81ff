"""The hall's hub: every board's game from MQTT, behind the dashboard's companion interface, read-only.

``webui.create_app(HubCompanion(feed))`` then shows the overview of all boards and a page per board, and
``webui.broadcast.init_app`` adds the PDN feeds. Controls are refused: the games are run (and corrected)
on the board computers, never from the broadcast side.
"""

from __future__ import annotations

import threading
from typing import Any

from dama.broadcast.feed import BroadcastFeed
from dama.bus import EventBus, Subscription
from rules import Position

READ_ONLY = "this is the read-only broadcast hub; games are controlled on each board's own computer"


class HubCompanion:
    """What the dashboard reads, for boards known only by their published events."""

    def __init__(self, feed: BroadcastFeed) -> None:
        self.feed = feed
        self.bus = EventBus()
        self._status: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def on_event(self, board: str, event: dict[str, Any]) -> None:
        """Called by :class:`~dama.broadcast.mqtt.MqttHub` for every event applied, in sequence."""
        if event.get("event") == "status":
            with self._lock:
                self._status[board] = {k: event.get(k) for k in ("board_found", "orientation_ok", "hand", "state")}
        self.bus.publish({**event, "board": board})

    def boards(self) -> list[str]:
        return self.feed.boards()

    def snapshot(self, board: str) -> dict[str, Any]:
        with self.feed.reading(board) as feed:
            if feed is None:
                raise ValueError(f"unknown board {board!r}")
            rec = feed.record
            game = rec.summary(Position.from_fen(rec.fen))
            tags = dict(feed.tags)
            last = rec.last_move
        with self._lock:
            status = dict(self._status.get(board) or {"board_found": None, "orientation_ok": None,
                                                       "hand": False, "state": "waiting"})
        return {
            "board": board, **game, "status": status, "flipped": False, "fps": 0.0,
            "t": last.t if last and last.t else 0.0, "frames": 0, "observation": None,
            "source": {"name": "mqtt", "message": ""}, "tags": tags, "read_only": True,
        }

    def frame_jpeg(self, board: str, overlay: bool = True) -> bytes | None:
        return None  # cameras stay on the board computers; the hub carries moves, not video

    def subscribe(self) -> Subscription:
        return self.bus.subscribe()

    def control(self, board: str, action: str, **params: Any) -> dict[str, Any]:
        raise ValueError(READ_ONLY)

    def pdn(self, board: str) -> str:
        doc = self.feed.board_pdn(board)
        if doc is None:
            raise ValueError(f"unknown board {board!r}")
        return doc.body

    def close(self) -> None:
        self.bus.close()
