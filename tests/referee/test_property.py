"""Property: random legal games, with random part-way capture states between the boards, come out of the
referee as exactly the game's moves and never as a violation (a looping king capture may be recorded at a
stop and then replaced, with a takeback that says why)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import Move, Position
from rules.referee import Referee


def board(white: int, black: int, kings: int) -> str:
    return Position(white, black, kings & (white | black)).board_string()


def part_way_boards(pos: Position, route: Move, draw) -> list[str]:
    """Boards a player may leave while carrying out ``route``: hops shown one by one and the jumped pieces
    taken off one by one in any order (čl. 4.9–4.12), or the pieces taken off before the jumper moves."""
    white_moves = pos.white == pos.own
    own, opp, kings = pos.own, pos.opp, pos.kings
    start, end = route.start, route.end
    order = draw(st.permutations(list(route.captured)))

    def state(jumper: int, removed: list[int]) -> str:
        o = (own & ~(1 << start)) | (1 << jumper)
        p = opp
        for c in removed:
            p &= ~(1 << c)
        k = kings | (1 << jumper) if (kings >> start) & 1 else kings
        return board(o, p, k) if white_moves else board(p, o, k)

    out = []
    hops = [sq for sq in route.path[1:-1] if sq != end and draw(st.booleans())]
    if draw(st.booleans()):  # jump first, then take the pieces off
        out += [state(sq, []) for sq in hops]
        out += [state(end, order[:i]) for i in range(len(order)) if draw(st.booleans())]
    else:  # take the pieces off first, then jump (with all of them gone)
        out += [state(start, order[: i + 1]) for i in range(len(order)) if draw(st.booleans())]
        out += [state(sq, order) for sq in hops]
    if out and draw(st.booleans()):
        out.append(out[-1])  # the same board twice
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_games_with_part_way_captures(data) -> None:
    draw = data.draw
    ref = Referee()
    pos = Position.start()
    played: list[Move] = []
    for _ in range(draw(st.integers(10, 90), label="plies")):
        legal = pos.legal_moves()
        if not legal or ref.state == "game_over":
            break
        move = legal[draw(st.integers(0, len(legal) - 1))]
        events = []
        if move.is_capture:
            routes = [r for r in pos.capture_sequences() if r.key == move.key]
            for b in part_way_boards(pos, draw(st.sampled_from(routes)), draw):
                events += ref.observe(b)
        pos = pos.play(move)
        played.append(move)
        events += ref.observe(pos.board_string())
        kinds = [e["event"] for e in events]
        assert set(kinds) <= {"pending", "move", "takeback", "game_over"}, events
        # A stop on a king's looping capture can itself be a legal capture's result: recorded, then
        # taken back when the king goes on (Referee._capture_went_on); every takeback says so.
        assert kinds.count("move") - kinds.count("takeback") == 1, events
        assert all(e["reason"].startswith("the capture went on") for e in events if e["event"] == "takeback")
        assert kinds.index("move") >= len(kinds) - 2 or "takeback" in kinds
        assert kinds[-1] == "move" or kinds[-2:] == ["move", "game_over"], events  # the move comes last
        got = [e for e in events if e["event"] == "move"][-1]
        assert (got["path"][0], got["path"][-1], sorted(got["captured"])) == \
            (move.path_names()[0], move.path_names()[-1], sorted(move.captured_names()))
        assert got["fen"] == pos.fen()
    assert ref.position == pos
    assert [m.move.key for m in ref.game.moves] == [m.key for m in played]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_games_with_corrected_mistakes(data) -> None:
    """A piece put down by mistake is flagged once; the next legal board corrects it and counts as the move."""
    draw = data.draw
    ref = Referee()
    pos = Position.start()
    for _ in range(draw(st.integers(5, 60), label="plies")):
        legal = pos.legal_moves()
        if not legal or ref.state == "game_over":
            break
        move = legal[draw(st.integers(0, len(legal) - 1))]
        if draw(st.booleans()):
            chars = list(pos.board_string())
            empty = [i for i, c in enumerate(chars) if c == "."]
            chars[draw(st.sampled_from(empty))] = draw(st.sampled_from("wb"))
            wrong = "".join(chars)
            [violation] = ref.observe(wrong)
            assert violation["event"] == "violation" and violation["kind"] == "illegal_move"
            assert ref.observe(wrong) == []
            pos = pos.play(move)
            kinds = [e["event"] for e in ref.observe(pos.board_string())]
            assert kinds[:2] == ["corrected", "move"] and set(kinds[2:]) <= {"game_over"}
        else:
            pos = pos.play(move)
            assert ref.observe(pos.board_string())[0]["event"] == "move"
        assert ref.position == pos
