"""Where the camera is, from the board's homography: how far a piece's top shifts in the top view.

The top view is the board plane seen square-on; anything above the plane is drawn there shifted away
from the camera's foot (the nadir, the board point straight below the camera) by its height times
(distance from the nadir) / (camera height). A crowned king, two discs tall, shifts twice as far as a
man; how far a man shifts depends on where the camera is. The square network gets, for every dark
square, the shift per unit height (in squares per square of height), so it can tell a king's height
from a man's at any camera pose, and knows when the camera is too steep above the board to show it.

The homography alone fixes the camera up to its focal length; with square pixels and the principal point
at the picture's centre (true enough for webcams) the focal length follows from the two constraints a
plane's rotation puts on it (Zhang 2000). Looking straight down those constraints vanish, and so does
the shift: the focal length then falls back to a typical webcam's and the shift is about zero anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TYPICAL_FOCAL = 0.9  # focal length / picture width of a typical webcam (about 58° across)


@dataclass(frozen=True)
class Viewpoint:
    """The camera's place in lattice units: its foot on the board plane and its height above it."""

    nadir: np.ndarray  # (2,) lattice (u, v) of the point straight below the camera
    height: float  # camera height above the board, in squares
    focal: float  # the focal length used (pixels)

    def shift(self, uv: np.ndarray) -> np.ndarray:
        """(N, 2) top-view shift, in squares, of a point one square above each lattice point ``uv``."""
        uv = np.asarray(uv, dtype=np.float64).reshape(-1, 2)
        return (uv - self.nadir) / max(self.height, 1e-6)


def focal_from_homography(h: np.ndarray, size: tuple[int, int]) -> float | None:
    """Focal length (px) making the plane's rotation orthonormal, or None when the view is too square-on."""
    cx, cy = (size[0] - 1) / 2.0, (size[1] - 1) / 2.0
    m = np.asarray(h, dtype=np.float64).copy()
    m[0] -= cx * m[2]
    m[1] -= cy * m[2]
    (a1, a2), (b1, b2), (c1, c2) = m[0, :2], m[1, :2], m[2, :2]
    estimates, weights = [], []
    den = c1 * c2  # orthogonality: (a1 a2 + b1 b2) / f² + c1 c2 = 0
    if abs(den) > 1e-12:
        f2 = -(a1 * a2 + b1 * b2) / den
        if f2 > 0:
            estimates.append(f2)
            weights.append(abs(den))
    den = c1 * c1 - c2 * c2  # equal norms: (a1² + b1²) / f² + c1² = (a2² + b2²) / f² + c2²
    if abs(den) > 1e-12:
        f2 = (a2 * a2 + b2 * b2 - a1 * a1 - b1 * b1) / den
        if f2 > 0:
            estimates.append(f2)
            weights.append(abs(den))
    if not estimates:
        return None
    f = float(np.sqrt(np.average(estimates, weights=weights)))
    # a square-on view leaves f unconstrained: trust only plausible lenses (about 10°–150° across)
    return f if 0.25 * size[0] <= f <= 6.0 * size[0] else None


def viewpoint(h_lattice: np.ndarray, size: tuple[int, int]) -> Viewpoint:
    """The camera's foot and height from a lattice → image homography and the picture's (width, height)."""
    f = focal_from_homography(h_lattice, size) or TYPICAL_FOCAL * size[0]
    k_inv = np.array([[1.0 / f, 0.0, -(size[0] - 1) / 2.0 / f], [0.0, 1.0 / f, -(size[1] - 1) / 2.0 / f],
                      [0.0, 0.0, 1.0]])
    m = k_inv @ np.asarray(h_lattice, dtype=np.float64)
    scale = 0.5 * (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    if m[2, 2] < 0:  # the board must lie in front of the camera
        scale = -scale
    r1, r2, t = m[:, 0] / scale, m[:, 1] / scale, m[:, 2] / scale
    r3 = np.cross(r1, r2)
    rot = np.column_stack([r1, r2, r3])
    centre = -rot.T @ t  # the camera centre in lattice units (z along the plane's normal)
    return Viewpoint(nadir=centre[:2].copy(), height=float(abs(centre[2])), focal=f)


__all__ = ["TYPICAL_FOCAL", "Viewpoint", "focal_from_homography", "viewpoint"]
