"""Move generation on 32-square bitboards (čl. 3 and 4), free of any object allocation in the hot path.

A side is described by ``own``/``opp`` occupancy, ``kings`` (of both colours) and whether it is White.
Moves come out as ``(path, captured)`` tuples of square indices; :mod:`rules.position` wraps them.

The Czech rules implemented here (see ../shared/DESIGN.md, "the rules most programs get wrong"):

- men move one square diagonally forward and capture forward only (čl. 3.4, 4.1, 4.2);
- kings fly: move any distance, capture a piece any distance away and land on any empty square beyond
  it, but where some landing squares let the capture continue, only those may be chosen (čl. 3.9, 4.3,
  4.6, 4.13);
- capturing is compulsory (čl. 4.1); when a king can capture, a king must capture (čl. 4.14); otherwise
  the choice among captures is free (no majority rule), but a chosen sequence must be completed (čl. 4.13);
- captured pieces stay on the board until the move ends, so they block, and none can be jumped twice
  (Turkish strike, čl. 4.8); the jumper's own start square counts as empty, so it may be crossed again;
- a man becomes a king only when its move ends on the far row (čl. 3.5), and a man on the far row has no
  forward capture left, so a capture always ends there.
"""

from __future__ import annotations

from rules.squares import (
    ALL_SQUARES,
    BLACK_FORWARD,
    JUMP_GROUPS,
    RAYS,
    STEP_GROUPS,
    WHITE_FORWARD,
    shift,
)

RawMove = tuple[tuple[int, ...], tuple[int, ...]]  # (path of squares, captured squares in jump order)


def _bits(bb: int):
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


# --- captures -------------------------------------------------------------------------------------


def _king_has_capture(sq: int, opp: int, occ: int, dead: int) -> bool:
    """Can a king on ``sq`` jump a live enemy piece? ``occ`` includes dead (already jumped) pieces."""
    for ray in RAYS[sq]:
        for i, t in enumerate(ray):
            if (occ >> t) & 1:
                if (opp >> t) & 1 and not (dead >> t) & 1 and i + 1 < len(ray) and not (occ >> ray[i + 1]) & 1:
                    return True
                break
    return False


def _king_captures(sq: int, path: tuple[int, ...], caps: tuple[int, ...], dead: int, opp: int, occ: int,
                   out: list[RawMove]) -> None:
    for ray in RAYS[sq]:
        n = len(ray)
        i = 0
        while i < n and not (occ >> ray[i]) & 1:
            i += 1
        if i >= n - 1:
            continue
        victim = ray[i]
        if not (opp >> victim) & 1 or (dead >> victim) & 1:
            continue  # own piece, or a piece already jumped: both block (čl. 4.7, 4.8)
        landings = []
        j = i + 1
        while j < n and not (occ >> ray[j]) & 1:
            landings.append(ray[j])
            j += 1
        if not landings:
            continue
        new_dead = dead | (1 << victim)
        new_caps = caps + (victim,)
        going_on = [t for t in landings if _king_has_capture(t, opp, occ, new_dead)]
        if going_on:  # only landing squares from which the capture continues (čl. 4.6, 4.13)
            for t in going_on:
                _king_captures(t, path + (t,), new_caps, new_dead, opp, occ, out)
        else:
            out.extend((path + (t,), new_caps) for t in landings)


def _man_captures(sq: int, dirs: tuple[int, int], path: tuple[int, ...], caps: tuple[int, ...], dead: int,
                  opp: int, occ: int, out: list[RawMove]) -> None:
    extended = False
    for d in dirs:
        ray = RAYS[sq][d]
        if len(ray) < 2:
            continue
        victim, land = ray[0], ray[1]
        if (opp >> victim) & 1 and not (dead >> victim) & 1 and not (occ >> land) & 1:
            extended = True
            _man_captures(land, dirs, path + (land,), caps + (victim,), dead | (1 << victim), opp, occ, out)
    if not extended and caps:
        out.append((path, caps))


def men_can_capture(men: int, opp: int, empty: int, white: bool) -> bool:
    """Bulk test: does any man have a forward jump? Two mask operations per direction."""
    for d in WHITE_FORWARD if white else BLACK_FORWARD:
        for mask, d1, d2 in JUMP_GROUPS[d]:
            src = men & mask
            if src and src & shift(opp, -d1) & shift(empty, -d2):
                return True
    return False


def kings_can_capture(kings: int, opp: int, occ: int) -> bool:
    return any(_king_has_capture(s, opp, occ & ~(1 << s), 0) for s in _bits(kings))


def captures(own: int, opp: int, kings: int, white: bool, kings_only: bool | None = None) -> list[RawMove]:
    """Every complete capture sequence (all distinct paths), applying king priority (čl. 4.14)."""
    occ = own | opp
    out: list[RawMove] = []
    for s in _bits(own & kings):
        _king_captures(s, (s,), (), 0, opp, occ & ~(1 << s), out)
    if out:
        return out
    dirs = WHITE_FORWARD if white else BLACK_FORWARD
    for s in _bits(own & ~kings):
        _man_captures(s, dirs, (s,), (), 0, opp, occ & ~(1 << s), out)
    return out


# --- quiet moves ----------------------------------------------------------------------------------


def quiet_moves(own: int, opp: int, kings: int, white: bool) -> list[RawMove]:
    empty = ~(own | opp) & ALL_SQUARES
    out: list[RawMove] = []
    dirs = WHITE_FORWARD if white else BLACK_FORWARD
    for s in _bits(own):
        if (kings >> s) & 1:
            for ray in RAYS[s]:
                for t in ray:
                    if not (empty >> t) & 1:
                        break
                    out.append(((s, t), ()))
        else:
            for d in dirs:
                ray = RAYS[s][d]
                if ray and (empty >> ray[0]) & 1:
                    out.append(((s, ray[0]), ()))
    return out


def count_quiet(own: int, opp: int, kings: int, white: bool) -> int:
    """Number of non-capturing moves, counted in bulk (popcounts for men, ray walks for kings)."""
    empty = ~(own | opp) & ALL_SQUARES
    men = own & ~kings
    n = 0
    for d in WHITE_FORWARD if white else BLACK_FORWARD:
        for mask, delta in STEP_GROUPS[d]:
            n += (shift(men & mask, delta) & empty).bit_count()
    for s in _bits(own & kings):
        for ray in RAYS[s]:
            for t in ray:
                if not (empty >> t) & 1:
                    break
                n += 1
    return n


# --- legal moves ----------------------------------------------------------------------------------


def dedupe(moves: list[RawMove]) -> list[RawMove]:
    """One move per (start, end, set of captured pieces): the smallest path, so the choice is stable."""
    best: dict[tuple[int, int, frozenset[int]], RawMove] = {}
    for m in moves:
        path, caps = m
        key = (path[0], path[-1], frozenset(caps))
        if key not in best or path < best[key][0]:
            best[key] = m
    return sorted(best.values())


def legal_moves(own: int, opp: int, kings: int, white: bool) -> list[RawMove]:
    caps = captures(own, opp, kings, white)
    return dedupe(caps) if caps else sorted(quiet_moves(own, opp, kings, white))


def has_capture(own: int, opp: int, kings: int, white: bool) -> bool:
    occ = own | opp
    return men_can_capture(own & ~kings, opp, ~occ & ALL_SQUARES, white) or kings_can_capture(
        own & kings, opp, occ)


def count_legal(own: int, opp: int, kings: int, white: bool) -> int:
    if has_capture(own, opp, kings, white):
        return len(dedupe(captures(own, opp, kings, white)))
    return count_quiet(own, opp, kings, white)


def apply(own: int, opp: int, kings: int, white: bool, move: RawMove) -> tuple[int, int, int]:
    """Play ``move`` for the side owning ``own``; returns the new (own, opp, kings)."""
    path, caps = move
    start, end = path[0], path[-1]
    sbit, ebit = 1 << start, 1 << end
    capmask = 0
    for c in caps:
        capmask |= 1 << c
    own = (own & ~sbit) | ebit  # start may equal end: a king can capture round a loop
    opp &= ~capmask
    if kings & sbit:
        kings = (kings & ~sbit & ~capmask) | ebit
    else:
        kings &= ~capmask
        if ebit & (0xF0000000 if white else 0x0000000F):  # promotion only at the end of the move (čl. 3.5)
            kings |= ebit
    return own, opp, kings


def perft(white_bb: int, black_bb: int, kings: int, white_to_move: bool, depth: int,
          table: dict | None = None) -> int:
    """Leaf count at ``depth``; moves with the same start, end and captured set count once.

    The last ply is counted in bulk, and positions reached by different move orders are counted once
    through ``table`` (a transposition table keyed by the position and the remaining depth).
    """
    if table is None:
        table = {}
    return _perft(white_bb, black_bb, kings, white_to_move, depth, table)


def _perft(w: int, b: int, k: int, wtm: bool, depth: int, table: dict) -> int:
    own, opp = (w, b) if wtm else (b, w)
    if depth == 1:
        return count_legal(own, opp, k, wtm)
    if depth == 0:
        return 1
    key = (w, b, k, wtm, depth)
    hit = table.get(key)
    if hit is not None:
        return hit
    total = 0
    for m in legal_moves(own, opp, k, wtm):
        o2, p2, k2 = apply(own, opp, k, wtm, m)
        total += _perft(o2, p2, k2, False, depth - 1, table) if wtm else _perft(p2, o2, k2, True, depth - 1, table)
    table[key] = total
    return total
