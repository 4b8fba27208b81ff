"""Train the patch reader (``vision.patchnet``) on the square network's rendered sets, with PyTorch.

The sets are those ``python -m vision.train_squares render`` writes (docs/vision.md lists the recipe);
every set's last tenth of scenes is held back for validation, as for the square network. PyTorch does
the training only (``pip install -e '.[train]'``); the pipeline reads the saved weights with numpy
(``vision.patchnet.PatchNet``), so the product does not depend on it.

The committed reader (2026-12-06) was trained this way (the sets in this order, the square network's
recipe plus 2622–2626; docs/vision.md, "The patch reader")::

    python -m vision.train_patches --epochs 12 --out vision/models/patchnet.npz --data \
        squares2.npz squares3.npz squares_2612.npz squares_2613.npz squares_darklike_2622.npz \
        squares_darklike_hands_2623.npz squares_hands.npz squares_hands_2614.npz squares_hands_2615.npz \
        squares_hands_2624.npz squares_offcentre_2625.npz squares_offcentre_hands_2626.npz \
        squares_printed_2620.npz squares_printed_hands_2621.npz squares_tall_2618.npz squares_tall_hands_2619.npz

About 140 s an epoch on two cores for the 1.6 million squares of these sets; PyTorch's threads make
a run differ a little from the last.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from vision.patchnet import CHANNELS, PatchNet, patch_images
from vision.squarenet import AB_END, CLASSES, COVERED, SIDE, without_strip
from vision.train_squares import describe_rows, held_back, load_set


def load_patches(paths: list[str]) -> dict[str, np.ndarray]:
    """The sets' patches (float16: half the memory, and the patches need no more), descriptions, labels and
    validation flags, concatenated."""
    parts: dict[str, list[np.ndarray]] = {"lum": [], "ab": [], "desc": [], "y": [], "val": []}
    for path in paths:
        s = load_set(path)
        x = s["x"]
        parts["lum"].append(x[:, :SIDE * SIDE].astype(np.float16))
        parts["ab"].append(x[:, SIDE * SIDE:AB_END].astype(np.float16))
        parts["desc"].append(without_strip(describe_rows(x)))
        parts["y"].append(s["y"].astype(np.int64))
        parts["val"].append(held_back(s["scene"]))
        print(f"  {path}: {len(x)} squares", file=sys.stderr)
    return {k: np.concatenate(v) for k, v in parts.items()}


def _model(n_desc: int):
    """The PyTorch twin of :class:`vision.patchnet.PatchNet` (same layers, same names)."""
    import torch.nn as nn
    import torch.nn.functional as F

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.c1 = nn.Conv2d(CHANNELS, 16, 4, stride=2)
            self.c2 = nn.Conv2d(16, 32, 3)
            self.c3 = nn.Conv2d(32, 32, 3)
            self.f1 = nn.Linear(32 * 4 * 4 + n_desc, 128)
            self.f2 = nn.Linear(128, 64)
            self.f3 = nn.Linear(64, len(CLASSES))

        def forward(self, img, desc):
            import torch

            h = F.relu(self.c1(img))
            h = F.max_pool2d(F.relu(self.c2(h)), 2)
            h = F.relu(self.c3(h))
            z = torch.cat([h.flatten(1), desc], 1)
            return self.f3(F.relu(self.f2(F.relu(self.f1(z)))))

    return Net()


def images(lum: np.ndarray, ab: np.ndarray, turn: int = 0):
    """A batch of (N, 3, SIDE, SIDE) tensors (:func:`vision.patchnet.patch_images`), channels first as PyTorch
    wants, turned and mirrored by ``turn`` (0..7, the square's eight symmetries: a hand or a piece may lie any
    way round on the board)."""
    import torch

    img = torch.from_numpy(patch_images(lum, ab)).permute(0, 3, 1, 2)  # the reader's own images
    if turn & 1:
        img = img.flip(3)
    if turn & 2:
        img = img.flip(2)
    if turn & 4:
        img = img.transpose(2, 3)
    return img


def train(data: dict[str, np.ndarray], epochs: int = 12, batch: int = 512, lr: float = 2e-3, decay: float = 1e-4,
          seed: int = 0, threads: int = 2) -> dict[str, np.ndarray]:
    """AdamW with a one-cycle schedule and class weights (inverse square root of frequency, as the square
    network's); returns the weights for :class:`vision.patchnet.PatchNet`."""
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    y, val = data["y"], data["val"]
    fit = np.flatnonzero(~val) if val.any() and (~val).any() else np.arange(len(y))
    mu = data["desc"][fit].mean(axis=0)
    sd = data["desc"][fit].std(axis=0) + 1e-3
    desc = ((data["desc"] - mu) / sd).astype(np.float32)
    freq = np.bincount(y[fit], minlength=len(CLASSES)) / len(fit)
    cw = 1.0 / np.sqrt(np.maximum(freq, 1e-4))
    cw /= (cw * freq).sum()
    net = _model(desc.shape[1])
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=decay)
    per_epoch = max(len(fit) // batch, 1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * per_epoch, pct_start=0.05)
    weight = torch.tensor(cw, dtype=torch.float32)
    t0 = time.time()
    for ep in range(epochs):
        order = rng.permutation(fit)
        total = 0.0
        for k in range(per_epoch):
            idx = np.sort(order[k * batch:(k + 1) * batch])
            logits = net(images(data["lum"][idx], data["ab"][idx], int(rng.integers(8))), torch.from_numpy(desc[idx]))
            loss = F.cross_entropy(logits, torch.from_numpy(y[idx]), weight=weight)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
        print(f"  epoch {ep + 1}/{epochs}: loss {total / per_epoch:.4f}, {time.time() - t0:.0f} s", file=sys.stderr)
    out = {"mu": mu.astype(np.float32), "sd": sd.astype(np.float32)}
    out.update({k.replace(".", "_"): v.detach().numpy().copy() for k, v in net.state_dict().items()})
    return out


def validate(weights: dict[str, np.ndarray], data: dict[str, np.ndarray]) -> tuple[float, int, int]:
    """On the held-back squares: accuracy with kings read as men, covered squares read as something else,
    and seen squares read as covered."""
    net = PatchNet(weights)
    sel = np.flatnonzero(data["val"])
    got = []
    for i in range(0, len(sel), 4096):
        idx = sel[i:i + 4096]
        got.append(net.forward_patches(data["lum"][idx], data["ab"][idx], data["desc"][idx]).argmax(axis=1))
    pred, truth = np.concatenate(got) if got else np.zeros(0, np.int64), data["y"][sel]
    as_men = np.array([0, 1, 2, 1, 2, COVERED])
    right = float((as_men[pred] == as_men[truth]).mean()) if len(sel) else float("nan")
    missed = int(((truth == COVERED) & (pred != COVERED)).sum())
    return right, missed, int(((truth != COVERED) & (pred == COVERED)).sum())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train_patches", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", nargs="+", required=True, help="sets written by `python -m vision.train_squares render`")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--threads", type=int, default=2, help="PyTorch's threads")
    ap.add_argument("--out", required=True, help="weights file (.npz)")
    args = ap.parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("training the patch reader needs PyTorch: pip install -e '.[train]'", file=sys.stderr)
        return 2
    data = load_patches(args.data)
    print(f"{len(data['y'])} squares, {int(data['val'].sum())} held back", file=sys.stderr)
    weights = train(data, epochs=args.epochs, lr=args.lr, threads=args.threads)
    if data["val"].any():
        right, missed, extra = validate(weights, data)
        print(f"validation: {100 * right:.3f} % right (kings as men); covered read as seen {missed}, "
              f"seen read as covered {extra}")
    np.savez_compressed(args.out, **weights)
    print(f"weights -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
