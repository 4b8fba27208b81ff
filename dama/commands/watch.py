"""Watch a board through a camera or video: referee every move, record the game, serve the dashboard."""

from __future__ import annotations

import argparse
import logging
import signal

from dama.watch import DEFAULT_WEB, WatchConfig, watch


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", required=True,
                        help="camera index (0), video file, folder of images, or stream URL (rtsp://, http://)")
    parser.add_argument("--fen", help="starting position (default: the start position)")
    parser.add_argument("--profile", help="calibration profile (JSON) for the vision pipeline")
    parser.add_argument("--pdn", help="write the game here, rewritten after every move "
                        "(default: next to the journal)")
    parser.add_argument("--events", help="write the event stream as JSON lines (the schema of dama referee)")
    parser.add_argument("--journal", help="journal of every event, fsynced (default: "
                        "$DAMA_HOME/journal/<date>-<board>.jsonl)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the game of --journal (default: the newest journal)")
    parser.add_argument("--web", metavar="HOST:PORT", help=f"serve the dashboard here (default {DEFAULT_WEB}); "
                        "on an address other than localhost the controls need the token printed at start")
    parser.add_argument("--headless", action="store_true", help="no dashboard; events printed on the terminal")
    parser.add_argument("--fast", action="store_true", help="process a video file as fast as possible")
    parser.add_argument("--leds", metavar="PORT", help="serial port of the LED board (e.g. /dev/ttyUSB0)")
    parser.add_argument("--speak", choices=["cs", "en"], help="announce moves and alerts aloud")
    parser.add_argument("--say", nargs="?", const="en", choices=["cs", "en"],
                        help="print every announcement as a plain line (braille display, screen reader)")
    parser.add_argument("--verbose", "-v", action="store_true", help="log details (source, sinks)")


def _stop_on_sigterm() -> None:
    """``kill`` (SIGTERM) ends the run like Ctrl-C: sinks drain and close, the game stays saved."""

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def run(args: argparse.Namespace) -> int:
    _stop_on_sigterm()
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    config = WatchConfig(source=args.source, fen=args.fen, profile=args.profile, pdn=args.pdn,
                         events=args.events, journal=args.journal, resume=args.resume, web=args.web,
                         headless=args.headless, fast=args.fast, leds=args.leds, speak=args.speak,
                         say=args.say)
    return watch(config)
