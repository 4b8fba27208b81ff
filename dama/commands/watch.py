"""Watch a board through a camera or video: referee every move, record the game, serve the dashboard."""

from __future__ import annotations

import argparse
import logging
import signal
import sys

from dama.broadcast.tags import parse_board_tags
from dama.watch import DEFAULT_WEB, WatchConfig, WatchError, parse_sources, watch


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", required=True, action="append", metavar="[BOARD=]SRC",
                        help="camera index (0), video file, folder of images, or stream URL (rtsp://, http://); "
                        "repeat as --source board1=SRC1 --source board2=SRC2 to watch several boards")
    parser.add_argument("--fen", help="starting position (default: the start position)")
    parser.add_argument("--profile", help="calibration profile (JSON) for the vision pipeline")
    parser.add_argument("--pdn", help="write the game here, rewritten after every move "
                        "(default: next to the journal; with several boards write {board} in the name)")
    parser.add_argument("--events", help="write the event stream as JSON lines (the schema of dama referee; "
                        "every event carries its board; {board} in the name gives one file per board)")
    parser.add_argument("--journal", help="journal of every event, fsynced (default: "
                        "<journal-dir>/<date>-<board>.jsonl; with several boards write {board} in the name)")
    parser.add_argument("--journal-dir", metavar="DIR",
                        help="folder of the default journals and PDNs (default $DAMA_HOME/journal)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the game of --journal (default: the newest journal of each board)")
    parser.add_argument("--web", metavar="HOST:PORT", help=f"serve the dashboard here (default {DEFAULT_WEB}); "
                        "on an address other than localhost the controls need the token printed at start")
    parser.add_argument("--headless", action="store_true", help="no dashboard; events printed on the terminal")
    parser.add_argument("--fast", action="store_true", help="process a video file as fast as possible")
    parser.add_argument("--leds", metavar="PORT", help="serial port of the LED board (e.g. /dev/ttyUSB0)")
    parser.add_argument("--speak", choices=["cs", "en"], help="announce moves and alerts aloud")
    parser.add_argument("--say", nargs="?", const="en", choices=["cs", "en"],
                        help="print every announcement as a plain line (braille display, screen reader)")
    parser.add_argument("--event", help="PDN Event tag of every game (default 'dama watch')")
    parser.add_argument("--site", help="PDN Site tag of every game (default: the board's source)")
    parser.add_argument("--round", help="PDN Round tag of every game")
    parser.add_argument("--tag", action="append", default=[], metavar="BOARD:NAME=VALUE",
                        help="a PDN tag of one board, e.g. board1:White=Novák (repeatable)")
    parser.add_argument("--feed-folder", metavar="DIR",
                        help="keep the broadcast feed in this folder too (round index + one PDN per game)")
    parser.add_argument("--publish", metavar="URL",
                        help="publish every board's events to an MQTT broker for `dama hub`: "
                        "mqtt://[user:password@]host[:port]/topic")
    parser.add_argument("--max-viewers", type=int, default=48, metavar="N",
                        help="dashboard pages that may follow the live event stream at once (default 48; "
                        "each holds a server thread; more pages refresh by polling)")
    parser.add_argument("--mask-square", action="append", default=[], metavar="[BOARD:]SQUARE",
                        help="a square the camera misreads (a shadow, a printed marker): read it from the game "
                        "instead, e.g. e5 or board1:e5 (repeatable; the dashboard can change it)")
    parser.add_argument("--verbose", "-v", action="store_true", help="log details (source, sinks)")


def parse_masked(values: list[str], boards: list[str]) -> dict[str, list[str]]:
    """``--mask-square`` values by board (``e5``: every board; ``board1:e5``: that one); ValueError naming a
    bad square or an unknown board."""
    from dama.masking import parse_squares, square_names

    out: dict[str, list[str]] = {}
    for value in values:
        board, sep, square = value.rpartition(":")
        targets = [board] if sep else boards
        if sep and board not in boards:
            raise ValueError(f"--mask-square {value!r}: no board {board!r} (boards: {', '.join(boards)})")
        for b in targets:
            out[b] = square_names(set(parse_squares(out.get(b, []) + [square])))
    return out


def _stop_on_sigterm() -> None:
    """``kill`` (SIGTERM) ends the run like Ctrl-C: sinks drain and close, the game stays saved."""

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def run(args: argparse.Namespace) -> int:
    _stop_on_sigterm()
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        sources = parse_sources(args.source)
        board_tags = parse_board_tags(args.tag)
        masked = parse_masked(args.mask_square, [board for board, _ in sources])
    except (WatchError, ValueError) as exc:
        print(f"dama watch: {exc}", file=sys.stderr)
        return 2
    tags = {name: value for name, value in (("Event", args.event), ("Site", args.site), ("Round", args.round))
            if value is not None}
    config = WatchConfig(source=sources[0][1], board=sources[0][0], sources=sources, fen=args.fen,
                         profile=args.profile, pdn=args.pdn, events=args.events, journal=args.journal,
                         journal_dir=args.journal_dir, resume=args.resume, web=args.web,
                         headless=args.headless, fast=args.fast, leds=args.leds, speak=args.speak,
                         say=args.say, tags=tags, board_tags=board_tags, feed_folder=args.feed_folder,
                         publish=args.publish, max_viewers=max(1, args.max_viewers), masked=masked)
    return watch(config)
