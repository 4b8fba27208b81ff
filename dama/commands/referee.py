"""Referee board observations read from stdin: one JSON event per line on stdout.

Each input line is a stable board of 32 characters (``.wbWB?``, see DESIGN.md), optionally followed by the
time in seconds (recorded as the move time). Blank lines and lines starting with ``#`` are ignored. A
malformed line gives ``{"event": "error", "line": N, "message": ...}`` and the run goes on. With ``--pdn``
the recorded game (violations as comments) is written to FILE at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--fen", help="start position (PDN FEN, e.g. W:Wa1,c3:Bb6,Kh8); default: the start position")
    parser.add_argument("--pdn", metavar="FILE", help="write the recorded game to FILE when the input ends")


def _emit(events: list[dict[str, Any]], out: TextIO) -> None:
    for event in events:
        out.write(json.dumps(event, ensure_ascii=False) + "\n")
    out.flush()


def _parse_line(text: str) -> tuple[str, float | None]:
    """The board and the optional time; ValueError naming the problem."""
    fields = text.split()
    if len(fields) > 2:
        raise ValueError(f"expected a board of 32 characters and an optional time, got {len(fields)} fields")
    t = None
    if len(fields) == 2:
        try:
            t = float(fields[1])
        except ValueError:
            raise ValueError(f"the time {fields[1]!r} is not a number of seconds") from None
    return fields[0], t


def referee_stream(referee: Any, lines: TextIO, out: TextIO) -> None:
    """Feed ``lines`` to ``referee`` (a :class:`rules.referee.Referee`), writing its events to ``out``."""
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        try:
            board, t = _parse_line(text)
            events = referee.observe(board, t)
        except ValueError as exc:
            events = [{"event": "error", "line": number, "message": str(exc)}]
        _emit(events, out)


def run(args: argparse.Namespace) -> int:
    from rules import Position
    from rules.referee import Referee

    try:
        start = Position.from_fen(args.fen) if args.fen else None
    except ValueError as exc:  # FenError, or a position that cannot be (e.g. kings without pieces)
        print(f"dama referee: {exc}", file=sys.stderr)
        return 2
    referee = Referee(start)
    try:
        _emit(referee.reset(start), sys.stdout)
        referee_stream(referee, sys.stdin, sys.stdout)
    finally:
        if args.pdn:
            try:
                with open(args.pdn, "w", encoding="utf-8") as f:
                    f.write(referee.pdn())
            except OSError as exc:
                print(f"dama referee: cannot write {args.pdn}: {exc.strerror}", file=sys.stderr)
                return 1
    return 0
