"""End to end on small rendered videos (our renderer, hands included) with the real vision pipeline,
stabilizer and referee: the recorded PDN equals the script, the planted missed capture is flagged once,
and a clean game has no violation."""

import json

import pytest

from dama.demo.script import demo_script
from dama.record import pdn_moves
from dama.watch import WatchConfig, watch

pytestmark = pytest.mark.slow
PLIES = 5  # through the missed capture at ply 4 and its correction


def steps(planted: bool):
    script = demo_script()
    end = next(i for i, s in enumerate(script.steps) if s.note.startswith(f"{PLIES}.")) + 1
    chosen = [s for s in script.steps[:end] if planted or s.kind in ("start", "move")]
    return script, [s.board for s in chosen]


@pytest.fixture(scope="module")
def videos(tmp_path_factory):
    pytest.importorskip("vision.pipeline")
    from vision.render import render_video

    folder = tmp_path_factory.mktemp("rendered")
    out = {}
    for planted in (True, False):
        _, boards = steps(planted)
        path = folder / f"game-{planted}.mp4"
        render_video(boards, path, seed=11, size=(480, 270), fps=10, hold_seconds=1.5)
        out[planted] = str(path)
    return out


def run(tmp_path, video):
    cfg = WatchConfig(source=video, headless=True, fast=True, print_events=False,
                      journal=str(tmp_path / "g.jsonl"), pdn=str(tmp_path / "g.pdn"),
                      events=str(tmp_path / "e.jsonl"))
    assert watch(cfg) == 0
    with open(tmp_path / "e.jsonl") as f:
        events = [json.loads(line) for line in f]
    return pdn_moves((tmp_path / "g.pdn").read_text()), events


def test_planted_missed_capture_is_flagged_once_and_the_game_recorded(tmp_path, videos):
    script, _ = steps(True)
    moves, events = run(tmp_path, videos[True])
    assert moves == script.moves[:PLIES]
    flagged = [(e["side"], e["kind"]) for e in events if e["event"] == "violation"]
    assert flagged == [("black", "missed_capture")]
    assert [e for e in events if e["event"] == "corrected"]


def test_clean_game_has_no_false_violation(tmp_path, videos):
    script, _ = steps(False)
    moves, events = run(tmp_path, videos[False])
    assert moves == script.moves[:PLIES]
    assert not [e for e in events if e["event"] == "violation"]
