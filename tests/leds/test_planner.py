"""What lights for each event kind (the default mapping and its options)."""

from __future__ import annotations

import pytest

from board_io.leds.planner import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    LedPlanner,
    LedStyle,
    between,
    capture_squares,
)
from board_io.leds.protocol import CORNERS, LedState, SquareLed

START_FEN = "W:Wa1,a3,b2,c1,c3,d2,e1,e3,f2,g1,g3,h2:Ba7,b6,b8,c7,d6,d8,e7,f6,f8,g7,h6,h8"


def lit(frame):
    return {sq: (led.state, led.colour) for sq, led in frame.lit().items()}


def test_move_lights_from_and_to_steady():
    planner = LedPlanner()
    frame = planner.update({"event": "move", "ply": 1, "move": "c3-d4", "path": ["c3", "d4"], "captured": []})
    assert lit(frame) == {"c3": (LedState.ON, GREEN), "d4": (LedState.ON, GREEN)}


def test_move_without_path_uses_the_notation_and_multi_jump_lights_only_ends():
    frame = LedPlanner().update({"event": "move", "move": "a1xc3xe5"})
    assert set(frame.lit()) == {"a1", "e5"}


def test_missed_capture_lights_moved_piece_capturer_and_victim():
    planner = LedPlanner()
    planner.update({"event": "game_start", "fen": START_FEN})
    frame = planner.update({
        "event": "violation", "kind": "missed_capture", "side": "white",
        "squares": ["g3", "h4"], "legal": ["c3xe5", "a1xc3xe5"], "message": "capture is compulsory",
    })
    # the moved piece, the capturers (c3, a1) and their victims (d4, b2); e5 is a landing square: dark
    assert lit(frame) == {sq: (LedState.BLINK_FAST, RED) for sq in ("g3", "h4", "c3", "d4", "a1", "b2")}


def test_flying_king_capture_prefers_legal_moves_list():
    event = {
        "event": "violation", "kind": "missed_capture", "squares": ["b2"],
        "legal": ["a1xf6"],
        "legal_moves": [{"path": ["a1", "f6"], "captured": ["d4"]}],
    }
    assert set(LedPlanner().update(event).lit()) == {"b2", "a1", "d4"}


def test_flying_king_notation_uses_the_known_position_to_find_the_victim():
    planner = LedPlanner()
    planner.update({"event": "move", "path": ["g7", "h6"], "fen": "W:WKa1:Bd4,h6"})
    frame = planner.update({"event": "violation", "kind": "missed_capture", "squares": [], "legal": ["a1xf6"]})
    assert set(frame.lit()) == {"a1", "d4"}


def test_flying_king_notation_without_position_lights_every_square_between():
    assert capture_squares("a1xf6") == ("a1", ["b2", "c3", "d4", "e5"])
    assert capture_squares("c3-d4") == ("c3", [])
    assert capture_squares("c3:e5:g3") == ("c3", ["d4", "f4"])
    assert between("a1", "h8")[-1] == "g7" and between("a1", "b3") == []


def test_illegal_move_lights_only_its_squares_and_corrected_clears():
    planner = LedPlanner()
    planner.update({"event": "move", "path": ["c3", "d4"]})
    frame = planner.update({"event": "violation", "kind": "illegal_move", "squares": ["e3", "e4"], "legal": []})
    # e4 is a light square: skipped, never a crash
    assert lit(frame) == {"e3": (LedState.BLINK_FAST, RED)}
    assert set(planner.update({"event": "corrected"}).lit()) == {"c3", "d4"}


@pytest.mark.parametrize("clearing", [{"event": "accepted", "fen": START_FEN}, {"event": "takeback", "ply": 3}])
def test_accepted_and_takeback_clear_the_alert(clearing):
    planner = LedPlanner()
    planner.update({"event": "violation", "kind": "illegal_move", "squares": ["e3"]})
    assert "e3" not in planner.update(clearing).lit()


def test_pending_capture_blinks_remaining_pieces_slowly_until_the_move():
    planner = LedPlanner()
    frame = planner.update({"event": "pending", "side": "white", "move": "c3xe5xg7", "remaining": ["d4", "f6"]})
    assert lit(frame) == {"d4": (LedState.BLINK_SLOW, YELLOW), "f6": (LedState.BLINK_SLOW, YELLOW)}
    frame = planner.update({"event": "move", "path": ["c3", "e5", "g7"], "captured": ["d4", "f6"]})
    assert set(frame.lit()) == {"c3", "g7"}


@pytest.mark.parametrize(
    "result, expected",
    [
        ("1-0", {"a1", "c1", "e1", "g1", "b2", "d2", "f2", "h2"}),
        ("0-1", {"a7", "c7", "e7", "g7", "b8", "d8", "f8", "h8"}),
        ("1/2-1/2", {"a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"}),
    ],
)
def test_game_over_pattern(result, expected):
    planner = LedPlanner()
    planner.update({"event": "move", "path": ["c3", "d4"]})
    assert set(planner.update({"event": "game_over", "result": result, "reason": "x"}).lit()) == expected
    assert planner.update({"event": "game_start", "fen": START_FEN}).lit() == {}


def test_wrong_orientation_shows_only_the_corners_until_fixed():
    planner = LedPlanner()
    planner.update({"event": "move", "path": ["c3", "d4"]})
    frame = planner.update({"event": "status", "board_found": True, "orientation_ok": False, "hand": False})
    assert lit(frame) == {sq: (LedState.BLINK_FAST, BLUE) for sq in CORNERS}
    frame = planner.update({"event": "status", "board_found": True, "orientation_ok": True, "hand": False})
    assert set(frame.lit()) == {"c3", "d4"}


def test_unknown_and_malformed_events_do_not_raise():
    planner = LedPlanner()
    before = planner.frame()
    for event in ({"event": "tick"}, {}, {"event": 5}, {"event": "violation", "squares": "d4"},
                  {"event": "violation", "kind": "missed_capture", "legal": ["zz", 7]}):
        planner.update(event)
    assert planner.frame() == before


def test_style_options_change_state_and_colour():
    style = LedStyle().with_options({"violation_state": "blinkslow", "violation_colour": "ff00ff"})
    frame = LedPlanner(style).update({"event": "violation", "kind": "illegal_move", "squares": ["d4"]})
    assert frame["d4"] == SquareLed(LedState.BLINK_SLOW, (255, 0, 255))
    with pytest.raises(ValueError, match="unknown LED style option"):
        LedStyle().with_options({"sparkle_state": "on"})
    with pytest.raises(ValueError, match="blinkfast"):
        LedStyle().with_options({"violation_state": "strobe"})


def test_squares_still_to_set_up_blink_until_the_set_up_is_over():
    planner = LedPlanner()
    planner.update({"event": "game_start", "fen": START_FEN})
    frame = planner.update({"event": "notice", "kind": "setting_up", "squares": ["a1", "c1", "e1", "g1", "b2"]})
    assert lit(frame) == {sq: (LedState.BLINK_SLOW, BLUE) for sq in ("a1", "c1", "e1", "g1", "b2")}
    frame = planner.update({"event": "notice", "kind": "setting_up", "squares": ["g1"]})  # fewer to go
    assert set(frame.lit()) == {"g1"}
    assert set(planner.update({"event": "status", "state": "hand", "orientation_ok": True}).lit()) == {"g1"}
    assert planner.update({"event": "status", "state": "waiting", "orientation_ok": True}).lit() == {}


def test_a_likely_misread_square_stays_lit_until_masked():
    from board_io.leds.planner import WHITE

    planner = LedPlanner()
    frame = planner.update({"event": "notice", "kind": "misread", "squares": ["e5"]})
    assert lit(frame) == {"e5": (LedState.ON, WHITE)}
    frame = planner.update({"event": "move", "move": "c3-d4", "path": ["c3", "d4"]})
    assert set(frame.lit()) == {"c3", "d4", "e5"}
    assert set(planner.update({"event": "notice", "kind": "masked", "squares": ["e5"]}).lit()) == {"c3", "d4"}
    assert set(planner.update({"event": "notice", "message": "piece colours learned"}).lit()) == {"c3", "d4"}
