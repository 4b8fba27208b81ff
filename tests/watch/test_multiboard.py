"""Several boards in one `dama watch`: each its own referee, journal and PDN; one bus, one dashboard, one
broadcast feed whose per-board PDN is the board's own PDN file."""

from __future__ import annotations

import io
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
from fakes import FakeVision, ListSource, frames_for, referee_factory

from dama.demo.script import demo_script
from dama.record import pdn_moves
from dama.sinks.journal import read_journal
from dama.watch import WatchConfig, WatchError, build_all, parse_sources, watch
from rules import Position


def other_game(plies: int) -> tuple[list[str], list[str]]:
    """A game unlike the demo's (always the last legal move): its boards and its moves."""
    pos = Position.start()
    boards, moves = [pos.board_string()], []
    for _ in range(plies):
        move = pos.legal_moves()[-1]
        moves.append(pos.notation(move))
        pos = pos.play(move)
        boards.append(pos.board_string())
    return boards, moves


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def two_board_config(tmp_path, games: dict[str, list[str]], **kw) -> WatchConfig:
    frames = {board: list(frames_for(states, fps=10)) for board, states in games.items()}

    def source_factory(spec, fast=False, on_status=None):
        return ListSource(frames[spec], spec, on_status)

    base = dict(source="", sources=[(b, b) for b in games], headless=True, fast=True, print_events=False,
                journal=str(tmp_path / "{board}.jsonl"), events=str(tmp_path / "events.jsonl"),
                vision_factory=FakeVision, referee_factory=referee_factory(), source_factory=source_factory,
                tags={"Event": "Club cup", "Round": "3"}, board_tags={"b2": {"White": "Novák"}})
    base.update(kw)
    return WatchConfig(**base)


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, Any]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read().decode(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), e.headers


def test_parse_sources():
    assert parse_sources(["0"]) == [("main", "0")]
    assert parse_sources(["a=0", "b=game.mp4"]) == [("a", "0"), ("b", "game.mp4")]
    assert parse_sources(["x.mp4", "y.mp4"]) == [("board1", "x.mp4"), ("board2", "y.mp4")]
    assert parse_sources(["rtsp://cam/s?a=b"]) == [("main", "rtsp://cam/s?a=b")]
    with pytest.raises(WatchError, match="twice"):
        parse_sources(["a=0", "a=1"])
    with pytest.raises(WatchError, match="no source"):
        parse_sources(["a="])


def test_two_boards_are_independent_and_the_feed_is_their_pdn(tmp_path):
    script = demo_script()
    b2_boards, b2_moves = other_game(6)
    cfg = two_board_config(tmp_path, {"b1": script.boards, "b2": b2_boards}, headless=False,
                           web=f"127.0.0.1:{free_port()}", feed_folder=str(tmp_path / "relay"))
    stop = threading.Event()
    started: dict[str, object] = {}
    cfg.on_started = lambda companion, url: started.update(companion=companion, url=url)
    out = io.StringIO()
    thread = threading.Thread(target=lambda: started.update(status=watch(cfg, stop, out)))
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while "companion" not in started and time.monotonic() < deadline and thread.is_alive():
            time.sleep(0.05)
        companion, url = started["companion"], started["url"]
        while "the source has ended" not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "the source has ended" in out.getvalue(), out.getvalue()
        companion.bus.flush()

        pdn = {b: (tmp_path / f"{b}.pdn").read_text() for b in ("b1", "b2")}
        assert pdn_moves(pdn["b1"]) == script.moves
        assert pdn_moves(pdn["b2"]) == b2_moves
        assert '[White "Novák"]' in pdn["b2"] and '[White "Novák"]' not in pdn["b1"]
        assert '[Round "3"]' in pdn["b1"] and '[Board "2"]' in pdn["b2"]
        for b, moves in (("b1", script.moves), ("b2", b2_moves)):
            journal = read_journal(str(tmp_path / f"{b}.jsonl"))
            assert {e["board"] for e in journal} == {b}
            assert [e["move"] for e in journal if e["event"] == "move"] == moves
        events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
        assert {e["board"] for e in events} == {"b1", "b2"}
        violations = [(e["side"], e["kind"]) for e in events if e["event"] == "violation" and e["board"] == "b1"]
        assert violations == script.violations
        assert not [e for e in events if e["event"] == "violation" and e["board"] == "b2"]

        # the overview: one snapshot per board, the page lists both
        assert companion.boards() == ["b1", "b2"]
        snaps = {b: companion.snapshot(b) for b in ("b1", "b2")}
        assert snaps["b1"]["last_move"]["move"] == script.moves[-1]
        assert snaps["b2"]["last_move"]["move"] == b2_moves[-1]
        assert snaps["b1"]["result"] == script.result and snaps["b2"]["result"] is None
        status, page, _ = get(url)
        assert status == 200 and 'data-board="b1"' in page and 'data-board="b2"' in page
        status, state, _ = get(url + "api/state?board=b2")
        assert status == 200 and json.loads(state)["moves"][-1]["move"] == b2_moves[-1]

        # the feed served by dama watch is byte for byte each board's own PDN file
        for b in ("b1", "b2"):
            status, body, headers = get(f"{url}broadcast/{b}.pdn")
            assert status == 200 and body == pdn[b]
            assert get(f"{url}broadcast/{b}.pdn", {"If-None-Match": headers["ETag"]})[0] == 304
        status, round_pdn, _ = get(url + "broadcast/round.pdn")
        assert round_pdn == pdn["b1"] + "\n" + pdn["b2"]
        assert (tmp_path / "relay" / "round-3" / "game-2.pdn").read_text() == pdn["b2"]
        index = json.loads(get(url + "broadcast/index.json")[1])
        assert [(g["board"], g["moves"]) for g in index["games"]] == [("b1", len(script.moves)), ("b2", 6)]
    finally:
        stop.set()
        thread.join(30)
    assert started.get("status") == 0


def test_resume_continues_every_board(tmp_path):
    b1_boards, b1_moves = other_game(8)
    clean = demo_script()
    b2_boards = [s.board for s in clean.steps if s.kind in ("start", "move")][:9]
    b2_moves = clean.moves[:8]
    first = two_board_config(tmp_path, {"b1": b1_boards[:5], "b2": b2_boards[:4]})
    assert watch(first) == 0
    # the rest of each game, shown from its last recorded position
    second = two_board_config(tmp_path, {"b1": b1_boards[4:], "b2": b2_boards[3:]}, resume=True)
    assert watch(second) == 0
    assert pdn_moves((tmp_path / "b1.pdn").read_text()) == b1_moves
    assert pdn_moves((tmp_path / "b2.pdn").read_text()) == b2_moves


def test_several_boards_need_board_in_file_names(tmp_path):
    cfg = two_board_config(tmp_path, {"b1": [], "b2": []}, journal=str(tmp_path / "one.jsonl"))
    with pytest.raises(WatchError, match=r"\{board\}"):
        build_all(cfg, [])
    out = io.StringIO()
    assert watch(cfg, out=out) == 2 and "{board}" in out.getvalue() and "Traceback" not in out.getvalue()
    cfg = two_board_config(tmp_path, {"b1": [], "b2": []}, board_tags={"b9": {"White": "X"}})
    with pytest.raises(WatchError, match="no board named b9"):
        build_all(cfg, [])


def test_command_line_errors_name_the_board_and_the_option(tmp_path):
    import subprocess
    import sys

    def run(*args: str) -> tuple[int, str]:
        p = subprocess.run([sys.executable, "-m", "dama.cli", "watch", "--headless", "--journal-dir",
                            str(tmp_path), *args], capture_output=True, text=True, timeout=120)
        return p.returncode, p.stdout + p.stderr

    code, text = run("--source", "a=" + str(tmp_path / "none.mp4"), "--source", "b=0")
    assert code == 2 and "board a:" in text and "no such file" in text and "Traceback" not in text
    code, text = run("--source", "a=0", "--tag", "a:White")
    assert code == 2 and "BOARD:NAME=VALUE" in text and "Traceback" not in text
    code, text = run("--source", "a=0", "--publish", "http://broker/hall")
    assert code == 2 and "mqtt://" in text and "Traceback" not in text
