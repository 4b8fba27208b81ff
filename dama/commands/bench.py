"""Run a benchmark and print its figures (rules, referee, vision, watch, broadcast)."""

from __future__ import annotations

import argparse
import importlib

# target -> module with `main(argv: list[str]) -> int`; imported only when asked for.
TARGETS = {
    "rules": "rules.bench",
    "referee": "rules.bench_referee",
    "vision": "vision.bench",
    "watch": "dama.bench_watch",
    "broadcast": "dama.bench_broadcast",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", choices=sorted(TARGETS), help="what to measure")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="options of that benchmark")


def run(args: argparse.Namespace) -> int:
    try:
        module = importlib.import_module(TARGETS[args.target])
    except ModuleNotFoundError as exc:
        print(f"dama bench {args.target}: not available ({exc})")
        return 2
    return int(module.main(args.rest) or 0)
