"""Draughts pieces as real 3D discs: side wall, bevelled rim and top face with turned grooves,
shaded by the scene light, plus their soft drop shadows. Kings are two discs stacked."""

from __future__ import annotations

import cv2
import numpy as np

from vision.render.view import View

SEGMENTS = 48
_ANG = np.linspace(0, 2 * np.pi, SEGMENTS, endpoint=False)
_COS, _SIN = np.cos(_ANG), np.sin(_ANG)
SHIFT = 4  # sub-pixel bits for cv2 drawing
_ONE = 1 << SHIFT


def light_vector(azimuth_deg: float, elevation_deg: float) -> np.ndarray:
    """Unit vector from a surface point towards the light, in board coordinates."""
    a, e = np.radians(azimuth_deg), np.radians(elevation_deg)
    return np.array([np.cos(e) * np.sin(a), np.cos(e) * np.cos(a), np.sin(e)])


def _fx(pts: np.ndarray) -> np.ndarray:
    return np.round(pts * _ONE).astype(np.int32)


def _circle(x: float, y: float, r: float, z: float) -> np.ndarray:
    return np.stack([x + r * _COS, y + r * _SIN, np.full(SEGMENTS, z)], 1)


class PieceDrawer:
    """Draws pieces of one scene; colours are lit per piece by the scene's illumination field."""

    def __init__(self, view: View, light: np.ndarray, ambient: float, radius: float, height: float,
                 grooves: int, seamless_kings: bool = False, sheen: float = 120.0) -> None:
        self.view = view
        self.L = light / np.linalg.norm(light)
        self.ambient = ambient
        self.r = radius
        self.h = height
        self.bevel = min(0.3 * height, 0.1 * radius)
        self.grooves = grooves
        self.seamless_kings = seamless_kings
        self.sheen = sheen  # the bevel's glint at its brightest, in BGR units
        self._top = ambient + (1 - ambient) * max(self.L[2], 0.0)

    def _shade(self, normals: np.ndarray) -> np.ndarray:
        lam = np.clip(normals @ self.L, 0, None)
        return np.clip((self.ambient + (1 - self.ambient) * lam) / self._top, 0.15, 1.35)

    def _spec(self, normals: np.ndarray, pts: np.ndarray) -> np.ndarray:
        v = self.view.centre[None, :] - pts
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        half = v + self.L[None, :]
        half /= np.linalg.norm(half, axis=1, keepdims=True)
        return np.clip((normals * half).sum(1), 0, 1) ** 40

    def draw(self, canvas: np.ndarray, x: float, y: float, z0: float, discs: int, color: np.ndarray,
             mask: np.ndarray | None = None) -> None:
        """Draw a stack of ``discs`` discs standing at (x, y, z0); ``color`` is the lit BGR colour.

        With ``seamless_kings`` a stack is drawn as one disc as tall as the stack: discs turned to sit flush,
        no bevel between them (the fhgr photos' kings in ../shared/photos), where the usual stack shows
        the lower disc's bevelled rim as a seam halfway up the side."""
        if self.seamless_kings and discs > 1:
            self._disc(canvas, x, y, z0, color, mask, discs * self.h)
            return
        for k in range(discs):
            self._disc(canvas, x, y, z0 + k * self.h, color, mask, self.h)

    def _disc(self, canvas, x, y, z0, color, mask, height: float) -> None:
        r, b, view = self.r, self.bevel, self.view
        z1 = z0 + height
        bottom = _circle(x, y, r, z0)
        side_top = _circle(x, y, r, z1 - b)
        top = _circle(x, y, r - b, z1)
        pb, ps, pt = view.project(bottom), view.project(side_top), view.project(top)
        cam = view.centre
        n_side = np.stack([_COS, _SIN, np.zeros(SEGMENTS)], 1)
        mid = (bottom + side_top) / 2
        facing = ((cam[None, :] - mid) * n_side).sum(1) > 0
        # side wall: slightly rougher and darker than the top (end grain), lit by its normal
        shade = self._shade(n_side) * 0.88
        col = np.asarray(color, dtype=np.float64)
        nxt = np.roll(np.arange(SEGMENTS), -1)
        side_q = _fx(np.stack([pb, pb[nxt], ps[nxt], ps], 1))  # (SEGMENTS, 4, 2) fixed point
        side_c = np.clip(col[None, :] * shade[:, None], 0, 255).tolist()
        for i in np.nonzero(facing)[0]:
            cv2.fillConvexPoly(canvas, side_q[i], side_c[i], cv2.LINE_AA, SHIFT)
        # bevelled rim: normals at 45°, with a specular glint where it mirrors the light; the part
        # turned away from the camera is hidden by the top face
        n_bev = np.stack([_COS, _SIN, np.ones(SEGMENTS)], 1) / np.sqrt(2)
        bev_mid = (side_top + top) / 2
        shade_b = self._shade(n_bev)
        spec = self._spec(n_bev, bev_mid) * self.sheen
        bev_q = _fx(np.stack([ps, ps[nxt], pt[nxt], pt], 1))
        bev_c = np.clip(col[None, :] * shade_b[:, None] + spec[:, None], 0, 255).tolist()
        seen = ((cam[None, :] - bev_mid) * n_bev).sum(1) > 0
        depth = view.depth(bev_mid)
        for i in np.argsort(-depth):
            if seen[i]:
                cv2.fillConvexPoly(canvas, bev_q[i], bev_c[i], cv2.LINE_AA, SHIFT)
        # top face, with concentric grooves and a faint sheen towards the light
        c_top = tuple(float(v) for v in np.clip(col, 0, 255))
        cv2.fillConvexPoly(canvas, _fx(pt), c_top, cv2.LINE_AA, SHIFT)
        self._top_grain(canvas, x, y, z1, r - b, col)
        for g in range(self.grooves):
            rho = (r - b) * (0.78 - 0.22 * g)
            ring = view.project(_circle(x, y, rho, z1))
            dark = tuple(float(v) for v in np.clip(col * 0.86, 0, 255))
            lite = tuple(float(v) for v in np.clip(col * 1.05 + 4, 0, 255))
            cv2.polylines(canvas, [_fx(ring + 0.6)], True, lite, 1, cv2.LINE_AA, SHIFT)
            cv2.polylines(canvas, [_fx(ring)], True, dark, 1, cv2.LINE_AA, SHIFT)
        if mask is not None:
            hull = cv2.convexHull(_fx(np.vstack([pb, pt])))
            cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_8, SHIFT)

    def _top_grain(self, canvas, x: float, y: float, z: float, rho: float, col: np.ndarray) -> None:
        """Faint wood grain across the top face: a few chords in one direction, fixed by the position."""
        rng = np.random.default_rng([int(abs(x) * 10) + 7, int(abs(y) * 10) + 11])
        ang = rng.uniform(0, np.pi)
        d = np.array([np.cos(ang), np.sin(ang)])
        nrm = np.array([-d[1], d[0]])
        for off in np.sort(rng.uniform(-0.9, 0.9, int(rng.integers(3, 7)))) * rho:
            half = np.sqrt(max(rho * rho - off * off, 0.0)) * 0.97
            c = np.array([x, y]) + nrm * off
            bend = rng.uniform(-0.08, 0.08) * rho
            ts = np.linspace(-half, half, 7)
            pts = np.array([[*(c + d * t + nrm * bend * (1 - (t / half) ** 2)), z] for t in ts])
            tone = tuple(float(v) for v in np.clip(col * rng.uniform(0.93, 0.97), 0, 255))
            cv2.polylines(canvas, [_fx(self.view.project(pts))], False, tone, 1, cv2.LINE_AA, SHIFT)

    def shadow(self, mask: np.ndarray, x: float, y: float, z0: float, height: float, scale: float = 1.0) -> None:
        """Add the drop shadow footprint of a stack (bottom at z0, ``height`` tall) to ``mask`` (float)."""
        L = self.L
        lz = max(L[2], 0.2)
        base = _circle(x, y, self.r * 1.02, 0.0)
        tip = _circle(x - (z0 + height) * L[0] / lz, y - (z0 + height) * L[1] / lz, self.r, 0.0)
        if z0 > 0:  # a lifted piece: only the shadow of its body, not of the gap below it
            base = _circle(x - z0 * L[0] / lz, y - z0 * L[1] / lz, self.r, 0.0)
        pts = np.vstack([self.view.project(base), self.view.project(tip)]) * scale
        cv2.fillConvexPoly(mask, cv2.convexHull(_fx(pts)), 1.0, cv2.LINE_AA, SHIFT)
