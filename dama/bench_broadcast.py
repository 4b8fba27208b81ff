"""``dama bench broadcast``: a hall on one machine: feed latency and vision frame rate under viewer load.

- per-core cost: one board's whole loop (decode, vision, stabilizer, referee, journal and PDN sinks) on a
  rendered 1280×720 clip, pinned to one core (``os.sched_setaffinity``), OpenCV on one thread; from it,
  how many boards at 5 frames per second one core sustains.
- the hall: ``--boards`` boards watched from the same rendered clip, each paced at the clip's frame rate
  (5 fps, as a camera would give them) and looped (a new game each loop), in one process with the
  dashboard and the broadcast feed served by waitress. The frame rate and per-frame time of the vision
  loops are measured in three windows: quiet, under load, quiet again.
- the load, from a separate process on loopback: ``--pollers`` relays polling the feed with conditional
  GETs (If-None-Match) every 1–2 s, ``--viewers`` dashboards reading Server-Sent Events (``/api/events``),
  and one fast poller (every 20 ms) that times when each move shows in ``/broadcast/index.json``; the
  feed latency is that time minus the time the move event was published. Every loop of the load stops
  by itself after ``--seconds``.

``python -m dama.bench_broadcast --client …`` is the load process (started by the benchmark).
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PDN_TYPE = '[GameType "29,W,8,8,A0,0"]'


# --- the load process --------------------------------------------------------------------------------

def _legal_game(pdn: str) -> bool:
    """Whether a one-game PDN is whole: its moves replay legally from the start (no torn document)."""
    from dama.record import pdn_moves
    from rules import Position

    if PDN_TYPE not in pdn:
        return False
    pos = Position.start()
    try:
        for move in pdn_moves(pdn):
            pos = pos.play(pos.parse_move(move))
    except ValueError:
        return False
    return True


class LoadStats:
    """Counters shared by the load threads (one lock; the load process has nothing else to do)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.status: dict[str, int] = {}
        self.errors = 0
        self.bad_bodies = 0
        self.times: list[float] = []
        self.sse_connected = 0
        self.sse_refused = 0
        self.sse_events = 0
        self.sse_moves = 0
        self.seen: list[tuple[float, str, int]] = []  # fast poller: (monotonic, board, moves) on change
        self.fast_from = self.fast_to = 0.0  # when the fast poller ran

    def request(self, status: int, seconds: float) -> None:
        with self.lock:
            self.status[str(status)] = self.status.get(str(status), 0) + 1
            self.times.append(seconds)


def _poller(host: str, port: int, paths: list[str], deadline: float, boards: int, stats: LoadStats,
            seed: int) -> None:
    rng = random.Random(seed)
    etags: dict[str, str] = {}
    conn: http.client.HTTPConnection | None = None  # kept open between polls, as relays do
    time.sleep(rng.uniform(0, 1.0))  # relays do not poll in step
    path = paths[seed % len(paths)]  # a relay polls one URL
    while time.monotonic() < deadline:
        try:
            conn = conn or http.client.HTTPConnection(host, port, timeout=5)
            headers = {"If-None-Match": etags[path]} if path in etags else {}
            t0 = time.monotonic()
            conn.request("GET", path, headers=headers)
            resp = conn.getresponse()
            body = resp.read().decode()
            stats.request(resp.status, time.monotonic() - t0)
            if resp.status == 200:
                etags[path] = resp.getheader("ETag", "")
                if path.endswith("index.json"):
                    whole = len(json.loads(body)["games"]) == boards
                elif path.endswith("round.pdn"):
                    whole = body.count("[Event ") == boards and body.count(PDN_TYPE) == boards
                else:
                    whole = _legal_game(body)
                if not whole:
                    with stats.lock:
                        stats.bad_bodies += 1
            elif resp.status != 304:
                with stats.lock:
                    stats.errors += 1
        except (OSError, http.client.HTTPException, ValueError):
            with stats.lock:
                stats.errors += 1
            if conn is not None:
                conn.close()
            conn = None
        time.sleep(min(rng.uniform(1.0, 2.0), max(0.0, deadline - time.monotonic())))
    if conn is not None:
        conn.close()


def _fast_poller(host: str, port: int, deadline: float, stats: LoadStats) -> None:
    conn = http.client.HTTPConnection(host, port, timeout=5)
    etag = ""
    last: dict[str, int] = {}
    stats.fast_from = time.monotonic()
    while time.monotonic() < deadline:
        try:
            conn.request("GET", "/broadcast/index.json", headers={"If-None-Match": etag} if etag else {})
            resp = conn.getresponse()
            body = resp.read()
            now = time.monotonic()
            if resp.status == 200:
                etag = resp.getheader("ETag", "")
                for game in json.loads(body)["games"]:
                    if last.get(game["board"]) != game["moves"]:
                        last[game["board"]] = game["moves"]
                        with stats.lock:
                            stats.seen.append((now, game["board"], int(game["moves"])))
        except (OSError, http.client.HTTPException, ValueError):
            conn.close()
            conn = http.client.HTTPConnection(host, port, timeout=5)
        time.sleep(0.02)
        stats.fast_to = time.monotonic()
    conn.close()


def _viewer(host: str, port: int, deadline: float, stats: LoadStats) -> None:
    """One dashboard's event stream, read until the deadline, then closed."""
    try:
        sock = socket.create_connection((host, port), timeout=5)
    except OSError:
        with stats.lock:
            stats.errors += 1
        return
    with sock:
        sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
        sock.settimeout(0.5)
        buffer = b""
        connected = False
        while time.monotonic() < deadline:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            if not chunk:
                break
            buffer += chunk
            if not connected:
                status_line = buffer.split(b"\r\n", 1)[0]
                if b" 200 " not in status_line:
                    with stats.lock:
                        stats.sse_refused += 1  # e.g. 503: more pages than the server lets follow events
                    break
                connected = True
                with stats.lock:
                    stats.sse_connected += 1
            *lines, buffer = buffer.split(b"\n")
            events = [ln for ln in lines if ln.startswith(b"data: ")]
            if events:
                with stats.lock:
                    stats.sse_events += len(events)
                    stats.sse_moves += sum(b'"event":"move"' in ln for ln in events)


def client_main(argv: list[str]) -> int:
    """The load process: prints ``ready`` once started, then one JSON line of results."""
    p = argparse.ArgumentParser(prog="dama.bench_broadcast --client")
    p.add_argument("--client", required=True, metavar="HOST:PORT")
    p.add_argument("--boards", required=True, help="comma-separated board ids")
    p.add_argument("--pollers", type=int, default=200)
    p.add_argument("--viewers", type=int, default=50)
    p.add_argument("--seconds", type=float, default=20.0)
    args = p.parse_args(argv)
    host, _, port_text = args.client.rpartition(":")
    port = int(port_text)
    boards = args.boards.split(",")
    paths = ["/broadcast/round.pdn", "/broadcast/index.json", *[f"/broadcast/{b}.pdn" for b in boards]]
    stats = LoadStats()
    deadline = time.monotonic() + args.seconds
    threads = [threading.Thread(target=_viewer, args=(host, port, deadline, stats), daemon=True)
               for _ in range(args.viewers)]
    threads += [threading.Thread(target=_poller, args=(host, port, paths, deadline, len(boards), stats, i),
                                 daemon=True) for i in range(args.pollers)]
    threads.append(threading.Thread(target=_fast_poller, args=(host, port, deadline, stats), daemon=True))
    for t in threads:
        t.start()
    print("ready", flush=True)
    for t in threads:
        t.join(max(0.1, deadline - time.monotonic() + 10))
    times = sorted(stats.times) or [0.0]
    print(json.dumps({
        "status": stats.status, "errors": stats.errors, "bad_bodies": stats.bad_bodies,
        "requests": len(stats.times), "request_p50": times[len(times) // 2],
        "request_p99": times[min(len(times) - 1, int(0.99 * len(times)))],
        "sse_connected": stats.sse_connected, "sse_refused": stats.sse_refused,
        "sse_events": stats.sse_events, "sse_moves": stats.sse_moves,
        "seen": stats.seen, "fast_from": stats.fast_from, "fast_to": stats.fast_to,
    }), flush=True)
    return 0


# --- the hall ----------------------------------------------------------------------------------------

@dataclass
class LoopStats:
    frames: int = 0
    busy: float = 0.0  # seconds inside BoardSession.process


def looped_paced(video: str, stop: threading.Event, on_loop: Any, delay: float) -> Iterator[Any]:
    """The clip at its own frame rate (a camera's pace), looped with time going on; ``on_loop`` is called
    when it starts over (a new game). Ends when ``stop`` is set."""
    from board_io.sources import VideoFileSource

    if stop.wait(delay):
        return
    start = time.monotonic()
    offset = 0.0
    n = 0
    while not stop.is_set():
        source = VideoFileSource(video, fast=True)
        fps = float(getattr(source, "fps", 5.0)) or 5.0
        count = 0
        try:
            for frame in source:
                due = start + n / fps
                if stop.wait(max(0.0, due - time.monotonic())):
                    return
                n += 1
                count += 1
                frame.t += offset
                yield frame
        finally:
            source.close()
        if count == 0:
            return
        offset += count / fps
        on_loop()


def _board_loop(session: Any, video: str, stop: threading.Event, stats: LoopStats, delay: float) -> None:
    for frame in looped_paced(video, stop, lambda: session.control("new_game"), delay):
        t0 = time.perf_counter()
        session.process(frame.t, frame.image)
        stats.busy += time.perf_counter() - t0
        stats.frames += 1


def _window(stats: list[LoopStats], seconds: float) -> dict[str, float]:
    """Frames per second of each loop and mean ms per frame over the next ``seconds``; CPU share."""
    before = [(s.frames, s.busy) for s in stats]
    cpu0, t0 = time.process_time(), time.monotonic()
    time.sleep(seconds)
    wall = time.monotonic() - t0
    cpu = time.process_time() - cpu0
    frames = [s.frames - f for s, (f, _) in zip(stats, before, strict=True)]
    busy = [s.busy - b for s, (_, b) in zip(stats, before, strict=True)]
    return {"fps": statistics.mean(f / wall for f in frames), "min_fps": min(f / wall for f in frames),
            "ms_per_frame": 1000 * sum(busy) / max(1, sum(frames)), "cores": cpu / wall, "seconds": wall}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def hall_run(video: str, boards: int = 8, pollers: int = 200, viewers: int = 50, seconds: float = 20.0,
             warmup: float = 5.0, quiet: float | None = None, stagger: float = 0.7) -> dict[str, Any]:
    """Watch ``boards`` boards from ``video`` with the feed served; quiet, loaded, quiet windows."""
    from dama.watch import WatchConfig, WebServer, build_all

    quiet = seconds / 2 if quiet is None else quiet
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # "task queue depth" under load is expected
    names = [f"board{i + 1}" for i in range(boards)]
    with tempfile.TemporaryDirectory(prefix="dama-bench-broadcast-") as folder:
        cfg = WatchConfig(source="", sources=[(b, video) for b in names], headless=True, print_events=False,
                          journal=os.path.join(folder, "{board}.jsonl"), tags={"Event": "bench", "Round": "1"},
                          max_viewers=max(viewers, 1))
        built = build_all(cfg, [])
        companion, feed = built.companion, built.feed
        published: list[tuple[float, str, int]] = []
        publish = companion.bus.publish

        def timed_publish(event: dict[str, Any]) -> None:
            if event.get("event") == "move":
                published.append((time.monotonic(), str(event["board"]), int(event["ply"])))
            publish(event)

        companion.bus.publish = timed_publish  # type: ignore[method-assign]
        port = free_port()
        server = WebServer(companion, "127.0.0.1", port, feed=feed, max_viewers=cfg.max_viewers)
        stop = threading.Event()
        stats = [LoopStats() for _ in names]
        threads = [threading.Thread(target=_board_loop, args=(s, video, stop, st, k * stagger), daemon=True)
                   for k, (s, st) in enumerate(zip(built.sessions, stats, strict=True))]
        client = None
        try:
            for t in threads:
                t.start()
            time.sleep(warmup + stagger * (boards - 1))
            quiet1 = _window(stats, quiet)
            client = subprocess.Popen(
                [sys.executable, "-m", "dama.bench_broadcast", "--client", f"127.0.0.1:{port}",
                 "--boards", ",".join(names), "--pollers", str(pollers), "--viewers", str(viewers),
                 "--seconds", str(seconds + 2.0)], stdout=subprocess.PIPE, text=True)
            assert client.stdout is not None
            client.stdout.readline()  # "ready"
            time.sleep(1.0)  # let the viewers connect and the pollers spread out
            loaded = _window(stats, seconds)
            out, _ = client.communicate(timeout=seconds + 60)
            load = json.loads(out.strip().splitlines()[-1])
            quiet2 = _window(stats, quiet)
        finally:
            stop.set()
            if client is not None and client.poll() is None:
                client.kill()
                client.wait()
            for t in threads:
                t.join(10)
            companion.close()  # ends the open event streams first, so no response outlives the server
            server.close()
        pdn_equal = all(feed.board_pdn(s.board).body == Path(s.pdn_path).read_text()  # type: ignore[attr-defined]
                        for s in built.sessions)
    latencies, missed = _latencies(published, load.pop("seen"), load["fast_from"], load["fast_to"])
    return {"boards": boards, "quiet1": quiet1, "loaded": loaded, "quiet2": quiet2, "load": load,
            "latencies": latencies, "missed": missed, "feed_equals_pdn": pdn_equal}


def _latencies(published: list[tuple[float, str, int]], seen: list[list[Any]], first: float,
               last: float) -> tuple[list[float], int]:
    """Pair each move event with the first fast-poller sighting of its board at that move count."""
    out: list[float] = []
    missed = 0
    for t, board, ply in published:
        if not first + 0.5 <= t <= last - 2.0:
            continue  # the fast poller was not running then
        hits = [s for s, b, n in seen if b == board and n == ply and s >= t - 0.002]
        if hits and hits[0] - t < 5.0:
            out.append(max(0.0, hits[0] - t))
        else:
            missed += 1
    return out, missed


# --- one board on one core ---------------------------------------------------------------------------

def pinned_cost(video: str, frames: int = 200, warmup: int = 10) -> dict[str, float]:
    """One board's loop as fast as it goes on one core: wall and CPU milliseconds per frame."""
    from board_io.sources import LoopedSource, VideoFileSource
    from dama.bench_watch import session_for

    before = os.sched_getaffinity(0)
    core = max(before)
    os.sched_setaffinity(0, {core})  # this thread, and the sink threads it starts
    try:
        with tempfile.TemporaryDirectory() as folder:
            companion, session = session_for(folder)
            source = LoopedSource(lambda: VideoFileSource(video, fast=True), 1e9)
            frames_iter = iter(source)
            for _ in range(warmup):  # the first clear view teaches the colours (about a second, once)
                frame = next(frames_iter)
                session.process(frame.t, frame.image)
            n = 0
            cpu0, t0 = time.process_time(), time.perf_counter()
            for frame in frames_iter:
                session.process(frame.t, frame.image)
                n += 1
                if n >= frames:
                    break
            wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
            companion.close()
    finally:
        os.sched_setaffinity(0, before)
    return {"frames": n, "ms_wall": 1000 * wall / n, "ms_cpu": 1000 * cpu / n, "core": core}


def load_average() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def main(argv: list[str]) -> int:
    import cv2

    from dama.bench_watch import clip

    parser = argparse.ArgumentParser(prog="dama bench broadcast", description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=8)
    parser.add_argument("--pollers", type=int, default=200)
    parser.add_argument("--viewers", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the loaded window")
    parser.add_argument("--plies", type=int, default=4, help="plies of the demo game in the clip")
    parser.add_argument("--fps", type=float, default=5.0, help="frame rate of the clip (and of each board)")
    parser.add_argument("--size", default="1280x720", help="WIDTHxHEIGHT of the clip")
    parser.add_argument("--pinned-frames", type=int, default=200, help="frames of the one-core run (0: skip)")
    args = parser.parse_args(argv)
    try:
        width, height = (int(x) for x in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size {args.size!r}: write WIDTHxHEIGHT, e.g. 1280x720")
    if min(args.boards, args.seconds) <= 0 or min(args.pollers, args.viewers) < 0:
        parser.error("--boards and --seconds must be positive, --pollers and --viewers not negative")
    cv2.setNumThreads(1)
    video = str(clip(args.plies, (width, height), args.fps))
    print(f"machine: {os.cpu_count()} cores, load average {load_average()}")
    if args.pinned_frames:
        p = pinned_cost(video, args.pinned_frames)
        print(f"one board's loop pinned to core {p['core']}, {width}x{height}, {p['frames']} frames: "
              f"{p['ms_wall']:.1f} ms wall, {p['ms_cpu']:.1f} ms CPU per frame -> one core sustains "
              f"{1000 / (args.fps * p['ms_cpu']):.1f} boards at {args.fps:g} fps "
              f"({1000 / (args.fps * p['ms_wall']):.1f} by wall time)")
    r = hall_run(video, args.boards, args.pollers, args.viewers, args.seconds)
    for name, label in (("quiet1", "quiet"), ("loaded", "under load"), ("quiet2", "quiet again")):
        w = r[name]
        print(f"{r['boards']} boards, {label:11s}: {w['fps']:.2f} fps per loop (min {w['min_fps']:.2f}, "
              f"goal {args.fps:g}), {w['ms_per_frame']:.1f} ms per frame, process uses {w['cores']:.2f} cores")
    quiet_fps = (r["quiet1"]["fps"] + r["quiet2"]["fps"]) / 2
    quiet_ms = (r["quiet1"]["ms_per_frame"] + r["quiet2"]["ms_per_frame"]) / 2
    print(f"under load the loops ran at {100 * r['loaded']['fps'] / quiet_fps:.1f}% of the quiet frame rate "
          f"(goal >= 90%); per-frame time {100 * r['loaded']['ms_per_frame'] / quiet_ms:.0f}% of quiet")
    quiet_cores = (r["quiet1"]["cores"] + r["quiet2"]["cores"]) / 2
    print(f"multi-board run: {r['boards']} boards at {quiet_fps:.2f} fps used {quiet_cores:.2f} cores -> "
          f"{r['boards'] * quiet_fps / args.fps / max(quiet_cores, 1e-9):.1f} boards at {args.fps:g} fps per core")
    load = r["load"]
    print(f"load: {args.pollers} pollers + fast poller made {load['requests']} requests {load['status']}, "
          f"p50 {1000 * load['request_p50']:.1f} ms, p99 {1000 * load['request_p99']:.1f} ms, errors "
          f"{load['errors']}, torn documents {load['bad_bodies']}; {load['sse_connected']}/{args.viewers} "
          f"SSE viewers ({load['sse_refused']} refused) got {load['sse_events']} events ({load['sse_moves']} moves)")
    lat = r["latencies"]
    if lat:
        print(f"feed latency (move event -> fast poller sees it in index.json) over {len(lat)} moves: median "
              f"{1000 * statistics.median(lat):.0f} ms, max {1000 * max(lat):.0f} ms (goal < 1000 ms); "
              f"missed {r['missed']}")
    else:
        print(f"feed latency: no move during the loaded window (missed {r['missed']})")
    print(f"feed equals every board's PDN file at the end: {r['feed_equals_pdn']}; "
          f"load average now {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(client_main(sys.argv[1:]))
