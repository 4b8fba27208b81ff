"""Two board publishers and one hub over a real Mosquitto on loopback (issue 6 acceptance)."""

from __future__ import annotations

import time

import pytest

from dama.broadcast.feed import BroadcastFeed
from dama.broadcast.mqtt import MqttHub, MqttPublisher, MqttUrl
from dama.record import GameRecord

from .games import game_events

TAGS = {"b1": {"White": "Novák", "Black": "Svoboda"}, "b2": {"White": "Dvořák", "Black": "Černá"}}


def own_pdn(events, tags=None):
    """The board's own PDN: its events folded as its PDN sink does."""
    record = GameRecord()
    for e in events:
        record.apply(e)
    return record


def wait_until(cond, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


def _moves(feed, board):
    with feed.reading(board) as board_feed:
        return board_feed.record.move_list() if board_feed is not None else None


def test_url_parsing_and_errors():
    url = MqttUrl.parse("mqtt://ann:s%40cret@hub.local:1884/club/round3")
    assert (url.host, url.port, url.topic, url.username, url.password) == ("hub.local", 1884, "club/round3",
                                                                           "ann", "s@cret")
    for bad in ("http://x/y", "mqtt://host", "mqtt://host/a/#"):
        with pytest.raises(ValueError):
            MqttUrl.parse(bad)


def test_two_boards_broker_restart_loses_no_move(broker):
    games = {"b1": game_events(1), "b2": game_events(2)}
    feed = BroadcastFeed({"Event": "Club", "Round": "1"})
    hub = MqttHub(broker.url, feed)
    pubs = {b: MqttPublisher(broker.url, b, tags=TAGS[b]) for b in games}
    try:
        assert hub.wait_connected(10)
        assert wait_until(lambda: all(p.client.is_connected() for p in pubs.values()))
        half = {b: len(ev) // 2 for b, ev in games.items()}
        for b, events in games.items():
            for e in events[:half[b]]:
                pubs[b].handle(e)
        assert wait_until(lambda: all(_moves(feed, b) == own_pdn(ev[:half[b]], None).move_list()
                                      for b, ev in games.items()))

        broker.stop()  # the broker dies mid-game; the boards play on
        for b, events in games.items():
            for e in events[half[b]:half[b] + 5]:
                pubs[b].handle(e)
        time.sleep(0.5)
        broker.start()
        for b, events in games.items():
            for e in events[half[b] + 5:]:
                pubs[b].handle(e)

        assert wait_until(lambda: all(_moves(feed, b) == own_pdn(ev, None).move_list() for b, ev in games.items()),
                          timeout=30)
        for b, events in games.items():
            record = own_pdn(events, None)
            with feed.reading(b) as board_feed:
                tags = board_feed.tags
            assert tags["White"] == TAGS[b]["White"]
            assert feed.board_pdn(b).body == record.pdn(tags)  # byte for byte the board's own PDN
    finally:
        hub.close()
        for p in pubs.values():
            p.close()


def test_hub_starting_late_catches_up_from_retained_state(broker):
    events = game_events(3)
    pub = MqttPublisher(broker.url, "b7")
    try:
        assert wait_until(pub.client.is_connected)
        for e in events:
            pub.handle(e)
        time.sleep(0.3)
        feed = BroadcastFeed()
        hub = MqttHub(broker.url, feed)
        try:
            assert wait_until(lambda: _moves(feed, "b7") == own_pdn(events, None).move_list())
            assert hub.gaps >= 1  # it noticed it had missed everything, and asked
        finally:
            hub.close()
    finally:
        pub.close()


def test_new_run_of_a_board_replaces_its_game(broker):
    feed = BroadcastFeed()
    hub = MqttHub(broker.url, feed)
    first = MqttPublisher(broker.url, "b1")
    try:
        assert hub.wait_connected(10) and wait_until(first.client.is_connected)
        for e in game_events(4, plies=6):
            first.handle(e)
        assert wait_until(lambda: _moves(feed, "b1") and len(_moves(feed, "b1")) == 6)
        first.close()
        second = MqttPublisher(broker.url, "b1")
        try:
            assert wait_until(second.client.is_connected)
            fresh = game_events(5, plies=3)
            for e in fresh:
                second.handle(e)
            assert wait_until(lambda: _moves(feed, "b1") == own_pdn(fresh, None).move_list())
        finally:
            second.close()
    finally:
        hub.close()


def test_hub_asks_again_when_a_resync_request_is_lost(broker):
    """A board that had not yet subscribed to its resync topic misses the hub's first request; with no
    further message from the board (its game over) the hub must still ask again and get the missing moves."""
    import json

    import paho.mqtt.client as mqtt

    events = game_events(6, plies=4)
    messages = [{"board": "b3", "epoch": "e1", "seq": i, "event": {**e, "board": "b3"}}
                for i, e in enumerate(events, 1)]
    requests: list[dict] = []
    board = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="fake-board")

    def on_resync(client, userdata, msg):
        requests.append(json.loads(msg.payload))
        if len(requests) >= 2:  # the first request is lost, as if it came before the subscription
            start = requests[-1]["from"]
            for m in messages[start - 1:]:
                client.publish("hall/b3/events", json.dumps(m), qos=1)

    board.on_message = on_resync
    board.connect("127.0.0.1", broker.port)
    board.loop_start()
    feed = BroadcastFeed()
    hub = MqttHub(broker.url, feed)
    try:
        board.subscribe("hall/b3/resync", qos=1)
        assert hub.wait_connected(10)
        time.sleep(0.2)
        board.publish("hall/b3/events", json.dumps(messages[-1]), qos=1)  # the last one only: a gap
        assert wait_until(lambda: _moves(feed, "b3") == own_pdn(events).move_list(), timeout=15)
        assert len(requests) >= 2 and requests[1]["from"] == 1
    finally:
        hub.close()
        board.loop_stop()
        board.disconnect()
