"""Serve a whole hall: boards' events from MQTT, an overview page, and live PDN feeds (read-only)."""

from __future__ import annotations

import argparse
import logging
import signal
import threading


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mqtt", required=True, metavar="URL",
                        help="broker and base topic: mqtt://[user:password@]host[:port]/topic")
    parser.add_argument("--web", default="127.0.0.1:8080", metavar="HOST:PORT",
                        help="where to serve the overview and the feeds (default 127.0.0.1:8080)")
    parser.add_argument("--folder", metavar="DIR", help="also keep a relay folder (round index + one file per game)")
    parser.add_argument("--event", default="?", help="PDN Event tag")
    parser.add_argument("--site", default="?", help="PDN Site tag")
    parser.add_argument("--round", default="1", help="PDN Round tag")
    parser.add_argument("--tag", action="append", default=[], metavar="BOARD:NAME=VALUE",
                        help="a PDN tag of one board, e.g. board1:White=Novák (repeatable)")
    parser.add_argument("--max-viewers", type=int, default=48, metavar="N",
                        help="pages following the live event stream at once (default 48; more poll instead)")


def run(args: argparse.Namespace) -> int:
    from dama.broadcast.feed import BroadcastFeed
    from dama.broadcast.folder import FolderSink
    from dama.broadcast.hub import HubCompanion
    from dama.broadcast.mqtt import MqttHub, MqttUrl
    from dama.broadcast.tags import parse_board_tags
    from dama.watch import WatchError, WebServer, parse_host_port

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        url = MqttUrl.parse(args.mqtt)
        board_tags = parse_board_tags(args.tag)
        host, port = parse_host_port(args.web)
    except (ValueError, WatchError) as exc:
        print(f"dama hub: {exc}")
        return 2
    feed = BroadcastFeed({"Event": args.event, "Site": args.site, "Round": args.round}, board_tags)
    companion = HubCompanion(feed)
    folder = FolderSink(feed, args.folder) if args.folder else None

    def on_event(board, event):
        companion.on_event(board, event)
        if folder is not None:
            folder.write()

    try:
        server = WebServer(companion, host, port, feed=feed, max_viewers=args.max_viewers,
                           config={"TITLE": f"{args.event} — round {args.round}"})
    except WatchError as exc:
        print(f"dama hub: {exc}")
        return 2
    hub = MqttHub(url, feed, on_event=on_event)
    print(f"dama hub: listening to {url.host}:{url.port}/{url.topic}/+ ; overview {server.url} ;"
          f" feeds /broadcast/round.pdn, /broadcast/<board>.pdn, /broadcast/index.json", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        hub.close()
        companion.close()
        server.close()
        if folder is not None:
            folder.write()
    return 0
