"""Before the first move a board still being set up is not an illegal move (dama/setup.py): the session says
what differs and waits, through the loop, the status and the spoken announcements."""

from __future__ import annotations

import json

from fakes import FakeVision, ListSource, frames_for
from hypothesis import given, settings
from hypothesis import strategies as st

from board_io.announce import StatusWatcher
from dama.setup import SETUP_SQUARES, squares_off, still_setting_up
from dama.watch import WatchConfig, watch
from rules import SQUARE_NAMES, Position

START = Position.start().board_string()
EMPTY = "." * 32


def test_a_board_far_from_the_position_is_being_set_up():
    assert still_setting_up(EMPTY, Position.start()) == squares_off(EMPTY, Position.start())
    assert len(still_setting_up(EMPTY, Position.start())) == 24


def test_a_wrong_first_move_is_left_to_the_referee():
    one_wrong = "wwwwwwwww.ww...w....bbbbbbbbbbbb"  # c3 jumped to h4: not a legal move, two squares differ
    assert len(squares_off(one_wrong, Position.start())) == 2
    assert still_setting_up(one_wrong, Position.start()) == []
    # ... unless the board was already being set up: then only the position itself ends the set-up
    assert still_setting_up(one_wrong, Position.start(), setting_up=True) == ["c3", "h4"]
    assert still_setting_up(START, Position.start(), setting_up=True) == []


def test_a_long_first_capture_from_a_set_up_position_is_a_move():
    """A king taking three men changes five squares, more than SETUP_SQUARES; a legal move explains it."""
    position = Position.from_fen("W:WKa1:Bc3,e5,g7")
    after = position.play(position.legal_moves()[0])
    off = squares_off(after.board_string(), position)
    assert len(off) > SETUP_SQUARES
    assert still_setting_up(after.board_string(), position) == []


@given(st.text(alphabet=".wbWB?", min_size=32, max_size=32))
@settings(max_examples=200, deadline=None)
def test_unseen_squares_never_count_and_few_differences_are_for_the_referee(observation):
    off = squares_off(observation, Position.start())
    assert all(observation[SQUARE_NAMES.index(sq)] != "?" for sq in off)
    held = still_setting_up(observation, Position.start())
    assert held == [] or (held == off and len(off) > SETUP_SQUARES)


def _run(tmp_path, boards):
    frames = list(frames_for(boards, fps=10))
    config = WatchConfig(source="synthetic", headless=True, fast=True, print_events=False,
                         journal=str(tmp_path / "game.jsonl"), events=str(tmp_path / "events.jsonl"),
                         vision_factory=FakeVision,
                         source_factory=lambda spec, fast=False, on_status=None: ListSource(frames, spec, on_status))
    assert watch(config) == 0
    return [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]


def test_pieces_put_down_one_by_one_raise_no_alarm_and_the_game_then_records(tmp_path):
    """From an empty board the pieces arrive a few at a time (the last ones within SETUP_SQUARES of the start
    position: they must not read as pieces taken off); then the first move is recorded as usual."""
    stages = [EMPTY, "wwwwwwww" + "." * 24, "wwwwwwwwwwww........bbbbbb......", "wwwwwwwwwwww........bbbbbbbbbbb.",
              START, "wwwwwwwwww.w..w.....bbbbbbbbbbbb"]  # the last: e3-f4
    events = _run(tmp_path, stages)
    assert not [e for e in events if e["event"] == "violation"]
    notices = [e for e in events if e["event"] == "notice" and e.get("kind") == "setting_up"]
    assert len(notices) == 4 and notices[0]["squares"][:2] == ["a1", "c1"]
    assert [len(n["squares"]) for n in notices] == [24, 16, 6, 1]
    states = [e["state"] for e in events if e["event"] == "status"]
    assert "setting_up" in states and states[-1] == "waiting"
    assert [e["move"] for e in events if e["event"] == "move"] == ["e3-f4"]


def test_a_wrong_first_move_on_a_set_up_board_is_still_flagged(tmp_path):
    events = _run(tmp_path, [START, "wwwwwwwww.ww...w....bbbbbbbbbbbb"])
    assert [e["kind"] for e in events if e["event"] == "violation"] == ["illegal_move"]
    assert not [e for e in events if e.get("kind") == "setting_up"]


def test_setting_up_is_said_once_and_its_end_too():
    w = StatusWatcher("en")
    assert w.update({"event": "status", "board_found": True, "orientation_ok": True, "state": "waiting"}) is None
    said = w.update({"event": "status", "board_found": True, "orientation_ok": True, "state": "setting_up"})
    assert said is not None and "set the pieces up" in said.text
    assert w.update({"event": "status", "board_found": True, "orientation_ok": True, "state": "setting_up"}) is None
    done = w.update({"event": "status", "board_found": True, "orientation_ok": True, "state": "waiting"})
    assert done is not None and done.text == "The pieces are set up."
    cs = StatusWatcher("cs")
    cs.update({"event": "status", "board_found": True, "orientation_ok": True, "state": "waiting"})
    assert "rozestavte" in cs.update({"event": "status", "board_found": True, "state": "setting_up"}).text


def test_each_board_during_set_up_says_which_squares_still_differ():
    """A player who cannot see the board hears which squares are not yet as in the game, six at most."""
    from board_io.announce import announce

    few = announce({"event": "notice", "kind": "setting_up", "squares": ["a1", "c3"], "message": "..."}, "en")
    assert few.text == "Not yet as in the game: a1 and c3." and few.politeness == "polite"
    assert few.spoken == "Not yet as in the game: A 1 and C 3."
    many = announce({"event": "notice", "kind": "setting_up", "squares": SQUARE_NAMES[:24], "message": "..."}, "cs")
    assert many.text == "Ještě neodpovídá partii: a1, c1, e1, g1, b2, d2 a 18 dalších."
    assert announce({"event": "notice", "message": "piece colours learned"}, "en") is None
