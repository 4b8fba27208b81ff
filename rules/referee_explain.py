"""Explaining a board no legal move explains: which rule was broken, by whom, in words a player understands.

The referee calls :func:`classify` only after the observation failed to match the position, any legal move
and any part-way state of a capture, so this module may be slow and thorough. It also builds the position
that stands if the opponent plays on (čl. 5.7): :func:`illegal_position`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules import movegen
from rules.position import Color, Move, Position
from rules.referee_match import Observation, PositionIndex, names
from rules.squares import BLACK_FORWARD, PROMOTION_ROW, RAYS, SQUARE_NAMES, WHITE_FORWARD, squares_of


@dataclass
class Finding:
    """What :func:`classify` found: the event fields and, when one piece moved, the move it made."""

    kind: str
    side: Color
    squares: list[int]
    legal: list[Move]
    message: str
    article: str
    move: Move | None = None


def side_name(color: Color) -> str:
    return "White" if color is Color.WHITE else "Black"


def _capture_nodes(pos: Position, start: int) -> list[tuple[tuple[int, ...], tuple[int, ...], bool]]:
    """Every way the piece on ``start`` can physically jump, stopping after any jump, ignoring which landing
    squares the rules prefer: (path, captured, could jump further from there). Dead pieces block and none is
    jumped twice (čl. 4.8)."""
    white = pos.turn is Color.WHITE
    own, opp = pos.own, pos.opp
    king = bool((pos.kings >> start) & 1)
    occ = (own | opp) & ~(1 << start)
    dirs = range(4) if king else (WHITE_FORWARD if white else BLACK_FORWARD)
    out: list[tuple[tuple[int, ...], tuple[int, ...], bool]] = []

    def jumps(sq: int, dead: int) -> list[tuple[int, int]]:
        found = []
        for d in dirs:
            ray = RAYS[sq][d]
            i = 0
            while king and i < len(ray) and not (occ >> ray[i]) & 1:
                i += 1  # a king flies to the first piece on the diagonal
            if i >= len(ray) - 1:
                continue
            victim = ray[i]
            if not (opp >> victim) & 1 or (dead >> victim) & 1 or not (occ >> victim) & 1:
                continue
            j = i + 1
            while j < len(ray) and not (occ >> ray[j]) & 1:
                found.append((victim, ray[j]))
                if not king:
                    break
                j += 1
        return found

    def walk(sq: int, path: tuple[int, ...], caps: tuple[int, ...], dead: int) -> None:
        nxt = jumps(sq, dead)
        if caps:
            out.append((path, caps, bool(nxt)))
        for victim, land in nxt:
            walk(land, path + (land,), caps + (victim,), dead | (1 << victim))

    walk(start, (start,), (), 0)
    return out


def _quiet_ok(pos: Position, start: int, end: int) -> bool:
    """Is ``start``→``end`` a move the piece could make if capturing were not compulsory (čl. 3.4, 3.9)?"""
    king = bool((pos.kings >> start) & 1)
    occ = pos.white | pos.black
    dirs = range(4) if king else (WHITE_FORWARD if pos.turn is Color.WHITE else BLACK_FORWARD)
    for d in dirs:
        for t in RAYS[start][d]:
            if (occ >> t) & 1:
                break
            if t == end:
                return True
            if not king:
                break
    return False


def _on_diagonal(start: int, end: int) -> list[int] | None:
    """The squares strictly between ``start`` and ``end`` when they share a diagonal, else None."""
    for ray in RAYS[start]:
        if end in ray:
            return list(ray[: ray.index(end)])
    return None


def _legal_text(pos: Position, moves: list[Move], limit: int = 6) -> str:
    texts = [pos.notation(m) for m in moves[:limit]]
    return ", ".join(texts) + (" …" if len(moves) > limit else "")


def classify(index: PositionIndex, obs: Observation) -> Finding:
    """Why the fully known board ``obs`` is not reachable from ``index.position`` by legal play."""
    pos = index.position
    side = pos.turn
    own_obs, opp_obs = (obs.white, obs.black) if side is Color.WHITE else (obs.black, obs.white)
    own, opp = pos.own, pos.opp
    gone_own, came_own = own & ~own_obs, own_obs & ~own
    gone_opp, came_opp = opp & ~opp_obs, opp_obs & ~opp
    captures = [m for m in index.legal if m.is_capture]
    who = side_name(side)

    if not gone_own and not came_own and (gone_opp or came_opp):
        return _out_of_turn(pos, gone_opp, came_opp)

    if gone_own.bit_count() == 1 and came_own.bit_count() == 1 and not came_opp:
        start = gone_own.bit_length() - 1
        end = came_own.bit_length() - 1
        king = bool((pos.kings >> start) & 1)
        hop = f"{SQUARE_NAMES[start]}-{SQUARE_NAMES[end]}"
        if not gone_opp and _quiet_ok(pos, start, end) and captures:
            capturers = sorted({m.start for m in captures})
            return Finding(
                "missed_capture", side, capturers, captures,
                f"{who} moved {hop} although a capture was compulsory: {_legal_text(pos, captures)} (čl. 4.1)",
                "čl. 4.1", Move((start, end)))
        nodes = [n for n in _capture_nodes(pos, start) if n[0][-1] == end and set(n[1]) >= _set(gone_opp)]
        if nodes:
            exact = [n for n in nodes if set(n[1]) == _set(gone_opp)]
            path, caps, going_on = (exact or nodes)[0]
            move = Move(path, caps)
            if not king and movegen.kings_can_capture(own & pos.kings, opp, own | opp):
                kings = sorted({m.start for m in captures if (pos.kings >> m.start) & 1})
                return Finding(
                    "king_priority", side, kings + [start], captures,
                    f"{who} captured with the man on {SQUARE_NAMES[start]} although a king must capture: "
                    f"{_legal_text(pos, captures)} (čl. 4.14)", "čl. 4.14", move)
            further = [m for m in captures if m.start == start and set(caps) < set(m.captured)]
            if going_on or further:
                shown = "x".join(SQUARE_NAMES[s] for s in path)
                jumped = ", ".join(names(list(caps)))
                return Finding(
                    "incomplete_capture", side, [end], further or captures,
                    f"{who} stopped the capture {shown} on {SQUARE_NAMES[end]} after jumping {jumped}, but it "
                    f"must go on: {_legal_text(pos, further or captures)} (čl. 4.13)", "čl. 4.13", move)
        return _wrong_move(pos, index, start, end, gone_opp, captures)

    if not came_own and gone_opp.bit_count() == 1 and came_opp.bit_count() == 1:
        found = _capture_out_of_turn(pos, gone_opp.bit_length() - 1, came_opp.bit_length() - 1, gone_own)
        if found is not None:
            return found
    return _generic(pos, index, gone_own, came_own, gone_opp, came_opp)


def _capture_out_of_turn(pos: Position, start: int, end: int, gone_own: int) -> Finding | None:
    """The side not to move captured (its piece jumped, pieces of the side to move gone)."""
    other = pos.turn.opponent
    flipped = Position(pos.white, pos.black, pos.kings, other)
    for path, caps, _ in _capture_nodes(flipped, start):
        if path[-1] == end and set(caps) >= _set(gone_own):
            shown = "x".join(names(list(path)))
            return Finding("illegal_move", other, [start, end] + squares_of(gone_own), [],
                           f"{side_name(other)} captured {shown} although it was {side_name(pos.turn)}'s turn "
                           "(čl. 3.3)", "čl. 3.3")
    return None


def _set(bb: int) -> set[int]:
    return set(squares_of(bb))


def _out_of_turn(pos: Position, gone_opp: int, came_opp: int) -> Finding:
    """Only the pieces of the side not to move changed."""
    side, other = pos.turn, pos.turn.opponent
    colour = side_name(other).lower()
    if gone_opp.bit_count() == 1 and came_opp.bit_count() == 1:
        return Finding("illegal_move", other, squares_of(gone_opp) + squares_of(came_opp), [],
                       f"{side_name(other)} moved {names(gone_opp)[0]}-{names(came_opp)[0]} although it was "
                       f"{side_name(side)}'s turn (čl. 3.3)", "čl. 3.3")
    if gone_opp and not came_opp:
        many = gone_opp.bit_count() > 1
        what = f"the {colour} piece{'s' if many else ''} on {', '.join(names(gone_opp))} " \
               f"{'were' if many else 'was'} taken off without a capture"
    elif came_opp and not gone_opp:
        what = f"a {colour} piece appeared on {', '.join(names(came_opp))}"
    else:
        what = f"{colour} pieces changed (gone from {', '.join(names(gone_opp))}; " \
               f"appeared on {', '.join(names(came_opp))})"
    return Finding("illegal_move", side, squares_of(gone_opp | came_opp), [],
                   f"It was {side_name(side)}'s turn and {what} (čl. 5.4)", "čl. 5.4")


def _wrong_move(pos: Position, index: PositionIndex, start: int, end: int, gone_opp: int,
                captures: list[Move]) -> Finding:
    """One piece of the side to move went from ``start`` to ``end`` in a way no rule allows."""
    side = pos.turn
    who = side_name(side)
    king = bool((pos.kings >> start) & 1)
    hop = f"{SQUARE_NAMES[start]}-{SQUARE_NAMES[end]}"
    between = _on_diagonal(start, end)
    own_between = [s for s in between or [] if (pos.own >> s) & 1]
    landings = [n for n in _capture_nodes(pos, start) if n[0][-1] == end]
    squares = [start, end] + squares_of(gone_opp)
    removed = ", ".join(names(gone_opp))
    if own_between:
        text = f"{who} moved {hop} over its own piece on {names(own_between)[0]}: jumping one's own pieces is " \
               "not allowed (čl. 4.7)"
        article = "čl. 4.7"
    elif landings and gone_opp:
        path, caps, _ = landings[0]
        jumped = ", ".join(names(list(caps)))
        text = f"{who} captured {'x'.join(names(list(path)))} jumping {jumped}, but took off {removed}: only the " \
               "jumped pieces are taken off (čl. 4.11, 5.4)"
        article = "čl. 4.11"
    elif gone_opp:
        text = f"{who} moved {hop} and took off {removed}, but that is not a capture the piece can make " \
               f"(čl. {'4.3' if king else '4.2'})"
        article = "čl. 4.3" if king else "čl. 4.2"
    elif between is None:
        text = f"{who} moved {hop}: pieces move along a diagonal (čl. 3.4, 3.9)"
        article = "čl. 3.4"
    elif king:
        text = f"{who} moved the king {hop} over an occupied square: a king moves over free squares only (čl. 3.9)"
        article = "čl. 3.9"
    else:
        forward = any(end in RAYS[start][d] for d in (WHITE_FORWARD if side is Color.WHITE else
                                                      BLACK_FORWARD))
        how = "backwards: a man moves only forward" if not forward else \
            "too far: a man moves one square diagonally forward"
        text = f"{who} moved the man {hop} {how} (čl. 3.4)"
        article = "čl. 3.4"
    if captures and not gone_opp:
        text += f"; besides, a capture was compulsory: {_legal_text(pos, captures)} (čl. 4.1)"
    return Finding("illegal_move", side, squares, captures or index.legal, text, article,
                   Move((start, end), tuple(squares_of(gone_opp))))


def _generic(pos: Position, index: PositionIndex, gone_own: int, came_own: int, gone_opp: int,
             came_opp: int) -> Finding:
    """Several pieces changed at once: say what changed and whose turn it was."""
    side, other = pos.turn, pos.turn.opponent
    own_word, opp_word = side_name(side).lower(), side_name(other).lower()
    parts = []
    for colour, bb, verb in ((own_word, gone_own, "gone from"), (own_word, came_own, "appeared on"),
                             (opp_word, gone_opp, "gone from"), (opp_word, came_opp, "appeared on")):
        if bb:
            many = bb.bit_count() > 1
            parts.append(f"{colour} piece{'s' if many else ''} {verb} {', '.join(names(bb))}")
    text = f"It was {side_name(side)}'s turn, but no legal move explains the board: " + "; ".join(parts) + \
        " (čl. 5.4)"
    violator = other if came_opp and not came_own else side  # the colour that put a piece somewhere moved
    return Finding("illegal_move", violator, squares_of(gone_own | came_own | gone_opp | came_opp),
                   index.legal, text, "čl. 5.4")


def illegal_position(before: Position, obs: Observation, violator: Color) -> Position:
    """The position that stands if the opponent plays on from the board ``obs`` (čl. 5.7).

    Pieces keep their status: a piece on a square it held before keeps it, a piece that moved (the one
    piece of a colour that left one square for another) takes its king status along, and a man of the
    violator that ended on the far row is crowned (čl. 3.5); a piece seen crowned is a king. The side to
    move is the violator's opponent.
    """
    white, black = obs.white, obs.black
    kings = obs.crowned & (white | black)
    kings |= before.kings & ((before.white & white) | (before.black & black))
    for colour_before, colour_now, is_white in ((before.white, white, True), (before.black, black, False)):
        gone, came = colour_before & ~colour_now, colour_now & ~colour_before
        if gone.bit_count() == 1 and came.bit_count() == 1:
            promoted = (violator is Color.WHITE) == is_white and PROMOTION_ROW[is_white] & came
            if before.kings & gone or promoted:
                kings |= came
    return Position(white, black, kings, violator.opponent)
