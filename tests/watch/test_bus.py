import threading
import time

from dama.bus import EventBus


class Collect:
    def __init__(self, name="collect", delay=0.0, fail_on=None):
        self.name = name
        self.delay = delay
        self.fail_on = fail_on
        self.seen = []
        self.closed = False

    def handle(self, event):
        if self.delay:
            time.sleep(self.delay)
        if self.fail_on is not None and event.get("n") == self.fail_on:
            raise RuntimeError("boom")
        self.seen.append(event["n"])

    def close(self):
        self.closed = True


def test_every_sink_gets_every_event_in_order():
    bus = EventBus()
    a, b = Collect("a"), Collect("b")
    bus.add(a)
    bus.add(b)
    for n in range(50):
        bus.publish({"n": n})
    assert bus.flush(5)
    assert a.seen == list(range(50)) and b.seen == list(range(50))
    bus.close()
    assert a.closed and b.closed


def test_slow_sink_never_blocks_publish_and_drops_oldest():
    bus = EventBus()
    gate = threading.Event()

    class Stuck(Collect):
        def handle(self, event):
            gate.wait(5)
            super().handle(event)

    slow, fast = Stuck("slow"), Collect("fast")
    bus.add(slow, maxsize=10)
    bus.add(fast)
    start = time.monotonic()
    for n in range(200):
        bus.publish({"n": n})
    assert time.monotonic() - start < 0.5  # publish returned at once although "slow" is stuck
    gate.set()
    bus.flush(5)
    assert fast.seen == list(range(200))
    stats = bus.stats()["slow"]
    assert stats["dropped"] >= 189 - 1
    assert slow.seen[-1] == 199 and slow.seen == sorted(slow.seen)  # the newest survive
    bus.close()


def test_sink_that_raises_keeps_running():
    bus = EventBus()
    bad = Collect("bad", fail_on=3)
    bus.add(bad)
    for n in range(6):
        bus.publish({"n": n})
    bus.flush(5)
    assert bad.seen == [0, 1, 2, 4, 5]
    assert bus.stats()["bad"]["errors"] == 1
    bus.close()


def test_subscription_gets_events_and_close_stops_delivery():
    bus = EventBus()
    sub = bus.subscribe()
    bus.publish({"n": 1})
    assert sub.get(1) == {"n": 1}
    assert sub.get(0.05) is None
    sub.close()
    bus.publish({"n": 2})
    assert sub.get(0.05) is None
