"""Check PDN files: `dama pdn check FILE` replays every game and reports the first illegal move of each."""

from __future__ import annotations

import argparse

from rules.pdn import PdnError, replay, split_games


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True)
    check = sub.add_parser("check", help="replay every game; exit status 1 when any game is invalid")
    check.add_argument("file", help="a PDN file (UTF-8 or Latin-1)")


def _read(path: str) -> str:
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # older PDN files are often ISO 8859-1


def check(text: str) -> tuple[list[str], int]:
    """One report line per game and the number of invalid games."""
    lines, bad = [], 0
    games = split_games(text)
    for raw in games:
        who = " vs ".join(v for v in (raw.tags.get("White"), raw.tags.get("Black")) if v)
        label = f"game {raw.number}" + (f" ({who})" if who else "")
        try:
            game = replay(raw)
        except PdnError as exc:
            bad += 1
            lines.append(f"{label}: INVALID: {exc}")
            continue
        plies = len(game.moves)
        outcome = game.outcome()
        end = f"; the rules end it: {outcome[0]}, {outcome[1]} ({outcome[2]})" if outcome else ""
        declared = game.result or "*"
        lines.append(f"{label}: valid, {plies} plies, result {declared}{end}")
    if not games:
        lines.append("no game found")
        bad += 1
    return lines, bad


def run(args: argparse.Namespace) -> int:
    try:
        text = _read(args.file)
    except OSError as exc:
        print(f"dama pdn check: cannot read {args.file}: {exc.strerror}")
        return 2
    lines, bad = check(text)
    print("\n".join(lines))
    return 1 if bad else 0
