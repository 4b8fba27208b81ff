"""The command-line contracts of issue 8: `dama perft`, `dama moves --json`, `dama pdn check`."""

from __future__ import annotations

import io
import json

from dama.cli import main


def test_perft_prints_one_line_per_depth(capsys):
    assert main(["perft", "--depth", "4"]) == 0
    assert capsys.readouterr().out.splitlines() == ["depth 1: 7", "depth 2: 49", "depth 3: 302", "depth 4: 1469"]


def test_perft_from_a_fen_and_a_bad_fen(capsys):
    assert main(["perft", "--fen", "W:WKa1:Bc3", "--depth", "1"]) == 0
    assert capsys.readouterr().out == "depth 1: 5\n"
    assert main(["perft", "--fen", "W:Wa9", "--depth", "2"]) == 2
    assert "unknown square 'a9'" in capsys.readouterr().out


def test_moves_json_from_arguments(capsys):
    assert main(["moves", "--json", "W:Wa1,Kc1:Bb2,d2"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    record = json.loads(line)
    assert record["fen"] == "W:Wa1,Kc1:Bb2,d2"
    # king priority (čl. 4.14): only the king on c1 may capture
    assert {m["notation"] for m in record["moves"]} == {"c1xa3", "c1xe3", "c1xf4", "c1xg5", "c1xh6"}
    assert {"path": ["c1", "a3"], "captured": ["b2"], "notation": "c1xa3"} in record["moves"]


def test_moves_json_from_stdin_with_a_malformed_fen(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("W:Wc3:Bd4\nnonsense\n\nB:Wc3:Bd4\n"))
    assert main(["moves", "--json"]) == 1
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["fen"] for r in records] == ["W:Wc3:Bd4", "nonsense", "B:Wc3:Bd4"]
    assert records[0]["moves"] == [{"path": ["c3", "e5"], "captured": ["d4"], "notation": "c3xe5"}]
    assert "side to move" in records[1]["error"] and "moves" not in records[1]
    assert records[2]["moves"][0]["notation"] == "d4xb2"


def test_pdn_check_reports_each_game(tmp_path, capsys):
    path = tmp_path / "games.pdn"
    path.write_text('[White "A"]\n[Black "B"]\n1. c3-d4 b6-a5 1-0\n\n'
                    '[White "C"]\n[Black "D"]\n1. c3-d4 b6-c5 2. g3-h4 *\n', encoding="utf-8")
    assert main(["pdn", "check", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "game 1 (A vs B): valid, 2 plies, result 1-0"
    assert out[1].startswith("game 2 (C vs D): INVALID: game 2, line 7, column 19, move 2. g3-h4")
    assert "d4xb6" in out[1]


def test_pdn_check_all_valid_and_missing_file(tmp_path, capsys):
    path = tmp_path / "ok.pdn"
    path.write_bytes('[White "Novák"]\n1. c3-d4 *\n'.encode("latin-1", errors="replace"))
    assert main(["pdn", "check", str(path)]) == 0
    assert capsys.readouterr().out == "game 1 (Novák): valid, 1 plies, result *\n"  # read as Latin-1
    assert main(["pdn", "check", str(tmp_path / "missing.pdn")]) == 2
    assert "cannot read" in capsys.readouterr().out
