"""Compare the learned square classifier with the pipeline's colour models on the benchmark's scenes.

    .venv/bin/python -m vision.eval_squarenet [--n 300] [--seed 1] [--holdout-scenes] [--confusion]

The scenes are exactly those of ``dama bench vision`` (same generator, same draws, same noise seeds;
``vision.bench``'s helpers are imported). Every scene is read as the benchmark reads it, calibrated
(colour model from a start-position frame of the same scene) and uncalibrated (a1 given), by the
pipeline with its colour models alone (``squares="colour"``, the reader before the network) and with the
network (``squares="net"``, the default), in one run. ``--holdout-scenes`` draws the scenes instead only
from the palette choices and light that ``train_squares --holdout`` leaves out of training.
``--known-position`` adds a reader whose colours are learned from the scene's own position
(``learn_position``, as ``dama watch`` does for a set-up or resumed game) and reads a second picture of
the same board (other noise); scenes with fewer than two of a kind of square are left out of it.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.bench import _mirror, random_board, square_right
from vision.crowns import CROWN_PATH, CrownReader
from vision.geometry import SQUARE_NAMES, START_BOARD
from vision.pipeline import VisionPipeline
from vision.squarenet import CLASSES, MODEL_PATH, SquareNet


@dataclass
class Score:
    """Square, board and king figures of one reader."""

    squares: int = 0
    right: int = 0
    right_colour: int = 0
    boards: int = 0
    boards_right: int = 0
    boards_right_colour: int = 0
    kings: int = 0
    kings_found: int = 0
    kings_said: int = 0
    kings_said_right: int = 0
    ms: list[float] = field(default_factory=list)
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((6, 6), dtype=np.int64))

    def add(self, got: str, truth: str, occluded: str) -> None:
        r = rc = 0
        for g, t, o in zip(got, truth, occluded, strict=True):
            ok, ok_c = square_right(g, t, o)
            r += ok
            rc += ok_c
            self.kings += t in "WB" and o == "0"
            self.kings_found += t in "WB" and g == t
            self.kings_said += g in "WB"
            self.kings_said_right += g in "WB" and g == t
            if o == "0":
                self.confusion[CLASSES.index(t), CLASSES.index(g)] += 1
        self.squares += 32
        self.right += r
        self.right_colour += rc
        self.boards += 1
        self.boards_right += r == 32
        self.boards_right_colour += rc == 32

    def line(self, name: str) -> str:
        ms = f"{np.median(self.ms):.1f} ms ({np.percentile(self.ms, 95):.1f})" if self.ms else "-"
        sq, bd = max(self.squares, 1), max(self.boards, 1)
        return (f"  {name:<26} squares {100 * self.right / sq:7.3f} % "
                f"(kings as men {100 * self.right_colour / sq:7.3f} %)  boards "
                f"{100 * self.boards_right / bd:5.1f} % ({100 * self.boards_right_colour / bd:5.1f} %)"
                f"  kings recall {self.kings_found}/{self.kings} precision {self.kings_said_right}/{self.kings_said}"
                f"  {ms}")


def run(n: int, seed: int, size: tuple[int, int], holdout_scenes: bool, only: str | None = None,
        known_position: bool = False) -> dict[str, Score]:
    """Every scene read by four pipelines: colour models or network, calibrated or not (or ``only`` one);
    with ``known_position`` also the network with colours learned from the scene's own position."""
    from vision.render import HandPose, random_scene_params, render_scene
    from vision.train_squares import scene_params

    rng = np.random.default_rng(seed)
    scores = {f"{c}, {k}": Score() for c in ("calibrated", "uncalibrated") for k in ("colour", "net")}
    if only is not None:
        scores = {only: scores[only]}
    known = Score()
    t0 = time.time()
    for i in range(n):
        if holdout_scenes:
            params = scene_params(rng, size, holdout_only=True)[0]
        else:
            params = random_scene_params(rng, size=size)
        board = START_BOARD if rng.random() < 0.2 else random_board(rng)
        hand = None
        if rng.random() < 0.15:
            hand = HandPose(target_square=str(rng.choice(SQUARE_NAMES)), height_mm=float(rng.uniform(15, 80)))
        mirrored = rng.random() < 0.1
        r = render_scene(board, params, hand=hand, seed=i)
        start = render_scene(START_BOARD, params, seed=10_000 + i)
        image, corners, occluded, start_img = r.image, r.corners, r.occluded, start.image
        if mirrored:
            image, corners, board, occluded = _mirror(image, corners, board, occluded)
            start_img = np.ascontiguousarray(start_img[:, ::-1])
        for name, score in scores.items():
            calib, squares = name.startswith("calibrated"), name.split(", ")[1]
            if calib:
                vp = VisionPipeline(squares=squares)
                vp.learn_start_position(start_img)
                vp.reset_tracking()
            else:
                vp = VisionPipeline(profile={"corners": {"a1": list(corners["a1"])}}, squares=squares)
            res = vp.process(image, 0.0)
            if not res.found:
                score.add("?" * 32, board, "0" * 32)
                continue
            t1 = time.perf_counter()
            res = vp.process(image, 0.04)  # tracking mode: the cost of every later frame
            score.ms.append((time.perf_counter() - t1) * 1000)
            score.add(res.board, board, occluded)
        if known_position and hand is None:
            vp = VisionPipeline()
            try:
                report = vp.learn_position(image, board)
            except ValueError:  # too few of a kind of square to learn from
                report = None
            if report is not None:
                second = render_scene(board, params, seed=20_000 + i).image
                if mirrored:
                    second = np.ascontiguousarray(second[:, ::-1])
                vp.reset_tracking()
                res = vp.process(second, 0.0) if report["ok"] else None
                if res is None or not res.found:
                    known.add("?" * 32, board, "0" * 32)
                else:
                    known.add(res.board, board, "0" * 32)
        if (i + 1) % 25 == 0:
            print(f"  {i + 1}/{n} scenes, {time.time() - t0:.0f} s", file=sys.stderr)
    if known_position:
        scores["learned from the position, net"] = known
    return scores


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.eval_squarenet", description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1, help="scene seed (default 1, the benchmark's)")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--model", default=None, help="weights .npz instead of vision/models/squarenet.npz")
    ap.add_argument("--crown-model", default=None, help="weights .npz instead of vision/models/crownnet.npz")
    ap.add_argument("--holdout-scenes", action="store_true", help="only held-out woods, pieces and light")
    ap.add_argument("--confusion", action="store_true", help="print confusion matrices")
    ap.add_argument("--known-position", action="store_true",
                    help="also learn the colours from each scene's own position and read a second picture of it")
    args = ap.parse_args(argv)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        print(f"eval_squarenet: --size must look like 1280x720, not {args.size!r}", file=sys.stderr)
        return 2
    import vision.pipeline

    for path, name, kind in ((args.model, "default_net", SquareNet),
                             (args.crown_model, "default_crown_reader", CrownReader)):
        if path:
            try:
                net = kind.load(path)
            except ValueError as exc:
                print(f"eval_squarenet: {exc}", file=sys.stderr)
                return 2
            setattr(vision.pipeline, name, lambda net=net: net)  # the pipeline reads squares with this model
    cv2.setNumThreads(1)
    scores = run(args.n, args.seed, (w, h), args.holdout_scenes, known_position=args.known_position)
    print(f"eval_squarenet: {args.n} scenes, seed {args.seed}, {w}x{h}, model {args.model or MODEL_PATH}, "
          f"crown model {args.crown_model or CROWN_PATH}{', held-out scenes only' if args.holdout_scenes else ''}; "
          "accuracy exact (kings as men); "
          f"ms = whole pipeline per frame in tracking mode, median (p95)")
    for name, s in scores.items():
        print(s.line(name))
        if args.confusion:
            print("    rows truth . w b W B, columns . w b W B ?\n" + "\n".join("    " + str(r) for r in s.confusion))
    return 0


if __name__ == "__main__":
    sys.exit(main())
