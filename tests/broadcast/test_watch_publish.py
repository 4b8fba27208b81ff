"""`dama watch --publish` end to end: two boards in one watch process publish to a real Mosquitto, a hub
receives; the hub's feed equals each board's own PDN file, also after `--resume` (the publisher is seeded
with the journal, so the hub's resync still gets the whole game)."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from dama.broadcast.feed import BroadcastFeed
from dama.broadcast.mqtt import MqttHub
from dama.record import pdn_moves
from dama.watch import WatchConfig, watch
from rules import Position

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "watch"))
from fakes import FakeVision, ListSource, frames_for, referee_factory  # noqa: E402


def game(plies: int, pick: int) -> list[str]:
    pos = Position.start()
    boards = [pos.board_string()]
    for _ in range(plies):
        moves = pos.legal_moves()
        pos = pos.play(moves[pick % len(moves)])
        boards.append(pos.board_string())
    return boards


class HeldSource(ListSource):
    """A recorded source that stays open until released, so the run (and its publisher) stays up."""

    def __init__(self, frames, name, on_status, release: threading.Event) -> None:
        super().__init__(frames, name, on_status)
        self.release = release

    def __iter__(self):
        yield from self._frames
        self.release.wait(30)


def config(tmp_path, games, url, release=None, **kw) -> WatchConfig:
    frames = {b: list(frames_for(states, fps=10)) for b, states in games.items()}

    def source_factory(spec, fast=False, on_status=None):
        if release is None:
            return ListSource(frames[spec], spec, on_status)
        return HeldSource(frames[spec], spec, on_status, release)

    return WatchConfig(source="", sources=[(b, b) for b in games], headless=True, fast=True, print_events=False,
                       journal=str(tmp_path / "{board}.jsonl"), vision_factory=FakeVision,
                       referee_factory=referee_factory(), source_factory=source_factory, publish=url,
                       tags={"Event": "Hall", "Round": "2"}, board_tags={"b1": {"White": "Novák"}}, **kw)


def hub_equals_files(feed: BroadcastFeed, tmp_path: Path, boards: list[str]) -> bool:
    for b in boards:
        doc = feed.board_pdn(b)
        path = tmp_path / f"{b}.pdn"
        if doc is None or not path.exists() or doc.body != path.read_text():
            return False
    return True


def run_until_hub_has_it(cfg: WatchConfig, release: threading.Event, feed: BroadcastFeed, tmp_path: Path,
                         expect: dict[str, int]) -> int:
    status: dict[str, int] = {}
    thread = threading.Thread(target=lambda: status.update(rc=watch(cfg)))
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            done = all((tmp_path / f"{b}.pdn").exists() and len(pdn_moves((tmp_path / f"{b}.pdn").read_text())) == n
                       for b, n in expect.items())
            if done and hub_equals_files(feed, tmp_path, list(expect)):
                break
            time.sleep(0.05)
    finally:
        release.set()
        thread.join(30)
    return status.get("rc", -1)


def test_two_boards_publish_and_the_hub_feed_is_their_pdn(broker, tmp_path):
    games = {"b1": game(8, 0), "b2": game(6, -1)}
    feed = BroadcastFeed()
    hub = MqttHub(broker.url, feed)
    try:
        assert hub.wait_connected(10)
        release = threading.Event()
        rc = run_until_hub_has_it(config(tmp_path, games, broker.url, release), release, feed, tmp_path,
                                  {"b1": 8, "b2": 6})
        assert rc == 0
        assert hub_equals_files(feed, tmp_path, ["b1", "b2"])
        assert '[White "Novák"]' in feed.board_pdn("b1").body
        assert len(pdn_moves(feed.board_pdn("b2").body)) == 6
    finally:
        hub.close()


def test_resume_republishes_the_whole_game_to_a_hub_that_missed_it(broker, tmp_path):
    full = {"b1": game(8, 1), "b2": game(8, 2)}
    # the first part is published while no hub listens
    assert watch(config(tmp_path, {b: s[:5] for b, s in full.items()}, broker.url)) == 0
    feed = BroadcastFeed()
    hub = MqttHub(broker.url, feed)
    try:
        assert hub.wait_connected(10)
        release = threading.Event()
        cfg = config(tmp_path, {b: s[4:] for b, s in full.items()}, broker.url, release, resume=True)
        rc = run_until_hub_has_it(cfg, release, feed, tmp_path, {"b1": 8, "b2": 8})
        assert rc == 0
        assert hub_equals_files(feed, tmp_path, ["b1", "b2"])
        assert len(pdn_moves(feed.board_pdn("b1").body)) == 8
    finally:
        hub.close()
