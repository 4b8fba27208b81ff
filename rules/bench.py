"""`dama bench rules`: perft speed with and without the transposition table, and the time to list the legal
moves of typical middlegame positions (a seeded set taken from random games)."""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from rules import movegen
from rules.position import Color, Position

GOAL_PERFT9_S = 5.0


def perft_plain(w: int, b: int, k: int, wtm: bool, depth: int) -> int:
    """Perft with bulk counting at the last ply but no transposition table (to show what the table buys)."""
    own, opp = (w, b) if wtm else (b, w)
    if depth == 1:
        return movegen.count_legal(own, opp, k, wtm)
    total = 0
    for m in movegen.legal_moves(own, opp, k, wtm):
        o2, p2, k2 = movegen.apply(own, opp, k, wtm, m)
        total += perft_plain(o2, p2, k2, False, depth - 1) if wtm else perft_plain(p2, o2, k2, True, depth - 1)
    return total


def middlegame_positions(count: int, seed: int, min_pieces: int = 12) -> list[Position]:
    """Positions 12 to 40 plies into seeded random games, with at least ``min_pieces`` on the board."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = Position.start()
        target = rng.randint(12, 40)
        for _ in range(target):
            moves = pos.legal_moves()
            if not moves:
                break
            pos = pos.play(rng.choice(moves))
        if (pos.white | pos.black).bit_count() >= min_pieces and pos.legal_moves():
            out.append(pos)
    return out


def _timed(fn, *args) -> tuple[float, object]:
    t0 = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - t0, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dama bench rules", description=__doc__)
    parser.add_argument("--depth", type=int, default=9, help="perft depth with the table (default 9)")
    parser.add_argument("--plain-depth", type=int, default=8, help="perft depth without the table (default 8)")
    parser.add_argument("--positions", type=int, default=200, help="middlegame positions (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random games (default 1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the table perft; best and median shown")
    args = parser.parse_args(argv or [])

    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    start = Position.start()
    w, b = start.white, start.black
    runs = []
    for _ in range(max(1, args.repeat)):
        secs, nodes = _timed(movegen.perft, w, b, 0, True, args.depth)
        runs.append(secs)
    secs, median = min(runs), statistics.median(runs)
    print(f"perft({args.depth}) with transposition table: {nodes} leaves in {secs:.2f} s best, {median:.2f} s median "
          f"of {len(runs)} = {nodes / secs:,.0f} leaves/s" + (
              f" (goal < {GOAL_PERFT9_S:.0f} s: {'met' if median < GOAL_PERFT9_S else 'NOT met'} by the median)"
              if args.depth == 9 else ""))
    secs, nodes = _timed(perft_plain, w, b, 0, True, args.plain_depth)
    print(f"perft({args.plain_depth}) without table (bulk counting only): {nodes} leaves in {secs:.2f} s "
          f"= {nodes / secs:,.0f} leaves/s")

    positions = middlegame_positions(args.positions, args.seed)
    rounds = 5
    t0 = time.perf_counter()
    n_moves = 0
    for _ in range(rounds):
        for pos in positions:
            n_moves += len(pos.legal_moves())
    per = (time.perf_counter() - t0) / (rounds * len(positions))
    print(f"legal moves of {len(positions)} middlegame positions (seed {args.seed}): "
          f"{per * 1e6:.1f} µs per position, {n_moves / (rounds * len(positions)):.1f} moves on average")
    t0 = time.perf_counter()
    for _ in range(rounds):
        for pos in positions:
            movegen.legal_moves(pos.own, pos.opp, pos.kings, pos.turn is Color.WHITE)
    raw = (time.perf_counter() - t0) / (rounds * len(positions))
    print(f"  raw generator (rules.movegen.legal_moves, no Move objects): {raw * 1e6:.1f} µs per position")
    return 0
