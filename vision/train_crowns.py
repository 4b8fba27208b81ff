"""Train the crown reader (``vision/crowns.py``) on rendered sets; offline, CPU only, seeded.

The sets are those of ``vision/train_squares.py`` (``render``); only their pieces are used:

    SETS=...   # fourteen sets (docs/vision.md, "Training": $SETS $HANDS 2616 2617 $THICK $OFFC): the nine
               # thin ones, the two of thick pieces and the three of pieces off centre; not the printed
    export OPENBLAS_NUM_THREADS=1   # one core per run: two runs side by side, not two threads fighting
    for s in 0 1; do .venv/bin/python -m vision.train_crowns --data $SETS --epochs 40 --seed $s \
        --out /tmp/crown_$s.npz & done; wait   # about 27 min per network (41 s an epoch), one core each
    # the committed crown reader is those two in one file (keys suffixed _0 and _1, n_nets 2), the same as
    # one run with --nets 2 (which trains them one after the other)
    .venv/bin/python -m vision.train_crowns --data $SETS --epochs 40 --nets 2 --holdout \
        --out /tmp/crownnet_holdout.npz       # the transfer test (no held-out wood, piece or light)

Seamless kings (measured 2026-12-02, not adopted: docs/benchmarks.md). The sets above draw every king with a
seam between its discs; rendered again with ``train_squares render … --seamless-rate 0.5`` (the same scenes,
half of them with seamless kings, about 4 min per thousand scenes on this machine) and trained by the first
command, the pair found 396 of 512 seamless kings on the benchmark instead of 177, but crowned thick men.
The "mixed" pair kept squares2, 2612, 2613 and 2617 seamed and the other seven at 0.5.

The pair reader (``vision.crowns``, "Beside a man of this set"; committed 2026-12-02 as
``vision/models/crownpair.npz``): the fourteen sets the committed crown reader was trained on (docs/vision.md,
"Training": ``$SETS $HANDS`` 2616 2617 ``$THICK $OFFC``), every one rendered again with the same arguments
and ``--seamless-rate 0.5`` (about 4 min per thousand scenes on one core) as ``$SETS_05``, and

    for s in 0 1; do .venv/bin/python -m vision.train_crowns --data $SETS_05 --epochs 40 --pairs --seed $s \
        --out /tmp/pair_$s.npz & done; wait   # 25–31 min per network (36–46 s an epoch), one core each

the two stored in one file as above (and ``pair`` 1). Each piece of a scene is weighed against a man of
the same scene (:class:`References`): one on its square in another of the scene's boards (the scene's
boards share the camera and the light, as a calibration profile and a later frame do) or one near it.

Fine-tuning (``--init FILE``, with ``--lr``): the networks stored in FILE, and their standardisation of
the shape features, are the starting point instead of random weights; the stored ones' figures on the
held-back scenes are printed before the new ones'. Fine-tuned on two fresh sets (2026-12-03) they read
the benchmark no better (docs/benchmarks.md).

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
from dataclasses import dataclass

import numpy as np

from vision.classify import dark_cells
from vision.crowns import NEAR_SQUARES, PARAMS, CrownReader, conv_forward, conv_outputs, crown_inputs, share_of
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
              seed: int = 0, batch: int = 256, lr: float = 2e-3, decay: float = 1e-4,
              references: References | None = None,
              start: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """One network's parameters (``other`` already standardised; ``king`` 0/1; ``weight`` per sample).

    With ``references`` the network is a pair reader (``vision.crowns``, "Beside a man of this set"): every
    epoch each piece is given a man drawn afresh from its candidates (:meth:`References.draw`), and sees
    his strip beside its own and his shape features after its own (``other`` then holds each piece's
    features standardised with the pair's ``mu`` and ``sd`` halves, both halves read from it). Pieces
    without a candidate, or of weight 0 (the validation scenes), are left out.
    """
    rng = np.random.default_rng(seed)
    pair = references is not None
    p = init(rng, strips.shape[2] * (2 if pair else 1), other.shape[1] * (2 if pair else 1))
    if start is not None:  # fine-tuning: the stored network's weights in place of random ones
        p = {k: np.array(start[k], dtype=np.float32) for k in p}
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    pool = np.flatnonzero(references.any() & (weight > 0)) if pair else np.arange(len(strips))
    step, n = 0, len(pool)
    for ep in range(epochs):
        t0 = time.time()
        ref = references.draw(rng) if pair else None
        order = rng.permutation(pool)
        rate = lr * 0.5 * (1 + np.cos(np.pi * ep / epochs))
        loss = 0.0
        for start in range(0, n, batch):
            idx = order[start:start + batch]
            if pair:
                s_in = np.concatenate([strips[idx], strips[ref[idx]]], axis=2)
                o_in = np.concatenate([other[idx], other[ref[idx]]], axis=1)
            else:
                s_in, o_in = strips[idx], other[idx]
            z, cache = conv_forward(p, s_in, o_in, keep=True)
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


@dataclass(frozen=True)
class References:
    """For every piece, the men it may be weighed against (rows of the same arrays), in two groups:
    ``same`` the men on its square in the scene's other boards (what a calibration profile holds: the
    same camera and light, another position), ``near`` the men of the scene's boards, its own included,
    on the dark squares within ``NEAR_SQUARES`` of it (where no man stood on its square). Each group as
    offsets (N + 1,) into a flat array of row numbers."""

    same_at: np.ndarray
    same: np.ndarray
    near_at: np.ndarray
    near: np.ndarray
    p_same: float = 0.5

    @classmethod
    def of(cls, group: np.ndarray, board: np.ndarray, square: np.ndarray, man: np.ndarray) -> References:
        """From each piece's scene ``group``, ``board`` (within the set), ``square`` (observation order) and
        whether it is a ``man``."""
        cells = dark_cells(1).astype(np.float64)
        dist = np.linalg.norm(cells[:, None] - cells[None], axis=2)
        neighbours = [np.flatnonzero((dist[s] > 0) & (dist[s] <= NEAR_SQUARES)) for s in range(32)]
        same: list[list[int]] = [[] for _ in range(len(group))]
        near: list[list[int]] = [[] for _ in range(len(group))]
        order = np.argsort(group, kind="stable")
        for chunk in np.split(order, np.flatnonzero(np.diff(group[order])) + 1):
            by_square: dict[int, list[int]] = {}
            for i in chunk[man[chunk]]:
                by_square.setdefault(int(square[i]), []).append(int(i))
            for i in chunk:
                s = int(square[i])
                same[i] = [j for j in by_square.get(s, []) if board[j] != board[i]]
                near[i] = [j for t in neighbours[s] for j in by_square.get(int(t), [])]

        def flat(lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
            at = np.r_[0, np.cumsum([len(x) for x in lists])].astype(np.int64)
            return at, np.fromiter((j for x in lists for j in x), dtype=np.int64, count=int(at[-1]))

        (same_at, same_rows), (near_at, near_rows) = flat(same), flat(near)
        return cls(same_at, same_rows, near_at, near_rows)

    def any(self) -> np.ndarray:
        """(N,) bool: pieces with at least one man to be weighed against."""
        return (np.diff(self.same_at) > 0) | (np.diff(self.near_at) > 0)

    def draw(self, rng: np.random.Generator, p_same: float | None = None) -> np.ndarray:
        """(N,) one man per piece (-1 where none): one of its square's with probability ``p_same`` (or
        whenever there is no near one), else a near one."""
        p_same = self.p_same if p_same is None else p_same
        n_same, n_near = np.diff(self.same_at), np.diff(self.near_at)
        use_same = (n_same > 0) & ((n_near == 0) | (rng.random(len(n_same)) < p_same))
        u = rng.random(len(n_same))

        def pick(at: np.ndarray, rows: np.ndarray, n: np.ndarray) -> np.ndarray:
            """The row a fraction ``u`` into each piece's group (any row where the group is empty)."""
            return rows[np.minimum(at[:-1] + (u * n).astype(np.int64), len(rows) - 1)] if len(rows) else 0 * n

        return np.where(use_same, pick(self.same_at, self.same, n_same),
                        np.where(n_near > 0, pick(self.near_at, self.near, n_near), -1))


def load_pieces(paths: list[str], holdout: bool = False):
    """(describe rows, king 0/1, validation flag, where) of every piece in the rendered sets; ``where`` is
    (scene group, board, square, man) per piece, numbered across the sets (:class:`References`)."""
    rows, kings, vals, groups, boards, squares, men = [], [], [], [], [], [], []
    g0 = 0
    for path in paths:
        with np.load(path) as d:
            y, scene, held = d["y"], d["scene"].astype(np.int64), d["held"]
            square = d["square"].astype(np.int64) if "square" in d.files else np.arange(len(y)) % 32
        keep = (y >= 1) & (y <= 4)
        if holdout:
            keep &= ~held
        x = load_set(path, keep)["x"]
        rows.append(describe_rows(x))
        kings.append(np.isin(y[keep], (3, 4)).astype(np.float32))
        vals.append(held_back(scene)[keep])
        groups.append(scene[keep] + g0)
        boards.append(np.flatnonzero(keep) // 32)  # every recipe keeps whole boards of 32 rows (load_set)
        squares.append(square[keep])
        men.append(np.isin(y[keep], (1, 2)))
        g0 += int(scene.max()) + 1
        print(f"  {path}: {int(keep.sum())} pieces", file=sys.stderr)
    where = tuple(np.concatenate(a) for a in (groups, boards, squares, men))
    return np.concatenate(rows), np.concatenate(kings), np.concatenate(vals), where


def _print_found(share: np.ndarray, king: np.ndarray) -> None:
    for threshold in sorted({0.9, 0.95, 0.97, 0.98, 0.99, KING_THRESHOLD}):
        said = share >= threshold
        print(f"  threshold {threshold}{' (the pipeline)' if threshold == KING_THRESHOLD else ''}: "
              f"{int((said & king).sum())} kings found, {int((said & ~king).sum())} men taken for kings")


def _print_validation(reader: CrownReader, d: np.ndarray, king: np.ndarray, val: np.ndarray,
                      refs: References | None) -> None:
    """Kings found and men crowned on the held-back scenes ``val`` (beside a man of theirs, for a pair)."""
    k = king > 0
    print(f"validation (whole scenes not trained on): {int(k[val].sum())} kings, {int((~k[val]).sum())} men")
    if refs is None:
        _print_found(reader.king_share(d[val]), k[val])
        return
    for p_same, name in ((1.0, "a man on its square"), (0.0, "a man on a square near it")):
        ref = refs.draw(np.random.default_rng(0), p_same)
        sel = val & (ref >= 0) & ((np.diff(refs.same_at) > 0) if p_same == 1.0 else True)
        print(f" beside {name}: {int(k[sel].sum())} kings, {int((~k[sel]).sum())} men")
        _print_found(share_of(reader.pair_logits(d[sel], crown_inputs(d[ref[sel]]))), k[sel])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train_crowns", description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, nargs="+", help="sets rendered by vision.train_squares render")
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--nets", type=int, default=1, help="networks trained from different seeds, averaged")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first network (the others follow)")
    ap.add_argument("--holdout", action="store_true", help="leave out every piece of a held-out scene")
    ap.add_argument("--pairs", action="store_true",
                    help="train the pair reader: each piece beside a man of its scene (vision.crowns, 'Beside a man')")
    ap.add_argument("--init", metavar="FILE",
                    help="fine-tune: start from the networks stored in FILE (their count and standardisation)")
    ap.add_argument("--lr", type=float, default=2e-3, help="Adam's first learning rate (default 2e-3)")
    args = ap.parse_args(argv)
    if args.nets < 1 or args.epochs < 1:
        print("train_crowns: --nets and --epochs must be at least 1", file=sys.stderr)
        return 2
    try:
        d, king, val, where = load_pieces(args.data, args.holdout)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        print(f"train_crowns: cannot read the sets: {exc}", file=sys.stderr)
        return 2
    strips, other = crown_inputs(d)
    fit = ~val if val.any() and (~val).any() else np.ones(len(d), dtype=bool)
    start: list[dict[str, np.ndarray]] | None = None
    if args.init is not None:
        try:
            with np.load(args.init) as w:
                stored = {k: w[k] for k in w.files}
            n_stored = int(stored.get("n_nets", 1))
            start = [{k: stored[f"{k}_{i}" if n_stored > 1 else k] for k in PARAMS} for i in range(n_stored)]
            mu, sd = stored["mu"][:other.shape[1]], stored["sd"][:other.shape[1]]
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            print(f"train_crowns: cannot read --init {args.init}: {exc}", file=sys.stderr)
            return 2
        if ("pair" in stored) != args.pairs:
            print("train_crowns: --init holds a " + ("pair" if "pair" in stored else "lone") + " reader; "
                  "give --pairs exactly when fine-tuning a pair reader", file=sys.stderr)
            return 2
        args.nets = n_stored
    else:
        mu, sd = other[fit].mean(axis=0), other[fit].std(axis=0) + 1e-3
    other = (other - mu) / sd
    refs = References.of(*where) if args.pairs else None
    if refs is not None:
        print(f"  pairs: {int(refs.any().sum())} of {len(d)} pieces have a man to be weighed against", file=sys.stderr)
        mu, sd = np.concatenate([mu, mu]), np.concatenate([sd, sd])
    rare = float(king[fit].mean()) if king[fit].any() else 0.5
    weight = np.where(king > 0, 1.0 / np.sqrt(max(rare, 1e-3)), 1.0 / np.sqrt(max(1 - rare, 1e-3)))
    weight = (weight / weight[fit].mean()).astype(np.float32)
    weights: dict[str, np.ndarray] = {"mu": mu.astype(np.float32), "sd": sd.astype(np.float32),
                                      "n_nets": np.array(args.nets)}
    if refs is not None:
        weights["pair"] = np.array(1)
    for i in range(args.nets):
        first = None if start is None else start[i]
        p = train_one(strips, other, king, np.where(fit, weight, 0.0).astype(np.float32), args.epochs,
                      seed=args.seed + i, lr=args.lr, references=refs, start=first) if refs is not None else \
            train_one(strips[fit], other[fit], king[fit], weight[fit], args.epochs, seed=args.seed + i,
                      lr=args.lr, start=first)
        weights.update({f"{k}_{i}" if args.nets > 1 else k: v for k, v in p.items()})
    if args.nets == 1:
        del weights["n_nets"]
    if val.any():
        if start is not None:
            print(f"before, the networks of {args.init}:")
            _print_validation(CrownReader(stored), d, king, val, refs)
        _print_validation(CrownReader(weights), d, king, val, refs)
    np.savez_compressed(args.out, **weights)
    print(f"weights -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
