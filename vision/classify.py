"""Stage 3, square classification: empty / light piece / dark piece for the 32 dark squares.

Lighting is removed by describing every dark cell relative to its own light neighbours (light squares
are always empty), so a gradient, a colour cast or a shadow moves both alike. Two models:

* the default model needs no calibration: the bare dark-square colour is the board-wide median of the
  cells' corner patches (a round piece never covers a square's corners in top view), a cell is occupied
  when its centre departs from that colour, and occupied cells split into light and dark pieces by
  lightness (2-means, or the midpoint between light and dark squares when only one colour is present);
* the learned model (:class:`ColourModel`) holds per-class means and spreads of the same features,
  learned from the start position where all 32 labels are known, and updated slowly during play.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from vision.cells import CellFeatures, median_last, pad1

LABELS = (".", "w", "b")
N_FEAT = 8


@lru_cache(maxsize=2)
def dark_cells(bright_parity: int) -> np.ndarray:
    """(32, 2) lattice cells (i, j) of the dark squares in lattice order (row-major); read-only."""
    out = np.array([(i, j) for j in range(8) for i in range(8) if (i + j) % 2 != bright_parity])
    out.flags.writeable = False
    return out


@lru_cache(maxsize=2)
def light_cells(bright_parity: int) -> np.ndarray:
    """(32, 2) lattice cells (i, j) of the light squares; read-only."""
    out = np.array([(i, j) for j in range(8) for i in range(8) if (i + j) % 2 == bright_parity])
    out.flags.writeable = False
    return out


def light_reference(feat: CellFeatures, bright_parity: int, light_ok: np.ndarray | None = None) -> np.ndarray:
    """(32, 3) Lab of the empty light square expected at each dark cell: median of its light neighbours.

    Neighbours covered by a hand (``light_ok`` False) are left out; with none left, the board-wide
    median of the light squares stands in.
    """
    lab = feat.inner
    light = np.zeros((8, 8), dtype=bool)
    lc = light_cells(bright_parity)
    light[lc[:, 1], lc[:, 0]] = True
    ok = light if light_ok is None else light & light_ok
    if ok.sum() < 4:
        ok = light
    vals = np.where(ok[..., None], lab, np.nan)
    global_ref = median_last(np.ascontiguousarray(lab[ok].T))
    pad = pad1(vals, np.nan)
    cells = dark_cells(bright_parity)
    ii, jj = cells[:, 0] + 1, cells[:, 1] + 1
    neigh = np.stack([pad[jj - 1, ii], pad[jj + 1, ii], pad[jj, ii - 1], pad[jj, ii + 1]], axis=1)  # (32, 4, 3)
    n_ok = np.isfinite(neigh[:, :, 0]).sum(axis=1)
    # median of the valid neighbours (NaN sorts last): the middle one or two of the first n_ok
    srt = np.sort(neigh, axis=1)
    lo = np.maximum(n_ok - 1, 0) // 2
    hi = n_ok // 2
    rows = np.arange(len(srt))
    ref = 0.5 * (srt[rows, lo] + srt[rows, np.minimum(hi, 3)])
    ref[n_ok < 1] = global_ref
    return ref


def cell_vectors(feat: CellFeatures, bright_parity: int, light_ok: np.ndarray | None = None,
                 ref: np.ndarray | None = None) -> np.ndarray:
    """(32, N_FEAT) dark-cell features: centre − light ref (3), centre − own corners (3), texture, rim edges.

    ``ref`` is :func:`light_reference` with the same ``light_ok``, when the caller has it already.
    """
    if ref is None:
        ref = light_reference(feat, bright_parity, light_ok)
    cells = dark_cells(bright_parity)
    jj, ii = cells[:, 1], cells[:, 0]
    c = feat.centre[jj, ii]
    k = feat.corner[jj, ii]
    return np.hstack([c - ref, c - k, feat.texture[jj, ii][:, None], feat.ring[jj, ii][:, None]])


def _two_means(x: np.ndarray) -> tuple[float, float, float]:
    """Best 1-D split of ``x``: (threshold, low mean, high mean) maximising between-class variance."""
    xs = np.sort(np.asarray(x, dtype=np.float64))
    n = len(xs)
    if n < 2:
        m = float(xs.mean()) if n else 0.0
        return m, m, m
    k = np.arange(1, n)
    csum = np.cumsum(xs)
    lo = csum[:-1] / k
    hi = (csum[-1] - csum[:-1]) / (n - k)
    best = int(np.argmax(k * (n - k) * (hi - lo) ** 2))
    return float((xs[best] + xs[best + 1]) / 2), float(lo[best]), float(hi[best])


def bare_dark_colour(feat: CellFeatures, bright_parity: int, light_ok: np.ndarray | None = None,
                     ref: np.ndarray | None = None) -> np.ndarray:
    """Colour of an empty dark square relative to its light neighbours: the mode of all corner patches.

    Round pieces leave a square's corners bare in top view; at a steep angle a piece leans over its far
    corners, but most of the 128 corner patches of the dark squares still show bare wood, so the densest
    colour among them is the empty dark square. ``ref`` as for :func:`cell_vectors`.
    """
    if ref is None:
        ref = light_reference(feat, bright_parity, light_ok)
    cells = dark_cells(bright_parity)
    jj, ii = cells[:, 1], cells[:, 0]
    pts = (feat.corners4[jj, ii] - ref[:, None, :]).reshape(-1, 3)
    sq = (pts * pts).sum(axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (pts @ pts.T)
    close = d2 < 36.0  # within 6 Lab units
    best = int(np.argmax(close.sum(axis=1)))
    return pts[close[best]].mean(axis=0)


def class_scatter(x: np.ndarray, labels: np.ndarray) -> float:
    """Sum of squared distances of the rows of ``x`` to the mean of their class (labels 0, 1, 2).

    How well a labelling of the squares explains their features: the right one gathers each class
    tightly, one that takes dark men for empty squares leaves a wide "empty" class.
    """
    return float(sum(((x[labels == c] - x[labels == c].mean(axis=0)) ** 2).sum() for c in range(3)
                     if (labels == c).any()))


def explains_worse(vec: np.ndarray, labels: np.ndarray, other: np.ndarray, colour_ratio: float = 1.5,
                   feature_ratio: float = 1.1) -> bool:
    """Does ``labels`` (32,) explain the cells ``vec`` far worse than ``other`` does?

    Both within-class scatters must be larger: of the three colour features by ``colour_ratio``, and of
    all features (each scaled to unit spread over these cells, so the rim and texture features count as
    much as colour) by ``feature_ratio``. Colour alone favours a labelling that lumps dark men with dark
    squares of nearly their colour; all features alone are noisier (docs/vision.md, "One picture of an
    unfamiliar board").
    """
    if len(vec) < 4 or (labels == other).all():
        return False
    scaled = vec / (vec.std(axis=0) + 1e-6)
    colour = class_scatter(vec[:, :3], labels) > colour_ratio * class_scatter(vec[:, :3], other)
    return colour and class_scatter(scaled, labels) > feature_ratio * class_scatter(scaled, other)


def default_classify(vec: np.ndarray, empty: np.ndarray, board_contrast: float) -> tuple[np.ndarray, np.ndarray]:
    """Labels (32,) in 0/1/2 (empty, light, dark) and confidences, with no learned model.

    ``empty`` is :func:`bare_dark_colour`. A cell is occupied when its centre is far from that colour;
    occupied cells split into light and dark pieces by lightness.
    """
    x = vec[:, 0:3]
    d = np.linalg.norm(x - empty, axis=1)
    near = d[d < np.percentile(d, 25) + 4.0]
    spread = float(np.sqrt(np.mean(near ** 2))) if len(near) else 3.0
    thr = float(np.clip(3.0 * spread, 8.0, 0.25 * max(board_contrast, 40.0)))
    occupied = d > thr
    labels = np.zeros(32, dtype=np.int64)
    lightness = x[:, 0]
    mid = empty[0] / 2.0
    if occupied.sum() >= 4:
        t, l_lo, l_hi = _two_means(lightness[occupied])
        if l_hi - l_lo > 0.35 * abs(empty[0]):
            mid = t
    labels[occupied & (lightness > mid)] = 1
    labels[occupied & (lightness <= mid)] = 2
    # Dark men close in colour to the dark squares: among the cells not taken as light men, look for
    # two well separated colour groups; the one nearer the bare-square colour is empty.
    rest = np.flatnonzero(labels != 1)
    split = _split_two(x[rest], empty)
    if split is not None:
        labels[rest] = np.where(split, 2, 0)
    conf = np.clip(np.abs(d - thr) / thr, 0.0, 1.0)
    return labels, conf


def _split_two(x: np.ndarray, empty: np.ndarray, rounds: int = 10) -> np.ndarray | None:
    """2-means of colours ``x`` (N, 3); bool "far group" when the groups are clearly apart, else None."""
    if len(x) < 4:
        return None
    d = np.linalg.norm(x - empty, axis=1)
    centres = np.stack([x[int(np.argmin(d))], x[int(np.argmax(d))]])
    far = d > d.mean()
    for _ in range(rounds):
        far = np.linalg.norm(x - centres[1], axis=1) < np.linalg.norm(x - centres[0], axis=1)
        if far.all() or not far.any():
            return None
        centres = np.stack([x[~far].mean(axis=0), x[far].mean(axis=0)])
    within = np.sqrt(np.mean(np.concatenate([((x[~far] - centres[0]) ** 2).sum(axis=1),
                                              ((x[far] - centres[1]) ** 2).sum(axis=1)])))
    gap = float(np.linalg.norm(centres[1] - centres[0]))
    if gap < max(5.0, 2.6 * within) or far.sum() < 1:
        return None
    # the far group must be the one away from the bare-square colour
    if np.linalg.norm(centres[1] - empty) < np.linalg.norm(centres[0] - empty):
        far = ~far
    return far


@dataclass
class ColourModel:
    """Per-class Gaussian (diagonal) over :func:`cell_vectors` features, learned from labelled cells."""

    mean: np.ndarray = field(default_factory=lambda: np.zeros((3, N_FEAT)))
    std: np.ndarray = field(default_factory=lambda: np.ones((3, N_FEAT)))
    rate: float = 0.05  # weight of one confident frame when updating during play

    @classmethod
    def learn(cls, vec: np.ndarray, labels: np.ndarray) -> ColourModel:
        mean = np.zeros((3, N_FEAT))
        std = np.ones((3, N_FEAT))
        for k in range(3):
            sel = vec[labels == k]
            if len(sel) == 0:
                raise ValueError(f"no example of class {LABELS[k]!r}")
            mean[k] = sel.mean(axis=0)
            std[k] = sel.std(axis=0) if len(sel) > 1 else np.zeros(N_FEAT)
        # Floors: a few examples underestimate the spread; lighting changes during a game.
        floor = np.array([3.0, 2.0, 2.0, 3.0, 2.0, 2.0, 1.5, 1.5])
        std = np.sqrt(std ** 2 + floor ** 2)
        return cls(mean=mean, std=std)

    def classify(self, vec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Labels (32,) and confidences: margin between the two most likely classes."""
        z = (vec[:, None, :] - self.mean[None]) / self.std[None]
        nll = 0.5 * (z ** 2).sum(axis=2) + np.log(self.std).sum(axis=1)[None]
        labels = np.argmin(nll, axis=1)
        srt = np.sort(nll, axis=1)
        conf = np.clip((srt[:, 1] - srt[:, 0]) / 10.0, 0.0, 1.0)
        return labels, conf

    def outliers(self, vec: np.ndarray, limit: float = 6.0) -> np.ndarray:
        """(32,) bool: cells that fit no class (rms z-score over the features above ``limit``)."""
        z = (vec[:, None, :] - self.mean[None]) / self.std[None]
        return np.sqrt((z ** 2).mean(axis=2)).min(axis=1) > limit

    def update(self, vec: np.ndarray, labels: np.ndarray, conf: np.ndarray) -> None:
        """Follow slow lighting changes: move each class mean towards its confident members."""
        for k in range(3):
            sel = (labels == k) & (conf > 0.8)
            if sel.sum() >= 2:
                self.mean[k] = (1 - self.rate) * self.mean[k] + self.rate * vec[sel].mean(axis=0)

    def to_json(self) -> dict:
        return {"mean": self.mean.round(3).tolist(), "std": self.std.round(3).tolist()}

    @classmethod
    def from_json(cls, data: dict) -> ColourModel:
        mean = np.asarray(data["mean"], dtype=np.float64)
        std = np.asarray(data["std"], dtype=np.float64)
        if mean.shape != (3, N_FEAT) or std.shape != (3, N_FEAT) or (std <= 0).any():
            raise ValueError("colour model has the wrong shape")
        return cls(mean=mean, std=std)
