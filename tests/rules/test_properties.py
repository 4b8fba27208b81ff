"""Properties of random legal games (hypothesis): what must hold after every move of any game."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import Color, Position
from rules.game import Game
from rules.pdn import read_games
from rules.squares import rank_of

choices = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=120)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play(picks: list[int], start: Position | None = None) -> Game:
    game = Game(start)
    for pick in picks:
        moves = game.position.legal_moves()
        if not moves:
            break
        game.push(moves[pick % len(moves)])
    return game


def count(pos: Position) -> tuple[int, int]:
    return pos.white.bit_count(), pos.black.bit_count()


@SETTINGS
@given(choices)
def test_material_never_grows_and_a_capture_removes_exactly_the_jumped_pieces(picks):
    game = play(picks)
    before = game.start
    for entry in game.moves:
        after = entry.position
        w0, b0 = count(before)
        w1, b1 = count(after)
        lost = len(entry.move.captured)
        if entry.side is Color.WHITE:
            assert (w1, b1) == (w0, b0 - lost)
        else:
            assert (w1, b1) == (w0 - lost, b0)
        assert after.kings.bit_count() >= before.kings.bit_count() - lost  # kings only appear or get captured
        before = after


@SETTINGS
@given(choices)
def test_men_never_move_backwards_and_the_side_to_move_alternates(picks):
    game = play(picks)
    before = game.start
    for entry in game.moves:
        assert entry.side is before.turn and entry.position.turn is before.turn.opponent
        if not (before.kings >> entry.move.start) & 1:
            step = rank_of(entry.move.end) - rank_of(entry.move.start)
            assert step > 0 if entry.side is Color.WHITE else step < 0
        before = entry.position


@SETTINGS
@given(choices)
def test_fen_round_trip(picks):
    for pos in play(picks).positions():
        assert Position.from_fen(pos.fen()) == pos
        assert Position.from_board_string(pos.board_string(), pos.turn) == pos


@SETTINGS
@given(choices)
def test_notation_round_trip_for_every_legal_move(picks):
    for pos in play(picks).positions():
        for move in pos.legal_moves():
            assert pos.parse_move(pos.notation(move)).key == move.key
            assert pos.parse_move(move.full_notation()).key == move.key
            assert pos.parse_move(move.full_notation().replace("x", ":")).key == move.key


@SETTINGS
@given(choices, st.booleans())
def test_pdn_round_trip(picks, black_first):
    start = None
    if black_first:
        start = Position.start().play(Position.start().legal_moves()[picks[0] % 7])
    game = play(picks, start)
    game.tags.update({"Event": "Property", "White": "W \"quoted\"", "Black": "B\\slash"})
    text = game.to_pdn()
    (again,) = read_games(text)
    assert again.start == game.start and again.position == game.position
    assert [m.notation for m in again.moves] == [m.notation for m in game.moves]
    assert {k: again.tags[k] for k in game.tags} == game.tags
    assert again.to_pdn() == text


@settings(max_examples=25, deadline=None)
@given(choices)
def test_capture_sequences_agree_with_legal_moves(picks):
    """Every legal capture has a landing path among capture_sequences, and nothing else is there."""
    for pos in play(picks).positions():
        seqs = pos.capture_sequences()
        legal = pos.legal_moves()
        if seqs:
            assert {m.key for m in seqs} == {m.key for m in legal}
        else:
            assert not any(m.is_capture for m in legal)
