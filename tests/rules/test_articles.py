"""One test per rule article of the ČFD rules (shared/rules-cs.md), named after its čl."""

from __future__ import annotations

from rules import Color, Position
from rules.game import Game


def keys(fen: str) -> set[tuple[str, str, frozenset[str]]]:
    pos = Position.from_fen(fen)
    return {(m.path_names()[0], m.path_names()[-1], frozenset(m.captured_names())) for m in pos.legal_moves()}


def quiet(*pairs: str) -> set[tuple[str, str, frozenset[str]]]:
    return {(p[:2], p[3:], frozenset()) for p in pairs}


def test_cl_2_8_start_position_and_cl_3_3_white_moves_first():
    pos = Position.start()
    assert pos.turn is Color.WHITE
    assert pos.board_string() == "wwwwwwwwwwww........bbbbbbbbbbbb"
    assert pos.fen() == "W:Wa1,a3,b2,c1,c3,d2,e1,e3,f2,g1,g3,h2:Ba7,b6,b8,c7,d6,d8,e7,f6,f8,g7,h6,h8"


def test_cl_3_4_men_move_forward_only():
    assert keys("W:Wd4:Bh8") == quiet("d4-c5", "d4-e5")
    assert keys("B:Wa1:Bd4") == quiet("d4-c3", "d4-e3")
    assert keys("W:Wh2:Ba7") == quiet("h2-g3")  # the edge leaves one forward square


def test_cl_3_5_a_man_ending_on_the_far_row_becomes_a_king():
    pos = Position.from_fen("W:Wc7:Ba1")
    after = pos.play(pos.parse_move("c7-b8"))
    assert after.piece_at("b8") == "W"
    pos = Position.from_fen("B:Wh8:Bd2")
    assert pos.play(pos.parse_move("d2-c1")).piece_at("c1") == "B"


def test_cl_3_8_a_new_king_acts_only_from_its_next_move_and_promotion_ends_the_move():
    # f6xd8 promotes; from d8 a king could jump c7 at once, but the move ends on the promotion square.
    assert keys("W:Wf6:Be7,c7") == {("f6", "d8", frozenset({"e7"}))}
    pos = Position.from_fen("W:Wf6:Be7,c7")
    after = pos.play(pos.legal_moves()[0])
    assert after.piece_at("d8") == "W" and after.piece_at("c7") == "b" and after.turn is Color.BLACK
    # on White's next move it flies and captures like a king
    after = Position(after.white, after.black, after.kings, Color.WHITE)
    assert {m.path_names()[-1] for m in after.legal_moves()} == {"b6", "a5"}


def test_cl_3_9_a_king_flies_any_distance_both_ways():
    expected = quiet("d4-a1", "d4-b2", "d4-c3", "d4-e5", "d4-f6", "d4-g7",  # h8 is occupied
                     "d4-c5", "d4-b6", "d4-a7", "d4-e3", "d4-f2", "d4-g1")
    assert keys("W:WKd4:Bh8") == expected


def test_cl_4_1_capturing_is_compulsory_and_men_do_not_capture_backwards():
    assert keys("W:Wc3,g3:Bd4") == {("c3", "e5", frozenset({"d4"}))}
    assert keys("W:Wd4:Bc3") == quiet("d4-c5", "d4-e5")  # c3 is behind the man: no capture


def test_cl_4_2_a_man_captures_kings_too():
    assert keys("W:Wc3:BKd4") == {("c3", "e5", frozenset({"d4"}))}


def test_cl_4_3_a_king_captures_from_a_distance_and_lands_on_any_empty_square_beyond():
    assert keys("W:WKa1:Bc3") == {("a1", t, frozenset({"c3"})) for t in ("d4", "e5", "f6", "g7", "h8")}
    assert keys("W:WKa1:Bc3,h8") == {("a1", t, frozenset({"c3"})) for t in ("d4", "e5", "f6", "g7")}


def test_cl_4_5_a_man_must_go_on_capturing():
    assert keys("W:Wa1:Bb2,d4,f6") == {("a1", "g7", frozenset({"b2", "d4", "f6"}))}


def test_cl_4_6_and_4_13_a_king_must_land_where_the_capture_continues():
    # after jumping c3, only d4 lets the king go on (x b6 to a7); e5, f6, g7, h8 would stop it
    assert keys("W:WKa1:Bc3,b6") == {("a1", "a7", frozenset({"c3", "b6"}))}


def test_cl_4_7_own_pieces_cannot_be_jumped():
    # the king on a1 is blocked by its own man on b2; the man's capture is the only one
    assert keys("W:WKa1,b2,c3:Bd4") == {("c3", "e5", frozenset({"d4"}))}
    assert keys("W:WKa1,c3:Bd4,e5") == quiet("c3-b4", "a1-b2")  # no empty square behind d4: nothing to jump


def test_cl_4_8_turkish_strike_jumped_pieces_block_and_cannot_be_jumped_twice():
    # Ka3 goes round b4, d4, d2, b2 and comes back to a3: a square may be crossed twice. The dead man on b4
    # then blocks the way to e7 (were jumped pieces removed at once, a3xe7xf8 would continue).
    moves = keys("W:WKa3:Bb4,d4,d2,b2,e7")
    assert moves == {
        ("a3", "a3", frozenset({"b4", "d4", "d2", "b2"})),  # round the loop, either way
        ("a3", "f8", frozenset({"b2", "d2", "d4", "e7"})),  # a3xc1xe3xc5xf8
        ("a3", "d8", frozenset({"b2", "d2", "e7"})),  # a3xc1xg5xd8: g5 also lets the capture go on
        ("a3", "f8", frozenset({"b4", "e7"})),  # a3xc5xf8
    }
    pos = Position.from_fen("W:WKa3:Bb4,d4,d2,b2,e7")
    assert all(len(m.captured) == len(set(m.captured)) for m in pos.capture_sequences())


def test_cl_4_8_captured_pieces_leave_the_board_only_after_the_move():
    pos = Position.from_fen("W:WKa3:Bb4,d4,d2,b2,e7")
    loop = next(m for m in pos.legal_moves() if m.start == m.end)
    after = pos.play(loop)
    assert after.piece_at("a3") == "W"
    assert all(after.piece_at(s) == "." for s in ("b4", "d4", "d2", "b2")) and after.piece_at("e7") == "b"


def test_cl_4_13_free_choice_between_captures_no_majority_rule():
    moves = keys("W:WKa3:Bb4,d4,d2,b2,e7")
    assert ("a3", "f8", frozenset({"b4", "e7"})) in moves  # two pieces, although four can be taken
    assert keys("W:Wa3,g3:Bb4,f4,f6") == {("a3", "c5", frozenset({"b4"})),
                                          ("g3", "g7", frozenset({"f4", "f6"}))}


def test_cl_4_13_a_chosen_sequence_must_be_completed():
    pos = Position.from_fen("W:Wa1:Bb2,d4,f6")
    try:
        pos.parse_move("a1xc3")
    except ValueError as exc:
        assert "not legal" in str(exc)
    else:
        raise AssertionError("a part of a capture was accepted")


def test_cl_4_14_a_king_capture_has_priority_over_a_man_capture():
    moves = keys("W:Wc3,Kh2:Bd4,g3")
    assert moves and all(start == "h2" for start, _, _ in moves)
    # even when the man would take more pieces
    moves = keys("W:Wa1,Kh2:Bb2,d4,f6,g3")
    assert moves and all(start == "h2" for start, _, _ in moves)


def test_cl_6_1_threefold_repetition_with_the_same_side_to_move():
    game = Game(Position.from_fen("W:WKc1,e3:BKh8,d6"))
    shuffle = ["c1-d2", "h8-g7", "d2-c1", "g7-h8"]
    for n, mv in enumerate(shuffle * 2, 1):
        game.push(mv)
        if n < 8:
            assert game.outcome() is None
    assert game.outcome() == ("1/2-1/2", "the same position occurred 3 times with white to move", "čl. 6.1")


def test_cl_7_2_a_player_without_pieces_loses():
    assert Game(Position.from_fen("W:W:Bb2")).outcome()[:1] == ("0-1",)
    assert Game(Position.from_fen("B:Wc3:B")).outcome() == ("1-0", "black has no pieces left", "čl. 7.2c")


def test_cl_7_2_a_player_whose_pieces_are_all_blocked_loses():
    outcome = Game(Position.from_fen("W:Wa1:Bb2,c3")).outcome()
    assert outcome == ("0-1", "white to move has no legal move (all pieces blocked)", "čl. 7.2b")
