"""Train the square classifier (``vision/squarenet.py``) on rendered scenes; offline, CPU only, seeded.

    .venv/bin/python -m vision.train_squares render --scenes 900 --boards 4 --covered --holding-rate 0.3 \
        --out /tmp/squares2.npz
    .venv/bin/python -m vision.train_squares render --scenes 400 --boards 4 --seed 2610 \
        --sizes 480x270,640x360,960x540 --covered --holding-rate 0.3 --out /tmp/squares3.npz
    .venv/bin/python -m vision.train_squares render --scenes 320 --boards 3 --seed 2611 --hand-rate 0.9 \
        --covered --holding-rate 0.3 --out /tmp/squares_hands.npz   # hands: covered squares labelled '?'
    for s in 2612 2613 2616 2617; do .venv/bin/python -m vision.train_squares render --scenes 1000 \
        --boards 4 --seed $s --covered --holding-rate 0.3 --out /tmp/squares_$s.npz; done   # more kings
    for s in 2614 2615; do .venv/bin/python -m vision.train_squares render --scenes 1000 --boards 3 \
        --seed $s --hand-rate 0.9 --covered --holding-rate 0.3 --out /tmp/squares_hands_$s.npz; done
    .venv/bin/python -m vision.train_squares render --scenes 1000 --boards 4 --seed 2618 --covered \
        --holding-rate 0.3 --tall-rate 1.0 --out /tmp/squares_tall_2618.npz   # thick pieces
    .venv/bin/python -m vision.train_squares render --scenes 1000 --boards 3 --seed 2619 --hand-rate 0.9 \
        --covered --holding-rate 0.3 --tall-rate 1.0 --out /tmp/squares_tall_hands_2619.npz
    .venv/bin/python -m vision.train_squares render --scenes 1000 --boards 4 --seed 2620 --covered \
        --holding-rate 0.3 --tall-rate 0.4 --printed-rate 1.0 --out /tmp/squares_printed_2620.npz   # printed
    .venv/bin/python -m vision.train_squares render --scenes 1000 --boards 3 --seed 2621 --hand-rate 0.9 \
        --covered --holding-rate 0.3 --tall-rate 0.4 --printed-rate 1.0 --out /tmp/squares_printed_hands_2621.npz
    SETS="/tmp/squares2.npz /tmp/squares3.npz /tmp/squares_hands.npz /tmp/squares_2612.npz /tmp/squares_2613.npz"
    HANDS="/tmp/squares_hands_2614.npz /tmp/squares_hands_2615.npz"
    THICK="/tmp/squares_tall_2618.npz /tmp/squares_tall_hands_2619.npz"
    PRINTED="/tmp/squares_printed_2620.npz /tmp/squares_printed_hands_2621.npz"
    .venv/bin/python -m vision.train_squares train --data $SETS $HANDS $THICK $PRINTED --no-strips --epochs 40 \
        --out vision/models/squarenet.npz          # the committed square network (colours and hands)
    OFFC=...   # the three sets of pieces off centre (2624-2626): docs/vision.md, "Training"
    .venv/bin/python -m vision.train_crowns --data $SETS $HANDS /tmp/squares_2616.npz /tmp/squares_2617.npz \
        $THICK $OFFC --epochs 40 --nets 2 --out vision/models/crownnet.npz   # the committed crown reader
    # the transfer test: both commands again with --holdout (no held-out wood, piece or light)

Rendering takes about five minutes per thousand scenes on one core (seven with four boards each; on
2026-12-06 the whole recipe took 25 minutes on two cores); training the square network about five minutes
(run with ``OPENBLAS_NUM_THREADS=1`` and one job per core: two jobs whose BLAS threads fight over two cores
ran five times slower). The square network was trained on the seven sets before 2616–2617 were rendered
(trained on all nine it read the benchmark's squares no better) and, since 2026-11-30, the two sets of
thick pieces (2618, 2619: ``--tall-rate``, discs as thick as those of the fhgr photos; before them it took
light ones for a hand) and the two of printed boards (2620, 2621: ``--printed-rate``, flat colours of any
hue; before them the fhgr photos' saturated empty squares read as pieces). Three more sets, two of dark men
stained like the dark squares and one of hands (2026-12-06), are

    .venv/bin/python -m vision.train_squares render --scenes 1000 --boards 4 --seed 2622 --covered \
        --holding-rate 0.3 --dark-like-rate 1.0 --out /tmp/squares_darklike_2622.npz
    .venv/bin/python -m vision.train_squares render --scenes 1000 --boards 3 --seed 2623 --hand-rate 0.9 \
        --covered --holding-rate 0.3 --dark-like-rate 0.5 --out /tmp/squares_darklike_hands_2623.npz
    .venv/bin/python -m vision.train_squares render --scenes 1000 --boards 3 --seed 2624 --hand-rate 0.9 \
        --covered --holding-rate 0.3 --out /tmp/squares_hands_2624.npz
    NEW="/tmp/squares_darklike_2622.npz /tmp/squares_darklike_hands_2623.npz /tmp/squares_hands_2624.npz"
    .venv/bin/python -m vision.train_squares train --data $SETS $HANDS $THICK $PRINTED $NEW --no-strips \
        --epochs 40 --out vision/models/squarenet_dark.npz   # the second opinion on dark men (with_dark_opinion)

Used alone as the square network, it read the stained men far better and pieces off centre and hands
worse (docs/vision.md, "Dark men stained like their squares"), so it is a second vote where the square
network is torn between bare wood and a dark piece ("A second opinion on dark men").

Two sets of pieces set down off their squares' centres (2026-12-06, measured and not adopted either:
docs/benchmarks.md, "2026-12-06 08:35") are

    .venv/bin/python -m vision.train_squares render --scenes 1000 --boards 4 --seed 2625 --covered \
        --holding-rate 0.3 --off-centre-rate 1.0 --out /tmp/squares_offcentre_2625.npz
    .venv/bin/python -m vision.train_squares render --scenes 1000 --boards 3 --seed 2626 --hand-rate 0.9 \
        --covered --holding-rate 0.3 --off-centre-rate 0.6 --out /tmp/squares_offcentre_hands_2626.npz

``train --init FILE --lr RATE`` fine-tunes a trained network instead of starting from random weights (its
standardisation and layer sizes kept): ``--init vision/models/squarenet.npz --epochs 8 --lr 3e-4`` on the
recipe's sets and 2622–2624, 3 min on one core, read the stained dark men better and the plain scenes
a little worse (measured, not adopted).

Each set is described (``squarenet.describe``) as it loads, so sixteen sets fit in memory (their raw
inputs together did not, on a 24 GB machine). The sets store
each square's inputs (``board_inputs``), height strips included, so a change to the strips'
sampling (``vision.heights``) means rendering them again; the mirrored margins of edge squares
(``vision.squarenet.mirror_edges``) are applied as a set loads (:func:`load_set`), old sets included.

The square network leaves the height strips out (``--no-strips``): trained with them, it read a dark man
on a small, blurred video as an empty square for seconds. Man or king is the crown reader's call
(``vision/crowns.py``), a convolutional network over the strips trained by ``vision/train_crowns.py``
on the same sets; a multilayer perceptron trained here with the strips (``--mirror`` adds every piece
mirrored) found fewer kings (docs/vision.md).

Two sets of hands of the three darker skin tones (2026-12-07, measured and not adopted: docs/vision.md,
"Darker hands") are

    for s in 2630 2631; do .venv/bin/python -m vision.train_squares render --scenes 1000 --boards 3 --seed $s \
        --hand-rate 0.9 --covered --holding-rate 0.3 --dark-skin-rate 1.0 --out /tmp/squares_dark_hands_$s.npz; done

Fine-tuned on them with 2612 and 2614 alone (``--init``, 8 epochs, ``--lr 3e-4``), the network saw the dark
hands far better and the real photos' thick discs and printed squares far worse; with 2618–2621 beside
them it kept the photos but lost most of the gain.

Scenes come from ``vision.render.random_scene_params`` driven by ``np.random.default_rng([seed, scene])``
(seed ``TRAIN_SEED`` = 2609, 2610 for the small frames, 2611, 2614–2615 and 2624 for the hands, 2612–2613
and 2616–2617 more of the first kind, 2618–2621 thick pieces and printed boards, 2622–2623 dark men like
the squares, 2625–2626 pieces off centre, 2630–2631 darker hands) — a generator family disjoint from the
benchmark's (``vision.bench`` draws its scenes from ``default_rng(1)`` and its noise seeds 0…n and
10 000…). Each scene is rendered with several boards
(more kings than in a game, some hands); the square labels come from the board string rendered. The top
view is warped from the renderer's true corners, jittered by a few hundredths of a square as the
localizer's fit would be, exactly as the pipeline warps it (``vision.cells.warp_lattice``).

Which wood tones, piece colours and light each scene got is stored per square, so a second model can be
trained without some of them (``--holdout``) and evaluated on scenes made only of them
(``vision/eval_squarenet.py --holdout-scenes --model …``).
"""

from __future__ import annotations

import argparse
import sys
import time
import zipfile
from dataclasses import replace

import cv2
import numpy as np

from vision.cells import features, warp_lattice
from vision.classify import dark_cells
from vision.geometry import FILES_RANKS, files_ranks_homography
from vision.heights import height_strips, strip_maps
from vision.squarenet import (
    CLASSES,
    COVERED,
    STRIP_IN_DESC,
    SquareNet,
    board_inputs,
    describe,
    flush_subnormals,
    mirror_edges,
    read_weights,
)
from vision.viewpoint import viewpoint

TRAIN_SEED = 2609  # the generator family of the training scenes (never the benchmark's seed 1)
HOLDOUT = {"dark_wood": 3, "light_piece": 3, "dark_piece": 2}  # indices into the renderer's palettes
COOL_LIGHT = 0.6  # held out too: scenes whose colour temperature is above this (-1 warm .. 1 cool)


def training_board(rng: np.random.Generator) -> str:
    """A board with every class well represented: men anywhere but their promotion row, 0–4 kings each."""
    sq = np.full(32, ".", dtype="<U1")
    free = list(rng.permutation(32))
    counts = (("W", int(rng.integers(0, 5))), ("B", int(rng.integers(0, 5))),
              ("w", int(rng.integers(0, 13))), ("b", int(rng.integers(0, 13))))
    for piece, n in counts:
        placed = [s for s in free if not ((piece == "w" and s >= 28) or (piece == "b" and s < 4))][:n]
        for s in placed:
            sq[s] = piece
            free.remove(s)
    return "".join(sq)


SEAMLESS_STREAM = 13  # render_dataset's own generator for seamless kings, beside the scene's
MATTE_STREAM = 14  # and for matte pieces
DARK_LIKE_STREAM = 15  # and for dark pieces stained like the dark squares
DARK_SKIN_STREAM = 16  # and for hands of the darker skin tones
DARK_SKINS = 3  # the darker half of vision.render.params.SKINS (by lightness)


def scene_params(rng: np.random.Generator, size: tuple[int, int], holdout_only: bool = False,
                 tall_rate: float = 0.0, printed_rate: float = 0.0, tilt_max: float = 50.0,
                 tall_height: tuple[float, float] | None = None, off_centre_rate: float = 0.0):
    """Random scene params plus the palette indices used (recorded for the hold-out split).

    ``holdout_only`` builds a scene entirely of held-out choices (dark wood, both piece colours, cool light).
    ``tall_rate``: share of scenes with thick pieces (:func:`vision.render.params.with_thick_pieces`); at 0
    no random number is drawn for it, so the sets rendered before it came are rendered the same.
    ``printed_rate``: share of scenes on a printed board (:func:`vision.render.params.with_printed_board`),
    likewise drawn only when above 0. ``tilt_max``: the steepest camera tilt in degrees (the benchmark's
    scenes stop at 50°; real photos taken from a chair reach 60° at the far edge). ``tall_height``: the
    thick pieces' height range in squares (default ``THICK_PIECE_HEIGHT``). ``off_centre_rate``: share of
    scenes with the pieces set down off their squares' centres (:func:`vision.render.params.with_pieces_off_centre`),
    drawn only when above 0.
    """
    from vision.render import params as P
    from vision.render import random_scene_params

    params = random_scene_params(rng, size=size, tilt_max=tilt_max)
    idx = {"dark_wood": int(rng.integers(len(P.DARK_WOODS))), "light_piece": int(rng.integers(len(P.LIGHT_PIECES))),
           "dark_piece": int(rng.integers(len(P.DARK_PIECES)))}
    temp = float(rng.uniform(-1, 1))
    if holdout_only:
        idx = dict(HOLDOUT)
        temp = float(rng.uniform(COOL_LIGHT, 1.0))
    params = replace(
        params,
        dark_wood=P._pick(rng, (P.DARK_WOODS[idx["dark_wood"]],)),
        light_piece=P._pick(rng, (P.LIGHT_PIECES[idx["light_piece"]],)),
        dark_piece=P._pick(rng, (P.DARK_PIECES[idx["dark_piece"]],)),
        tint=(1.0 + 0.07 * temp, 1.0, 1.0 - 0.06 * temp),
    )
    if tall_rate > 0 and rng.random() < tall_rate:
        params = P.with_thick_pieces(params, rng, tall_height or P.THICK_PIECE_HEIGHT)
    if printed_rate > 0 and rng.random() < printed_rate:
        params = P.with_printed_board(params, rng)
    if off_centre_rate > 0 and rng.random() < off_centre_rate:
        params = P.with_pieces_off_centre(params, rng)
    held = (idx["dark_wood"] == HOLDOUT["dark_wood"]) | (idx["light_piece"] == HOLDOUT["light_piece"]) \
        | (idx["dark_piece"] == HOLDOUT["dark_piece"]) | (temp > COOL_LIGHT)
    return params, bool(held)


def board_samples(image: np.ndarray, corners: dict, rng: np.random.Generator | None, jitter: float = 0.03):
    """(32, N_INPUT) inputs in observation order from a frame and its true corners (lattice = files×ranks)."""
    src = FILES_RANKS + (rng.normal(0, jitter, FILES_RANKS.shape) if rng is not None else 0.0)
    h = files_ranks_homography(corners, src)
    top = warp_lattice(image, h)
    # lattice (u, v) = (file, rank): a1 is dark, so the bright cells have odd parity and the dark cells
    # in lattice order are exactly the observation order a1 c1 … h8
    centres = dark_cells(1) + 0.5
    shift = viewpoint(h, (image.shape[1], image.shape[0])).shift(centres)
    strips = height_strips(image, strip_maps(h, centres, shift))
    return board_inputs(top, features(top, 1), 1, shift=shift, strips=strips)


def render_dataset(n_scenes: int, boards_per_scene: int = 4, seed: int = TRAIN_SEED,
                   sizes: tuple[tuple[int, int], ...] | None = None, hand_rate: float = 0.2,
                   covered: bool = False, holding_rate: float = 0.0, tall_rate: float = 0.0,
                   printed_rate: float = 0.0, tilt_max: float = 50.0,
                   tall_height: tuple[float, float] | None = None,
                   off_centre_rate: float = 0.0, seamless_rate: float = 0.0,
                   matte_rate: float = 0.0, dark_like_rate: float = 0.0,
                   dark_skin_rate: float = 0.0) -> dict[str, np.ndarray]:
    """Render the training set: inputs, labels (0..5), held-out flag, scene id and square (observation order) per row.

    ``sizes``: frame sizes drawn uniformly per scene; None draws 1280×720 (60 %) or 640×360.
    ``hand_rate``: share of boards with a hand or arm over them. Squares the renderer marks occluded are
    left out, or with ``covered`` kept with the label ``COVERED`` (what the network must learn to say
    when a hand hides a square). ``holding_rate``: share of those hands holding a piece. ``tall_rate``:
    share of scenes with thick pieces, ``printed_rate`` on a printed board, ``tilt_max``, ``tall_height`` and
    ``off_centre_rate`` as in :func:`scene_params`. ``seamless_rate``: share of scenes whose kings are drawn
    as one tall disc with no seam (:func:`vision.render.params.with_seamless_kings`), decided by a generator
    of its own, so every scene is otherwise the one rendered without it. ``matte_rate``: likewise, share of
    scenes whose pieces' rims glint little or not at all (:func:`vision.render.params.with_matte_pieces`).
    ``dark_like_rate``: likewise, share of scenes whose dark pieces are stained like the dark squares
    (:func:`vision.render.params.with_dark_pieces_like_squares`). ``dark_skin_rate``: likewise, share of
    scenes whose hands take one of the ``DARK_SKINS`` darker skin tones (the pipeline detects such hands less
    often: docs/vision.md, "Darker hands").
    """
    from vision.geometry import SQUARE_NAMES
    from vision.render import HandPose, render_scene
    from vision.render.params import SKINS, with_dark_pieces_like_squares, with_matte_pieces, with_seamless_kings

    darker = sorted(SKINS, key=sum)[:DARK_SKINS]

    xs, ys, held, scene_id, squares = [], [], [], [], []
    t0 = time.time()
    for s in range(n_scenes):
        rng = np.random.default_rng([seed, s])
        if sizes is None:
            size = (1280, 720) if rng.random() < 0.6 else (640, 360)
        else:
            size = sizes[int(rng.integers(len(sizes)))]
        params, is_held = scene_params(rng, size, tall_rate=tall_rate, printed_rate=printed_rate,
                                       tilt_max=tilt_max, tall_height=tall_height, off_centre_rate=off_centre_rate)
        if seamless_rate > 0 and np.random.default_rng([seed, s, SEAMLESS_STREAM]).random() < seamless_rate:
            params = with_seamless_kings(params)
        matte = np.random.default_rng([seed, s, MATTE_STREAM])
        if matte_rate > 0 and matte.random() < matte_rate:
            params = with_matte_pieces(params, matte)
        dark_like = np.random.default_rng([seed, s, DARK_LIKE_STREAM])
        if dark_like_rate > 0 and dark_like.random() < dark_like_rate:
            params = with_dark_pieces_like_squares(params, dark_like)
        dark_skin = np.random.default_rng([seed, s, DARK_SKIN_STREAM])
        if dark_skin_rate > 0 and dark_skin.random() < dark_skin_rate:
            base, gain = darker[int(dark_skin.integers(len(darker)))], dark_skin.uniform(0.9, 1.1)
            params = replace(params, skin=tuple(float(np.clip(c * gain, 0, 255)) for c in base))
        for _ in range(boards_per_scene):
            board = "wwwwwwwwwwww........bbbbbbbbbbbb" if rng.random() < 0.1 else training_board(rng)
            hand = None
            if rng.random() < hand_rate:
                hand = HandPose(target_square=str(rng.choice(SQUARE_NAMES)), height_mm=float(rng.uniform(15, 80)),
                                holding=str(rng.choice(["w", "b", "W", "B"])) if rng.random() < holding_rate else None)
            r = render_scene(board, params, hand=hand, seed=int(rng.integers(2**31)))
            hidden = np.array([o == "1" for o in r.occluded])
            keep = np.ones(32, dtype=bool) if covered else ~hidden
            x = board_samples(r.image, r.corners, rng)
            labels = np.array([CLASSES.index(c) for c in board])
            labels[hidden] = COVERED
            xs.append(x[keep])
            ys.append(labels[keep])
            held.append(np.full(int(keep.sum()), is_held))
            scene_id.append(np.full(int(keep.sum()), s))
            squares.append(np.flatnonzero(keep))
        if (s + 1) % 10 == 0:
            print(f"  {s + 1}/{n_scenes} scenes, {time.time() - t0:.0f} s", file=sys.stderr)
    return {"x": np.concatenate(xs).astype(np.float32), "y": np.concatenate(ys).astype(np.int64),
            "held": np.concatenate(held), "scene": np.concatenate(scene_id),
            "square": np.concatenate(squares).astype(np.int8)}


def train(x: np.ndarray, y: np.ndarray, hidden: tuple[int, int] = (128, 64), epochs: int = 40, seed: int = 0,
          batch: int = 256, lr: float = 2e-3, decay: float = 1e-4,
          init: SquareNet | None = None) -> dict[str, np.ndarray]:
    """Softmax MLP on :func:`describe` rows (turn-invariant, so no augmentation), Adam with a cosine
    schedule and class weights; returns the weights for SquareNet.

    ``init``: a trained network to start from instead of random weights, its standardisation (``mu``,
    ``sd``) kept, so that a fine-tuning keeps what the network and the pipeline's rules around it agree on;
    ``hidden`` is then the stored one's."""
    rng = np.random.default_rng(seed)
    if init is not None:
        mu, sd = init.mu, init.sd
        if mu.shape[0] != x.shape[1]:
            raise ValueError(f"the network to start from reads {mu.shape[0]} inputs, these rows {x.shape[1]}")
        params = [a.copy() for layer in init.layers for a in layer]
    else:
        mu = x.mean(axis=0)
        sd = x.std(axis=0) + 1e-3
        sizes = (x.shape[1], *hidden, len(CLASSES))
        params = []
        for a, b in zip(sizes[:-1], sizes[1:], strict=True):
            params += [rng.normal(0, np.sqrt(2.0 / a), (a, b)).astype(np.float32), np.zeros(b, np.float32)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    # kings are rarer: weight classes by inverse frequency (square root, so men still dominate)
    freq = np.bincount(y, minlength=len(CLASSES)) / len(y)
    cw = (1.0 / np.sqrt(np.maximum(freq, 1e-4))).astype(np.float32)
    cw /= (cw * freq).sum()
    step = 0
    n = len(x)
    for ep in range(epochs):
        order = rng.permutation(n)
        loss_sum = 0.0
        rate = lr * 0.5 * (1 + np.cos(np.pi * ep / epochs))  # cosine schedule
        for start in range(0, n, batch):
            idx = order[start:start + batch]
            xb = ((x[idx] - mu) / sd).astype(np.float32)
            yb = y[idx]
            acts = [xb]
            h = xb
            for k in range(0, len(params), 2):
                h = h @ params[k] + params[k + 1]
                if k < len(params) - 2:
                    h = np.maximum(h, 0)
                acts.append(h)
            z = h - h.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            w = cw[yb]
            loss_sum += float(-(w * np.log(p[np.arange(len(yb)), yb] + 1e-9)).sum())
            g = p
            g[np.arange(len(yb)), yb] -= 1
            g *= (w / len(yb))[:, None]
            grads = [None] * len(params)
            for k in range(len(params) - 2, -1, -2):
                a_in = acts[k // 2]
                grads[k] = a_in.T @ g + decay * params[k]
                grads[k + 1] = g.sum(axis=0)
                if k > 0:
                    g = (g @ params[k].T) * (acts[k // 2] > 0)
            step += 1
            for i, gr in enumerate(grads):
                m[i] = 0.9 * m[i] + 0.1 * gr
                v[i] = 0.999 * v[i] + 0.001 * gr * gr
                mh = m[i] / (1 - 0.9 ** step)
                vh = v[i] / (1 - 0.999 ** step)
                params[i] -= (rate * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
                params[i] = flush_subnormals(params[i])  # decayed dead weights would slow every product
        print(f"  epoch {ep + 1}/{epochs}: loss {loss_sum / n:.4f}", file=sys.stderr)
    out = {"mu": mu.astype(np.float32), "sd": sd.astype(np.float32)}
    for k in range(len(params) // 2):
        out[f"w{k}"] = params[2 * k]
        out[f"b{k}"] = params[2 * k + 1]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train_squares", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render", help="render the training squares to an .npz")
    r.add_argument("--scenes", type=int, default=260)
    r.add_argument("--boards", type=int, default=4, help="boards per scene")
    r.add_argument("--out", required=True)
    r.add_argument("--seed", type=int, default=TRAIN_SEED, help=f"scene generator family (default {TRAIN_SEED})")
    r.add_argument("--hand-rate", type=float, default=0.2, help="share of boards with a hand over them")
    r.add_argument("--covered", action="store_true", help="keep occluded squares, labelled covered ('?')")
    r.add_argument("--holding-rate", type=float, default=0.0, help="share of the hands holding a piece")
    r.add_argument("--tall-rate", type=float, default=0.0, help="share of scenes with thick pieces")
    r.add_argument("--printed-rate", type=float, default=0.0,
                   help="share of scenes on a printed board (flat colours of any hue, no grain)")
    r.add_argument("--off-centre-rate", type=float, default=0.0,
                   help="share of scenes with the pieces up to 0.22 of a square off their squares' centres")
    r.add_argument("--seamless-rate", type=float, default=0.0,
                   help="share of scenes whose kings are one tall disc, no seam between their two discs")
    r.add_argument("--matte-rate", type=float, default=0.0,
                   help="share of scenes whose pieces' rims glint little or not at all (oiled or worn wood)")
    r.add_argument("--dark-like-rate", type=float, default=0.0,
                   help="share of scenes whose dark pieces are stained like the dark squares")
    r.add_argument("--dark-skin-rate", type=float, default=0.0,
                   help="share of scenes whose hands have one of the three darker skin tones")
    r.add_argument("--tilt-max", type=float, default=50.0,
                   help="steepest camera tilt in degrees, up to 62 (default 50)")
    r.add_argument("--tall-height", default=None,
                   help="thick pieces' height range in squares, e.g. 0.4,0.6 (default: vision.render.params."
                        "THICK_PIECE_HEIGHT)")
    r.add_argument("--sizes", default=None,
                   help="frame sizes drawn uniformly per scene, e.g. 480x270,640x360 (default: 60 %% 1280x720, "
                        "40 %% 640x360)")
    t = sub.add_parser("train", help="train the network on a rendered set")
    t.add_argument("--data", required=True, nargs="+", help="one or more rendered sets")
    t.add_argument("--out", required=True)
    t.add_argument("--epochs", type=int, default=40)
    t.add_argument("--hidden", default="128,64", help="hidden layer sizes (default 128,64)")
    t.add_argument("--decay", type=float, default=1e-4, help="L2 weight decay (default 1e-4)")
    t.add_argument("--init", default=None,
                   help="start from this trained network (fine-tuning: its standardisation and layer sizes kept)")
    t.add_argument("--lr", type=float, default=2e-3, help="peak learning rate of the cosine schedule (default 2e-3)")
    t.add_argument("--holdout", action="store_true", help="leave out every square of a held-out scene")
    t.add_argument("--no-strips", action="store_true",
                   help="leave the height strips out (the square network for colours and hands; the crown network "
                        "reads them)")
    t.add_argument("--seed", type=int, default=0,
                   help="seed of the initial weights and the batch order (default 0, the committed network's)")
    t.add_argument("--mirror", action="store_true",
                   help="add every piece again with its height strip mirrored across (more kings to learn from)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if args.cmd == "render":
        try:
            sizes = None if args.sizes is None else tuple(
                tuple(int(v) for v in sz.lower().split("x")) for sz in args.sizes.split(","))
        except ValueError:
            print(f"train_squares: --sizes must look like 1280x720,640x360, not {args.sizes!r}", file=sys.stderr)
            return 2
        try:
            tall_height = None if args.tall_height is None else tuple(float(v) for v in args.tall_height.split(","))
            if tall_height is not None and (len(tall_height) != 2 or not 0 < tall_height[0] <= tall_height[1]):
                raise ValueError
        except ValueError:
            print(f"train_squares: --tall-height must look like 0.4,0.6, not {args.tall_height!r}", file=sys.stderr)
            return 2
        # random_scene_params keeps tilt plus half the field of view under 82° with a field of 40° or more,
        # which it can only up to 62°
        if not 0.0 <= args.tilt_max <= 62.0:
            print(f"train_squares: --tilt-max must lie in 0..62 degrees, not {args.tilt_max}", file=sys.stderr)
            return 2
        data = render_dataset(args.scenes, args.boards, args.seed, sizes, args.hand_rate, args.covered,
                              args.holding_rate, args.tall_rate, args.printed_rate, args.tilt_max, tall_height,
                              args.off_centre_rate, args.seamless_rate, args.matte_rate, args.dark_like_rate,
                              args.dark_skin_rate)
        np.savez_compressed(args.out, **data)
        print(f"{len(data['y'])} squares, per class {np.bincount(data['y'], minlength=len(CLASSES)).tolist()}, "
              f"{int(data['held'].sum())} from held-out scenes -> {args.out}")
        return 0
    parts = []
    try:
        for path in args.data:  # described one set at a time: eleven sets of raw inputs overflow 24 GB
            d = load_set(path)
            x = d["x"]
            desc = describe_rows(x)
            parts.append((desc, d["y"], d["held"], held_back(d["scene"])))
            del d, x
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        print(f"train_squares: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    desc, y, held, val = (np.concatenate(a) for a in zip(*parts, strict=True))
    del parts
    if args.holdout:
        desc, y, val = desc[~held], y[~held], val[~held]
    try:
        hidden = tuple(int(v) for v in args.hidden.split(","))
    except ValueError:
        print(f"train_squares: --hidden must look like 64,32, not {args.hidden!r}", file=sys.stderr)
        return 2
    xt, yt = desc[~val], y[~val]
    if args.no_strips:  # SquareNet leaves the strip out of its input by itself for a network this wide
        xt = np.delete(xt, STRIP_IN_DESC, axis=1)
    if args.mirror and not args.no_strips:
        xt, yt = with_mirrored_strips(xt, yt)
    try:
        init = None if args.init is None else SquareNet(read_weights(args.init, "network to start from"))
        weights = train(xt, yt, hidden=hidden, epochs=args.epochs, seed=args.seed, lr=args.lr, decay=args.decay,
                        init=init)
    except ValueError as exc:
        print(f"train_squares: cannot start from {args.init}: {exc}", file=sys.stderr)
        return 2
    from vision.squarenet import decide

    net = SquareNet(weights)
    if val.any():
        pred, _ = decide(net.forward(desc[val]))
        print(f"validation (whole scenes not trained on): {100 * (pred == y[val]).mean():.3f} % of {int(val.sum())} "
              f"squares; confusion (rows truth {CLASSES}):\n{confusion(y[val], pred)}")
    else:
        print("validation: none (a set needs ten scenes or more for its last tenth to be held back)")
    np.savez_compressed(args.out, **weights)
    print(f"weights -> {args.out}")
    return 0


def load_set(path: str, keep: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """A rendered set's arrays (``x`` only for the rows ``keep`` selects, if given), its inputs brought to
    this version: the patches' margins beyond the board's edge mirrored (``vision.squarenet.mirror_edges``).

    Each row's square comes from the set's ``square`` array (observation order, which at the bright parity
    the renderer's lattice has is also lattice order); sets rendered before it was stored hold whole
    boards of 32 rows each (every recipe of the module docstring keeps covered squares), so the row's
    place in its board is its square. Mirroring is idempotent: rows rendered with it are unchanged.
    """
    with np.load(path) as d:
        out = {k: d[k] for k in d.files if k != "x"}
        n = len(out["y"])
        if "square" in out:
            square = out["square"].astype(np.int64)
        elif n % 32 == 0:
            square = np.arange(n) % 32
        else:
            raise ValueError(f"{path} has no square per row and is not whole boards of 32; render it again")
        sel = np.arange(n) if keep is None else np.flatnonzero(keep)
        x = d["x"][sel] if keep is not None else d["x"]
    cells = dark_cells(1)
    x = np.ascontiguousarray(x, dtype=np.float32)
    mirror_edges(x, cells[square[sel], 1], cells[square[sel], 0])
    out["x"] = x
    return out


def describe_rows(x: np.ndarray, chunk: int = 20_000) -> np.ndarray:
    """:func:`vision.squarenet.describe` of a set's raw rows, ``chunk`` at a time: a set's worth at once
    would need several times its raw size in temporaries."""
    return np.concatenate([describe(x[i:i + chunk]) for i in range(0, len(x), chunk)])


def held_back(scene: np.ndarray) -> np.ndarray:
    """(N,) bool: squares of the last tenth of one rendered set's scenes (``scene`` ids), the validation
    split: whole scenes, so no square of a scene the network learned from is scored."""
    scene = np.asarray(scene, dtype=np.float64)
    return scene / (scene.max() + 1) >= 0.9


def with_mirrored_strips(desc: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows plus every piece's row again with its height strip mirrored across its direction.

    A piece seen in a mirror is still a man or a king of the same height; the strip's two sides are
    otherwise lit and shadowed by the scene's light. The network overfitted the kings (97 % of the
    training kings at a steep view against 90 % of unseen ones); this doubles the pieces it learns from.
    """
    from vision.heights import ACROSS, ALONG

    piece = (y >= 1) & (y <= 4)
    extra = desc[piece].copy()
    strips = extra[:, STRIP_IN_DESC].reshape(-1, len(ACROSS), len(ALONG))
    extra[:, STRIP_IN_DESC] = strips[:, ::-1].reshape(len(extra), -1)
    return np.concatenate([desc, extra]), np.concatenate([y, y[piece]])


def confusion(truth: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Counts per class pair, rows truth, columns prediction (order of ``CLASSES``)."""
    c = np.zeros((len(CLASSES), len(CLASSES)), dtype=np.int64)
    np.add.at(c, (truth, pred), 1)
    return c


if __name__ == "__main__":
    sys.exit(main())
