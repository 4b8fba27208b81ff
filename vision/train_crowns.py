"""Train the crown reader (``vision/crowns.py``) on rendered sets; offline, CPU only, seeded.

The sets are those of ``vision/train_squares.py`` (``render``); only their pieces are used:

    SETS=...   # vision/train_squares.py's recipe: the nine thin sets and the two of thick pieces (not the printed)
    export OPENBLAS_NUM_THREADS=1   # one core per run: two runs side by side, not two threads fighting
    for s in 0 1; do .venv/bin/python -m vision.train_crowns --data $SETS --epochs 40 --seed $s \
        --out /tmp/crown_$s.npz & done; wait   # about 20 min per network (26 s an epoch), one core each
    # the committed crown reader is those two in one file (keys suffixed _0 and _1, n_nets 2), the same as
    # one run with --nets 2 (which trains them one after the other)
    .venv/bin/python -m vision.train_crowns --data $SETS --epochs 40 --nets 2 --holdout \
        --out /tmp/crownnet_holdout.npz       # the transfer test (no held-out wood, piece or light)

Seamless kings (measured 2026-12-02, not adopted: docs/benchmarks.md). The sets above draw every king with a
seam between its discs; rendered again with ``train_squares render … --seamless-rate 0.5`` (the same scenes,
half of them with seamless kings, about 4 min per thousand scenes on this machine) and trained by the first
command, the pair found 396 of 512 seamless kings on the benchmark instead of 177, but crowned thick men.
The "mixed" pair kept squares2, 2612, 2613 and 2617 seamed and the other seven at 0.5.

The last tenth of each set's scenes is held back (whole scenes) and the figures printed for it: the
kings found at the threshold the pipeline uses (``vision.squarenet.KING_THRESHOLD``) and how many men
were taken for kings. ``--nets N`` trains N networks from different initial weights and stores them in
one file; the reader averages their logits (networks trained apart err apart).

Adam with a cosine schedule, a logistic loss with the two classes weighted by the square root of their
rarity (kings are a fifth of the training pieces and rarer in games), L2 weight decay.
"""

from __future__ import annotations

import argparse
import sys
import time
import zipfile

import numpy as np

from vision.crowns import PARAMS, CrownReader, conv_forward, conv_outputs, crown_inputs
from vision.squarenet import KING_THRESHOLD, flush_subnormals
from vision.train_squares import describe_rows, held_back, load_set


def _he(rng: np.random.Generator, a: int, b: int) -> np.ndarray:
    return rng.normal(0.0, np.sqrt(2.0 / a), (a, b)).astype(np.float32)


def init(rng: np.random.Generator, channels: int, n_other: int, k1: int = 7, f1: int = 24,
         k2: int = 5, f2: int = 32, hidden: tuple[int, int] = (128, 64)) -> dict[str, np.ndarray]:
    """Random initial parameters (He) of one crown network."""
    flat = conv_outputs(k1, k2, f2)
    z = np.zeros
    return {"c1": _he(rng, k1 * channels, f1), "cb1": z(f1, np.float32), "c2": _he(rng, k2 * f1, f2),
            "cb2": z(f2, np.float32), "w0": _he(rng, flat + n_other, hidden[0]), "b0": z(hidden[0], np.float32),
            "w1": _he(rng, hidden[0], hidden[1]), "b1": z(hidden[1], np.float32), "w2": _he(rng, hidden[1], 1),
            "b2": z(1, np.float32)}


def _fold_windows(dcols: np.ndarray, k: int, channels: int, length: int) -> np.ndarray:
    """Gradient of :func:`vision.crowns.unfold`: each window's share added back to its positions."""
    b, positions, _ = dcols.shape
    d = dcols.reshape(b, positions, k, channels)
    out = np.zeros((b, length, channels), dtype=np.float32)
    for j in range(k):
        out[:, j:j + positions] += d[:, :, j]
    return out


def backward(p: dict[str, np.ndarray], cache: tuple, g: np.ndarray) -> dict[str, np.ndarray]:
    """Gradients of the parameters for the loss's gradient ``g`` (B,) with respect to the logits."""
    strips, c1, h1, arg, pooled, c2, h2, z0, a0, a1 = cache
    b = len(strips)
    gr: dict[str, np.ndarray] = {}
    g = g[:, None].astype(np.float32)
    gr["w2"], gr["b2"] = a1.T @ g, g.sum(axis=0)
    g = (g @ p["w2"].T) * (a1 > 0)
    gr["w1"], gr["b1"] = a0.T @ g, g.sum(axis=0)
    g = (g @ p["w1"].T) * (a0 > 0)
    gr["w0"], gr["b0"] = z0.T @ g, g.sum(axis=0)
    g = g @ p["w0"].T
    f1, f2 = h1.shape[2], h2.shape[2]
    g2 = g[:, :h2.shape[1] * f2].reshape(h2.shape) * (h2 > 0)
    gr["c2"], gr["cb2"] = c2.reshape(-1, c2.shape[2]).T @ g2.reshape(-1, f2), g2.sum(axis=(0, 1))
    k2 = p["c2"].shape[0] // f1
    dpooled = _fold_windows(g2 @ p["c2"].T, k2, f1, pooled.shape[1])
    half = pooled.shape[1]
    dpairs = np.zeros((b, half, 2, f1), dtype=np.float32)
    np.put_along_axis(dpairs, arg[:, :, None, :], dpooled[:, :, None, :], axis=2)
    dh1 = np.zeros_like(h1)
    dh1[:, :2 * half] = dpairs.reshape(b, 2 * half, f1)
    dh1 *= h1 > 0
    gr["c1"], gr["cb1"] = c1.reshape(-1, c1.shape[2]).T @ dh1.reshape(-1, f1), dh1.sum(axis=(0, 1))
    return gr


def train_one(strips: np.ndarray, other: np.ndarray, king: np.ndarray, weight: np.ndarray, epochs: int = 30,
              seed: int = 0, batch: int = 256, lr: float = 2e-3, decay: float = 1e-4) -> dict[str, np.ndarray]:
    """One network's parameters (``other`` standardised; ``king`` 0/1; ``weight`` per sample)."""
    rng = np.random.default_rng(seed)
    p = init(rng, strips.shape[2], other.shape[1])
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    step, n = 0, len(strips)
    for ep in range(epochs):
        t0 = time.time()
        order = rng.permutation(n)
        rate = lr * 0.5 * (1 + np.cos(np.pi * ep / epochs))
        loss = 0.0
        for start in range(0, n, batch):
            idx = order[start:start + batch]
            z, cache = conv_forward(p, strips[idx], other[idx], keep=True)
            prob = 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))
            y, w = king[idx], weight[idx]
            loss += float(-(w * (y * np.log(prob + 1e-9) + (1 - y) * np.log(1 - prob + 1e-9))).sum())
            grads = backward(p, cache, ((prob - y) * w / len(idx)).astype(np.float32))
            step += 1
            for k in PARAMS:
                gk = grads[k] + decay * p[k] if k[0] in "wc" and not k.startswith("cb") else grads[k]
                m[k] = 0.9 * m[k] + 0.1 * gk
                v[k] = 0.999 * v[k] + 0.001 * gk * gk
                p[k] -= (rate * (m[k] / (1 - 0.9 ** step)) / (np.sqrt(v[k] / (1 - 0.999 ** step)) + 1e-8)).astype(
                    np.float32)
                p[k] = flush_subnormals(p[k])  # dead units' weights decay below float32's normal range
        print(f"  epoch {ep + 1}/{epochs}: loss {loss / n:.4f} ({time.time() - t0:.0f} s)", file=sys.stderr)
    return p


def load_pieces(paths: list[str], holdout: bool = False):
    """(describe rows, king 0/1, validation flag) of every piece in the rendered sets."""
    rows, kings, vals = [], [], []
    for path in paths:
        with np.load(path) as d:
            y, scene, held = d["y"], d["scene"].astype(np.float64), d["held"]
        keep = (y >= 1) & (y <= 4)
        if holdout:
            keep &= ~held
        x = load_set(path, keep)["x"]
        rows.append(describe_rows(x))
        kings.append(np.isin(y[keep], (3, 4)).astype(np.float32))
        vals.append(held_back(scene)[keep])
        print(f"  {path}: {int(keep.sum())} pieces", file=sys.stderr)
    return np.concatenate(rows), np.concatenate(kings), np.concatenate(vals)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train_crowns", description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, nargs="+", help="sets rendered by vision.train_squares render")
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--nets", type=int, default=1, help="networks trained from different seeds, averaged")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first network (the others follow)")
    ap.add_argument("--holdout", action="store_true", help="leave out every piece of a held-out scene")
    args = ap.parse_args(argv)
    if args.nets < 1 or args.epochs < 1:
        print("train_crowns: --nets and --epochs must be at least 1", file=sys.stderr)
        return 2
    try:
        d, king, val = load_pieces(args.data, args.holdout)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        print(f"train_crowns: cannot read the sets: {exc}", file=sys.stderr)
        return 2
    strips, other = crown_inputs(d)
    fit = ~val if val.any() and (~val).any() else np.ones(len(d), dtype=bool)
    mu, sd = other[fit].mean(axis=0), other[fit].std(axis=0) + 1e-3
    other = (other - mu) / sd
    rare = float(king[fit].mean()) if king[fit].any() else 0.5
    weight = np.where(king > 0, 1.0 / np.sqrt(max(rare, 1e-3)), 1.0 / np.sqrt(max(1 - rare, 1e-3)))
    weight = (weight / weight[fit].mean()).astype(np.float32)
    weights: dict[str, np.ndarray] = {"mu": mu.astype(np.float32), "sd": sd.astype(np.float32),
                                      "n_nets": np.array(args.nets)}
    for i in range(args.nets):
        p = train_one(strips[fit], other[fit], king[fit], weight[fit], args.epochs, seed=args.seed + i)
        weights.update({f"{k}_{i}" if args.nets > 1 else k: v for k, v in p.items()})
    if args.nets == 1:
        del weights["n_nets"]
    reader = CrownReader(weights)
    if val.any():
        share = reader.king_share(d[val])
        k = king[val] > 0
        print(f"validation (whole scenes not trained on): {int(k.sum())} kings, {int((~k).sum())} men")
        for threshold in sorted({0.9, 0.95, 0.97, 0.98, 0.99, KING_THRESHOLD}):
            said = share >= threshold
            print(f"  threshold {threshold}{' (the pipeline)' if threshold == KING_THRESHOLD else ''}: "
                  f"{int((said & k).sum())} kings found, {int((said & ~k).sum())} men taken for kings")
    np.savez_compressed(args.out, **weights)
    print(f"weights -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
