"""The broadcast feed: PDN per board and per round, relay folder, HTTP validators (issue 6)."""

from __future__ import annotations

import json

from flask import Flask

from dama.broadcast.feed import BroadcastFeed
from dama.broadcast.folder import FolderSink
from dama.record import GameRecord
from webui.broadcast import init_app

from .games import game_events


def fed(boards=("b1", "b2"), plies=12):
    feed = BroadcastFeed({"Event": "Open", "Round": "2"}, {"b1": {"White": "Novák", "Black": "Svoboda"}})
    streams = {}
    for i, b in enumerate(boards):
        streams[b] = game_events(10 + i, plies)
        for e in streams[b]:
            feed.apply({**e, "board": b})
    return feed, streams


def test_board_feed_is_the_boards_own_pdn():
    feed, streams = fed()
    for b, events in streams.items():
        record = GameRecord()
        for e in events:
            record.apply(e)
        with feed.reading(b) as board_feed:
            tags = board_feed.tags
        assert feed.board_pdn(b).body == record.pdn(tags)
    assert '[White "Novák"]' in feed.board_pdn("b1").body and '[Round "2"]' in feed.board_pdn("b2").body
    assert '[Board "2"]' in feed.board_pdn("b2").body


def test_round_pdn_holds_every_game_in_board_order():
    feed, _ = fed(("b1", "b2", "b3"))
    body = feed.round_pdn().body
    assert body.count('[GameType "29,W,8,8,A0,0"]') == 3
    assert body.index('[Board "1"]') < body.index('[Board "2"]') < body.index('[Board "3"]')


def test_documents_change_validators_only_when_content_changes():
    feed, _ = fed()
    before = feed.board_pdn("b1")
    assert feed.board_pdn("b1") is before  # rendered once, served many times
    feed.apply({"event": "status", "board": "b1", "hand": True})  # not part of the record
    assert feed.board_pdn("b1").etag == before.etag
    feed.apply({"event": "game_over", "board": "b1", "result": "1/2-1/2", "reason": "agreed"})
    assert feed.board_pdn("b1").etag != before.etag
    assert feed.board_pdn("b2").etag == fed()[0].board_pdn("b2").etag


def test_http_feed_with_etag_and_last_modified():
    feed, _ = fed()
    app = Flask(__name__)
    init_app(app, feed)
    client = app.test_client()
    r = client.get("/broadcast/b1.pdn")
    assert r.status_code == 200 and r.headers["ETag"] and r.headers["Last-Modified"]
    assert r.get_data(as_text=True) == feed.board_pdn("b1").body
    again = client.get("/broadcast/b1.pdn", headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b""
    since = client.get("/broadcast/b1.pdn", headers={"If-Modified-Since": r.headers["Last-Modified"]})
    assert since.status_code == 304
    feed.apply({"event": "game_over", "board": "b1", "result": "1-0", "reason": "resigned"})
    changed = client.get("/broadcast/b1.pdn", headers={"If-None-Match": r.headers["ETag"]})
    assert changed.status_code == 200 and '[Result "1-0"]' in changed.get_data(as_text=True)
    assert client.get("/broadcast/round.pdn").status_code == 200
    index = client.get("/broadcast/index.json").get_json()
    assert [g["board"] for g in index["games"]] == ["b1", "b2"]
    missing = client.get("/broadcast/nope.pdn")
    assert missing.status_code == 404
    assert client.post("/broadcast/b1.pdn").status_code == 405  # read-only


def test_relay_folder_layout_and_atomic_rewrites(tmp_path):
    feed, _ = fed()
    sink = FolderSink(feed, tmp_path)
    assert sink.write() == 5  # two games, the round file, the index, the tournament file
    assert sink.write() == 0  # nothing changed, nothing rewritten
    round_dir = tmp_path / "round-2"
    index = json.loads((round_dir / "index.json").read_text())
    assert [g["file"] for g in index["games"]] == ["game-1.pdn", "game-2.pdn"]
    assert (round_dir / "game-1.pdn").read_text() == feed.board_pdn("b1").body
    assert (round_dir / "games.pdn").read_text() == feed.round_pdn().body
    assert json.loads((tmp_path / "tournament.json").read_text())["name"] == "Open"
    feed.apply({"event": "game_over", "board": "b2", "result": "0-1", "reason": "resigned"})
    sink.handle({"event": "game_over"})
    assert '[Result "0-1"]' in (round_dir / "game-2.pdn").read_text()
    assert not list(tmp_path.rglob(".*.tmp"))
