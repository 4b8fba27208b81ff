"""Squares the camera misreads, read from the game (dama/masking.py): the rule alone, the session's control
and journal, and the loop, where one persistently misread square would otherwise make every move illegal."""

from __future__ import annotations

import json

import pytest
from fakes import FakeVision, ListSource, frames_for
from hypothesis import given, settings
from hypothesis import strategies as st

from dama.commands.watch import parse_masked
from dama.masking import parse_squares, read_through_masks
from dama.watch import WatchConfig, watch
from rules import SQUARE_NAMES, Position, parse_square

START = Position.start()
E5 = parse_square("e5")


def _put(board: str, square: str, piece: str) -> str:
    i = parse_square(square)
    return board[:i] + piece + board[i + 1:]


def test_a_misread_square_reads_as_in_the_position():
    seen = _put(START.board_string(), "e5", "b")  # a shadow read as a dark man
    assert read_through_masks(seen, START, [E5]) == START.board_string()
    assert read_through_masks(seen, START, []) == seen


def test_a_move_onto_a_masked_square_is_read_from_the_rest_of_the_board():
    after = START.play(START.parse_move("c3-d4")).board_string()
    seen = _put(after, "d4", ".")  # the camera misses the man that arrived on d4
    assert read_through_masks(seen, START, [parse_square("d4")]) == after


def test_an_illegal_move_elsewhere_still_reaches_the_referee():
    seen = _put(_put(_put(START.board_string(), "c3", "."), "h4", "w"), "e5", "b")  # c3 jumps to h4
    filled = read_through_masks(seen, START, [E5])
    assert filled[E5] == "." and filled[parse_square("h4")] == "w" and filled[parse_square("c3")] == "."


def test_legal_moves_that_disagree_about_masked_squares_leave_them_unseen():
    position = Position.from_fen("W:Wc3:Bh8")
    seen = _put(_put(position.board_string(), "c3", "."), "b4", "w")  # c3-b4 or c3-d4? b4, d4 masked
    filled = read_through_masks(seen, position, [parse_square("b4"), parse_square("d4")])
    assert filled[parse_square("b4")] == "?" and filled[parse_square("d4")] == "?"


@given(st.data())
@settings(max_examples=150, deadline=None)
def test_a_masked_square_never_contradicts_the_game(data):
    """After any legal move, whatever the camera says on the masked squares, each reads as after the move or
    as not seen; the other squares are left as the camera saw them."""
    position = START
    for _ in range(data.draw(st.integers(0, 6))):
        moves = position.legal_moves()
        if not moves:
            break
        position = position.play(data.draw(st.sampled_from(moves)))
    moves = position.legal_moves()
    after = position.play(data.draw(st.sampled_from(moves))) if moves else position
    truth = after.board_string().lower()
    masked = data.draw(st.lists(st.integers(0, 31), min_size=1, max_size=3, unique=True))
    seen = list(truth)
    for i in masked:
        seen[i] = data.draw(st.sampled_from(".wb?"))
    filled = read_through_masks("".join(seen), position, masked)
    for i in range(32):
        assert filled[i] in ((truth[i], "?") if i in masked else (seen[i],))


def test_squares_are_parsed_with_clear_errors():
    assert parse_squares("e5, a1 e5") == [E5, 0]
    assert parse_squares(["h8"]) == [31] and parse_squares("") == [] and parse_squares(None) == []
    with pytest.raises(ValueError, match="light square"):
        parse_squares("e4")
    with pytest.raises(ValueError, match="unknown square"):
        parse_squares(["z9"])
    with pytest.raises(ValueError, match="list of square names"):
        parse_squares(5)
    assert parse_masked(["e5", "b:a1"], ["a", "b"]) == {"a": ["e5"], "b": ["a1", "e5"]}
    with pytest.raises(ValueError, match="no board 'c'"):
        parse_masked(["c:e5"], ["a", "b"])


def _run(tmp_path, boards, masked=None):
    tmp_path.mkdir(exist_ok=True)
    frames = list(frames_for(boards, fps=10))
    config = WatchConfig(source="synthetic", headless=True, fast=True, print_events=False,
                         journal=str(tmp_path / "game.jsonl"), events=str(tmp_path / "events.jsonl"),
                         pdn=str(tmp_path / "game.pdn"), vision_factory=FakeVision, masked=masked or {},
                         source_factory=lambda spec, fast=False, on_status=None: ListSource(frames, spec, on_status))
    assert watch(config) == 0
    return [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]


def _game(moves: list[str]) -> list[str]:
    position, boards = START, [START.board_string()]
    for m in moves:
        position = position.play(position.parse_move(m))
        boards.append(position.board_string())
    return boards


def test_a_persistently_misread_square_blocks_the_game_unless_masked(tmp_path):
    moves = ["c3-d4", "f6-g5", "d4-e5", "d6xf4", "g3xe5"]  # the last ones pass over e5
    boards = _game(moves)
    garbled = [_put(b, "e5", "b") if b[E5] == "." else _put(b, "e5", ".") for b in boards]  # e5 always wrong
    events = _run(tmp_path / "camera", garbled)
    assert [e for e in events if e["event"] == "violation"]
    assert not [e for e in events if e["event"] == "move"]
    events = _run(tmp_path / "masked", garbled, masked={"main": ["e5"]})
    assert not [e for e in events if e["event"] == "violation"]
    assert [e["move"] for e in events if e["event"] == "move"] == moves


def test_masks_set_from_the_dashboard_survive_a_resume(tmp_path):
    from dama.bus import EventBus
    from dama.companion import BoardSession
    from vision.stabilizer import Stabilizer

    session = BoardSession("main", EventBus(), vision=FakeVision(), stabilizer=Stabilizer(0.5))
    with pytest.raises(ValueError, match="light square"):
        session.control("mask_squares", squares="e4")
    assert session.masked == []
    result = session.control("mask_squares", squares="e5 a1")
    assert result["masked"] == ["a1", "e5"] and session.snapshot()["masked"] == ["a1", "e5"]
    journal = [{"event": "game_start", "fen": START.fen(), "board": "main"},
               {"event": "control", "action": "mask_squares", "squares": ["a1", "e5"], "board": "main"}]
    again = BoardSession("main", EventBus(), vision=FakeVision(), stabilizer=Stabilizer(0.5))
    again.replay(journal)
    assert again.masked == [0, E5]
    assert again.control("mask_squares", squares=[])["masked"] == [] and again.masked == []
    assert SQUARE_NAMES[E5] == "e5"


def test_a_square_that_keeps_contradicting_the_game_is_suggested_for_masking(tmp_path):
    """On the game whose e5 is misread throughout, the players are told, once, which square to mask."""
    boards = _game(["c3-d4", "f6-g5", "g3-h4"])
    garbled = [_put(b, "e5", "b") for b in boards]
    events = _run(tmp_path / "camera", garbled)
    said = [e for e in events if e["event"] == "notice" and e.get("kind") == "misread"]
    assert len(said) == 1 and said[0]["squares"] == ["e5"]
    assert said[0]["message"].startswith("e5 reads as a dark piece where the game has it empty, while the rest")
    assert "--mask-square e5" in said[0]["message"]
    events = _run(tmp_path / "masked", garbled, masked={"main": ["e5"]})
    assert not [e for e in events if e.get("kind") == "misread"]


def test_a_likely_misread_needs_the_same_reading_and_a_move_elsewhere():
    from dama.masking import StandingDifferences

    standing = StandingDifferences()
    board = START.board_string()
    moved = START.play(START.parse_move("c3-d4")).board_string()
    assert standing.update(_put(board, "e5", "b"), START) == []
    assert standing.update(_put(board, "e5", "b"), START) == []  # nothing moved: no evidence yet
    assert standing.update(_put(moved, "e5", "w"), START) == []  # another reading starts again
    assert standing.update(_put(moved, "e5", "w"), START) == [E5]
    assert standing.update(_put(moved, "e5", "w"), START) == []  # said once
    assert standing.update(moved, START) == []  # agrees again: may be said again later
    stray = _put(_put(moved, "e5", "w"), "a5", "w")  # the rest does not follow the game: no evidence
    assert standing.update(stray, START) == [] and standing.update(stray, START) == []
    assert standing.update(_put(moved, "e5", "w"), START, masked=[E5]) == []


def test_a_likely_misread_is_said():
    from board_io.announce import announce

    event = {"event": "notice", "kind": "misread", "squares": ["e5"], "message": "..."}
    assert announce(event, "en").text == "The camera may be misreading e5."
    assert announce(event, "cs").text == "Kamera možná špatně čte pole e5."


def test_the_misread_message_names_each_square_and_how_to_mask_it():
    from dama.masking import StandingDifferences

    seen = _put(_put(START.board_string(), "e5", "b"), "a1", ".")
    text = StandingDifferences().message([0, E5], seen, START)
    assert text.startswith("a1 reads as empty where the game has a light piece there; e5 reads as a dark piece")
    assert text.endswith("or --mask-square a1 --mask-square e5.")


def test_masking_is_said():
    from board_io.announce import announce

    masked = {"event": "notice", "kind": "masked", "squares": ["a1", "e5"], "message": "..."}
    assert announce(masked, "en").text == "Read from the game, not the camera: a1 and e5."
    assert announce(masked, "cs").text == "Z partie, ne z kamery, se čte: a1 a e5."
    assert announce({**masked, "squares": []}, "en").text == "The camera reads every square again."


def test_the_camera_picture_marks_the_masked_squares():
    from fakes import encode

    from dama.bus import EventBus
    from dama.companion import BoardSession
    from vision.stabilizer import Stabilizer

    asked = []

    class Recording(FakeVision):
        def draw_overlay(self, frame, result, highlight=None, masked=None):
            asked.append(masked)
            return super().draw_overlay(frame, result, highlight, masked)

    session = BoardSession("main", EventBus(), vision=Recording(), stabilizer=Stabilizer(0.5), masked=[E5])
    session.process(0.0, encode(START.board_string()))
    assert session.frame_jpeg() and asked == [["e5"]]
