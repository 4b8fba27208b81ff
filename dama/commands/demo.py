"""Run the companion on the bundled demo game (rendered on first use) and serve the dashboard."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import threading
from typing import Any

from dama.demo.script import demo_script
from dama.record import pdn_moves
from dama.sinks.journal import read_journal
from dama.watch import DEFAULT_WEB, WatchConfig, watch


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--headless", action="store_true",
                        help="no dashboard: print the events and the final PDN; exit 0 only when the recorded "
                        "game equals the scripted one")
    parser.add_argument("--web", metavar="HOST:PORT", help=f"where to serve the dashboard (default {DEFAULT_WEB})")
    parser.add_argument("--fast", action="store_true", help="as fast as possible (default when headless)")
    parser.add_argument("--realtime", action="store_true", help="real time even when headless")
    parser.add_argument("--video", help="use this video instead of the rendered demo (tests)")
    parser.add_argument("--out", help="folder for the journal, events and PDN (default: a temporary folder)")
    parser.add_argument("--once", action="store_true", help="with the dashboard: quit when the video ends")


def check(script: Any, pdn_text: str, events: list[dict[str, Any]]) -> list[str]:
    """What differs between the recorded game and the script (empty: equal)."""
    problems = []
    recorded = pdn_moves(pdn_text)
    if recorded != script.moves:
        first = next((i for i, (a, b) in enumerate(zip(recorded, script.moves, strict=False)) if a != b),
                     min(len(recorded), len(script.moves)))
        problems.append(f"moves differ from ply {first + 1}: recorded {recorded[first:first + 3]}, "
                        f"scripted {script.moves[first:first + 3]} ({len(recorded)} vs {len(script.moves)} plies)")
    flagged = [(e.get("side"), e.get("kind")) for e in events if e.get("event") == "violation"]
    if flagged != script.violations:
        problems.append(f"violations flagged {flagged}, scripted {script.violations}")
    results = [e.get("result") for e in events if e.get("event") == "game_over"]
    if results[-1:] != [script.result]:
        problems.append(f"result {results[-1] if results else 'none'}, scripted {script.result}")
    return problems


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    script = demo_script()
    if args.video:
        video = args.video
    else:
        try:
            from dama.demo.video import ensure_demo_video

            video = str(ensure_demo_video())
        except ImportError as exc:
            print(f"dama demo: the renderer is not available ({exc})", file=sys.stderr)
            return 2
    out = args.out or tempfile.mkdtemp(prefix="dama-demo-")
    os.makedirs(out, exist_ok=True)
    paths = {k: os.path.join(out, f"demo.{k}") for k in ("jsonl", "pdn")}
    events_path = os.path.join(out, "demo-events.jsonl")
    stop = threading.Event()
    fast = args.headless and not args.realtime or args.fast
    config = WatchConfig(source=video, pdn=paths["pdn"], journal=paths["jsonl"], events=events_path,
                         headless=args.headless, web=args.web, fast=fast, keep_serving=not args.once,
                         tags={"Event": "dama demo", "White": "Demo White", "Black": "Demo Black"})
    status = watch(config, stop)
    if status != 0:
        return status
    if not args.headless:
        return 0
    with open(paths["pdn"], encoding="utf-8") as f:
        pdn_text = f.read()
    print()
    print(pdn_text)
    problems = check(script, pdn_text, read_journal(events_path))
    if problems:
        for p in problems:
            print(f"dama demo: the recorded game differs from the script: {p}", file=sys.stderr)
        return 1
    print(f"dama demo: the recorded game equals the scripted one ({len(script.moves)} plies, "
          f"{len(script.violations)} violation flagged and corrected, result {script.result})", file=sys.stderr)
    return 0
