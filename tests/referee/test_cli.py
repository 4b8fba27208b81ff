"""``dama referee``: observation lines on stdin, one JSON event per line on stdout, ``--pdn`` record."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from dama.cli import main
from rules import Position

SCENARIOS = Path(__file__).parent / "scenarios"


def run_cli(monkeypatch, capsys, text: str, *args: str) -> tuple[int, list[dict], str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code = main(["referee", *args])
    out = capsys.readouterr()
    return code, [json.loads(line) for line in out.out.splitlines()], out.err


def after(*moves: str, start: Position | None = None) -> str:
    pos = start or Position.start()
    for m in moves:
        pos = pos.play(pos.parse_move(m))
    return pos.board_string()


def test_events_per_line_and_errors_that_do_not_stop_the_run(monkeypatch, capsys) -> None:
    text = "\n".join(["# a comment", "", after("c3-d4"), "not a board", after("c3-d4", "f6-e5") + " 12.5",
                      "x" * 32, after("c3-d4", "f6-e5") + " soon"]) + "\n"
    code, events, _ = run_cli(monkeypatch, capsys, text)
    assert code == 0
    assert [e["event"] for e in events] == ["game_start", "move", "error", "move", "error", "error"]
    assert events[0]["fen"] == Position.start().fen()
    assert events[2]["line"] == 4 and "32 characters" in events[2]["message"]
    assert events[4]["line"] == 6 and "a1" in events[4]["message"]  # names the square of the bad character
    assert events[5]["line"] == 7 and "soon" in events[5]["message"]
    assert [e["move"] for e in events if e["event"] == "move"] == ["c3-d4", "f6-e5"]


def test_fen_option_and_bad_fen(monkeypatch, capsys) -> None:
    start = Position.from_fen("W:Wc3:Bd4")
    code, events, _ = run_cli(monkeypatch, capsys, after("c3xe5", start=start) + "\n", "--fen", "W:Wc3:Bd4")
    assert code == 0
    assert [e["event"] for e in events] == ["game_start", "move", "game_over"]
    assert events[2]["result"] == "1-0"
    code, events, err = run_cli(monkeypatch, capsys, "", "--fen", "W:Wc3:Bz9")
    assert code == 2 and events == [] and "z9" in err and "Traceback" not in err


def test_pdn_file_has_moves_times_and_violations_as_comments(monkeypatch, capsys, tmp_path) -> None:
    text = (SCENARIOS / "missed_capture_accepted.scenario").read_text(encoding="utf-8")
    out = tmp_path / "game.pdn"
    code, events, _ = run_cli(monkeypatch, capsys, text, "--pdn", str(out))
    assert code == 0
    assert [e["event"] for e in events] == ["game_start", "move", "move", "violation", "accepted", "move"]
    pdn = out.read_text(encoding="utf-8")
    assert '[GameType "29,W,8,8,A0,0"]' in pdn
    assert "1. c3-d4 f6-e5" in pdn
    assert "missed capture: White moved a3-b4 although a capture was compulsory: d4xf6" in pdn
    assert "accepted as it stands (čl. 5.7)" in pdn
    assert "e5xc3" in pdn


def test_unwritable_pdn_is_a_message_not_a_traceback(monkeypatch, capsys, tmp_path) -> None:
    code, _, err = run_cli(monkeypatch, capsys, "", "--pdn", str(tmp_path / "missing" / "x.pdn"))
    assert code == 1 and "cannot write" in err


def test_each_event_is_flushed_before_the_next_line_arrives() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "dama.cli", "referee"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
    try:
        assert json.loads(proc.stdout.readline())["event"] == "game_start"
        proc.stdin.write(after("c3-d4") + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["move"] == "c3-d4"  # stdin still open
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert proc.returncode == 0
