"""Count the positions reachable in N plies (perft), one line `depth d: COUNT` per depth.

Moves with the same start, end and set of captured pieces count once (as in DESIGN.md).
"""

from __future__ import annotations

import argparse

from rules import FenError, Position
from rules.movegen import perft


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--fen", help="start from this FEN (default: the start position of čl. 2.8)")
    parser.add_argument("--depth", type=int, required=True, help="deepest depth to count (1 or more)")


def run(args: argparse.Namespace) -> int:
    if args.depth < 1:
        print("dama perft: --depth must be 1 or more")
        return 2
    try:
        pos = Position.from_fen(args.fen) if args.fen else Position.start()
    except (FenError, ValueError) as exc:
        print(f"dama perft: {exc}")
        return 2
    table: dict = {}  # shared across depths: deeper counts reuse the shallower entries
    for d in range(1, args.depth + 1):
        count = perft(pos.white, pos.black, pos.kings, pos.turn.value == "white", d, table)
        print(f"depth {d}: {count}", flush=True)
    return 0
