"""List the legal moves of positions given as FEN, one JSON line per FEN (arguments or stdin)."""

from __future__ import annotations

import argparse
import json
import sys

from rules import FenError, Position


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", required=True,
                        help="print JSON lines (the only format so far)")
    parser.add_argument("fens", nargs="*", metavar="FEN", help="positions; without any, one FEN per line on stdin")


def moves_record(fen: str) -> dict:
    """``{"fen": F, "moves": [...]}`` or ``{"fen": F, "error": why}``."""
    try:
        pos = Position.from_fen(fen)
    except (FenError, ValueError) as exc:
        return {"fen": fen, "error": str(exc)}
    return {"fen": fen, "moves": [{"path": m.path_names(), "captured": m.captured_names(),
                                   "notation": pos.notation(m)} for m in pos.legal_moves()]}


def run(args: argparse.Namespace) -> int:
    fens = args.fens if args.fens else (line.strip() for line in sys.stdin)
    failed = False
    for fen in fens:
        if not fen:
            continue
        record = moves_record(fen)
        failed |= "error" in record
        print(json.dumps(record, ensure_ascii=False), flush=True)
    return 1 if failed else 0
