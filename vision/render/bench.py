"""Renderer timing: ``python -m vision.render.bench [--scenes N] [--size 1280x720]``.

Prints, per scene and as medians: building the static layer (table, board), a new piece position
(shadows + pieces), and a video frame with the layers cached (without and with a hand).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from vision.render.params import HandPose, random_scene_params
from vision.render.scene import SceneRenderer

START = "wwwwwwwwwwww........bbbbbbbbbbbb"
MID = "wwwwwwww.wwww.......bbbb.bbbbbbb"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.render.bench", description=__doc__)
    ap.add_argument("--scenes", type=int, default=5)
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--distortion", action="store_true")
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.split("x"))
    rows = []
    for s in range(args.scenes):
        params = random_scene_params(np.random.default_rng(s), size=(w, h), distortion=args.distortion)
        t0 = time.perf_counter()
        r = SceneRenderer(params)
        t1 = time.perf_counter()
        r.piece_layer(START)
        t2 = time.perf_counter()
        r.piece_layer(MID)
        t3 = time.perf_counter()
        for i in range(args.frames):
            r.frame(START, None, seed=i)
        t4 = time.perf_counter()
        for i in range(args.frames):
            r.frame(START, HandPose("e5", 30.0 + i, "b"), seed=i)
        t5 = time.perf_counter()
        rows.append(((t1 - t0) * 1e3, (t3 - t2) * 1e3, (t4 - t3) / args.frames * 1e3, (t5 - t4) / args.frames * 1e3))
        print(f"scene {s}: static {rows[-1][0]:.0f} ms, new position {rows[-1][1]:.1f} ms, "
              f"frame {rows[-1][2]:.1f} ms, frame with hand {rows[-1][3]:.1f} ms")
    med = np.median(np.array(rows), axis=0)
    print(f"median at {w}x{h}{' with distortion' if args.distortion else ''}: static {med[0]:.0f} ms, "
          f"new position {med[1]:.1f} ms, frame {med[2]:.1f} ms, frame with hand {med[3]:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
