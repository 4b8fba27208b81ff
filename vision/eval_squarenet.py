"""Compare the learned square classifier with the pipeline's colour models on the benchmark's scenes.

    .venv/bin/python -m vision.eval_squarenet [--n 300] [--seed 1] [--model FILE] [--holdout-scenes]

The scenes are exactly those of ``dama bench vision`` (same generator, same draws, same noise seeds;
``vision.bench``'s helpers are imported). Every scene is read by the pipeline as the benchmark reads it,
calibrated (colour model from a start-position frame of the same scene) and uncalibrated (a1 given);
then, on the same board fit and rotation, by the square network alone and by the network combined with
the learned colour model. ``?`` squares are the pipeline's in every column. ``--holdout-scenes`` draws the
scenes instead only from the palette choices and light that ``train_squares --holdout`` leaves out.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision import orientation as orient
from vision.bench import _mirror, random_board
from vision.cells import features, warp_lattice
from vision.geometry import SQUARE_NAMES, START_BOARD
from vision.occlusion import covered_light_cells
from vision.pipeline import VisionPipeline, _observation_order
from vision.squarenet import CLASSES, COLOUR_OF, SquareNet, board_inputs, decide


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
            ok = g == t or (o == "1" and g == "?")
            r += ok
            rc += ok or g.lower() == t.lower()
            self.kings += t in "WB" and o == "0"
            self.kings_found += t in "WB" and g == t
            self.kings_said += g in "WB"
            self.kings_said_right += g in "WB" and g == t
            if o == "0":
                self.confusion[CLASSES.index(t), (CLASSES + "?").index(g)] += 1
        self.squares += 32
        self.right += r
        self.right_colour += rc
        self.boards += 1
        self.boards_right += r == 32
        self.boards_right_colour += rc == 32

    def line(self, name: str) -> str:
        ms = f"{np.median(self.ms):.2f} ms (p95 {np.percentile(self.ms, 95):.2f})" if self.ms else "-"
        sq, bd = max(self.squares, 1), max(self.boards, 1)
        return (f"  {name:<26} squares {100 * self.right / sq:7.3f} % "
                f"(kings as men {100 * self.right_colour / sq:7.3f} %)  boards "
                f"{100 * self.boards_right / bd:5.1f} % ({100 * self.boards_right_colour / bd:5.1f} %)"
                f"  kings recall {self.kings_found}/{self.kings} precision {self.kings_said_right}/{self.kings_said}"
                f"  classify {ms}")


def colour_probabilities(model, vec: np.ndarray, temper: float = 0.25) -> np.ndarray:
    """(32, 3) class probabilities of the learned colour model (diagonal Gaussians), tempered.

    The Gaussians are over-confident (their features are not independent): ``temper`` scales the
    log-likelihoods down before they are combined with the network.
    """
    z = (vec[:, None, :] - model.mean[None]) / model.std[None]
    nll = 0.5 * (z ** 2).sum(axis=2) + np.log(model.std).sum(axis=1)[None]
    a = -temper * nll
    a -= a.max(axis=1, keepdims=True)
    p = np.exp(a)
    return p / p.sum(axis=1, keepdims=True)


def net_reading(vp: VisionPipeline, net: SquareNet, image: np.ndarray, pipeline_board: str,
                combine: bool) -> tuple[str, float]:
    """The board read by the network on the pipeline's own fit and rotation; ``?`` kept from the pipeline."""
    from vision.classify import cell_vectors

    fit = vp._fit
    t0 = time.perf_counter()
    top = warp_lattice(image, fit.h)
    feat = features(top)
    covered = covered_light_cells(feat, fit.bright_parity, fit.contrast)
    prob = net.probabilities(board_inputs(top, feat, fit.bright_parity, ~covered))
    if combine and vp.model is not None:
        prob = prob * colour_probabilities(vp.model, cell_vectors(feat, fit.bright_parity, ~covered))[:, COLOUR_OF]
        prob /= prob.sum(axis=1, keepdims=True)
    labels, _ = decide(prob)
    ms = (time.perf_counter() - t0) * 1000
    k = vp._rotation if vp._rotation is not None else orient.default_rotation(fit.h, fit.bright_parity)
    order = _observation_order(fit.bright_parity, k, orient.a1_is_dark(k, fit.bright_parity))
    chars = np.array(list(CLASSES))[labels[order]]
    out = "".join(c if p != "?" else "?" for c, p in zip(chars, pipeline_board, strict=True))
    return out, ms


def run(n: int, seed: int, net: SquareNet, size: tuple[int, int], holdout_scenes: bool) -> dict[str, Score]:
    from vision.render import HandPose, random_scene_params, render_scene
    from vision.train_squares import scene_params

    rng = np.random.default_rng(seed)
    names = ("calibrated, colour model", "calibrated, net", "calibrated, net x colour",
             "uncalibrated, default", "uncalibrated, net")
    scores = {k: Score() for k in names}
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
        for calib in (True, False):
            vp = VisionPipeline() if calib else VisionPipeline(profile={"corners": {"a1": list(corners["a1"])}})
            if calib:
                vp.learn_start_position(start_img)
                vp.reset_tracking()
            t1 = time.perf_counter()
            res = vp.process(image, 0.0)
            ms = (time.perf_counter() - t1) * 1000
            base = scores["calibrated, colour model" if calib else "uncalibrated, default"]
            if not res.found:
                for name in names[:3] if calib else names[3:]:
                    scores[name].add("?" * 32, board, "0" * 32)
                continue
            base.add(res.board, board, occluded)
            base.ms.append(ms)
            got, ms_net = net_reading(vp, net, image, res.board, combine=False)
            scores["calibrated, net" if calib else "uncalibrated, net"].add(got, board, occluded)
            scores["calibrated, net" if calib else "uncalibrated, net"].ms.append(ms_net)
            if calib:
                got, ms_net = net_reading(vp, net, image, res.board, combine=True)
                scores["calibrated, net x colour"].add(got, board, occluded)
                scores["calibrated, net x colour"].ms.append(ms_net)
        if (i + 1) % 25 == 0:
            print(f"  {i + 1}/{n} scenes, {time.time() - t0:.0f} s", file=sys.stderr)
    return scores


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.eval_squarenet", description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1, help="scene seed (default 1, the benchmark's)")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--model", default=None, help="weights .npz (default vision/models/squarenet.npz)")
    ap.add_argument("--holdout-scenes", action="store_true", help="only held-out woods, pieces and light")
    ap.add_argument("--confusion", action="store_true", help="print confusion matrices")
    args = ap.parse_args(argv)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
        net = SquareNet.load(args.model) if args.model else SquareNet.load()
    except ValueError as exc:
        print(f"eval_squarenet: {exc}", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    scores = run(args.n, args.seed, net, (w, h), args.holdout_scenes)
    print(f"eval_squarenet: {args.n} scenes, seed {args.seed}, {w}x{h}, model {args.model or 'default'}"
          f"{', held-out scenes only' if args.holdout_scenes else ''}; accuracy exact (kings as men); "
          f"classify = ms for the pipeline frame (colour models) or for the network step alone")
    for name, s in scores.items():
        print(s.line(name))
        if args.confusion:
            print("    rows truth . w b W B, columns . w b W B ?\n" + "\n".join("    " + str(r) for r in s.confusion))
    return 0


if __name__ == "__main__":
    sys.exit(main())
