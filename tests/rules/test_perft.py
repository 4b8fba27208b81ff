"""Perft: the start position against the published figures (DESIGN.md), and positions with kings against a
second, deliberately simple generator written here from the rules text (čl. 3, 4) on a dictionary board.

Two implementations that share nothing but the rules must agree; the simple one is slow but obvious.
"""

from __future__ import annotations

import random

import pytest

from rules import Position
from rules.movegen import perft

# --- the reference generator ----------------------------------------------------------------------
# A board is {(file, rank): "w" | "b" | "W" | "B"} with files and ranks 0..7; uppercase is a king.

Board = dict[tuple[int, int], str]
DIAGONALS = ((1, 1), (-1, 1), (1, -1), (-1, -1))


def on_board(f: int, r: int) -> bool:
    return 0 <= f < 8 and 0 <= r < 8


def forward(piece: str) -> int:
    return 1 if piece.lower() == "w" else -1


def is_enemy(piece: str | None, mine: str) -> bool:
    return piece is not None and piece.lower() != mine


def man_jumps(board: Board, sq, colour: str, captured: tuple, path: tuple) -> list:
    """Complete man captures from ``sq`` (čl. 4.2, 4.5): forward only, jumped pieces stay and block."""
    results = []
    f, r = sq
    for df in (1, -1):
        dr = forward(colour)
        over, land = (f + df, r + dr), (f + 2 * df, r + 2 * dr)
        if not on_board(*land) or over in captured:
            continue
        if is_enemy(board.get(over), colour) and land not in board:
            results += man_jumps(board, land, colour, captured + (over,), path + (land,))
    if not results and captured:
        results.append((path, captured))
    return results


def king_jumps(board: Board, sq, colour: str, captured: tuple, path: tuple) -> list:
    """Complete king captures (čl. 4.3, 4.6, 4.8, 4.13): fly to the first piece, jump it if it is a live enemy,
    land on any empty square beyond; where some landings let the capture go on, only those count."""
    results = []
    f, r = sq
    for df, dr in DIAGONALS:
        x, y = f + df, r + dr
        while on_board(x, y) and (x, y) not in board:
            x, y = x + df, y + dr
        if not on_board(x, y) or (x, y) in captured or not is_enemy(board[(x, y)], colour):
            continue
        victim = (x, y)
        landings = []
        x, y = x + df, y + dr
        while on_board(x, y) and (x, y) not in board:
            landings.append((x, y))
            x, y = x + df, y + dr
        continuing = []
        for land in landings:
            continuing += king_jumps(board, land, colour, captured + (victim,), path + (land,))
        if continuing:
            results += continuing
        else:
            results += [(path + (land,), captured + (victim,)) for land in landings]
    return results


def reference_moves(board: Board, colour: str) -> set:
    """Legal moves as (start, end, frozenset(captured)): compulsory capture, king priority (čl. 4.14)."""
    mine = {sq: p for sq, p in board.items() if p.lower() == colour}
    king_caps, man_caps = [], []
    for sq, piece in mine.items():
        rest = {s: p for s, p in board.items() if s != sq}  # the mover's own square is empty while it jumps
        if piece.isupper():
            king_caps += king_jumps(rest, sq, colour, (), (sq,))
        else:
            man_caps += man_jumps(rest, sq, colour, (), (sq,))
    caps = king_caps or man_caps
    if caps:
        return {(path[0], path[-1], frozenset(c)) for path, c in caps}
    moves = set()
    for (f, r), piece in mine.items():
        if piece.isupper():
            for df, dr in DIAGONALS:
                x, y = f + df, r + dr
                while on_board(x, y) and (x, y) not in board:
                    moves.add(((f, r), (x, y), frozenset()))
                    x, y = x + df, y + dr
        else:
            for df in (1, -1):
                t = (f + df, r + forward(colour))
                if on_board(*t) and t not in board:
                    moves.add(((f, r), t, frozenset()))
    return moves


def reference_play(board: Board, move) -> Board:
    start, end, captured = move
    new = {s: p for s, p in board.items() if s not in captured and s != start}
    piece = board[start]
    if piece == "w" and end[1] == 7 or piece == "b" and end[1] == 0:  # čl. 3.5, at the end of the move only
        piece = piece.upper()
    new[end] = piece
    return new


def reference_perft(board: Board, colour: str, depth: int) -> int:
    moves = reference_moves(board, colour)
    if depth == 1:
        return len(moves)
    other = "b" if colour == "w" else "w"
    return sum(reference_perft(reference_play(board, m), other, depth - 1) for m in moves)


def name(sq) -> str:
    return "abcdefgh"[sq[0]] + str(sq[1] + 1)


def to_fen(board: Board, colour: str) -> str:
    def side(c: str) -> str:
        return ",".join(("K" if p.isupper() else "") + name(s) for s, p in sorted(board.items()) if p.lower() == c)

    return f"{colour.upper()}:W{side('w')}:B{side('b')}"


def random_board(rng: random.Random, n_white: int, n_black: int, king_share: float) -> Board:
    dark = [(f, r) for f in range(8) for r in range(8) if (f + r) % 2 == 0]
    board: Board = {}
    for colour, n in (("w", n_white), ("b", n_black)):
        for sq in rng.sample([s for s in dark if s not in board], n):
            king = rng.random() < king_share
            last = 7 if colour == "w" else 0
            if sq[1] == last:  # a man cannot stand on its promotion row
                king = True
            board[sq] = colour.upper() if king else colour
    return board


# --- the tests ------------------------------------------------------------------------------------

START_FIGURES = [7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963671]  # DESIGN.md / issue 8


def test_perft_from_the_start_position_to_depth_9():
    pos = Position.start()
    table: dict = {}
    got = [perft(pos.white, pos.black, 0, True, d, table) for d in range(1, 10)]
    assert got == START_FIGURES


def test_the_reference_generator_agrees_with_the_published_start_figures():
    """The simple generator is itself checked where published figures exist."""
    board = {(f, r): ("w" if r < 3 else "b") for f in range(8) for r in (0, 1, 2, 5, 6, 7) if (f + r) % 2 == 0}
    assert [reference_perft(board, "w", d) for d in (1, 2, 3, 4)] == START_FIGURES[:4]


CASES = [(seed, nw, nb, share) for seed, (nw, nb, share) in enumerate(
    [(3, 3, 1.0), (4, 4, 0.5), (5, 4, 0.4), (2, 6, 0.5), (6, 6, 0.3), (4, 2, 0.7), (7, 7, 0.25), (3, 5, 0.6)])]


@pytest.mark.parametrize(("seed", "n_white", "n_black", "king_share"), CASES)
def test_perft_with_kings_agrees_with_the_reference_generator(seed, n_white, n_black, king_share):
    rng = random.Random(1000 + seed)
    for colour in ("w", "b"):
        board = random_board(rng, n_white, n_black, king_share)
        fen = to_fen(board, colour)
        pos = Position.from_fen(fen)
        depth = 3 if seed % 2 else 4
        expected = [reference_perft(board, colour, d) for d in range(1, depth + 1)]
        got = [pos.perft(d) for d in range(1, depth + 1)]
        assert got == expected, fen


@pytest.mark.parametrize("seed", range(12))
def test_legal_moves_agree_with_the_reference_generator_along_random_games(seed):
    """Move by move, not just counts: the same (start, end, captured set) for every position of a game."""
    rng = random.Random(seed)
    board = random_board(rng, 6, 6, 0.4)
    colour = "w"
    for _ply in range(40):
        pos = Position.from_fen(to_fen(board, colour))
        ours = {(m.path_names()[0], m.path_names()[-1], frozenset(m.captured_names())) for m in pos.legal_moves()}
        ref_moves = reference_moves(board, colour)
        ref = {(name(a), name(b), frozenset(name(c) for c in caps)) for a, b, caps in ref_moves}
        assert ours == ref, to_fen(board, colour)
        if not ref_moves:
            break
        board = reference_play(board, rng.choice(sorted(ref_moves, key=str)))
        colour = "b" if colour == "w" else "w"
