"""The game record: push/pop/comments, accepted illegal positions (čl. 5.7) and the draws of čl. 6."""

from __future__ import annotations

import pytest

from rules import Color, Position
from rules.game import DrawRules, Game, endgame_limit


def play_quiet_king_moves(game: Game, plies: int) -> None:
    """Play ``plies`` king moves that capture nothing, allow no capture and repeat no position, so only the
    rule under test can end the game (a depth-first search, so a dead end is undone)."""
    seen = set(game.positions())

    def search(pos: Position, left: int) -> list | None:
        if left == 0:
            return []
        for move in pos.legal_moves():
            if move.is_capture or not (pos.kings >> move.start) & 1:
                continue
            after = pos.play(move)
            if after in seen or after.has_capture():
                continue
            seen.add(after)
            rest = search(after, left - 1)
            if rest is not None:
                return [move, *rest]
            seen.discard(after)
        return None

    line = search(game.position, plies)
    assert line is not None, f"no line of {plies} quiet king moves from {game.position.fen()}"
    for move in line:
        game.push(move)


def test_push_records_notation_side_ply_and_time():
    game = Game()
    entry = game.push("c3-d4", comment="main line", t=3.5)
    assert (entry.ply, entry.side, entry.notation, entry.comments, entry.t) == (1, Color.WHITE, "c3-d4",
                                                                                 ["main line"], 3.5)
    assert game.position.turn is Color.BLACK
    game.push(game.position.parse_move("b6-a5"))
    assert [m.notation for m in game.moves] == ["c3-d4", "b6-a5"]


def test_push_refuses_an_illegal_move_and_names_the_legal_ones():
    game = Game()
    with pytest.raises(ValueError, match="c3-d4"):
        game.push("c3-c5")
    game.push("c3-d4")
    game.push("b6-c5")
    with pytest.raises(ValueError, match="d4xb6"):
        game.push("g3-h4")  # the capture is compulsory (čl. 4.1)


def test_pop_takes_back_and_add_comment_attaches_to_the_last_entry():
    game = Game()
    game.add_comment("before the first move")
    game.push("c3-d4")
    game.add_comment("a classic")
    assert game.comments == ["before the first move"] and game.moves[-1].comments == ["a classic"]
    popped = game.pop()
    assert popped.notation == "c3-d4" and game.position == Position.start()
    with pytest.raises(IndexError):
        game.pop()


def test_push_illegal_records_the_accepted_position_cl_5_7():
    game = Game()
    before = game.position
    wrong = before.play(before.parse_move("c3-d4"))
    wrong = Position(wrong.white, wrong.black & ~(1 << 20), wrong.kings, wrong.turn)  # a7 removed for no reason
    entry = game.push_illegal(None, wrong, "a7 removed; Black played on")
    assert entry.illegal and entry.notation is None and game.position == wrong
    game.push(game.position.legal_moves()[0])  # play goes on from the accepted position
    assert len(game) == 2


def test_cl_6_2_fifteen_moves_each_without_man_move_or_capture():
    game = Game(Position.from_fen("W:WKc1,Ke1,h2:BKb8,Kd8,a7"))
    play_quiet_king_moves(game, 29)
    assert game.outcome() is None
    play_quiet_king_moves(game, 1)
    assert game.outcome() == ("1/2-1/2", "15 moves by each player without a man move or a capture", "čl. 6.2")


def test_cl_6_2_read_as_plies_when_configured():
    game = Game(Position.from_fen("W:WKc1,Ke1,h2:BKb8,Kd8,a7"), draw_rules=DrawRules(count_plies=True))
    play_quiet_king_moves(game, 14)
    assert game.outcome() is None
    play_quiet_king_moves(game, 1)
    assert game.outcome()[2] == "čl. 6.2"


def test_cl_6_2_a_man_move_starts_the_count_again():
    game = Game(Position.from_fen("W:WKc1,Ke1,h2:BKb8,Kd8,a7"))
    play_quiet_king_moves(game, 20)
    game.push("h2-g3")
    play_quiet_king_moves(game, 29)
    assert game.outcome() is None
    play_quiet_king_moves(game, 1)
    assert game.outcome()[2] == "čl. 6.2"


def test_cl_6_3_three_kings_against_a_king_off_the_main_diagonal_fifteen_moves_each():
    game = Game(Position.from_fen("W:WKc1,Ke1,Kg1:BKb8"))
    play_quiet_king_moves(game, 29)
    assert game.outcome() is None
    play_quiet_king_moves(game, 1)
    assert game.outcome() == ("1/2-1/2", "king endgame: each player played 15 more moves", "čl. 6.3")


@pytest.mark.parametrize("fen", [
    "W:WKc1,Ke1,Kg1:BKh8",  # three kings, the lone king on the main diagonal
    "W:WKc1,Ke1:BKb8",  # two kings against one
    "W:WKc1,e3:BKb8",  # king and man against king
    "B:WKc1:BKb8",  # king against king
    "W:WKb8:BKe1,Kg1",  # colours swapped: Black is the strong side
])
def test_cl_6_4_short_endgames_five_moves_each(fen):
    game = Game(Position.from_fen(fen))
    play_quiet_king_moves(game, 9)
    assert game.outcome() is None
    play_quiet_king_moves(game, 1)
    assert game.outcome() == ("1/2-1/2", "king endgame: each player played 5 more moves", "čl. 6.4")


def test_the_endgame_count_starts_when_the_material_first_stands_on_the_board():
    # Ka1 takes the man on c3 first; only then is it three kings against one (off the diagonal: čl. 6.3)
    game = Game(Position.from_fen("W:WKa1,Ke1,Kg1:BKb8,c3"))
    game.push(game.position.legal_moves()[0])
    play_quiet_king_moves(game, 29)
    assert game.outcome() is None
    play_quiet_king_moves(game, 1)
    assert game.outcome()[2] == "čl. 6.3"


@pytest.mark.parametrize(("fen", "expected"), [
    ("W:WKc1,Ke1,Kg1:BKb8", (15, "čl. 6.3")),
    ("W:WKc1,Ke1,Kg1:BKd4", (5, "čl. 6.4")),
    ("W:WKc1,Ke1,Kg1,Ka3:BKb8", None),  # four kings: no rule
    ("W:WKc1,Ke1,e3:BKb8", None),  # two kings and a man
    ("W:WKc1:BKb8,a7", (5, "čl. 6.4")),  # Black is the strong side: king and man against king
    ("W:WKc1,a3:BKb8,a7", None),  # no lone king
    ("W:Wc1,e3:BKb8", None),  # two men, no king
])
def test_endgame_classification(fen, expected):
    assert endgame_limit(Position.from_fen(fen), DrawRules()) == expected


def test_rules_outcome_comes_before_a_declared_result_is_needed():
    game = Game()
    assert game.outcome() is None
    game.set_result("1-0", "Black resigned")
    assert game.result == "1-0" and game.to_pdn().rstrip().endswith("1-0")
    with pytest.raises(ValueError):
        game.set_result("2-0")
