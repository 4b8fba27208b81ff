"""The event bus: one stream of events, every sink consuming it on its own.

Modelled on picochess, where each output device reads the one message stream through its own queue:
``publish`` only appends to bounded queues and returns, so a slow or broken sink (a serial line that
hangs, a speech engine that takes seconds) can never stall the vision loop. Each sink has its own thread;
when its queue is full the oldest event is dropped and counted (and logged), and an exception in a sink
is logged and the sink keeps receiving the next events.

A sink is any object with ``name: str``, ``handle(event: dict) -> None`` and ``close() -> None``.
Readers that want to pull events themselves (the dashboard's Server-Sent Events) take a
:class:`Subscription` from :meth:`EventBus.subscribe` instead.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import Any, Protocol

log = logging.getLogger("dama.bus")

Event = dict[str, Any]


class Sink(Protocol):
    name: str

    def handle(self, event: Event) -> None: ...

    def close(self) -> None: ...


class BoundedQueue:
    """A FIFO that never blocks the writer: when full it drops the oldest item and counts it."""

    def __init__(self, maxsize: int, label: str) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.maxsize = maxsize
        self.label = label
        self.dropped = 0
        self._items: deque[Event] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._busy = False  # the consumer is handling an item it took

    def put(self, item: Event) -> None:
        with self._cond:
            if self._closed:
                return
            if len(self._items) >= self.maxsize:
                self._items.popleft()
                self.dropped += 1
                if self.dropped == 1 or self.dropped % 100 == 0:
                    log.warning("%s is too slow: %d events dropped so far", self.label, self.dropped)
            self._items.append(item)
            self._cond.notify_all()

    def get(self, timeout: float | None = None) -> Event | None:
        """The next item, or None after ``timeout`` seconds or once closed and empty."""
        with self._cond:
            if not self._items and not self._closed:
                self._cond.wait(timeout)
            if not self._items:
                return None
            self._busy = True
            return self._items.popleft()

    def done(self) -> None:
        with self._cond:
            self._busy = False
            self._cond.notify_all()

    def join(self, timeout: float) -> bool:
        """Wait until every item put so far has been taken and handled."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._items and not self._busy, timeout)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    def __len__(self) -> int:
        return len(self._items)


class _Worker:
    """One sink, its queue and its thread."""

    def __init__(self, sink: Sink, maxsize: int) -> None:
        self.sink = sink
        self.queue = BoundedQueue(maxsize, f"sink {sink.name!r}")
        self.errors = 0
        self.thread = threading.Thread(target=self._run, name=f"sink-{sink.name}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            event = self.queue.get()
            if event is None:
                if self.queue.closed:
                    break
                continue
            try:
                self.sink.handle(event)
            except Exception:  # a broken sink must not take the others (or the loop) down
                self.errors += 1
                log.exception("sink %r failed on a %r event (it keeps running)", self.sink.name,
                              event.get("event"))
            finally:
                self.queue.done()

    def stop(self, timeout: float) -> None:
        self.queue.join(timeout)
        self.queue.close()
        self.thread.join(timeout)
        try:
            self.sink.close()
        except Exception:
            log.exception("sink %r failed to close", self.sink.name)


class Subscription:
    """A pull-style reader of the bus (SSE): ``get(timeout)`` the next event or None, ``close()``."""

    def __init__(self, bus: EventBus, maxsize: int) -> None:
        self._bus = bus
        self.queue = BoundedQueue(maxsize, "subscriber")

    def get(self, timeout: float | None = None) -> Event | None:
        event = self.queue.get(timeout)
        self.queue.done()
        return event

    @property
    def dropped(self) -> int:
        return self.queue.dropped

    def close(self) -> None:
        self._bus._unsubscribe(self)
        self.queue.close()


class EventBus:
    """Fan one event stream out to sinks and subscribers without ever blocking the publisher."""

    def __init__(self, maxsize: int = 1000) -> None:
        self.maxsize = maxsize
        self._workers: list[_Worker] = []
        self._subs: list[Subscription] = []
        self._lock = threading.Lock()

    def add(self, sink: Sink, maxsize: int | None = None) -> None:
        """Start delivering events to ``sink`` on its own thread."""
        worker = _Worker(sink, maxsize or self.maxsize)
        with self._lock:
            self._workers = [*self._workers, worker]

    def subscribe(self, maxsize: int = 500) -> Subscription:
        sub = Subscription(self, maxsize)
        with self._lock:
            self._subs = [*self._subs, sub]
        return sub

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs = [s for s in self._subs if s is not sub]

    def publish(self, event: Event) -> None:
        """Hand ``event`` to every sink and subscriber; returns at once. Sinks must not modify events."""
        workers, subs = self._workers, self._subs  # lists are replaced, never mutated: no lock needed
        for worker in workers:
            worker.queue.put(event)
        for sub in subs:
            sub.queue.put(event)

    def sinks(self) -> list[str]:
        return [w.sink.name for w in self._workers]

    def stats(self) -> dict[str, dict[str, int]]:
        """Per sink: events waiting, dropped, and handler errors."""
        return {w.sink.name: {"queued": len(w.queue), "dropped": w.queue.dropped, "errors": w.errors}
                for w in self._workers}

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every sink has handled every event published so far (tests, shutdown)."""
        return all(w.queue.join(timeout) for w in self._workers)

    def close(self, timeout: float = 10.0) -> None:
        """Deliver what is queued, then close every sink and subscriber."""
        with self._lock:
            workers, self._workers = self._workers, []
            subs, self._subs = self._subs, []
        for worker in workers:
            worker.stop(timeout)
        for sub in subs:
            sub.queue.close()
