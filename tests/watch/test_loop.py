"""The loop end to end on synthetic frames (plainly encoded boards; vision accuracy is tested in
tests/vision): the recorded game equals the script, planted violations are flagged once, the journal
and the PDN on disk hold everything, and --resume continues the game."""

import json

import pytest
from fakes import FakeVision, ListSource, frames_for, referee_factory

from dama.demo.script import demo_script
from dama.record import pdn_moves
from dama.sinks.journal import read_journal
from dama.watch import WatchConfig, watch


def config(tmp_path, boards, **kw):
    frames = list(frames_for(boards, fps=10))

    def source_factory(spec, fast=False, on_status=None):
        return ListSource(frames, spec, on_status)

    base = dict(source="synthetic", headless=True, fast=True, print_events=False,
                journal=str(tmp_path / "game.jsonl"), pdn=str(tmp_path / "game.pdn"),
                events=str(tmp_path / "events.jsonl"),
                vision_factory=FakeVision,
                referee_factory=referee_factory(), source_factory=source_factory)
    base.update(kw)
    return WatchConfig(**base)


def events_of(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="module")
def script():
    return demo_script()


def test_demo_game_is_recorded_exactly(tmp_path, script, capsys):
    assert watch(config(tmp_path, script.boards)) == 0
    pdn = (tmp_path / "game.pdn").read_text()
    assert pdn_moves(pdn) == script.moves
    assert '[GameType "29,W,8,8,A0,0"]' in pdn
    assert "{elapsed 0:" in pdn  # the time of each move since the game began
    events = events_of(tmp_path / "events.jsonl")
    violations = [(e["side"], e["kind"]) for e in events if e["event"] == "violation"]
    assert violations == script.violations
    assert [e for e in events if e["event"] == "corrected"]
    assert all(e["board"] == "main" and "t" in e for e in events)
    assert not any(e["event"] in ("observation", "control") for e in events)  # inputs stay in the journal
    journal = read_journal(str(tmp_path / "game.jsonl"))
    assert [e["move"] for e in journal if e["event"] == "move"] == script.moves


def test_clean_game_has_no_violation(tmp_path, script):
    clean = [s.board for s in script.steps if s.kind in ("start", "move")]
    assert watch(config(tmp_path, clean)) == 0
    events = events_of(tmp_path / "events.jsonl")
    assert not [e for e in events if e["event"] == "violation"]
    assert pdn_moves((tmp_path / "game.pdn").read_text()) == script.moves


def test_resume_continues_the_game_from_the_journal(tmp_path, script):
    boards = script.boards
    cut = next(i for i, s in enumerate(script.steps) if s.note.startswith("12."))
    assert watch(config(tmp_path, boards[: cut + 1])) == 0
    first = pdn_moves((tmp_path / "game.pdn").read_text())
    assert first == script.moves[:12]
    # The camera comes back after the crash and sees the game go on from the position it stood in.
    assert watch(config(tmp_path, boards[cut:], resume=True)) == 0
    assert pdn_moves((tmp_path / "game.pdn").read_text()) == script.moves
    journal = read_journal(str(tmp_path / "game.jsonl"))
    moves = [e for e in journal if e["event"] == "move"]
    assert [e["move"] for e in moves] == script.moves
    times = [e["t"] for e in moves]
    assert times == sorted(times)  # time goes on across the restart


def test_controls_takeback_and_new_game(tmp_path, script):
    from dama.watch import build

    cfg = config(tmp_path, script.boards)
    companion, session = build(cfg, [])
    for frame in frames_for([s.board for s in script.steps[:4] if s.kind != "illegal"], fps=10):
        session.process(frame.t, frame.image)
    snap = companion.snapshot("main")
    assert [m["move"] for m in snap["moves"]] == script.moves[:3]
    assert snap["status"]["state"] == "waiting" and snap["turn"] == "black"
    result = companion.control("main", "takeback")
    assert result["ok"]
    assert [m["move"] for m in companion.snapshot("main")["moves"]] == script.moves[:2]
    with pytest.raises(ValueError):
        companion.control("main", "explode")
    companion.control("main", "new_game")
    snap = companion.snapshot("main")
    assert snap["moves"] == [] and snap["turn"] == "white"
    assert companion.control("main", "flip")["flipped"] is True
    assert companion.frame_jpeg("main")[:2] == b"\xff\xd8"
    companion.close()
    assert pdn_moves((tmp_path / "game.pdn").read_text()) == []
