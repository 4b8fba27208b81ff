"""Stage 4, occlusion: a hand or arm over the board, and which dark squares it hides.

Two tests, both in the lattice top view:

* static (:func:`light_cover`): the 32 light squares are always empty, so each of them must
  look like an empty light square. A light cell whose inner area departs from the board's light-square
  colour (Lab, robust medians) is covered by something.
* motion (:class:`HandWatch`): the top view, with a one-square margin over the frame and the table, is
  compared with the last *settled* top view (a frame in which nothing foreign was seen). Light squares
  and the margin never change in a game, so a change there is a hand, an arm or its shadow, whether
  it moves or holds still. Dark squares change only when pieces move; a changed dark square touching
  a foreign cell is part of the hand. The reference follows the board only while nothing is foreign,
  so a hand that pauses over the board is never learned as part of it. When the room's light changes
  (nearly every square changed together) the frame is first matched to the reference's light
  (:meth:`HandWatch._in_light_of`), so a lamp switched on is not a hand that never leaves.

A dark square next to anything foreign is marked ``?``: a hand over it cannot be seen through.

In a single picture there is nothing to compare with; the margin still tells one thing: an arm reaches
the board from outside it, so where the network sees a hand over one square at the board's edge and
nothing next to it, the margin cell beside that square shows the arm when its colour stands out from
the rest of its side of the frame (:func:`odd_margin`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.cells import CellFeatures, median_last, pad1, warp_square
from vision.classify import dark_cells, light_cells

GRID = 10  # cells of the motion top view: the 8×8 lattice plus a one-square margin all round
MCELL = 6  # motion top-view pixels per square (a modest resolution keeps the hot path cheap)
WARP_CELL = 9  # warped a little finer, then area-averaged (less aliasing of wood grain and noise)
CHANGED = 0.12  # share of a cell's pixels that must change for the cell to count as changed
MARGIN_CHANGED = 0.2  # the margin (frame, table, picture border) is less tidy than the board
DRIFT = 3.0  # a square counts as changed only above this many times the median light square's change
SPILL = 0.5  # a piece's top leans over part of a neighbour; a hand covers it (nearly) whole
STALE_FRAMES = 90  # nothing moved for this long and the light squares look empty: relearn (lighting)
LEAN_COS_MOVED = np.cos(np.pi / 3)  # leaning_onto: within 60° of a moved piece's lean direction
LEAN_QUIET_FRAMES = 8  # nothing moved for this long: a changed light square behind a changed piece is its top
ODD_MARGIN = 12.0  # colour distance (L halved) from its side's median beyond which a margin cell stands out
# A light cell within 45° of a neighbouring piece's lean direction may be covered by its top
# (vision.occlusion.leaned_over), where the lean is at least this steep: a point one square up lands this
# many squares away. Below it even a king of thick discs (0.96 of a square tall) reaches 0.24 past its
# centre, short of the neighbour's inner area (0.62 away).
LEAN_COS = np.cos(np.pi / 4)
LEAN_MIN_SHIFT = 0.25
LEAN_PIECE_TOL = 12.0  # colour distance (L halved) of a dark cell's centre from the bare dark square: a piece
LEAN_COLOUR_TOL = 10.0  # Lab units (a*b* for the hue) a leaned-over light cell may stray from its piece's colour
# A light square that a neighbouring piece's top may cover (the lean as above, its colour within this many
# Lab units of a mix of the empty light square and that piece's centre) and that has not changed for this
# many frames is that top, however far it departs (HandWatch.check, docs/vision.md "A tall piece held still")
LEAN_STILL_FRAMES = 25
LEAN_STILL_COLOUR_TOL = 2 * LEAN_COLOUR_TOL
SHADOW_LEVELS = (0.3, 1.0 / 0.3)  # Lab lightness ratio to the empty light colour of a light square in other light
SHADOW_HUE_TOL = 4.0  # Lab a*b* units a shadowed light square may stray from the empty colour scaled down


def _plane_terms(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """(N, 3): 1, u, v for points ``u``, ``v`` in squares from the centre (of the motion top view, or of one
    of its squares): the terms of a plane over them."""
    return np.stack([np.ones_like(u), u, v], axis=1)


_cy, _cx = np.mgrid[0:GRID, 0:GRID] + 0.5 - GRID / 2
_CELL_TERMS = _plane_terms(_cx.ravel(), _cy.ravel())  # (100, 3) at each square's centre
_py, _px = (np.mgrid[0:GRID * MCELL, 0:GRID * MCELL] + 0.5) / MCELL - GRID / 2
_PIXEL_TERMS = _plane_terms(_px.ravel(), _py.ravel())  # (3600, 3) at each pixel
_iy, _ix = (np.mgrid[0:MCELL, 0:MCELL] + 0.5) / MCELL - 0.5
_IN_CELL_TERMS = _plane_terms(_ix.ravel(), _iy.ravel())  # (36, 3) at each pixel of a square, from its centre
_IN_CELL_PINV = np.linalg.pinv(_IN_CELL_TERMS)
LIGHT_CHANGED = 0.04  # log change (4 %) of a square's mean colour from which it has changed
LIGHT_EVERYWHERE = 0.8  # share of the ten by ten squares that must have changed for the light to have
LIGHT_SAME = 0.01  # log change (1 %) under which, at every pixel, the fitted change counts as none
CLIPPED = 0.9  # a square's mean channel from which some of it may be clipped white (no measure of the light)
CLIPPED_PIXEL = 0.96  # a pixel's channel from which it is clipped white
BRIGHT_L = 70.0  # Lab lightness of the settled view from which a pixel clipped now may just be that, brighter
# A square of the motion view only relit (a spectator's shadow, a lamp on part of the board): its three
# channels scaled alike (the largest gain at most RELIT_HUE times the smallest), by RELIT_GAIN at most
# either way, with its texture kept (each pixel its settled value times the gains, within RELIT_RESIDUAL of
# the square's mean). A hand or sleeve changes a square's hue or covers its grain.
RELIT_HUE = 1.12
RELIT_GAIN = (0.3, 1.6)
RELIT_RESIDUAL = 0.05
RELIT_FLOOR = 0.12  # BGR 0–1: the residual of a darker square is weighed as one this light (noise and compression
# do not scale with the light: a dark square deep in a shadow strays by more than its grain)
# A shadow lifting (one already there when the board was first seen, a spectator stepping away) brightens
# its squares by more than RELIT_GAIN allows a square alone, up to RELIT_LIFTED: skin over a brown frame or
# a dark square can keep its hue and grow 1.8 times as bright (a rendered hand over the margin did). Such a
# square counts as relit only where a square of another lightness near it (EDGE_NEAR; settled lightness
# LIFT_OTHER times apart or more) was relit alike (within LIFT_ALIKE): a light lifting brightens wood,
# pieces and frame by one gain, while a hand over two surfaces brightens each by its own (their lightness
# ratio, which LIFT_OTHER keeps well above LIFT_ALIKE); or where it goes on from such a square, or from one
# relit beside it, as a soft shadow's light does (_lifted_alike). A side of a hard edge lit up so is like
# only a light near it lit up as much.
RELIT_LIFTED = 1.0 / 0.3
LIFT_OTHER = 1.25
LIFT_ALIKE = 1.1
LIFT_RISE = 1.05  # (_lifted_alike: a lift continuing a rise of light from a square relit beside it)
RELIT_SETTLE_FRAMES = 25  # frames nothing moved before a view with squares relit darker is taken as the settled one
# A shadow's edge crossing a square more sharply than a plane follows (a lamp's or a spectator's hard shadow;
# the far side of a tilted board, where the top view enlarges the picture, widens it to a few pixels): across
# a straight line the light steps from one level to another over EDGE_WIDTHS (motion top-view px), each side
# relit as above, with its light as it was or like that of a square near it (unchanged, or relit whole; up to
# EDGE_NEAR squares away: the squares beside one a straight edge crosses may be crossed too) to within
# EDGE_LIKE_NEIGHBOUR (lightness; the hue is judged as above). Each side keeps at least EDGE_SIDE_MIN pixels
# wholly its own.
EDGE_WIDTHS = (0.5, 1.5, 3.0)
EDGE_ANGLE_STEP = 15.0  # degrees
EDGE_OFFSET_STEP = 0.5  # motion top-view px
EDGE_LIKE_NEIGHBOUR = 1.25
EDGE_NEAR = 2
EDGE_SIDE_MIN = 2
# A side under EDGE_THIN pixels' worth (an edge a pixel or so inside the border: a row of pixels) is mostly
# pixels the edge splits: its light may be any mix of the other side's and a light near it.
EDGE_THIN = 1.5 * MCELL
EDGE_THIN_HUE = 1.2  # RELIT_HUE for a thin side (its colour smeared by compression across the edge)
EDGE_SCREEN = 0.15  # root mean square left, of the square's mean, from which an edge is not looked at further
EDGE_TRIM = 2  # pixels an edge fits worst, left out of RELIT_RESIDUAL (its line is quantised; a real one bends)
EDGE_TRIED = 4  # edges judged pixel by pixel per square, those the root mean square finds best
# A channel's mean may stray from the common gain by LIGHT_NOISE (BGR 0–1) where RELIT_HUE allows less: the
# camera's noise and compression do not scale with the light, so in a dark piece's weakest channel under a
# deep shadow a ratio strays by a sixth while the picture changed by two levels of 255.
LIGHT_NOISE = 0.008
# The light over the board relative to the first settled view's, as squares were found relit (a shadow): where
# it strays by more than LIGHT_FIELD_SHOWN anywhere on the board, the square readers are given the picture
# relit back (HandReading.light). Where the light is not known (a square changed otherwise: a move, a hand),
# it is read from the square's corners, or filled in from the squares up to LIGHT_FIELD_FILL squares away.
LIGHT_FIELD_SHOWN = 1.15
LIGHT_FIELD_STEP = 1.1  # a relit square's mean lightness changed by less: its light is taken as it was
LIGHT_FIELD_PART = 0.1  # share of a square's pixels in a light changed by LIGHT_FIELD_SHOWN: a square in it
LIGHT_FIELD_FILL = 1


def _cell_means(bgr: np.ndarray) -> np.ndarray:
    """(GRID², 3) mean colour of each square of a motion top view (BGR 0–1)."""
    return cv2.resize(bgr, (GRID, GRID), interpolation=cv2.INTER_AREA).reshape(GRID * GRID, 3)


def _edge_ramps() -> np.ndarray:
    """(M, MCELL²): for M straight edges across a square (every :data:`EDGE_ANGLE_STEP`, offsets every
    :data:`EDGE_OFFSET_STEP`, each of :data:`EDGE_WIDTHS`), how far each pixel lies into the edge's far side,
    0 to 1; only edges that leave :data:`EDGE_SIDE_MIN` pixels wholly on each side."""
    iy, ix = np.mgrid[0:MCELL, 0:MCELL] + 0.5 - MCELL / 2
    pts = np.stack([ix.ravel(), iy.ravel()], axis=1)
    ramps = []
    for angle in np.radians(np.arange(0.0, 180.0, EDGE_ANGLE_STEP)):
        along = pts @ np.array([np.cos(angle), np.sin(angle)])
        for offset in np.arange(-MCELL / 2 + 0.5, MCELL / 2, EDGE_OFFSET_STEP):
            for width in EDGE_WIDTHS:
                ramp = np.clip((along - offset) / width + 0.5, 0.0, 1.0)
                if (ramp == 0).sum() >= EDGE_SIDE_MIN and (ramp == 1).sum() >= EDGE_SIDE_MIN:
                    ramps.append(ramp)
    return np.array(ramps, dtype=np.float32)


_RAMPS = _edge_ramps()
# a square's corner pixels in the motion top view: bare wood beside any piece standing on it (_light_now)
_CORNERS = np.zeros((MCELL, MCELL), dtype=bool)
_CORNERS[:2, :2] = _CORNERS[:2, -2:] = _CORNERS[-2:, :2] = _CORNERS[-2:, -2:] = True
_CORNERS[1, 1] = _CORNERS[1, -2] = _CORNERS[-2, 1] = _CORNERS[-2, -2] = False
# each edge's two sides as weights that average over them
_NEAR_SIDE = ((1.0 - _RAMPS) / (1.0 - _RAMPS).sum(axis=1, keepdims=True)).astype(np.float32)
_FAR_SIDE = (_RAMPS / _RAMPS.sum(axis=1, keepdims=True)).astype(np.float32)
# the weights of the least-squares fit of an edge's two lights (_edge_fits)
_NEAR_NEAR, _NEAR_FAR, _FAR_FAR = (1.0 - _RAMPS) ** 2, (1.0 - _RAMPS) * _RAMPS, _RAMPS ** 2
_NEAR = tuple((dy, dx) for dy in range(-EDGE_NEAR, EDGE_NEAR + 1) for dx in range(-EDGE_NEAR, EDGE_NEAR + 1)
              if (dy, dx) != (0, 0))


def _light_only(cur: np.ndarray, ref: np.ndarray, hue: float | np.ndarray = RELIT_HUE,
                most: float | None = None) -> np.ndarray:
    """(...) bool: mean colours ``cur`` (..., 3) are ``ref`` under other light only: one gain within
    ``RELIT_GAIN`` (up to ``most`` when given) for the three channels, each within ``hue`` (split either way)
    and ``LIGHT_NOISE``."""
    level = cur.sum(axis=-1) / np.maximum(ref.sum(axis=-1), 1e-3)
    expected = level[..., None] * ref
    # (lit up, the settled colour's own noise grows with the gain)
    noise = LIGHT_NOISE * np.maximum(level, 1.0)[..., None]
    stray = np.abs(cur - expected) <= np.maximum((np.sqrt(hue) - 1.0) * expected, noise)
    return stray.all(axis=-1) & (level >= RELIT_GAIN[0]) & (level <= (RELIT_GAIN[1] if most is None else most))


def _lifted_alike(level: np.ndarray, tone: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                  relit: np.ndarray, lifted: np.ndarray, sides: np.ndarray) -> np.ndarray:
    """(K,) bool: of the squares ``lifted`` (K,) bool (brighter than RELIT_GAIN allows, light only up to
    RELIT_LIFTED, grain kept), those with a square ``relit`` near them whose settled colour is LIFT_OTHER
    times lighter or darker and whose light rose alike (LIFT_ALIKE; see RELIT_LIFTED), those continuing the
    light of a square relit beside them (LIFT_RISE), and the lifted squares joined to either through squares
    beside each other lit alike where they meet. ``level``, ``tone`` (K,): the log gain of lightness of the
    squares at ``rows``, ``cols`` and their settled log lightness; ``sides`` (K, 4): the log gain along each
    square's upper, lower, left and right side (the plane of ``relit_cells``)."""
    apart = np.maximum(np.abs(rows[:, None] - rows[None, :]), np.abs(cols[:, None] - cols[None, :]))
    step = np.abs(level[:, None] - level[None, :])
    other = np.abs(tone[:, None] - tone[None, :]) >= np.log(LIFT_OTHER)
    out = lifted & ((apart <= EDGE_NEAR) & (step <= np.log(LIFT_ALIKE)) & other & relit[None, :]).any(axis=1)
    # from those, on to the squares beside them (of any lightness: a frame's squares, all of one wood, have no
    # other near them) whose light where they meet is theirs to within EDGE_LIKE_NEIGHBOUR: a soft shadow's
    # light is continuous, though across its edge it changes by a third from one square's middle to the next
    down, right = rows[None, :] - rows[:, None], cols[None, :] - cols[:, None]  # where each j lies from each i
    meet = np.full(apart.shape, np.inf)
    rise = np.zeros(apart.shape)  # how much i's light rises across it, away from j
    for dr, dc, mine, theirs in ((-1, 0, 0, 1), (1, 0, 1, 0), (0, -1, 2, 3), (0, 1, 3, 2)):
        there = (down == dr) & (right == dc)
        meet = np.where(there, np.abs(sides[:, mine, None] - sides[None, :, theirs]), meet)
        rise = np.where(there, (sides[:, mine ^ 1] - sides[:, mine])[:, None], rise)
    # A soft edge's far side (the frame beyond it, one wood) rises further than any square beside it: it
    # continues a square relit beside it, the light meeting within LIFT_ALIKE and still rising across it by
    # LIFT_RISE. A hand is one colour: no rise across it, and a step where it meets a square relit beside it.
    out |= lifted & ((meet <= np.log(LIFT_ALIKE)) & (rise >= np.log(LIFT_RISE)) & relit[None, :]).any(axis=1)
    beside = meet <= np.log(EDGE_LIKE_NEIGHBOUR)
    for _ in range(GRID):
        more = lifted & ~out & (beside & out[None, :]).any(axis=1)
        if not more.any():
            break
        out |= more
    return out


def _per_edge(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(K, M, 3) sums over each square's pixels of ``values`` (K, P, 3) weighted by each edge's ``weights``
    (M, P): one matrix product."""
    k, p, _ = values.shape
    sums = (weights @ values.transpose(1, 0, 2).reshape(p, -1)).reshape(len(weights), k, 3)
    return np.ascontiguousarray(sums.transpose(1, 0, 2))


def _edge_fits(cur: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For squares ``cur`` (K, MCELL², 3), settled ``ref``: the pairs (square k, edge m of :func:`_edge_ramps`)
    across which the square is relit, each side's light only (F, 2), and each side's log gain of lightness
    there (F, 2: the near side's, the far side's).

    Each edge's two gains per channel are fitted by least squares, ``cur ≈ ref · (g_a (1 − s) + g_b s)``, and
    screened by the root mean square of what is left (from the normal equations: no picture is predicted);
    only each square's best few are judged pixel by pixel."""
    rr, rc = ref * ref, ref * cur  # (K, P, 3)
    a, b, c = _per_edge(_NEAR_NEAR, rr), _per_edge(_NEAR_FAR, rr), _per_edge(_FAR_FAR, rr)
    p, q = _per_edge(1.0 - _RAMPS, rc), _per_edge(_RAMPS, rc)
    det = np.maximum(a * c - b * b, 1e-12)
    gain_a, gain_b = (p * c - q * b) / det, (a * q - b * p) / det  # (K, M, 3)
    left = (cur * cur).sum(axis=1)[:, None] - gain_a * p - gain_b * q  # (K, M, 3) squares left over
    rms = np.sqrt(np.maximum(left.sum(axis=2), 0.0) / (3 * cur.shape[1]))
    level = cur.sum(axis=(1, 2)) / np.maximum(ref.sum(axis=(1, 2)), 1e-3)
    mean = np.maximum(cur.mean(axis=(1, 2)), RELIT_FLOOR * np.maximum(level, 1.0))  # (as in relit_cells)
    # each square's EDGE_TRIED best edges, judged pixel by pixel without the EDGE_TRIM pixels the edge's
    # straight line fits worst (it is quantised; a real one bends)
    best = np.argpartition(rms, EDGE_TRIED, axis=1)[:, :EDGE_TRIED]  # (K, EDGE_TRIED)
    ks = np.repeat(np.arange(len(cur)), EDGE_TRIED)
    ms = best.ravel()
    near_enough = rms[ks, ms] <= EDGE_SCREEN * mean[ks]
    ks, ms = ks[near_enough], ms[near_enough]
    ramp = _RAMPS[ms][..., None]  # (F, P, 1)
    predicted = ref[ks] * (gain_a[ks, ms][:, None] * (1.0 - ramp) + gain_b[ks, ms][:, None] * ramp)
    off = np.partition(np.abs(cur[ks] - predicted).mean(axis=2), -EDGE_TRIM, axis=1)[:, :-EDGE_TRIM]
    fit = off.mean(axis=1) <= RELIT_RESIDUAL * mean[ks]
    ks, ms = ks[fit], ms[fit]
    # each side's settled mean colour over the pixels wholly its own, and that colour in the fitted light
    was_a = np.einsum("fp,fpc->fc", _NEAR_SIDE[ms], ref[ks])
    was_b = np.einsum("fp,fpc->fc", _FAR_SIDE[ms], ref[ks])
    now_a, now_b = gain_a[ks, ms] * was_a, gain_b[ks, ms] * was_b
    # a thin side is mostly pixels the edge splits, whose colour a compressed picture smears: its hue says less
    thin = _THIN_SIDE[ms]
    # (a side lit beyond RELIT_GAIN: _relit_across_an_edge holds it to a light near it lit up as much)
    keep = (_light_only(now_a, was_a, np.where(thin[:, 0], EDGE_THIN_HUE, RELIT_HUE)[:, None], RELIT_LIFTED)
            & _light_only(now_b, was_b, np.where(thin[:, 1], EDGE_THIN_HUE, RELIT_HUE)[:, None], RELIT_LIFTED))

    def log_level(now: np.ndarray, was: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(now.sum(axis=1), 1e-3) / np.maximum(was.sum(axis=1), 1e-3))

    pairs = np.stack([ks[keep], ms[keep]], axis=1)
    return pairs, np.stack([log_level(now_a[keep], was_a[keep]), log_level(now_b[keep], was_b[keep])], axis=1)


_THIN_SIDE = np.stack([(1.0 - _RAMPS).sum(axis=1), _RAMPS.sum(axis=1)], axis=1) < EDGE_THIN  # (M, 2)


def _near_lights(lights: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """(K, 2·N) the log lightness gains ``lights`` (GRID, GRID, 2; NaN: none known) of the squares up to
    :data:`EDGE_NEAR` away from each square ``rows``, ``cols`` (K,)."""
    r = rows[:, None] + np.array([dy for dy, _ in _NEAR])
    c = cols[:, None] + np.array([dx for _, dx in _NEAR])
    inside = (r >= 0) & (r < GRID) & (c >= 0) & (c < GRID)
    near = lights[np.clip(r, 0, GRID - 1), np.clip(c, 0, GRID - 1)]  # (K, N, 2)
    return np.where(inside[..., None], near, np.nan).reshape(len(rows), -1)


def _relit_across_an_edge(cur: np.ndarray, ref: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                          lights: np.ndarray) -> np.ndarray:
    """(K,) bool: squares ``cur`` (K, MCELL², 3), settled ``ref``, at ``rows``, ``cols``, relit on each side
    of some straight edge (:func:`_edge_fits`), each side's light as it was (beyond the view's edge there are
    no squares to compare with) or like one known ``lights`` (GRID, GRID, 2: log gains of lightness; NaN
    where none is known) of the squares near it. A square found so lends its two lights to those near it, in
    up to EDGE_NEAR + 1 rounds (a band of shadow a square wide has no square wholly in it). A hand's edge
    across a square has the hand's colour on one side, in no light the squares near it are in."""
    pairs, sides = _edge_fits(cur, ref)  # (F, 2) square and edge; (F, 2) each side's light
    lighter = np.flatnonzero(cur.sum(axis=(1, 2)) > ref.sum(axis=(1, 2)))
    if len(lighter):
        # A shadow lifting is one falling, seen backwards: the step blurred by the lens is in the settled view
        # (the light's inverse across it is no such step), so the settled view is fitted to this one.
        back, back_sides = _edge_fits(ref[lighter], cur[lighter])
        back[:, 0] = lighter[back[:, 0]]
        pairs, sides = np.concatenate([pairs, back]), np.concatenate([sides, -back_sides])
    ks, thin = pairs[:, 0], _THIN_SIDE[pairs[:, 1]]
    lights = lights.copy()
    out = np.zeros(len(rows), dtype=bool)
    tol, lift = np.log(EDGE_LIKE_NEIGHBOUR), np.log(RELIT_GAIN[1])
    as_was = (np.abs(sides) <= tol)  # (F, 2)
    for _ in range(EDGE_NEAR + 1):
        if not len(ks):
            break
        near = _near_lights(lights, rows, cols)[ks]  # (F, 2N)
        with np.errstate(invalid="ignore"):  # NaN: no light known there
            like = np.abs(sides[:, :, None] - near[:, None, :]) <= tol  # (F, 2, 2N)
            # a side lit beyond RELIT_GAIN is like a light near it only if that one was too (a shadow lifting,
            # found so by _lifted_alike): skin lighter than wood of its hue is like any square relit a little
            like = (like & ((sides[:, :, None] <= lift) | (near[:, None, :] > lift))).any(axis=2) | as_was
            # a thin side between the other side's light and one near (or as it was)
            other = sides[:, ::-1, None]
            lights_near = np.concatenate([near, np.zeros((len(ks), 1))], axis=1)[:, None, :]  # (F, 1, 2N + 1)
            between = ((sides[:, :, None] - np.minimum(other, lights_near) >= -tol)
                       & (np.maximum(other, lights_near) - sides[:, :, None] >= -tol)).any(axis=2)
            like |= thin & between
        ok = like.all(axis=1) & ~out[ks]
        if not ok.any():
            break
        first = np.unique(ks[ok], return_index=True)[1]  # each square's first edge that fits
        k = ks[ok][first]
        out[k] = True
        lights[rows[k], cols[k]] = sides[ok][first]
    return out


def relit_cells(bgr: np.ndarray, ref_bgr: np.ndarray, ask: np.ndarray | None = None,
                unchanged: np.ndarray | None = None) -> np.ndarray:
    """(GRID, GRID) bool: squares of motion top view ``bgr`` that are the settled view ``ref_bgr`` (both BGR
    0–1) under other light only, no more (see ``RELIT_HUE``, ``RELIT_GAIN``, ``RELIT_RESIDUAL``); only the
    squares ``ask`` (GRID, GRID) marks are looked at (all when None). Within a square the light may change
    along a plane (a shadow's soft edge crossing it) or step across a straight line (its hard edge:
    :func:`_relit_across_an_edge`), each side in a light found near it: on a square relit whole, or on one
    ``unchanged`` marks (default: those not asked about), whose light is read from its mean colour."""
    ask = np.ones((GRID, GRID), dtype=bool) if ask is None else ask
    out = np.zeros((GRID, GRID), dtype=bool)
    rows, cols = np.nonzero(ask)
    if len(rows) == 0:
        return out
    cells = (GRID, MCELL, GRID, MCELL, 3)
    cur = bgr.reshape(cells).transpose(0, 2, 1, 3, 4)[rows, cols]  # (K, MCELL, MCELL, 3)
    ref = ref_bgr.reshape(cells).transpose(0, 2, 1, 3, 4)[rows, cols]
    cur_m, ref_m = cur.mean(axis=(1, 2)), ref.mean(axis=(1, 2))  # (K, 3)
    gain = cur_m / np.maximum(ref_m, 1e-3)
    level = cur_m.sum(axis=1) / np.maximum(ref_m.sum(axis=1), 1e-3)  # each square's gain of lightness
    light_only = _light_only(cur_m, ref_m)
    lifted = ~light_only & _light_only(cur_m, ref_m, most=RELIT_LIFTED)  # brighter still: a shadow lifting
    # the light's change over each square: a plane through its pixels' lightness ratios
    ratio = cur.mean(axis=3) / np.maximum(ref.mean(axis=3), 0.02)  # (K, MCELL, MCELL)
    across = (ratio.reshape(len(rows), -1) @ _IN_CELL_PINV.T) @ _IN_CELL_TERMS.T  # (K, MCELL²)
    across = (across / np.maximum(across.mean(axis=1, keepdims=True), 1e-3)).reshape(-1, MCELL, MCELL, 1)
    predicted = ref * gain[:, None, None, :] * across
    # (lit up, the settled view's own noise is scaled up with it: the floor rises with the gain)
    floor = RELIT_FLOOR * np.maximum(level, 1.0)
    residual = np.abs(cur - predicted).mean(axis=(1, 2, 3)) / np.maximum(cur_m.mean(axis=1), floor)
    fits = residual <= RELIT_RESIDUAL
    out[rows, cols] = light_only & fits
    if (lifted & fits).any():
        plane = across[..., 0]  # (K, MCELL, MCELL), mean 1
        edges = np.stack([plane[:, 0].mean(axis=1), plane[:, -1].mean(axis=1), plane[:, :, 0].mean(axis=1),
                          plane[:, :, -1].mean(axis=1)], axis=1)
        sides = np.log(np.maximum(level[:, None] * edges, 1e-3))
        out[rows, cols] |= _lifted_alike(np.log(np.maximum(level, 1e-3)), np.log(np.maximum(ref_m.sum(axis=1), 1e-3)),
                                         rows, cols, (light_only | lifted) & fits, lifted & fits, sides)
    # Squares a hard edge may cross: the whole square's gains are a mix of two lights, each light only
    edge = np.flatnonzero((light_only | lifted) & ~out[rows, cols])
    if len(edge):
        grid_level = np.log(np.maximum(_cell_means(bgr).sum(axis=1), 1e-3)
                            / np.maximum(_cell_means(ref_bgr).sum(axis=1), 1e-3)).reshape(GRID, GRID)
        known = np.where((~ask if unchanged is None else unchanged) | out, grid_level, np.nan)  # unchanged, or relit
        k = len(edge)
        out[rows[edge], cols[edge]] = _relit_across_an_edge(
            cur[edge].reshape(k, -1, 3), ref[edge].reshape(k, -1, 3), rows[edge], cols[edge],
            np.stack([known, known], axis=2))
    return out


def _trimmed_fit(terms: np.ndarray, values: np.ndarray, usable: np.ndarray | None = None,
                 rounds: int = 3) -> np.ndarray:
    """(K,) least-squares coefficients of ``values`` (N,) on ``terms`` (N, K) over the ``usable`` points,
    fitted again without those whose residual lies beyond three robust spreads (a hand, a moved piece).
    Too few usable points: no change (the power 1, the rest 0)."""
    keep = np.ones(len(values), dtype=bool) if usable is None else np.asarray(usable, dtype=bool).copy()
    if keep.sum() < terms.shape[1] * 4:
        return np.eye(terms.shape[1])[-1]
    coef = np.linalg.lstsq(terms[keep], values[keep], rcond=None)[0]
    for _ in range(rounds):
        res = np.abs(values - terms @ coef)
        new = keep & (res <= 3.0 * 1.4826 * float(np.median(res[keep])) + 1e-4)
        if new.sum() < terms.shape[1] * 4 or np.array_equal(new, keep):
            break
        keep = new
        coef = np.linalg.lstsq(terms[keep], values[keep], rcond=None)[0]
    return coef


def light_cover(feat: CellFeatures, bright_parity: int, board_contrast: float) -> tuple[np.ndarray, np.ndarray]:
    """(covered, strong), each (8, 8) bool: light cells that do not look like an empty light square, and
    those departing by far more than any lighting or leaning piece could (one such square is already a
    hand). A tall piece's top can cover more than that: :func:`leaned_over` tells those squares."""
    jj, ii, lab, ref, dist, tol = _light_distances(feat, bright_parity, board_contrast)
    far = dist > 2.5 * tol
    # moderate departures that a neighbouring man leaning over explains are not a hand
    bad = (dist > tol) | (feat.spread[jj, ii] > 0.6)
    if bad.any():  # most frames: none, and nothing to explain
        bad &= ~((_leaning_piece(feat, jj, ii, lab, ref) | _shadowed(lab, ref)) & ~far)
    covered = np.zeros((8, 8), dtype=bool)
    covered[jj[bad], ii[bad]] = True
    strong = np.zeros((8, 8), dtype=bool)
    strong[jj[far], ii[far]] = True
    return covered, strong


def light_departure(feat: CellFeatures, bright_parity: int, board_contrast: float) -> np.ndarray:
    """(8, 8) how far each light cell's inner colour lies from the empty light square's, in units of the
    tolerance :func:`light_cover` allows (above 1 it calls the cell covered); 0 on dark cells. Below 1 it
    still tells a little: part of a hand over the square moves it, a piece's rim along its edge hardly."""
    jj, ii, _, _, dist, tol = _light_distances(feat, bright_parity, board_contrast)
    out = np.zeros((8, 8))
    out[jj, ii] = dist / tol
    return out


def _light_distances(feat: CellFeatures, bright_parity: int, board_contrast: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """(rows, columns, inner Lab, reference Lab, distance, tolerance) of the 32 light cells."""
    cells = light_cells(bright_parity)
    jj, ii = cells[:, 1], cells[:, 0]
    lab = feat.inner[jj, ii]
    ref = median_last(np.ascontiguousarray(lab.T))
    # Lighting varies smoothly; a hand changes hue and lightness abruptly. Allow a fraction of the
    # light/dark contrast for the gradient, plus the cell's own spread of colours.
    # Glare only brightens a square; a hand or sleeve changes its hue or darkens it. Brightening
    # therefore counts less than darkening and hue.
    delta = lab - ref
    delta[:, 0] *= np.where(delta[:, 0] > 0, 0.3, 0.7)
    dist = np.linalg.norm(delta, axis=1)
    # Unoccluded light squares agree within a few Lab units; lighting gradients widen the spread a
    # little, so the tolerance follows the squares' own robust spread.
    med = float(median_last(dist))
    mad = float(median_last(np.abs(dist - med)))
    tol = max(10.0, med + 5.0 * 1.4826 * mad, 0.06 * board_contrast)
    return jj, ii, lab, ref, dist, tol


def _leaning_piece(feat: CellFeatures, jj: np.ndarray, ii: np.ndarray, lab: np.ndarray, ref: np.ndarray,
                   tol: float = 5.0) -> np.ndarray:
    """(N,) bool: light cells whose colour is a mix of light wood and a neighbouring square's piece.

    At a steep angle a man's top leans over the light square behind it; that square's colour then lies
    between the empty light square and the man's colour. A hand's colour does not.
    """
    pad = pad1(feat.centre)
    pad[0], pad[-1] = pad[1], pad[-2]  # edge mode: the outer cells repeat their neighbours
    pad[:, 0], pad[:, -1] = pad[:, 1], pad[:, -2]
    y, x = jj + 1, ii + 1
    neigh = np.stack([pad[y - 1, x], pad[y + 1, x], pad[y, x - 1], pad[y, x + 1]], axis=1)  # (N, 4, 3)
    return (_off_mix(lab[:, None, :], ref, neigh) < tol).any(axis=1)


def _leans_toward(shift: np.ndarray, di: int, dj: int, cos_min: float) -> np.ndarray:
    """(N,) bool: a piece on squares with top-view ``shift`` (N, 2) per unit height leans far enough to reach
    a neighbour (``LEAN_MIN_SHIFT``) and towards the one at lattice step (di, dj), within arccos ``cos_min``."""
    norm = np.hypot(shift[:, 0], shift[:, 1])
    along = shift[:, 0] * di + shift[:, 1] * dj
    return (norm >= LEAN_MIN_SHIFT) & (along >= cos_min * np.maximum(norm, 1e-9))


def _off_mix(colour: np.ndarray, empty: np.ndarray, piece: np.ndarray) -> np.ndarray:
    """Lab distance of ``colour`` from the nearest mix of ``empty`` and ``piece`` (Lab on the last axis,
    broadcast): how far a light square's colour is from anything between the empty light colour and a
    piece's."""
    seg = piece - empty
    rel = colour - empty
    t = np.clip((rel * seg).sum(axis=-1) / np.maximum((seg * seg).sum(axis=-1), 1e-6), 0.0, 1.0)
    return np.linalg.norm(rel - t[..., None] * seg, axis=-1)


def leaned_over(feat: CellFeatures, bright_parity: int, shift: np.ndarray,
                strong: np.ndarray | None = None) -> np.ndarray:
    """(8, 8) bool: light cells behind a neighbouring piece, as seen from the camera, that show its colour.

    Under a tilted camera a piece's top lands beyond its square, away from the camera, by its height
    times the local shift (``shift``, per dark cell). A tall piece (the thick discs of the fhgr photos,
    a king of them twice as tall) then covers most of the light square behind it, by far more than the
    mix :func:`light_cover` allows: on four of the six fhgr photos with no hand at all such a square read
    as a hand, in every frame of a still video too, so the stabilizer never passed a board on.

    Such a square is excused when it lies within 45° of a neighbour's lean direction, the lean
    is steep enough for something standing there to reach it (``LEAN_MIN_SHIFT``), and its colour is that
    neighbour's: the same hue (a piece's lit top is lighter than its side seen at the square's centre, its
    hue the same), or, short of the ``strong`` departures of :func:`light_cover`, a mix of the empty light
    square and it (the piece's shadow, a blurred rim). A hand or sleeve there brings a hue of its own;
    dark skin over a maple square behind a black man is such a mix too, which is why a mix alone never
    excuses a strong departure.

    Only a neighbour that holds a piece leans (its centre unlike the bare dark square: ``LEAN_PIECE_TOL``);
    on a wooden board an empty dark square's hue is close to the light one's, and to skin.

    ``shift`` (32, 2), lattice dark-cell order, is where a point one square above each dark cell lands in
    the top view (``vision.viewpoint``). Such squares are no hand, but their colour is no empty light
    square's either: the caller keeps them out of the light references.
    """
    cells = dark_cells(bright_parity)
    # a piece stands where the centre departs from the bare dark square seen around pieces (their corners)
    bare = np.median(feat.corner[cells[:, 1], cells[:, 0]], axis=0)
    holds = np.linalg.norm((feat.centre - bare) * (0.5, 1.0, 1.0), axis=2) > LEAN_PIECE_TOL
    jj, ii, lab, ref, sides = _lean_sides(feat, bright_parity, shift, holds)
    far = np.zeros(len(jj), dtype=bool) if strong is None else strong[jj, ii]
    out = np.zeros(len(jj), dtype=bool)
    for toward, piece in sides:
        hue = np.linalg.norm(lab[:, 1:] - piece[:, 1:], axis=1) < LEAN_COLOUR_TOL
        mix = _off_mix(lab, ref, piece) < LEAN_COLOUR_TOL
        out |= toward & (hue | (mix & ~far))
    grid = np.zeros((8, 8), dtype=bool)
    grid[jj[out], ii[out]] = True
    return grid


def _lean_sides(feat: CellFeatures, bright_parity: int, shift: np.ndarray, holds: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """What :func:`leaned_over` and :func:`lean_candidates` look at: the light cells' rows and columns, their
    inner Lab, the empty light colour, and for each of the four sides (toward, piece): whether the dark
    neighbour there leans onto the cell (``_leans_toward``, ``LEAN_COS``; where ``holds`` (8, 8) is given,
    only a neighbour it marks) and that neighbour's centre colour."""
    light = light_cells(bright_parity)
    jj, ii = light[:, 1], light[:, 0]
    lab = feat.inner[jj, ii]
    ref = median_last(np.ascontiguousarray(lab.T))
    cells = dark_cells(bright_parity)
    grid_shift = np.zeros((10, 10, 2))
    grid_shift[cells[:, 1] + 1, cells[:, 0] + 1] = shift
    if holds is not None:
        grid_shift[~pad1(holds, False)] = 0.0
    centre = pad1(feat.centre)
    sides = []
    for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):  # the light cell minus the dark neighbour
        y, x = jj + 1 - dj, ii + 1 - di
        toward = _leans_toward(grid_shift[y, x], di, dj, LEAN_COS)  # never off the board: the padding's shift is zero
        sides.append((toward, centre[y, x]))
    return jj, ii, lab, ref, sides


def lean_candidates(feat: CellFeatures, bright_parity: int, shift: np.ndarray) -> np.ndarray:
    """(8, 8) bool: light cells a neighbouring piece's top may cover, by the lean and the colour alone.

    :func:`leaned_over` excuses a square in one picture only when the colour proves the piece: a strong
    departure needs the piece's own hue, and a piece's hue is unsure where it is nearly black or lit from
    one side, while a dark piece on a dark square may not look like a piece at all there. Under a steep
    camera a king's top then covers most of the light square behind it, and every frame of a board held
    still called it a hand: the stabilizer passed nothing on for the rest of the game (4 of 536 scenes
    without a hand on ``dama bench vision --seed 2``). Such a square is a candidate when it lies within
    45° of a neighbour's lean, steep enough to reach it, and its colour is within ``LEAN_STILL_COLOUR_TOL``
    of a mix of the empty light square and that neighbour's centre; :meth:`HandWatch.check` excuses a
    candidate only once it has not changed for ``LEAN_STILL_FRAMES`` (a piece stands still, a hand does not
    for long), and never a square it sees changed against the settled board.
    """
    jj, ii, lab, ref, sides = _lean_sides(feat, bright_parity, shift)
    out = np.zeros(len(jj), dtype=bool)
    for toward, piece in sides:
        out |= toward & (_off_mix(lab, ref, piece) < LEAN_STILL_COLOUR_TOL)
    grid = np.zeros((8, 8), dtype=bool)
    grid[jj[out], ii[out]] = True
    return grid


def shadow_candidates(feat: CellFeatures, bright_parity: int, board_contrast: float) -> np.ndarray:
    """(8, 8) bool: light cells darker (or lighter) than the empty light colour but of its hue
    (:func:`_shadowed`), however far they depart.

    In one picture :func:`light_cover` excuses a shadow only up to ``2.5`` times its tolerance: a darker
    departure stays a hand, since a sleeve in deep shade can keep a wood's hue. But a lamp low beside the
    board can throw a king's or the frame's shadow that dark, and then every frame of a board held still
    called it a hand, and the stabilizer passed nothing on while that position stood (scene 216 of ``dama
    bench vision --seed 3``: a light square at the board's edge darkened from L* 72 to 39, its a*, b* within 1
    of the empty colour scaled down). :meth:`HandWatch.check` excuses such a candidate once it has not changed
    for ``LEAN_STILL_FRAMES``, as it does a still piece's top, and never a square changed against the settled
    board (a hand's shadow comes with the hand).
    """
    jj, ii, lab, ref, _, _ = _light_distances(feat, bright_parity, board_contrast)
    grid = np.zeros((8, 8), dtype=bool)
    out = _shadowed(lab, ref)
    grid[jj[out], ii[out]] = True
    return grid


def _shadowed(lab: np.ndarray, ref: np.ndarray, tol: float = SHADOW_HUE_TOL) -> np.ndarray:
    """(N,) bool: light cells darker (or lighter) than the empty light colour but of its hue: a shadow, not a
    hand.

    A shadow (of the pieces between two lamps, of a lamp's arm, of a player) scales a square's light
    down; in Lab its a* and b* then shrink with L*. A hand or sleeve brings a hue of its own. Found on
    rendered boards with no hand at all whose soft piece shadows darkened two light squares by 20-28 L*
    units while their a*, b* stayed within 2 units of the empty colour scaled down.
    """
    scale = lab[:, 0] / max(float(ref[0]), 1.0)
    # Lighter too: under a shadow over most of the board the empty light colour (the light squares' median) is
    # the shadow's, and the light squares out of it are the ones that stray (a lamp's hard shadow over the board
    # when it was first seen; their light squares read as a hand until one covered fewer than half of them).
    relit = (scale > SHADOW_LEVELS[0]) & (scale < SHADOW_LEVELS[1])
    off = np.linalg.norm(lab[:, 1:] - scale[:, None] * ref[None, 1:], axis=1)
    return relit & (off < tol)


def hidden_dark_cells(covered: np.ndarray, bright_parity: int, outlier: np.ndarray | None = None) -> np.ndarray:
    """(32,) bool: dark cells under the hand.

    Two covered light neighbours (edge-adjacent) mean the hand spans the cell; one is enough when the
    cell itself fits none of the colour classes (``outlier``, from the learned model).
    """
    neigh = covered_neighbours(covered, bright_parity)
    hidden = neigh >= 2
    if outlier is not None:
        hidden |= (neigh >= 1) & outlier
    return hidden


def covered_neighbours(covered: np.ndarray, bright_parity: int) -> np.ndarray:
    """(32,) int, lattice dark-cell order: how many edge-adjacent light cells of each dark cell are covered."""
    cells = dark_cells(bright_parity)
    padded = pad1(covered.astype(np.int64))
    ii, jj = cells[:, 0] + 1, cells[:, 1] + 1
    return padded[jj - 1, ii] + padded[jj + 1, ii] + padded[jj, ii - 1] + padded[jj, ii + 1]


def hand_nearby(net_covered: np.ndarray, covered_light: np.ndarray, bright_parity: int) -> np.ndarray:
    """(32,) bool, lattice dark-cell order: an edge-adjacent light cell is covered, or a diagonal neighbour
    is also covered in the network's reading (``net_covered``). A hand is wider than a square."""
    return (covered_neighbours(covered_light, bright_parity) > 0) | diagonal_neighbours(net_covered, bright_parity)


def diagonal_neighbours(marked: np.ndarray, bright_parity: int) -> np.ndarray:
    """(32,) bool, lattice dark-cell order: a diagonal neighbour (the dark squares a cell touches) is ``marked``."""
    cells = dark_cells(bright_parity)
    ii, jj = cells[:, 0] + 1, cells[:, 1] + 1
    dark = np.zeros((10, 10), dtype=bool)
    dark[jj[marked], ii[marked]] = True
    return dark[jj - 1, ii - 1] | dark[jj - 1, ii + 1] | dark[jj + 1, ii - 1] | dark[jj + 1, ii + 1]


@dataclass
class HandReading:
    """What :meth:`HandWatch.check` saw in one frame."""

    foreign: np.ndarray  # (8, 8) bool: board cells with something over them (light cells, or dark ones touching)
    hidden: np.ndarray  # (32,) bool, lattice dark-cell order: dark squares a hand may hide
    border: bool  # something crosses the margin (board frame, table next to it, picture border)
    moving: bool  # the top view changed since the previous frame
    settled: bool  # the reference was (re)taken from this frame
    compared: bool = True  # a settled view was there to compare with (False: the static test alone)
    still: np.ndarray | None = None  # (32,) bool, lattice dark-cell order: unchanged since the previous frame
    view: np.ndarray | None = None  # the Lab top view with its margin (for odd_margin_cells)
    # (8, 8) bool: light cells the static test calls covered, excused as something still that is no hand: a
    # piece's top (lean_candidates) or a shadow (shadow_candidates) unchanged for LEAN_STILL_FRAMES, or a
    # square only relit since it was seen empty (relit_cells; HandWatch._relit_empty)
    still_excused: np.ndarray | None = None
    # (8·MCELL)² lightness gain over the lattice relative to the first settled view's light, where a shadow
    # has changed it (LIGHT_FIELD_SHOWN); None where it has not
    light: np.ndarray | None = None
    # (8, 8) int, when ``light`` is given: how each lattice cell's light is known. 2: only relit since the
    # settled view (relit_cells), so measured pixel by pixel against the settled picture; 1: the light and the
    # content as they were; 0: neither known (something changed there: a piece moved, a hand), ``light`` only
    light_known: np.ndarray | None = None

    def odd_margin_cells(self) -> np.ndarray:
        """(GRID, GRID) bool: margin cells unlike their side (:func:`odd_margin`); computed on demand, since
        only a lone covered square at the board's edge needs it (it costs 0.2 ms, a frame's budget is 5)."""
        if self.view is None:
            return np.zeros((GRID, GRID), dtype=bool)
        return odd_margin(self.view)

    @property
    def hand(self) -> bool:
        return bool(self.foreign.any() or self.border)


@lru_cache(maxsize=2)
def _light_mask(bright_parity: int) -> np.ndarray:
    """(GRID, GRID) bool: light cells of the lattice inside the margin; read-only (every tracking frame asks)."""
    jj, ii = np.mgrid[0:8, 0:8]
    out = np.zeros((GRID, GRID), dtype=bool)
    out[1:9, 1:9] = (ii + jj) % 2 == bright_parity
    out.flags.writeable = False
    return out


MARGIN = np.pad(np.zeros((8, 8), dtype=bool), 1, constant_values=True)
CROSS = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=np.uint8)
SHIFT = np.ones((3, 3), np.uint8)


def _side_drift(share: np.ndarray) -> np.ndarray:
    """(GRID, GRID) change threshold of each margin cell from its side of the margin.

    The margin holds the board's outer edge and the table: strong edges that a drifting fit moves along
    a whole side, whereas an arm crosses one side in a cell or three. Corner cells take the stricter side.
    """
    sides = np.median(np.stack([share[0], share[-1], share[:, 0], share[:, -1]]), axis=1)
    out = np.zeros_like(share)
    out[0], out[-1] = sides[0], sides[1]
    out[:, 0] = np.maximum(out[:, 0], sides[2])
    out[:, -1] = np.maximum(out[:, -1], sides[3])
    return DRIFT * out


def odd_margin(view: np.ndarray) -> np.ndarray:
    """(GRID, GRID) bool: margin cells whose colour stands out from the rest of their side of the margin.

    Each side of the margin is one strip of frame or table, alike along its length; an arm crossing it
    differs in one cell or three. A cell is odd when its mean colour is farther from its side's median
    than ``ODD_MARGIN`` and than three times the side's typical distance (a grained or patterned table
    varies along its side too). Lightness counts half, as in the motion test: the board's own shadow
    darkens part of a side. Skin and a light wooden frame can be alike, so this finds most arms, not
    all (docs/vision.md).
    """
    means = view.reshape(GRID, MCELL, GRID, MCELL, 3).mean(axis=(1, 3))
    out = np.zeros((GRID, GRID), dtype=bool)
    weight = np.array([0.5, 1.0, 1.0], dtype=np.float32)
    for index in (np.s_[0, :], np.s_[-1, :], np.s_[:, 0], np.s_[:, -1]):
        side = means[index]
        dist = np.sqrt((((side - np.median(side, axis=0)) * weight) ** 2).sum(axis=1))
        out[index] |= dist > max(ODD_MARGIN, 3.0 * float(np.median(dist)))
    return out


def arm_beside(odd: np.ndarray, bright_parity: int) -> np.ndarray:
    """(32,) bool, lattice dark-cell order: an odd margin cell (:func:`odd_margin`) is an edge neighbour."""
    near = cv2.dilate(odd.astype(np.uint8), CROSS).astype(bool)
    cells = dark_cells(bright_parity)
    return near[cells[:, 1] + 1, cells[:, 0] + 1]


def leaning_onto(changed_dark: np.ndarray, bright_parity: int, shift: np.ndarray) -> np.ndarray:
    """(GRID, GRID) bool: light cells behind a changed dark square, as seen from the camera.

    A piece set down on a square, or lifted from it, changes the light square behind it as much as its
    top covered: under a low camera a tall piece's top covers most of it (:func:`leaned_over`), more than
    ``SPILL`` allows. A light cell within 60° of a changed dark square's lean direction, where the lean is
    steep enough to reach it (``LEAN_MIN_SHIFT``), changed for that piece: leaning along a diagonal, a
    tall top covers both light squares beside the diagonal. A hand changes more than those squares, and
    ``HandWatch.check`` asks only once nothing has moved for ``LEAN_QUIET_FRAMES``: a hand's changed
    region whose near edge is all dark squares would pass this test too. ``changed_dark`` is (GRID, GRID).
    """
    cells = dark_cells(bright_parity)
    y, x = cells[:, 1] + 1, cells[:, 0] + 1
    s = np.asarray(shift, dtype=np.float64)
    moved = changed_dark[y, x]
    out = np.zeros((GRID, GRID), dtype=bool)
    for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        toward = moved & _leans_toward(s, di, dj, LEAN_COS_MOVED)
        out[y[toward] + dj, x[toward] + di] = True
    return out


def same_place(h0: np.ndarray, h1: np.ndarray, tol: float = 0.5) -> bool:
    """Do two lattice homographies number the same board alike (corners within ``tol`` squares)?

    The views are compared in board coordinates, so a camera that shakes or is bumped, or a fit
    redone while a hand hides corners, leaves the settled view valid. A fit whose window slipped by a
    square, or that numbers the lattice from another corner, moves the corners a square or more:
    start afresh.
    """
    uv = np.array([[0.0, 0.0, 1.0], [8.0, 0.0, 1.0], [8.0, 8.0, 1.0], [0.0, 8.0, 1.0]]).T
    p0, p1 = h0 @ uv, h1 @ uv
    p0, p1 = p0[:2] / p0[2], p1[:2] / p1[2]
    square = float(np.linalg.norm(p0[:, 1] - p0[:, 0])) / 8.0
    return float(np.linalg.norm(p1 - p0, axis=0).max()) <= tol * square


class HandWatch:
    """Frame differencing against the last settled top view (see the module docstring).

    ``check`` is called once per frame with the lattice homography; a new homography (re-localization)
    starts afresh. The reference is taken from a frame that matches the previous one (nothing moving)
    and in which the static light-square test sees nothing; after that it follows the board only while
    nothing foreign is over it: piece changes on dark squares (a move just made) and slow lighting drift
    are learned, hands are not.
    """

    def __init__(self, settle_frames: int = 2) -> None:
        self.settle_frames = settle_frames
        self.reset()

    def reset(self) -> None:
        self._h: np.ndarray | None = None
        self._ref: np.ndarray | None = None
        self._ref_bgr: np.ndarray | None = None  # the same view in BGR 0–1 (relit_cells)
        self._ref_means: np.ndarray | None = None  # its squares' mean colours, BGR 0–1 (_in_light_of)
        self._prev: np.ndarray | None = None
        self._quiet = 0
        self._unchanged: np.ndarray | None = None  # (GRID, GRID) frames each cell has not changed for
        # (GRID, GRID) bool: light squares the settled view shows as they were when last seen calm, under other
        # light (a shadow standing over them): the static test, which knows only the empty squares' usual
        # colour, takes a deep shadow's light squares for something over them
        self._relit_empty = np.zeros((GRID, GRID), dtype=bool)
        # (GRID·MCELL)² lightness gain of the settled view's light over the first settled view's (_light_now)
        self._field: np.ndarray | None = None

    def _view(self, frame: np.ndarray, h_lattice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(GRID·MCELL)² top view of the lattice plus margin: (Lab, BGR 0–1)."""
        s = 1.0 / WARP_CELL
        m = h_lattice @ np.array([[s, 0.0, -1.0], [0.0, s, -1.0], [0.0, 0.0, 1.0]])
        big = GRID * WARP_CELL
        top = warp_square(frame, m, big)
        small = cv2.resize(top, (GRID * MCELL, GRID * MCELL), interpolation=cv2.INTER_AREA)
        bgr = small.astype(np.float32) * (1.0 / 255.0)
        return cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab), bgr

    @staticmethod
    def _in_light_of(bgr: np.ndarray, lab: np.ndarray, ref_means: np.ndarray, ref: np.ndarray,
                     means: np.ndarray | None = None) -> np.ndarray:
        """The Lab top view ``lab`` of ``bgr`` as it would look in the light of the reference view whose
        squares' mean colours are ``ref_means`` (:func:`_cell_means`, BGR 0–1) and whose Lab view is ``ref``;
        ``lab`` itself where the light has not changed (most frames). ``means``: ``bgr``'s squares' mean colours,
        when the caller has them. A pixel that was bright and is clipped white in ``bgr`` keeps no measure of
        the new light (a lamp brighter than the camera's range): it is taken as unchanged (one that was not
        bright is something new, a sleeve, and stays as seen).

        Each colour channel is mapped as ``x ** g · e ** p(u, v)``: a gain that is a plane over the view (a
        lamp to one side changes one side more; a camera's exposure or white balance jumping, every square
        alike) and a power for a changed tone curve (the camera's contrast or gamma). The four numbers of
        each channel are fitted in logs to the ten by ten squares' mean colours, the squares that stray
        trimmed off.

        A lamp switched on or off, a cloud, a camera's exposure jumping: every square and the margin change
        together, and against the settled board the margin and the light squares then all read as a hand,
        so nothing was passed on until the reference was learned again (never, in a game whose moves come
        faster than ``STALE_FRAMES``). A hand covers a minority of the squares and changes them abruptly,
        not along a plane: it is trimmed from the fit and still stands out after the match.
        """
        cur = np.log(np.maximum(_cell_means(bgr) if means is None else means, 1e-3))
        was = np.log(np.maximum(ref_means, 1e-3))
        if float(np.mean(np.abs(was - cur).max(axis=1) >= LIGHT_CHANGED)) < LIGHT_EVERYWHERE:
            # squares as they were: the light has not changed (a hand, an arm, a move change some squares;
            # a near arm under a steep camera half of them, and a fit then took the arm for the light)
            return lab
        logs = np.log(np.maximum(bgr.reshape(-1, 3), 1e-3))
        out = np.empty_like(logs)
        same = True
        # a square clipped white in either view says nothing of the light's change
        usable = (np.maximum(cur, was) < np.log(CLIPPED)).all(axis=1)
        for c in range(3):
            coef = _trimmed_fit(np.column_stack([_CELL_TERMS, cur[:, c]]), was[:, c], usable)
            pixel = _PIXEL_TERMS @ coef[:3] + coef[3] * logs[:, c]
            out[:, c] = pixel
            same &= bool(np.abs(pixel - logs[:, c]).max() < LIGHT_SAME)
        if same:
            return lab
        matched = cv2.cvtColor(np.clip(np.exp(out), 0.0, 1.0).reshape(bgr.shape).astype(np.float32),
                               cv2.COLOR_BGR2Lab)
        clipped = (bgr.max(axis=2) >= CLIPPED_PIXEL) & (ref[..., 0] >= BRIGHT_L)
        matched[clipped] = ref[clipped]
        return matched

    def _lightness_ratio(self, bgr: np.ndarray) -> np.ndarray:
        """(GRID·MCELL)² each pixel's lightness in motion top view ``bgr`` over the settled view's (3×3 median)."""
        now, was = bgr.sum(axis=2), self._ref_bgr.sum(axis=2)
        return cv2.medianBlur(((now + 0.03) / (was + 0.03)).astype(np.float32), 3)

    def _light_now(self, ratio: np.ndarray, unknown: np.ndarray, relit: np.ndarray | None) -> np.ndarray | None:
        """(GRID·MCELL)² lightness gain of the light now over the first settled view's (None: the same): the
        settled view's (``self._field``) times, on the squares ``relit`` (relit_cells), each pixel's change
        of lightness since it (``ratio``: :meth:`_lightness_ratio`); as it was where neither changed
        (``unknown`` False); filled in from the squares around where something else changed (a piece moved,
        a hand; or a square in a new light that relit_cells does not find only relit)."""
        if (relit is None or not relit.any()) and (self._field is None or not unknown.any()):
            return self._field
        field = np.ones(ratio.shape, np.float32) if self._field is None else self._field
        known = ~np.kron(unknown, np.ones((MCELL, MCELL), dtype=bool))
        out = field.copy()
        if relit is not None and relit.any():
            # only where the light itself changed: a square relit by a few per cent (a piece nudged, the
            # camera's noise) keeps its light, and its pieces' rims leave no seams in it
            moved = np.abs(np.log(ratio.reshape(GRID, MCELL, GRID, MCELL).mean(axis=(1, 3)))) > np.log(LIGHT_FIELD_STEP)
            lit = np.kron(relit & moved, np.ones((MCELL, MCELL), dtype=bool))
            out[lit] = field[lit] * ratio[lit]
            known |= lit
        if not known.all():
            # A piece moved onto or off a square leaves its corners bare wood, before and after: their change
            # is the light's. Under a hand, or where the corners disagree, the squares around stand in.
            rows, cols = np.nonzero(unknown)
            corners = ratio.reshape(GRID, MCELL, GRID, MCELL).transpose(0, 2, 1, 3)[rows, cols][:, _CORNERS]
            lo, mid, hi = np.quantile(np.log(corners), [0.25, 0.5, 0.75], axis=1)
            agree = (hi - lo) <= np.log(LIGHT_FIELD_STEP)
            k = 2 * LIGHT_FIELD_FILL * MCELL + 1
            weight = cv2.blur(known.astype(np.float32), (k, k))
            filled = cv2.blur(np.where(known, np.log(out), 0.0).astype(np.float32), (k, k))
            out = np.where(known, out, np.where(weight > 0.05, np.exp(filled / np.maximum(weight, 1e-6)), field))
            for r, c, m in zip(rows[agree], cols[agree], mid[agree], strict=True):
                cell = (slice(r * MCELL, (r + 1) * MCELL), slice(c * MCELL, (c + 1) * MCELL))
                out[cell] = field[cell] * np.exp(m)
        return out.astype(np.float32)

    @staticmethod
    def _changed(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """(GRID, GRID) share of each cell's pixels of ``a`` that differ from top view ``b``.

        A pixel differs only when it lies outside the range of ``b`` over its 3×3 neighbourhood: a
        camera that shakes or a fit that is off by a pixel moves edges by a pixel, a hand does not
        fit into the colours that were already there.
        """
        lo = cv2.erode(b, SHIFT)
        hi = cv2.dilate(b, SHIFT)
        d = np.maximum(lo - a, 0.0) + np.maximum(a - hi, 0.0)
        # lightness halved: shadows and glare flicker change L far more than a hand changes hue
        dist = np.sqrt(0.25 * d[..., 0] ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)
        noise = float(median_last(dist.ravel()))
        mask = dist > max(6.0, 4.0 * noise)
        return mask.reshape(GRID, MCELL, GRID, MCELL).mean(axis=(1, 3))

    def check(self, frame: np.ndarray, h_lattice: np.ndarray, bright_parity: int,
              static_covered: np.ndarray, shift: np.ndarray | None = None,
              still_candidates: np.ndarray | None = None) -> HandReading:
        """Compare this frame with the settled board; ``static_covered`` is :func:`light_cover`'s first.

        ``shift`` (32, 2), where a point one square above each dark cell lands in the top view
        (``vision.viewpoint``), tells which light squares a tall piece set down on or lifted from a
        changed dark square may cover whole (:func:`leaning_onto`); once nothing has moved for
        ``LEAN_QUIET_FRAMES``, such squares alone are no hand. ``still_candidates`` (8, 8) bool marks the
        static test's squares that something standing still may explain, a piece's top
        (:func:`lean_candidates`) or a shadow (:func:`shadow_candidates`): those unchanged for
        ``LEAN_STILL_FRAMES`` and not changed against the settled board are taken out of the static test
        and reported as ``still_excused``."""
        if self._h is None or (not np.array_equal(self._h, h_lattice) and not same_place(self._h, h_lattice)):
            self.reset()  # another numbering of the lattice: the old views no longer line up
        self._h = h_lattice.copy()
        view, bgr = self._view(frame, h_lattice)
        light = _light_mask(bright_parity)
        moving = False
        cells = dark_cells(bright_parity)
        still = np.zeros(len(cells), dtype=bool)
        if self._prev is not None:
            step = self._changed(view, self._prev) > CHANGED
            moving = bool(step.any())
            still = ~step[1:9, 1:9][cells[:, 1], cells[:, 0]]
        # frames each cell has not changed for, counted only while the static test has candidates (most
        # frames it has none): a count starts afresh whenever they reappear
        if still_candidates is None or not still_candidates.any() or self._prev is None:
            self._unchanged = None
        else:
            self._unchanged = np.where(step, 0, 1 if self._unchanged is None else self._unchanged + 1)
        self._prev = view
        compared = self._ref is not None
        relit = None
        relit_empty = np.zeros((GRID, GRID), dtype=bool)  # light squares as seen calm, under other light only
        look = np.zeros((GRID, GRID), dtype=bool)  # squares changed, or in another light (relit_cells asked)
        field = self._field  # the light now over the first settled view's (_light_now)
        means = _cell_means(bgr)  # the squares' mean colours, once a frame (the light match, the settled view)
        if self._ref is None:
            changed = np.zeros((GRID, GRID), dtype=bool)
            share = np.zeros((GRID, GRID))
        else:
            share = self._changed(self._in_light_of(bgr, view, self._ref_means, self._ref, means), self._ref)
            asked = share > CHANGED
            # a square the test calls unchanged (it halves lightness) may still lie in a shadow, or under the
            # corner of one: which light it is in is asked too (HandReading.light)
            # (most frames no square's mean has changed by even a few per cent: nothing to look at)
            ratio, look = None, asked
            lightened = np.log(np.maximum(means.sum(axis=1), 1e-3) / np.maximum(self._ref_means.sum(axis=1), 1e-3))
            if asked.any() or float(np.abs(lightened).max()) > LIGHT_FIELD_PART * np.log(LIGHT_FIELD_SHOWN) / 2:
                ratio = self._lightness_ratio(bgr)
                dimmed = (np.abs(np.log(ratio)) > np.log(LIGHT_FIELD_SHOWN)).reshape(GRID, MCELL, GRID, MCELL)
                look = asked | (dimmed.mean(axis=(1, 3)) >= LIGHT_FIELD_PART)
            if look.any():  # a square only relit (a shadow standing over part of the board) is as it was
                relit = relit_cells(bgr, self._ref_bgr, look, ~asked)
                share = np.where(relit, 0.0, share)
            relit_empty = self._relit_empty & ~asked
            if relit is not None:
                relit_empty |= light & relit
            field = self._field if ratio is None else self._light_now(ratio, look if relit is None else look & ~relit,
                                                                      relit)
            # A view misregistered by more than the pixel allowed (a shaking camera while tracking)
            # changes a little of every square along its edges; a hand changes a few squares a lot.
            spread = DRIFT * float(median_last(share[light]))
            changed = np.where(MARGIN, share > np.maximum(MARGIN_CHANGED, _side_drift(share)),
                               share > max(CHANGED, spread))
        # Light squares and the margin change only under something foreign, or where a moved piece's
        # top leans over them at a slant (next to a changed dark square). Anything else is a hand or
        # an arm, and so is the whole changed region connected to it.
        dark = ~light & ~MARGIN
        piece = cv2.dilate((changed & dark).astype(np.uint8), CROSS).astype(bool)
        unexplained = changed & ~dark & ~(piece & (share < SPILL))
        if shift is not None and unexplained.any() and not moving and self._quiet >= LEAN_QUIET_FRAMES:
            # Nothing has moved for a while: what is left changed may be a tall piece's top over the square
            # behind it, set down or lifted there (leaning_onto). A hand held that still over just those
            # squares is rare, and the network's covered class still sees one over the dark square.
            unexplained &= ~leaning_onto(changed & dark, bright_parity, shift)
        hand_cells = np.zeros((GRID, GRID), dtype=bool)
        if unexplained.any():
            n, comp = cv2.connectedComponents(changed.astype(np.uint8), connectivity=8)
            hit = np.unique(comp[unexplained])
            hand_cells = np.isin(comp, hit[hit > 0])
        still_excused = None
        if self._unchanged is not None:  # a piece's top or a shadow held still, not a hand
            still_excused = still_candidates & (self._unchanged[1:9, 1:9] >= LEAN_STILL_FRAMES) & ~changed[1:9, 1:9]
            static_covered = static_covered & ~still_excused
        if relit_empty.any() and static_covered.any():  # a light square in a shadow, as empty as when seen calm
            vouched = static_covered & relit_empty[1:9, 1:9]
            static_covered = static_covered & ~vouched
            still_excused = vouched if still_excused is None else still_excused | vouched
        if static_covered.sum() >= 2:  # two odd light squares (one alone may be a glint)
            hand_cells |= pad1(static_covered, False)
        border = bool((hand_cells & MARGIN).any())
        foreign = hand_cells & ~MARGIN
        hand = bool(hand_cells.any())
        # dark squares a hand may hide: an edge neighbour (light cell or margin) or itself foreign
        reach = cv2.dilate(hand_cells.astype(np.uint8), CROSS).astype(bool)
        hidden = (reach & dark)[1:9, 1:9][cells[:, 1], cells[:, 0]]
        settled = False
        self._quiet = 0 if moving else self._quiet + 1
        calm = static_covered.sum() < 2 and (not hand or self._quiet >= STALE_FRAMES)
        # A shadow is learned into the settled board only once it has stood still a while: a hand's shadow
        # runs ahead of the hand and may pause for a frame or two, and learned then it would read as a change
        # where it was once it has gone.
        # Light coming back (a shadow lifting, seen standing when the view settled) is no hand's shadow: it
        # settles as a move does. (Squares asked only for their light do not count.)
        relit_changed = relit is not None and bool((relit & asked & (lightened < 0).reshape(GRID, GRID)).any())
        settle_after = RELIT_SETTLE_FRAMES if relit_changed else self.settle_frames
        if calm and self._quiet >= settle_after:
            # the board as it now stands (a move just made, lighting drift)
            self._ref, self._ref_bgr, self._ref_means = view, bgr, means
            self._relit_empty = relit_empty
            self._field = field
            settled = True
        # with a hand over the board, or anything moving, a shadow comes and goes (the hand's own, running ahead
        # of it): the light of the settled view stands
        light_of = self._field if hand or moving else field
        board = None if light_of is None else light_of[MCELL:9 * MCELL, MCELL:9 * MCELL]
        shown = board is not None and float(np.abs(np.log(board)).reshape(8, MCELL, 8, MCELL).mean(
            axis=(1, 3)).max()) > np.log(LIGHT_FIELD_SHOWN)
        known = None
        if shown and (hand or moving):
            known = np.ones((8, 8), dtype=np.int64)  # the settled view's light throughout
        elif shown:
            known = np.where(look, 0, 1) if relit is None else np.where(relit, 2, np.where(look, 0, 1))
            known = known[1:9, 1:9]
        return HandReading(foreign=foreign[1:9, 1:9], hidden=hidden, border=border, moving=moving,
                           settled=settled, compared=compared, still=still, view=view,
                           still_excused=still_excused, light=board if shown else None, light_known=known)
