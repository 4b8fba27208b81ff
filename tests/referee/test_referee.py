"""Referee behaviour beyond the scenario files: the record (PDN comments), the end of the game by the draw
rules, the dashboard calls, crown reminders and bad input."""

from __future__ import annotations

import random

import pytest

from rules import Position
from rules.referee import Referee


def play(ref: Referee, *moves: str) -> list[dict]:
    events = []
    for m in moves:
        pos = ref.position
        events += ref.observe(pos.play(pos.parse_move(m)).board_string())
    return events


def edit(board: str, **squares: str) -> str:
    from rules import parse_square

    chars = list(board)
    for name, c in squares.items():
        chars[parse_square(name)] = c
    return "".join(chars)


KING_ROUTES = "W:WKe1,g5:Bd2,d4,g7,h6"  # e1xc3xe5xh8 and e1xc3xf6xh8 take the same three men


def test_unseen_route_is_recorded_with_a_comment() -> None:
    ref = Referee(Position.from_fen(KING_ROUTES))
    board = edit(ref.position.board_string(), e1=".", h8="W", d2=".", d4=".", g7=".")
    [move] = ref.observe(board)
    assert move["path"] == ["e1", "c3", "e5", "h8"]
    assert "route not seen by the camera; recorded as e1xc3xe5xh8 (also possible: e1xc3xf6xh8)" in ref.pdn()


def test_route_shown_hop_by_hop_needs_no_comment() -> None:
    ref = Referee(Position.from_fen(KING_ROUTES))
    start = ref.position.board_string()
    assert ref.observe(edit(start, e1=".", f6="W"))[0]["event"] == "pending"
    assert ref.state == "capture_pending"
    [move] = ref.observe(edit(start, e1=".", h8="W", d2=".", d4=".", g7="."))
    assert move["path"] == ["e1", "c3", "f6", "h8"]
    assert "route not seen" not in ref.pdn()
    assert ref.state == "waiting"


def test_threefold_repetition_ends_the_game() -> None:
    ref = Referee(Position.from_fen("W:WKg1,a3:BKb8,h6"))
    events = play(ref, *["g1-h2", "b8-a7", "h2-g1", "a7-b8"] * 2)
    assert events[-1] == {"event": "game_over", "result": "1/2-1/2", "reason": events[-1]["reason"],
                          "article": "čl. 6.1"}
    assert [e["event"] for e in events].count("move") == 8
    assert ref.state == "game_over"
    assert ref.observe(ref.position.board_string()) == []
    assert '[Result "1/2-1/2"]' in ref.pdn()
    # a takeback reopens the game
    assert ref.takeback()[0]["event"] == "takeback"
    assert ref.state == "waiting"


def test_king_against_king_is_drawn_after_five_moves_each() -> None:
    rng = random.Random(5)
    ref = Referee(Position.from_fen("W:WKa1:BKh2"))
    seen = {ref.position}
    ends = []
    for ply in range(1, 11):
        pos = ref.position
        options = [m for m in pos.legal_moves() if not m.is_capture and pos.play(m) not in seen
                   and not pos.play(m).has_capture()]
        move = rng.choice(options)
        seen.add(pos.play(move))
        events = ref.observe(pos.play(move).board_string())
        assert events[0]["event"] == "move"
        ends += [(ply, e) for e in events if e["event"] == "game_over"]
    assert len(ends) == 1
    ply, event = ends[0]
    assert ply == 10 and event["result"] == "1/2-1/2" and event["article"] == "čl. 6.4"


def test_accept_without_violation_takes_the_board_as_it_stands() -> None:
    ref = Referee(Position.from_fen("W:Wc3,e1:Bd4,f6,a7"))
    assert ref.accept() == []  # nothing on the board differs
    start = ref.position.board_string()
    ref.observe(edit(start, c3=".", e5="w"))  # capture under way, nothing taken off
    [accepted] = ref.accept()
    assert accepted["event"] == "accepted"
    assert ref.position.turn.value == "black"
    assert ref.position.board_string() == edit(start, c3=".", e5="w")
    assert ref.game.moves[-1].illegal


def test_takeback_with_nothing_to_take_back() -> None:
    ref = Referee()
    assert ref.takeback() == []
    assert ref.reset()[0] == {"event": "game_start", "fen": Position.start().fen()}


def test_open_violation_and_states() -> None:
    ref = Referee()
    play(ref, "c3-d4", "f6-e5")
    assert ref.state == "waiting" and ref.open_violation is None
    base = ref.position.board_string()
    [v] = ref.observe(edit(base, a3=".", b4="w"))
    assert ref.state == "violation" and ref.open_violation == v
    assert v["legal_moves"] == [{"path": ["d4", "f6"], "captured": ["e5"]}]
    assert ref.position.board_string() == base  # still the position before the violation
    assert ref.observe(base) == [{"event": "corrected"}]
    assert ref.state == "waiting" and ref.open_violation is None


def test_illegal_promotion_accepted_makes_a_king() -> None:
    ref = Referee(Position.from_fen("W:Wb6,e1:Bh6,a3"))
    board = edit(ref.position.board_string(), b6=".", d8="w")  # two squares at once onto the far row
    [v] = ref.observe(board)
    assert v["kind"] == "illegal_move" and "too far" in v["message"]
    after = edit(board, h6=".", g5="b")  # Black plays on
    events = ref.observe(after)
    assert [e["event"] for e in events] == ["accepted", "move"]
    assert (ref.position.kings >> 29) & 1  # d8 is square 29: the man counts as crowned


def test_crown_reminder_once_and_only_when_crowns_are_visible() -> None:
    ref = Referee(Position.from_fen("W:WKa1,c7:Bh6,b8,a5"))
    ref.observe(ref.position.board_string())  # the camera shows the king on a1 crowned
    assert ref.crowns_visible
    pos = ref.position
    promoted = pos.play(pos.parse_move("c7-d8")).board_string()
    assert [e["event"] for e in ref.observe(edit(promoted, d8="w"))] == ["move"]  # not crowned yet
    pos = ref.position
    after = pos.play(pos.parse_move("b8-a7")).board_string()
    events = ref.observe(after.replace("W", "w").replace("w", "W", 1))  # d8 still shown uncrowned
    assert [e["event"] for e in events] == ["move", "reminder"]
    assert events[1]["squares"] == ["d8"]
    pos = ref.position
    after = pos.play(pos.parse_move("a1-b2"))
    assert ref.observe(after.board_string().replace("W", "w").replace("w", "W", 1)) != []
    pos = ref.position
    after = pos.play(pos.parse_move("a5-b4"))
    events = ref.observe(after.board_string().replace("W", "w").replace("w", "W", 1))
    assert [e["event"] for e in events] == ["move"]  # no second reminder


@pytest.mark.parametrize("text, words", [
    ("w" * 31, "32 characters"),
    ("x" + "." * 31, "a1"),
])
def test_malformed_observation(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        Referee().observe(text)


def test_capture_out_of_turn_names_the_side_that_moved() -> None:
    ref = Referee(Position.from_fen("W:Wd4,a1:Be5,h8"))  # White to move (and must capture d4xf6)
    board = edit(ref.position.board_string(), e5=".", d4=".", c3="b")  # Black plays e5xc3 instead
    [v] = ref.observe(board)
    assert v["kind"] == "illegal_move" and v["side"] == "black"
    assert "Black captured e5xc3 although it was White's turn" in v["message"]
    # White plays on from that board: it stands with White to move
    events = ref.observe(edit(board, a1=".", b2="w"))
    assert [e["event"] for e in events] == ["accepted", "move"]
    assert events[0]["fen"] == "W:Wa1:Bc3,h8" and events[1]["move"] == "a1-b2"


def test_a_looping_king_capture_held_at_a_stop_is_replaced_when_the_king_goes_on() -> None:
    """Black's king on a1 takes c3, e3, g3 and g5 either way round the loop: a1-d4-f2-h4-f6 or
    a1-f6-h4-f2-d4. The player takes the four pieces off, holds the king on d4, then carries it on to f6:
    the board on d4 is the result of the second route (recorded), the board on f6 that of the first, which
    replaces it, not a second Black move out of turn (čl. 3.3)."""
    ref = Referee(Position.from_fen("B:Wa3,a7,c3,e3,g3,g5:BKa1,d8,h8"))
    at_d4 = ref.observe("........w....B..........w....b.b")
    assert [e["event"] for e in at_d4] == ["move"] and at_d4[0]["path"] == ["a1", "f6", "h4", "f2", "d4"]
    on = ref.observe("........w.............B.w....b.b")
    assert [e["event"] for e in on] == ["takeback", "move"], on
    assert "went on from d4" in on[0]["reason"]
    assert on[1]["ply"] == 1 and on[1]["path"] == ["a1", "d4", "f2", "h4", "f6"] and len(on[1]["captured"]) == 4
    assert ref.position.fen() == "W:Wa3,a7:Bd8,Kf6,h8" and len(ref.game.moves) == 1
    # a genuine second Black move after a finished capture is still flagged
    assert [e["event"] for e in ref.observe("........w.............B.w...b..b")] == ["violation"]
