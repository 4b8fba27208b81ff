"""Fit the square lattice of a checkerboard to candidate quads, robustly to pieces and clutter.

Each quad seeds a hypothesis (its corners are one lattice cell); the hypothesis grows by accepting quads
whose centre and corners land on lattice cells of the right colour parity, refitting a homography after
each round. The hypothesis with the most cells wins. The fit is in square units (u, v): cell (i, j)
spans [i, i+1] × [j, j+1]; ``parity`` says which cells are bright: bright ⇔ (i + j) % 2 == parity.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float64)
UNIT_ROTATIONS = tuple(np.roll(UNIT, -r, axis=0) for r in range(4))  # corner k of a quad ↔ corner k + r


@dataclass
class LatticeFit:
    """A lattice hypothesis: homography lattice→image, the cells it explains and their brightness."""

    h: np.ndarray  # (u, v) square units -> image pixels
    cells: np.ndarray  # (K, 2) int cell indices of accepted quads
    bright: np.ndarray  # (K,) 1 if the accepted quad was bright
    parity: int


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    ph = pts @ h[:, :2].T + h[:, 2]
    return ph[..., :2] / ph[..., 2:3]


# Loose growth (the localizer's last attempt): a quad in a cell beside those accepted may sit this far
# off (centre, corners; in squares). A small board seen at a grazing angle has squares of 11 × 30 px whose
# corners the pieces in front partly hide, and one seed's perspective drifts within a few cells.
LOOSE_CENTRE = 0.3
LOOSE_CORNERS = 0.45
AFFINE_UNTIL = 8  # loose: cells accepted before the fit may be a perspective one (and 3 rows and columns)


def _back_to_lattice(h: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(the inverse of ``h``, ``centres`` in lattice units under it, those beyond the horizon put far
    away); None if ``h`` is singular (a growth that collapsed)."""
    try:
        hinv = np.linalg.inv(h)
    except np.linalg.LinAlgError:
        return None
    uv = _apply(hinv, centres)
    if not np.all(np.isfinite(uv)):
        uv = np.nan_to_num(uv, nan=1e9, posinf=1e9, neginf=-1e9)
    return hinv, uv


def _affine(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Least-squares affine map src → dst as a 3×3 matrix."""
    a = np.hstack([src, np.ones((len(src), 1))])
    m = np.linalg.lstsq(a, dst, rcond=None)[0]
    h = np.eye(3)
    h[:2, :] = m.T
    return h


def grow(quads: np.ndarray, pols: np.ndarray, seed: int, rounds: int = 12, loose: bool = False) -> LatticeFit | None:
    """Grow the lattice of one seed quad over all quads; None if it explains too little.

    ``loose``: fit an affine map until the accepted cells span three rows and three columns (a strip of
    cells cannot fix a perspective, and one seed quad's perspective extrapolates badly), and accept quads
    in cells beside accepted ones within ``LOOSE_CENTRE`` and ``LOOSE_CORNERS``. It finds more boards at
    grazing angles but also wrong windows on boards the strict growth finds, so the localizer tries it
    last (docs/vision.md).
    """
    if loose:
        h = _affine(UNIT, quads[seed])
    else:
        h = cv2.getPerspectiveTransform(UNIT.astype(np.float32), quads[seed].astype(np.float32)).astype(np.float64)
    centres = quads.mean(axis=1)
    parity = 1 - int(pols[seed])  # seed cell (0, 0) has (i+j)%2 == 0
    accepted = np.zeros(len(quads), dtype=bool)
    cells = np.zeros((len(quads), 2), dtype=np.int64)
    count = 0
    for _ in range(rounds):
        back = _back_to_lattice(h, centres)
        if back is None:
            return None
        hinv, uv = back
        cell = np.floor(uv).astype(np.int64)
        off = np.abs(uv - cell - 0.5).max(axis=1)
        # Centre and colour parity first: the distance to the accepted cells only for those left.
        near = (off < (max(0.22, LOOSE_CENTRE) if loose else 0.22)) & (
            ((cell[:, 0] + cell[:, 1]) % 2 == parity) == (pols == 1))
        known = cells[accepted] if accepted.any() else np.zeros((1, 2), dtype=np.int64)
        reach = np.full(len(quads), np.iinfo(np.int64).max)
        reach[near] = np.abs(cell[near][:, None, :] - known[None, :, :]).max(axis=2).min(axis=1)
        beside = loose & (reach <= 1)
        ok = near & ((off < 0.22) | (beside & (off < LOOSE_CENTRE)))
        # Grow locally: only within four cells of those already accepted (the seed at first; four so
        # that rows hidden by tall pieces can be jumped). Clutter far away that happens to fit the
        # extrapolated lattice is never taken in.
        ok &= reach <= 4
        # Corners only of the quads still in the running (a few dozen of a thousand or two).
        cand = np.flatnonzero(ok)
        rel = _apply(hinv, quads[cand].reshape(-1, 2)).reshape(-1, 4, 2) - cell[cand, None, :]
        # Corner k of a clockwise quad may correspond to any rotation of the unit cell's corners.
        best_err = np.full(len(quads), np.inf)
        best_rot = np.zeros(len(quads), dtype=np.int64)
        err_c, rot_c = best_err[cand], best_rot[cand]
        for r, unit in enumerate(UNIT_ROTATIONS):
            err = np.abs(rel - unit).max(axis=(1, 2))
            better = err < err_c
            err_c[better] = err[better]
            rot_c[better] = r
        best_err[cand], best_rot[cand] = err_c, rot_c
        ok &= (best_err < 0.3) | (beside & (best_err < LOOSE_CORNERS))
        # One quad per cell: keep the best fitting.
        idx = np.flatnonzero(ok)
        if len(idx) < 1:
            return None
        order = idx[np.argsort(best_err[idx])]
        keys = cell[order, 0] * 100003 + cell[order, 1]
        _, first = np.unique(keys, return_index=True)
        chosen = order[first]
        accepted[:] = False
        accepted[chosen] = True
        cells[chosen] = cell[chosen]
        src = np.concatenate([UNIT_ROTATIONS[best_rot[k]] + cell[k] for k in chosen])
        dst = np.concatenate([quads[k] for k in chosen])
        span = cells[chosen].max(axis=0) - cells[chosen].min(axis=0)
        if loose and (len(chosen) < AFFINE_UNTIL or span.min() < 3):
            h = _affine(src, dst)
        elif len(chosen) >= 2:
            h_new, _ = cv2.findHomography(src, dst, 0)
            if h_new is None:
                return None
            h = h_new
        if len(chosen) == count:
            break
        count = len(chosen)
    sel = np.flatnonzero(accepted)
    return LatticeFit(h=h, cells=cells[sel], bright=pols[sel], parity=parity)


def lattices(quads: np.ndarray, pols: np.ndarray, max_seeds: int = 12, loose: bool = False) -> list[LatticeFit]:
    """Distinct lattice hypotheses, most quads explained first, seeded by quads of typical size
    (``loose``: see :func:`grow`)."""
    if len(quads) == 0:
        return []
    density = _neighbour_density(quads)
    seeds = np.argsort(-density)[: max_seeds * 4]
    fits: list[LatticeFit] = []
    seed_centres = quads[seeds].mean(axis=1)
    explained = np.zeros(len(seeds), dtype=bool)  # by a hypothesis grown so far: not tried again
    n_tried = 0
    for k, s in enumerate(seeds):
        if n_tried >= max_seeds:
            break
        if explained[k]:
            continue
        n_tried += 1
        fit = grow(quads, pols, int(s), loose=loose)
        if fit is not None:
            fits.append(fit)
            explained |= _explains(fit, seed_centres)
    return sorted(fits, key=lambda f: -len(f.cells))


def _neighbour_density(quads: np.ndarray) -> np.ndarray:
    """(N,) how many quads of similar area (within a factor of two) have their centre 0.5–1.7 of this
    quad's side from its own, plus a hundredth of its relative side (the tie-break).

    Board squares have neighbours like that; clutter rarely does. Only pairs within 1.7 sides along x are
    compared (the quads sorted by x), not all N² of them: a frame holds a thousand or two quads.
    """
    x, y = quads[..., 0].astype(np.float32).astype(np.float64), quads[..., 1].astype(np.float32).astype(np.float64)
    # the polygon's area as cv2.contourArea sums it (from the last vertex round), on the same float32 points
    twice = x[:, 3] * y[:, 0] - y[:, 3] * x[:, 0]
    for k in range(3):
        twice = twice + (x[:, k] * y[:, k + 1] - y[:, k] * x[:, k + 1])
    areas = np.abs(0.5 * twice)
    centres = quads.mean(axis=1)
    side = np.sqrt(np.maximum(areas, 1.0))
    order = np.argsort(centres[:, 0], kind="stable")
    cx = centres[order, 0]
    reach = 1.7 * side[order]
    lo = np.searchsorted(cx, cx - reach, "left")
    counts = np.searchsorted(cx, cx + reach, "right") - lo
    starts = np.cumsum(counts) - counts
    a = order[np.repeat(np.arange(len(order)), counts)]
    b = order[np.arange(counts.sum()) - np.repeat(starts - lo, counts)]
    dist = np.sqrt(((centres[a] - centres[b]) ** 2).sum(axis=1))
    ratio = areas[a] / np.maximum(areas[b], 1.0)
    near = (dist < 1.7 * side[a]) & (dist > 0.5 * side[a]) & (ratio > 0.5) & (ratio < 2.0)
    return np.bincount(a[near], minlength=len(quads)) + 0.01 * side / side.max()


def _explains(fit: LatticeFit, centres: np.ndarray) -> np.ndarray:
    """(N,) whether each of ``centres`` (N, 2) lies in a cell ``fit`` accepted."""
    key = np.floor(_apply(np.linalg.inv(fit.h), centres)).astype(np.int64)
    return (key[:, None, :] == fit.cells[None, :, :]).all(axis=2).any(axis=1)


def best_lattice(quads: np.ndarray, pols: np.ndarray, max_seeds: int = 12) -> LatticeFit | None:
    """The hypothesis explaining the most quads."""
    fits = lattices(quads, pols, max_seeds)
    return fits[0] if fits else None


# The lattice of the light squares' centres (the localizer's very last attempt, docs/vision.md "A small
# steep board found from its light squares' centres"). A small board seen steeply and blurred shows its
# light squares as blobs whose centres sit within a few hundredths of a square of the truth while their
# corners are a whole square off (seed 9 scene 105: corner error 0.8–0.9 squares, centre 0.01–0.07):
# a lattice grown from quads' corners shears. Centres alone span the light squares' own lattice (its
# steps are the squares' diagonals), and the square lattice follows from it.
CENTRE_OFF = 0.15  # a centre may sit this far (light-lattice steps) from a lattice point
CENTRE_AREA = (0.3, 1.6)  # a quad's area in squares (the light lattice's cell holds two)
CENTRE_STEP = (0.7, 4.0)  # first steps from the seed, in the seed quad's sides
CENTRE_FIRST = 8  # the nearest steps whose pairs are tried as the first basis
CENTRE_NEAR = 16  # ... and that many nearest, how many of them each basis puts on lattice points


@dataclass
class CentreLattice:
    """The light squares' lattice: ``h`` maps lattice points (m, n) to image pixels; ``points`` are the
    (m, n) of the quads accepted, ``quads`` their indices."""

    h: np.ndarray
    points: np.ndarray
    quads: np.ndarray


def _areas(quads: np.ndarray) -> np.ndarray:
    x, y = quads[..., 0], quads[..., 1]
    return 0.5 * np.abs((x * np.roll(y, -1, -1) - y * np.roll(x, -1, -1)).sum(-1))


def _reduced(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Lagrange–Gauss reduced basis of the plane lattice spanned by ``p`` and ``q``: its two shortest
    independent steps, whichever two steps the seed happened to see first."""
    for _ in range(32):
        if p @ p > q @ q:
            p, q = q, p
        m = round(float(p @ q) / float(p @ p))
        if m == 0:
            break
        q = q - m * p
    return p, q


def _placed(steps: np.ndarray, p: np.ndarray, q: np.ndarray) -> float:
    """How well the lattice of steps ``p``, ``q`` places ``steps``: the lattice points they land on (within
    ``CENTRE_OFF``) less half those within their reach that none lands on. A lattice twice as fine as the
    board's holds every light square too, and clutter between; its empty points count against it."""
    mn = np.linalg.solve(np.stack([p, q], axis=1), steps.T).T
    point = np.round(mn)
    on = np.abs(mn - point).max(axis=1) < CENTRE_OFF
    hit = len({(int(m), int(n)) for m, n in point[on]})
    reach = float(np.hypot(steps[:, 0], steps[:, 1]).max())
    span = int(np.ceil(reach / min(np.linalg.norm(p), np.linalg.norm(q)))) + 1
    grid = np.array([(m, n) for m in range(-span, span + 1) for n in range(-span, span + 1) if (m, n) != (0, 0)])
    inside = int((np.linalg.norm(grid @ np.stack([p, q]), axis=1) <= reach).sum())
    return hit - 0.5 * max(inside - hit, 0)


def _first_steps(steps: np.ndarray, area: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The reduced basis, of pairs of the first ``CENTRE_FIRST`` ``steps`` (from the seed to centres like
    it, nearest first), under which most of ``steps`` land on lattice points and the seed's quad (of
    ``area``) covers a light square's share of a cell: clutter beside the board may lie nearer than the
    next light square, but it does not line up with the others. None if no two steps qualify."""
    best, best_score = None, 0.0
    for a in range(min(len(steps), CENTRE_FIRST)):
        for b in range(a + 1, min(len(steps), CENTRE_FIRST)):
            p, q = steps[a], steps[b]
            if abs(float(p @ q)) >= 0.8 * np.linalg.norm(p) * np.linalg.norm(q):
                continue
            p, q = _reduced(p, q)
            cell = abs(float(p[0] * q[1] - p[1] * q[0]))
            if not CENTRE_AREA[0] < 2.0 * area / cell < CENTRE_AREA[1]:
                continue
            score = _placed(steps, p, q)
            if score > best_score:
                best, best_score = (p, q), score
    return best


def grow_centres(quads: np.ndarray, pols: np.ndarray, seed: int, rounds: int = 12) -> CentreLattice | None:
    """Grow the lattice of quads of the seed's colour and size from their centres alone; None if the seed
    has no two independent steps to quads like it.

    The first two steps are those of two of the nearest centres that put most of them on lattice points,
    reduced to the lattice's shortest steps (:func:`_first_steps`); growth then accepts, round by round,
    centres within ``CENTRE_OFF`` of a lattice point next to one accepted, and refits (affine until the
    points span three each way).
    """
    centres = quads.mean(axis=1)
    areas = _areas(quads)
    s = centres[seed]
    side = np.sqrt(max(float(areas[seed]), 1.0))
    mine = (pols == pols[seed]) & (areas > 0.4 * areas[seed]) & (areas < 2.5 * areas[seed])
    steps = centres[mine] - s
    lengths = np.hypot(steps[:, 0], steps[:, 1])
    near = (lengths > CENTRE_STEP[0] * side) & (lengths < CENTRE_STEP[1] * side)
    steps, lengths = steps[near], lengths[near]
    basis = _first_steps(steps[np.argsort(lengths, kind="stable")[:CENTRE_NEAR]], float(areas[seed]))
    if basis is None:
        return None
    p, q = basis
    if p[0] * q[1] - p[1] * q[0] < 0:  # the handedness of grow's lattices: a cell's corners run clockwise
        p, q = q, p
    h = np.array([[p[0], q[0], s[0]], [p[1], q[1], s[1]], [0.0, 0.0, 1.0]])
    accepted = np.zeros(len(quads), dtype=bool)
    points = np.zeros((len(quads), 2), dtype=np.int64)
    count = 0
    for _ in range(rounds):
        back = _back_to_lattice(h, centres)
        if back is None:
            return None
        hinv, mn = back
        point = np.round(mn).astype(np.int64)
        off = np.abs(mn - point).max(axis=1)
        ok = mine & (off < CENTRE_OFF)
        cand = np.flatnonzero(ok)
        # the quad's area in squares: half that in light-lattice cells, doubled
        area = 2.0 * _areas(_apply(hinv, quads[cand].reshape(-1, 2)).reshape(-1, 4, 2))
        ok[cand] = (area > CENTRE_AREA[0]) & (area < CENTRE_AREA[1])
        known = points[accepted] if accepted.any() else np.zeros((1, 2), dtype=np.int64)
        cand = np.flatnonzero(ok)
        reach = np.abs(point[cand][:, None, :] - known[None, :, :]).max(axis=2).min(axis=1)
        cand = cand[reach <= 1]
        if len(cand) == 0:
            return None
        by_fit = cand[np.argsort(off[cand], kind="stable")]
        _, first = np.unique(point[by_fit, 0] * 100003 + point[by_fit, 1], return_index=True)
        chosen = by_fit[first]
        accepted[:] = False
        accepted[chosen] = True
        points[chosen] = point[chosen]
        span = points[chosen].max(axis=0) - points[chosen].min(axis=0)
        if len(chosen) < AFFINE_UNTIL or span.min() < 2:
            h = _affine(points[chosen].astype(np.float64), centres[chosen])
        else:
            h_new, _ = cv2.findHomography(points[chosen].astype(np.float64), centres[chosen], 0)
            if h_new is None:
                return None
            h = h_new
        if len(chosen) == count:
            break
        count = len(chosen)
    sel = np.flatnonzero(accepted)
    return CentreLattice(h=h, points=points[sel], quads=sel)


# The square (u, v) of light-lattice point (m, n), for each of the three square lattices that hold the
# light squares' lattice as their squares with u + v even: the dark squares' centres lie half of one of
# the three shortest light steps (p, q, p + q) from the light ones. Which one is right the image decides
# (the window's contrast and X-corners, vision.localize).
# Each keeps the lattice's handedness (determinant 2, not -2).
TO_SQUARES = (np.array([[1, -1], [1, 1]]), np.array([[2, 1], [0, 1]]), np.array([[1, 0], [1, 2]]))


def square_lattices(centres: CentreLattice, pols: np.ndarray) -> list[LatticeFit]:
    """The three square lattices holding ``centres`` (see ``TO_SQUARES``), as lattice hypotheses."""
    colour = int(pols[centres.quads[0]])
    fits = []
    for m in TO_SQUARES:
        minv = np.linalg.inv(m)
        to_points = np.eye(3)
        to_points[:2, :2] = minv
        to_points[:2, 2] = -minv @ np.array([0.5, 0.5])  # cell (u, v)'s centre is (u + ½, v + ½)
        fits.append(LatticeFit(h=centres.h @ to_points, cells=centres.points @ m.T,
                               bright=pols[centres.quads], parity=1 - colour))
    return fits
