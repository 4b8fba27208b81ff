"""The spoken readings of the position (issue 7 item 2) and the alert headlines."""

from __future__ import annotations

import pytest
from fake_companion import FakeCompanion

from rules import Position
from webui import create_app, reading
from webui.announce import violation_title
from webui.sse import Annotator

# White men on a1, c3; white king on h8 (crowned); black man on d4, black king on a7; white to move.
FEN = "W:Wa1,c3,Kh8:Bd4,Ka7"


def board() -> str:
    return Position.from_fen(FEN).board_string()


def test_rank_says_square_and_piece_together():
    assert reading.read_rank(board(), 4) == "Rank 4: b4 empty, d4 black man, f4 empty, h4 empty."
    assert reading.read_rank(board(), 8).endswith("h8 white king.")
    with pytest.raises(ValueError, match="1 to 8"):
        reading.read_rank(board(), 0)


def test_position_reads_occupied_squares_from_the_viewers_far_side():
    text = reading.read_position(board())
    assert text.startswith("Position, rank 8: h8 white king; rank 7: a7 black king; rank 6: empty")
    assert text.endswith("rank 1: a1 white man.")
    assert reading.read_position(board(), from_side="black").startswith("Position, rank 1: a1 white man")


def test_side_lists_men_and_kings():
    assert reading.list_side(board(), "white") == "White: 2 men on a1 and c3; 1 king on h8."
    assert reading.list_side(board(), "black") == "Black: 1 man on d4; 1 king on a7."
    assert reading.list_side("." * 32, "black") == "Black: no pieces."
    with pytest.raises(ValueError, match="white or black"):
        reading.list_side(board(), "red")


def test_captures_come_from_the_rules_engine():
    assert reading.captures_now(FEN) == "White to move must capture: c3xe5."
    assert reading.captures_now(Position.start().fen()) == "White to move: no capture available."


def test_last_move_and_last_capture():
    c = FakeCompanion()
    for m in ("c3-d4", "f6-e5", "d4xf6", "g7xe5"):
        c.play("1", m)
    c.play("1", "b2-c3")
    snap = c.snapshot("1")
    assert reading.last_move(snap) == "Last move: move 3, White, b2-c3."
    assert reading.last_move(snap, capture_only=True) == "Last capture: move 2, Black, g7xe5."
    assert reading.last_move(FakeCompanion().snapshot("1")) == "No move yet."


def test_status_mentions_turn_and_open_alerts():
    c = FakeCompanion()
    c.play("1", "c3-d4")
    c.play("1", "f6-e5")
    c.flag("1", "missed_capture", ["d4"], "d4xf6 was compulsory")
    text = reading.status(c.snapshot("1"))
    assert text == ("Waiting for a move. White to move. "
                    "Alert: missed capture — capturing is compulsory (čl. 4.1).")


def test_bad_board_string_is_refused():
    with pytest.raises(ValueError, match="32-character"):
        reading.read_rank("wwww", 1)


def test_violation_titles_cite_the_article():
    assert violation_title("missed_capture") == "missed capture — capturing is compulsory (čl. 4.1)"
    assert violation_title("incomplete_capture").endswith("(čl. 4.13)")
    assert violation_title("something_new") == "something new"


def test_announcements_in_czech_and_status_changes_said_once_per_board():
    annotate = Annotator("cs")
    move = annotate({"event": "move", "side": "white", "move": "c3-d4", "path": ["c3", "d4"], "board": "1"})
    assert move["say"] == "Bílý: c3 na d4." and move["lang"] == "cs"
    lost = {"event": "status", "board_found": False, "orientation_ok": None, "hand": False, "state": "no_board"}
    assert annotate({**lost, "board": "1"})["politeness"] == "assertive"
    assert "say" not in annotate({**lost, "board": "1"})
    assert "say" in annotate({**lost, "board": "2"})  # another board: its own news
    assert "say" not in annotate({"event": "observation", "observation": "." * 32, "board": "1"})


def test_unknown_announcement_language_is_refused():
    with pytest.raises(ValueError, match="ANNOUNCE_LANG"):
        create_app(FakeCompanion(), {"ANNOUNCE_LANG": "de"})
