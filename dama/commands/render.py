"""Render a synthetic board scene: a script of board states to a video, or one state to an image.

The script has one observation string per line (32 characters of . w b W B, a1 c1 … h8 order);
blank lines and # comments are ignored; the first state is the starting position. A hand makes every
change between consecutive states, then each state is held still. Same seed, same output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--script", required=True, help="file of board states, one per line ('-' = stdin)")
    parser.add_argument("--out", required=True,
                        help="OUT.mp4 for a video (ground truth in OUT.json), OUT.png for the first state, "
                             "or a folder for numbered PNG frames")
    parser.add_argument("--seed", type=int, default=0, help="scene seed (default 0)")
    parser.add_argument("--size", default="1280x720", help="WIDTHxHEIGHT in pixels (default 1280x720)")
    parser.add_argument("--fps", type=float, default=15.0, help="video frame rate (default 15)")
    parser.add_argument("--hold", type=float, default=1.5, help="seconds each state is held still (default 1.5)")
    parser.add_argument("--tilt", type=float, default=50.0, help="maximum camera tilt in degrees (default 50)")
    parser.add_argument("--distortion", action="store_true", help="add random lens distortion")
    parser.add_argument("--shake", type=float, default=0.0, metavar="DEG",
                        help="hand-held camera wobble of about DEG degrees (video; default 0)")
    parser.add_argument("--bumps", type=int, default=0, help="number of times the camera is knocked (video)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def read_script(text: str, name: str = "script") -> list[str]:
    """Board states of a script; ValueError naming the first bad line."""
    states = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if len(line) != 32:
            raise ValueError(f"{name}:{n}: expected 32 characters of . w b W B, got {len(line)}: {line!r}")
        bad = sorted(set(line) - set(".wbWB"))
        if bad:
            raise ValueError(f"{name}:{n}: invalid character(s) {''.join(bad)!r} (allowed: . w b W B): {line!r}")
        states.append(line)
    if not states:
        raise ValueError(f"{name}: no board states (one 32-character line per state)")
    return states


def run(args: argparse.Namespace) -> int:
    from vision.render.params import parse_size

    try:
        size = parse_size(args.size)
        # written so that NaN fails each test too (every comparison with NaN is false)
        if not 0 < args.fps <= 240:
            raise ValueError("--fps must be in (0, 240]")
        if not 0 <= args.hold <= 3600:
            raise ValueError("--hold must be between 0 and 3600 seconds")
        if not 0 <= args.tilt <= 60:
            raise ValueError("--tilt must be between 0 and 60 degrees")
        if args.seed < 0:
            raise ValueError("--seed must not be negative")
        if not 0 <= args.shake <= 10 or args.bumps < 0:
            raise ValueError("--shake must be between 0 and 10 degrees and --bumps not negative")
        if args.script == "-":
            text, name = sys.stdin.read(), "<stdin>"
        else:
            try:
                text, name = Path(args.script).read_text(encoding="utf-8"), args.script
            except (OSError, UnicodeDecodeError) as exc:
                raise ValueError(f"cannot read script {args.script}: {exc}") from None
        states = read_script(text, name)
    except ValueError as exc:
        print(f"dama render: {exc}", file=sys.stderr)
        return 2

    import cv2
    import numpy as np

    from vision.render import random_scene_params, render_scene, render_video

    params = random_scene_params(np.random.default_rng(args.seed), size=size, tilt_max=args.tilt,
                                 distortion=args.distortion)
    out = Path(args.out)
    try:
        if out.suffix.lower() in IMAGE_SUFFIXES:
            r = render_scene(states[0], params, seed=args.seed)
            out.parent.mkdir(parents=True, exist_ok=True)
            if not cv2.imwrite(str(out), r.image):
                raise OSError(f"cannot write {out}")
            print(f"wrote {out} ({size[0]}x{size[1]})", file=sys.stderr)
            return 0

        def progress(done: int, total: int) -> None:
            if not args.quiet and (done % 25 == 0 or done == total):
                print(f"\rframe {done}/{total}", end="\n" if done == total else "", file=sys.stderr, flush=True)

        truth = render_video(states, out, seed=args.seed, fps=args.fps, hold_seconds=args.hold,
                             params=params, progress=progress, shake_deg=args.shake, bumps=args.bumps)
    except OSError as exc:
        print(f"dama render: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {out} ({truth['frame_count']} frames, {len(states)} states) and its ground truth",
          file=sys.stderr)
    return 0
