"""Board computers publish their events to an MQTT broker; a hub folds them into the hall's feeds.

Topics under the base topic ``T`` of ``mqtt://[user:password@]host[:port]/T``:

- ``T/<board>/events``  (QoS 1) ``{"board", "epoch", "seq", "event"}``, seq = 1, 2, 3 … per epoch;
- ``T/<board>/state``   (QoS 1, retained) ``{"board", "epoch", "seq", "tags"}``: the newest seq, so a hub
  that starts late, or reconnects, sees at once what it is missing;
- ``T/<board>/online``  (retained) ``"1"``, or ``"0"`` set by the broker as the board's last will;
- ``T/<board>/resync``  (hub → board) ``{"epoch", "from"}``: send the events from ``from`` again.

The board keeps every event it published in this epoch (from its journal on ``--resume``), so the hub
can always be brought up to date: it applies events strictly in sequence, holds back any that arrive
after a gap and asks for the gap. A broker restart or a dropped connection therefore loses no move.
An epoch is one run of a board process; a new epoch replaces that board's game in the hub.

Security: the broker's own authentication and ACLs decide who may publish (give each board computer a
user that may write only ``T/<board>/#``); the hub only subscribes and sends resync requests, which cannot
change a game.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlparse

import paho.mqtt.client as mqtt

from dama.broadcast.feed import BroadcastFeed

log = logging.getLogger("dama.broadcast.mqtt")

SKIPPED = frozenset({"observation", "control"})  # referee inputs: stay in the board's own journal


@dataclass(frozen=True)
class MqttUrl:
    host: str
    port: int
    topic: str
    username: str | None = None
    password: str | None = None

    @classmethod
    def parse(cls, url: str) -> MqttUrl:
        parsed = urlparse(url)
        if parsed.scheme != "mqtt":
            raise ValueError(f"{url!r}: expected mqtt://[user:password@]host[:port]/topic")
        topic = parsed.path.strip("/")
        if not parsed.hostname or not topic:
            raise ValueError(f"{url!r}: both a host and a base topic are needed, e.g. mqtt://localhost/hall")
        if any(c in topic for c in "+#") or parsed.fragment or "#" in url:
            raise ValueError(f"{url!r}: the base topic may not contain + or #")
        return cls(parsed.hostname, parsed.port or 1883, topic,
                   unquote(parsed.username) if parsed.username else None,
                   unquote(parsed.password) if parsed.password else None)


def _client(url: MqttUrl, client_id: str) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True)
    if url.username:
        client.username_pw_set(url.username, url.password)
    client.reconnect_delay_set(min_delay=0.2, max_delay=5)
    return client


class MqttPublisher:
    """Event-bus sink of one board: publishes its events with sequence numbers and answers resyncs."""

    def __init__(self, url: str | MqttUrl, board: str, tags: dict[str, str] | None = None,
                 history: list[dict[str, Any]] | None = None) -> None:
        self.url = MqttUrl.parse(url) if isinstance(url, str) else url
        self.board = board
        self.name = f"mqtt-{board}"
        self.tags = dict(tags or {})
        self.epoch = uuid.uuid4().hex[:12]
        self._sent: list[dict[str, Any]] = []  # every message of this epoch, index = seq - 1
        self._lock = threading.Lock()
        self._last_status: tuple | None = None
        base = f"{self.url.topic}/{board}"
        self.t_events, self.t_state, self.t_online, self.t_resync = (
            f"{base}/events", f"{base}/state", f"{base}/online", f"{base}/resync")
        for event in history or []:
            self._record(event)
        self.client = _client(self.url, f"dama-board-{board}-{self.epoch}")
        self.client.will_set(self.t_online, "0", qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.connect_async(self.url.host, self.url.port, keepalive=10)
        self.client.loop_start()

    @property
    def seq(self) -> int:
        return len(self._sent)

    def _record(self, event: dict[str, Any]) -> dict[str, Any] | None:
        if event.get("event") in SKIPPED:
            return None
        if event.get("event") == "status":  # only changes of status travel
            key = (event.get("board_found"), event.get("orientation_ok"), event.get("state"))
            if key == self._last_status:
                return None
            self._last_status = key
        with self._lock:
            message = {"board": self.board, "epoch": self.epoch, "seq": len(self._sent) + 1,
                       "event": {**event, "board": self.board}}
            self._sent.append(message)
            return message

    def _state(self) -> str:
        return json.dumps({"board": self.board, "epoch": self.epoch, "seq": self.seq, "tags": self.tags})

    def handle(self, event: dict[str, Any]) -> None:
        message = self._record(event)
        if message is None:
            return
        # While disconnected paho keeps QoS 1 messages queued; anything lost anyway is resent on resync.
        self.client.publish(self.t_events, json.dumps(message, ensure_ascii=False), qos=1)
        self.client.publish(self.t_state, self._state(), qos=1, retain=True)

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.error("board %s: MQTT broker %s:%d refused the connection: %s", self.board, self.url.host,
                      self.url.port, reason_code)
            return
        log.info("board %s: connected to MQTT broker %s:%d", self.board, self.url.host, self.url.port)
        client.subscribe(self.t_resync, qos=1)
        client.publish(self.t_online, "1", qos=1, retain=True)
        client.publish(self.t_state, self._state(), qos=1, retain=True)

    def _on_message(self, client, userdata, msg) -> None:
        try:
            request = json.loads(msg.payload)
            start = int(request.get("from", 1))
        except (ValueError, TypeError, AttributeError):
            log.warning("board %s: ignoring a malformed resync request", self.board)
            return
        if request.get("epoch") not in (None, self.epoch):
            start = 1  # the hub knows an older run of this board: send everything of this one
        with self._lock:
            missing = self._sent[max(0, start - 1):]
        log.info("board %s: resync from seq %d (%d events)", self.board, start, len(missing))
        for message in missing:
            client.publish(self.t_events, json.dumps({**message, "resync": True}, ensure_ascii=False), qos=1)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, ValueError):
            self.client.publish(self.t_online, "0", qos=1, retain=True).wait_for_publish(timeout=2)
        self.client.disconnect()
        self.client.loop_stop()


@dataclass
class _BoardStream:
    epoch: str | None = None
    last: int = 0
    held: dict[int, dict[str, Any]] = field(default_factory=dict)
    asked_at: float = 0.0
    wanted: int = 0  # the newest seq the board has said it published
    online: bool = False
    retired: set[str] = field(default_factory=set)


class MqttHub:
    """Subscribes to every board under the base topic and keeps ``feed`` current, in sequence.

    ``on_event(board, event)`` is called for every event applied (the hub's dashboard forwards it to its
    viewers). Read-only towards the games: it only ever publishes resync requests.

    A request can be lost (a board that has just connected may not have subscribed to its resync topic yet),
    so while a board is behind the hub asks again every ``RESYNC_INTERVAL`` until the gap is filled; waiting
    for the board's next message instead would leave a finished game short of its last moves.
    """

    RESYNC_INTERVAL = 1.0

    def __init__(self, url: str | MqttUrl, feed: BroadcastFeed, on_event=None) -> None:
        self.url = MqttUrl.parse(url) if isinstance(url, str) else url
        self.feed = feed
        self.on_event = on_event
        self.streams: dict[str, _BoardStream] = {}
        self.gaps = 0
        self.connected = threading.Event()
        self._lock = threading.Lock()
        self.client = _client(self.url, f"dama-hub-{uuid.uuid4().hex[:8]}")
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_disconnect = lambda *a: self.connected.clear()
        self.client.connect_async(self.url.host, self.url.port, keepalive=10)
        self.client.loop_start()
        self._stop = threading.Event()
        self._retrier = threading.Thread(target=self._keep_asking, name="mqtt-hub-resync", daemon=True)
        self._retrier.start()

    def _keep_asking(self) -> None:
        while not self._stop.wait(self.RESYNC_INTERVAL / 2):
            if not self.connected.is_set():
                continue
            with self._lock:
                for board, stream in self.streams.items():
                    if stream.wanted > stream.last:
                        self._ask(board, stream)

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.error("hub: MQTT broker %s:%d refused the connection: %s", self.url.host, self.url.port,
                      reason_code)
            return
        base = self.url.topic
        client.subscribe([(f"{base}/+/events", 1), (f"{base}/+/state", 1), (f"{base}/+/online", 1)])
        self.connected.set()
        with self._lock:  # we may have missed events while away: ask every known board for the rest
            for board, stream in self.streams.items():
                self._ask(board, stream, force=True)

    def _ask(self, board: str, stream: _BoardStream, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - stream.asked_at < self.RESYNC_INTERVAL:
            return
        stream.asked_at = now
        self.client.publish(f"{self.url.topic}/{board}/resync",
                            json.dumps({"epoch": stream.epoch, "from": stream.last + 1}), qos=1)

    def _on_message(self, client, userdata, msg) -> None:
        parts = msg.topic.split("/")
        board, kind = parts[-2], parts[-1]
        try:
            payload = msg.payload.decode()
            data = json.loads(payload) if kind != "online" else payload
        except (UnicodeDecodeError, json.JSONDecodeError):
            log.warning("hub: malformed message on %s ignored", msg.topic)
            return
        with self._lock:
            stream = self.streams.setdefault(board, _BoardStream())
            if kind == "online":
                stream.online = data == "1"
                return
            if not isinstance(data, dict):
                return
            epoch = data.get("epoch")
            if epoch in stream.retired:
                return  # a late message of an earlier run of this board
            if epoch != stream.epoch:
                # a new run of the board (or the first we hear of it): start its game afresh
                retired = stream.retired | ({stream.epoch} if stream.epoch else set())
                self.streams[board] = stream = _BoardStream(epoch=epoch, online=stream.online, retired=retired)
                self.feed.reset_board(board)
            seq = int(data.get("seq", 0))
            stream.wanted = max(stream.wanted, seq)
            if kind == "state":
                if data.get("tags"):
                    self.feed.set_tags(board, **data["tags"])
                if seq > stream.last:
                    self.gaps += 1
                    self._ask(board, stream)
                return
            if seq <= stream.last:
                return  # a duplicate (resync overlap, QoS 1 redelivery)
            stream.held[seq] = data["event"]
            if seq > stream.last + 1:
                self.gaps += 1
                self._ask(board, stream)
            while stream.last + 1 in stream.held:
                stream.last += 1
                event = stream.held.pop(stream.last)
                self.feed.apply(event, board)
                if self.on_event is not None:
                    self.on_event(board, event)

    def wait_connected(self, timeout: float = 10.0) -> bool:
        return self.connected.wait(timeout)

    def close(self) -> None:
        self._stop.set()
        self._retrier.join(5)
        self.client.disconnect()
        self.client.loop_stop()
