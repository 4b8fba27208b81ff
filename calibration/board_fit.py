"""Sub-pixel board corners from every visible grid edge, for the profile (not per frame: it is slow-ish).

Why: the per-frame localizer fits its homography to the inner X-corners it can confirm. In the start
position the corners next to the pieces are pulled a little toward the pieces' rims, and the outer
corners are extrapolated from that fit, so a bias of half a pixel inside becomes two or three pixels at
the board's corners. Here the board is measured along the fourteen inner grid lines instead: every
inner line separates light squares from dark ones along its whole length, and close to each square's
corners a round piece does not reach the line. Each sample is a short intensity profile across the line
(a fifth of a square long), whose steepest step of the expected polarity is the edge; the homography is
then fitted to all edge points at once (hundreds of them over the whole board, ranks 1–8), with
robust rejection of the samples a piece or a reflection spoiled. The outer corners are extrapolated by
one square only, from lines that span the whole board.

On a board with dark lines inlaid between the squares the steepest light/dark step is the light
square's side of the line, half a line width from the square's edge, and which side that is flips
from square to square along every line. The two groups balance on an empty board, but pieces hide
more of one than of the other, and the unbalanced half-width (about a pixel) tilts the fit. So the fit
has one unknown more, that offset toward the light side in board units (one value for the whole board:
the line's width is physical, the same everywhere on the board's plane); without inlaid lines it comes
out near zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

BOARD_UV = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], np.float64)  # the four corners in board units
HALF = 0.12  # profile half-length across a line, in squares (a piece's rim stays farther away)
STEPS = 25  # samples along one profile
# positions along a line (square units): near each square's corners, where round pieces never reach
# (samples mid-segment were tried: a piece leaning over the line biases them more than they add)
ALONG = np.concatenate([k + np.array([0.06, 0.1, 0.14, 0.18, 0.82, 0.86, 0.9, 0.94]) for k in range(8)])


@dataclass
class EdgeFit:
    """Refined corners (same order as given), how many edge samples carried the fit, RMS residual (px),
    and how far the edges sat from the lines toward the light squares (px; half an inlaid line's width)."""

    points: np.ndarray
    used: int
    rms_px: float
    light_offset_px: float = 0.0


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    ph = np.asarray(pts, np.float64).reshape(-1, 2) @ h[:, :2].T + h[:, 2]
    return ph[:, :2] / ph[:, 2:3]


def _grey(frame: np.ndarray) -> np.ndarray:
    g = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return g.astype(np.float32)


def _sample(grey: np.ndarray, h: np.ndarray, uv: np.ndarray) -> np.ndarray:
    xy = _apply(h, uv).astype(np.float32)
    return cv2.remap(grey, xy[:, 0:1], xy[:, 1:2], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).ravel()


def _light_parity(grey: np.ndarray, h: np.ndarray) -> tuple[int, float]:
    """(parity, contrast): cell (i, j) is light iff (i + j) % 2 == parity; light minus dark grey level.

    Sampled close to the cells' corners, where round pieces on the dark squares do not reach.
    """
    cells = np.array([(i, j) for j in range(8) for i in range(8)], np.float64)
    offs = np.array([[0.15, 0.15], [0.85, 0.15], [0.15, 0.85], [0.85, 0.85]])
    vals = _sample(grey, h, (cells[:, None, :] + offs[None]).reshape(-1, 2)).reshape(64, 4)
    med = np.median(vals, axis=1)
    even = ((cells[:, 0] + cells[:, 1]) % 2) == 0
    diff = float(np.median(med[even]) - np.median(med[~even]))
    return (0 if diff > 0 else 1), abs(diff)


def _edge_points(grey: np.ndarray, h: np.ndarray, parity: int, contrast: float) -> tuple[np.ndarray, np.ndarray]:
    """Edge points (N, 2) in image pixels on the inner lines, and their line (axis, value, light) (N, 3).

    ``light`` is +1 where the light square lies on the line's + side, -1 where it lies on the - side.
    """
    s = np.linspace(-HALF, HALF, STEPS)
    pts, lines = [], []
    for axis in (0, 1):
        for k in range(1, 8):
            t = ALONG
            across = k + s[None, :].repeat(len(t), 0)
            along = t[:, None].repeat(STEPS, 1)
            uv = np.stack([across, along], -1) if axis == 0 else np.stack([along, across], -1)
            prof = _sample(grey, h, uv.reshape(-1, 2)).reshape(len(t), STEPS)
            # the square on the + side of the line: light iff its cell parity matches
            cell_plus = np.floor(np.stack([np.full_like(t, k + 0.5), t], -1) if axis == 0 else
                                 np.stack([t, np.full_like(t, k + 0.5)], -1)).astype(int)
            sign = np.where((cell_plus.sum(axis=1) % 2) == parity, 1.0, -1.0)
            grad = np.gradient(prof, axis=1) * sign[:, None]
            i = np.argmax(grad[:, 1:-1], axis=1) + 1
            g0, g1, g2 = (grad[np.arange(len(t)), i + d] for d in (-1, 0, 1))
            den = g0 - 2 * g1 + g2
            frac = np.where(den < 0, 0.5 * (g0 - g2) / np.where(den < 0, den, -1.0), 0.0)
            step = (prof[:, -4:].mean(axis=1) - prof[:, :4].mean(axis=1)) * sign
            ok = (step > 0.5 * contrast) & (i > 1) & (i < STEPS - 2)
            where = s[0] + (i + np.clip(frac, -0.5, 0.5)) * (s[1] - s[0])
            edge_uv = np.stack([k + where, t], -1) if axis == 0 else np.stack([t, k + where], -1)
            pts.append(_apply(h, edge_uv[ok]))
            lines.append(np.stack([np.full(ok.sum(), axis), np.full(ok.sum(), k), sign[ok]], -1))
    return np.concatenate(pts), np.concatenate(lines).astype(np.float64)


def _fit_lines(pts: np.ndarray, lines: np.ndarray, target: np.ndarray, weights: np.ndarray) -> np.ndarray | None:
    """Image → board homography G with u(p) = target on the u-lines, v(p) = target on the v-lines (weighted DLT)."""
    c = pts.mean(axis=0)
    sc = np.sqrt(2) / max(float(np.mean(np.linalg.norm(pts - c, axis=1))), 1e-9)
    norm = np.array([[sc, 0, -sc * c[0]], [0, sc, -sc * c[1]], [0, 0, 1]])
    ph = np.hstack([pts, np.ones((len(pts), 1))]) @ norm.T
    rows = np.zeros((len(pts), 9))
    u_rows = lines[:, 0] == 0
    rows[u_rows, 0:3] = ph[u_rows]
    rows[~u_rows, 3:6] = ph[~u_rows]
    rows[:, 6:9] = -target[:, None] * ph
    rows *= weights[:, None]
    _, sv, vt = np.linalg.svd(rows, full_matrices=False)
    if sv[-2] < 1e-12:
        return None
    g = vt[-1].reshape(3, 3) @ norm
    return g / g[2, 2] if abs(g[2, 2]) > 1e-12 else None


def _residuals(g: np.ndarray, pts: np.ndarray, lines: np.ndarray, offset: float = 0.0) -> np.ndarray:
    """Signed distance in board units of each edge point from its line shifted ``offset`` toward the light side."""
    uv = _apply(g, pts)
    return uv[np.arange(len(uv)), lines[:, 0].astype(int)] - lines[:, 1] - offset * lines[:, 2]


def _robust_fit(pts: np.ndarray, lines: np.ndarray) -> tuple[np.ndarray | None, np.ndarray, float]:
    """Fit with iterative rejection of samples off the fit (pieces, reflections); (G, kept mask, offset).

    ``offset`` is where the edges sit from the lines toward the light squares, in board units (half an
    inlaid line's width); each round fits G with it fixed, then re-estimates it from the residuals.
    """
    keep = np.ones(len(pts), bool)
    g = None
    w = np.ones(len(pts))
    offset = 0.0
    for _ in range(12):
        if keep.sum() < 24 or len(set(map(tuple, lines[keep, :2]))) < 6:
            return None, keep, offset
        g_new = _fit_lines(pts[keep], lines[keep], lines[keep, 1] + offset * lines[keep, 2], w[keep])
        if g_new is None:
            return None, keep, offset
        g = g_new
        # weights turn the algebraic error into board units (divide by the projective depth)
        den = np.abs(np.hstack([pts, np.ones((len(pts), 1))]) @ g[2])
        w = 1.0 / np.maximum(den / np.median(den), 1e-6)
        r = _residuals(g, pts, lines, offset)
        offset_new = offset + float(np.mean(r[keep] * lines[keep, 2]))
        r = _residuals(g, pts, lines, offset_new)
        mad = 1.4826 * float(np.median(np.abs(r[keep] - np.median(r[keep]))))
        limit = max(3.0 * mad, 0.01)
        new_keep = np.abs(r) < limit
        settled = abs(offset_new - offset) < 1e-4
        offset = offset_new
        if (new_keep == keep).all() and settled:
            break
        keep = new_keep
    return g, keep, offset


def refine_corners(frame: np.ndarray, points: np.ndarray, rounds: int = 3) -> EdgeFit | None:
    """Refine four board corners (any consistent order, image pixels) on a still frame.

    None when the grid edges do not carry a fit (too little of the board visible, no contrast): the
    caller keeps its corners then.
    """
    pts4 = np.asarray(points, np.float64).reshape(4, 2)
    grey = _grey(frame)
    h = cv2.getPerspectiveTransform(BOARD_UV.astype(np.float32), pts4.astype(np.float32)).astype(np.float64)
    parity, contrast = _light_parity(grey, h)
    if contrast < 10:
        return None
    used, rms, light_px = 0, 0.0, 0.0
    for _ in range(rounds):
        edge, lines = _edge_points(grey, h, parity, contrast)
        if len(edge) < 24:
            return None
        g, keep, offset = _robust_fit(edge, lines)
        if g is None:
            return None
        h_new = np.linalg.inv(g)
        h_new /= h_new[2, 2]
        moved = float(np.max(np.linalg.norm(_apply(h_new, BOARD_UV) - _apply(h, BOARD_UV), axis=1)))
        square = float(np.linalg.norm(pts4[1] - pts4[0])) / 8
        if moved > 0.5 * square:  # the edges pulled the fit a long way: do not trust it
            return None
        h = h_new
        scale = square  # px per board unit, near enough for a figure
        used = int(keep.sum())
        rms = float(np.sqrt(np.mean(_residuals(g, edge[keep], lines[keep], offset) ** 2)) * scale)
        light_px = offset * scale
        if moved < 0.01:
            break
    return EdgeFit(points=_apply(h, BOARD_UV), used=used, rms_px=rms, light_offset_px=light_px)
