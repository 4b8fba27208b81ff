"""``dama bench watch``: speed, move latency and memory of the watch loop on rendered 1280×720 video.

- fps: frames per second of the whole loop as ``dama watch --fast`` runs it (decode, vision, stabilizer,
  referee, event bus with journal and PDN sinks), OpenCV limited to one thread; and the share of frames
  in tracking mode (the board fit kept from the previous frame).
- latency: for every correctly recognized move, video time from the first frame after the hand left the
  board (the renderer's ground truth) to the ``move`` event.
- memory: resident set size while a short clip is looped into a long game (``--minutes``, one hour
  with ``--minutes 60``), sampled along the way; it must stay flat.

The clip (the first plies of the demo game) is rendered once into the cache folder.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2

from board_io.sources import LoopedSource, VideoFileSource
from dama.bus import EventBus
from dama.companion import BoardSession, Companion
from dama.demo.script import demo_script
from dama.demo.video import cache_dir, render_into_cache, video_key
from dama.sinks.journal import JournalSink
from dama.sinks.pdn import PdnSink


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def clip(plies: int, size: tuple[int, int], fps: float) -> Path:
    """The first ``plies`` plies of the demo, rendered once (cached)."""
    from vision.render import render_video

    steps = demo_script().steps
    end = next(i for i, s in enumerate(steps) if s.note.startswith(f"{plies}.")) + 1
    boards = [s.board for s in steps[:end]]
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"bench-{video_key(boards, 5, size, fps, 1.5)}.mp4"
    if not path.exists():
        print(f"rendering the benchmark clip ({plies} plies, {size[0]}x{size[1]})...", flush=True)
        render_into_cache(path, lambda tmp: render_video(boards, tmp, seed=5, size=size, fps=fps, hold_seconds=1.5))
    return path


def session_for(folder: str) -> tuple[Companion, BoardSession]:
    from rules.referee import Referee
    from vision.pipeline import VisionPipeline
    from vision.stabilizer import Stabilizer

    bus = EventBus()
    companion = Companion(bus)
    session = companion.add(BoardSession("main", bus, vision=VisionPipeline(), stabilizer=Stabilizer(0.5),
                                         referee_factory=Referee, learn_colours=True))
    bus.add(JournalSink(os.path.join(folder, "bench.jsonl"), "main"), maxsize=100_000)
    bus.add(PdnSink(os.path.join(folder, "bench.pdn"), "main"), maxsize=100_000)
    return companion, session


def speed_and_latency(video: Path) -> dict[str, Any]:
    truth = json.loads(video.with_suffix(".json").read_text())
    with tempfile.TemporaryDirectory() as folder:
        companion, session = session_for(folder)
        moves: list[dict[str, Any]] = []
        sub = companion.subscribe()
        tracking = 0
        n = 0
        start = time.perf_counter()
        cpu_start = time.process_time()
        for frame in VideoFileSource(str(video), fast=True):
            session.process(frame.t, frame.image)
            res = session._result
            tracking += bool(getattr(res, "tracking", False))
            n += 1
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        while (e := sub.get(0.2)) is not None:
            if e.get("event") == "move":
                moves.append(e)
        companion.close()
    fps = truth["fps"]
    latencies = []
    script_moves = demo_script().moves
    for k, e in enumerate(moves):
        # the hand that made the move: the last span of hand over the board ending before the event
        ends = [end for _, end in truth["hand"] if (end + 1) / fps <= e["t"] + 1e-6]
        if not ends or (k < len(script_moves) and e["move"] != script_moves[k]):
            continue
        latencies.append(e["t"] - (ends[-1] + 1) / fps)
    good = latencies
    return {"frames": n, "seconds": elapsed, "fps": n / elapsed, "cpu_fps": n / max(cpu, 1e-9),
            "tracking": tracking / max(n, 1),
            "moves": len(moves), "latency_median": statistics.median(good) if good else None,
            "latency_max": max(good) if good else None}


def memory(video: Path, minutes: float) -> dict[str, Any]:
    duration = minutes * 60.0
    with tempfile.TemporaryDirectory() as folder:
        companion, session = session_for(folder)
        source = LoopedSource(lambda: VideoFileSource(str(video), fast=True), duration)
        samples: list[tuple[float, float]] = []
        clip_frames = int(json.loads(video.with_suffix(".json").read_text())["frame_count"])
        start = time.perf_counter()
        for frame in source:
            if frame.index and frame.index % clip_frames == 0:
                session.control("new_game")  # the clip starts over: a new game, as players would
            session.process(frame.t, frame.image)
            if frame.index % 500 == 0:
                samples.append((frame.t, rss_mb()))
        elapsed = time.perf_counter() - start
        companion.close()
    rss = [m for _, m in samples]
    later = rss[len(rss) // 4:] or rss
    return {"video_minutes": minutes, "wall_seconds": elapsed, "rss_first": rss[0], "rss_max": max(rss),
            "rss_last": rss[-1], "growth_after_warmup": later[-1] - later[0], "samples": len(rss)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="dama bench watch", description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=6, help="plies of the demo game in the clip")
    parser.add_argument("--minutes", type=float, default=10.0, help="video minutes for the memory run")
    parser.add_argument("--threads", type=int, default=1, help="OpenCV threads (1 = one core)")
    parser.add_argument("--all-cores", action="store_true",
                        help="do not pin the process to one CPU (by default it is, where the OS allows)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(args.threads)
    pinned = None
    if not args.all_cores and hasattr(os, "sched_setaffinity"):
        # one core for everything: the video decoder's own threads and the sinks' threads included
        pinned = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {pinned})
    video = clip(args.plies, (1280, 720), 15.0)
    s = speed_and_latency(video)
    where = f"pinned to CPU {pinned}" if pinned is not None else "all cores"
    print(f"watch loop, 1280x720, {s['frames']} frames, OpenCV threads {args.threads}, {where}: "
          f"{s['fps']:.1f} fps (goal >= 150), {s['cpu_fps']:.1f} fps by CPU time (all threads), "
          f"tracking on {100 * s['tracking']:.0f}% of frames")
    if s["latency_median"] is None:
        print("move latency: no move recognized")
    else:
        print(f"move latency (video time, hand off the board -> move event) over {s['moves']} moves: "
              f"median {s['latency_median']:.2f} s, max {s['latency_max']:.2f} s (goal <= 0.7 s)")
    m = memory(video, args.minutes)
    print(f"memory over {m['video_minutes']:.0f} min of video ({m['wall_seconds']:.0f} s wall): RSS first "
          f"{m['rss_first']:.0f} MB, max {m['rss_max']:.0f} MB, last {m['rss_last']:.0f} MB, "
          f"growth after warm-up {m['growth_after_warmup']:+.1f} MB")
    return 0
