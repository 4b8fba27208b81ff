"""Where the camera is, from the board's homography: how far a piece's top shifts in the top view.

The top view is the board plane seen square-on; anything above the plane is drawn there shifted away
from the camera's foot (the nadir, the board point straight below the camera) by its height times
(distance from the nadir) / (camera height). A crowned king, two discs tall, shifts twice as far as a
man; how far a man shifts depends on where the camera is. The square network gets, for every dark
square, the shift per unit height (in squares per square of height), so it can tell a king's height
from a man's at any camera pose, and knows when the camera is too steep above the board to show it.

The homography alone fixes the camera up to its focal length, and the shift scales as one over it.
With a calibrated camera (the profile's intrinsics, ``camera_matrix``) the focal length is known. Without
one, square pixels and the principal point at the picture's centre (true enough for webcams) leave the
focal length to the two constraints a plane's rotation puts on it (Zhang 2000); but the more square-on the
view, the less they say, and a board at the edge of a square-on picture still shows its pieces' sides.
There a solved focal length was as much as 4.7 times the lens's (``dama bench vision`` scene 183 of seed 1,
three men crowned). So the solved value is kept only where half a pixel's jitter of the lattice's corners
leaves it steady (:func:`solved_focal_is_steady`); elsewhere :func:`likely_focal` weighs the homography
against a prior of webcam lenses: the focal length whose best rigid camera pose reproduces the board's
lattice, each candidate charged its misfit in pixels and its distance from a typical lens (docs/vision.md,
"Where the camera stands").
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

TYPICAL_FOCAL = 0.9  # focal length / picture width of a typical webcam (about 58° across)
FOCAL_SPREAD = 0.25  # spread of webcam focal lengths about it (log scale: 0.55–1.5 of it within two)
LATTICE_MISFIT_PX = 3.0  # how far a pinhole pose may miss the lattice: corners, an off-centre principal point
FOCAL_CANDIDATES = np.exp(np.linspace(np.log(0.3), np.log(4.0), 61))  # of the picture's width, 4.4 % apart
CORNER_JITTER = 0.5 / 1280  # of the picture's width: how far a fitted lattice corner may be off
STEADY_FOCAL = 0.2  # log: how far the solved focal length may swing under that jitter and still be used
_GRID = np.linspace(0.0, 8.0, 5)
LATTICE_POINTS = np.array([(u, v) for u in _GRID for v in _GRID], dtype=np.float64)  # where the pose is checked


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


def _intrinsics(focal: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """(N, 3, 3) pinhole camera matrices of ``focal`` (N,) px, principal point at the picture's centre."""
    k = np.zeros((len(focal), 3, 3))
    k[:, 0, 0] = k[:, 1, 1] = focal
    k[:, 0, 2], k[:, 1, 2], k[:, 2, 2] = (size[0] - 1) / 2.0, (size[1] - 1) / 2.0, 1.0
    return k


def lattice_misfit(h: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(N,) RMS picture pixels between ``LATTICE_POINTS`` through ``h`` and through the nearest rigid camera
    pose of each camera matrix ``k`` (N, 3, 3): the rotation nearest to K⁻¹H's first two columns."""
    m = np.linalg.solve(k, np.asarray(h, dtype=np.float64)[None])  # (N, 3, 3)
    m = m * np.sign(m[:, 2:3, 2:3] + 1e-300)  # the board lies in front of the camera
    u, s, vt = np.linalg.svd(m[:, :, :2], full_matrices=False)
    r12 = u @ vt  # nearest pair of orthonormal columns
    t = m[:, :, 2] / s.mean(axis=1, keepdims=True)
    cam = LATTICE_POINTS @ r12.transpose(0, 2, 1) + t[:, None, :]  # (N, P, 3) in the camera's frame
    pix = cam @ k.transpose(0, 2, 1)
    want = np.c_[LATTICE_POINTS, np.ones(len(LATTICE_POINTS))] @ np.asarray(h, dtype=np.float64).T
    d = pix[..., :2] / pix[..., 2:] - want[None, :, :2] / want[None, :, 2:]
    return np.sqrt(np.mean(np.sum(d * d, axis=2), axis=1))


def likely_focal(h: np.ndarray, size: tuple[int, int]) -> float:
    """The most probable focal length (px) of an uncalibrated camera seeing the lattice through ``h``:
    among ``FOCAL_CANDIDATES``, then finely, the least misfit (:func:`lattice_misfit`, ``LATTICE_MISFIT_PX``
    per point) plus the distance from ``TYPICAL_FOCAL`` (``FOCAL_SPREAD``, log scale). A steep view fixes
    it; a square-on one leaves the typical lens."""
    def cost(share: np.ndarray) -> np.ndarray:
        misfit = lattice_misfit(h, _intrinsics(share * size[0], size)) / LATTICE_MISFIT_PX
        return 0.5 * len(LATTICE_POINTS) * misfit**2 + 0.5 * (np.log(share / TYPICAL_FOCAL) / FOCAL_SPREAD) ** 2

    best = FOCAL_CANDIDATES[np.argmin(cost(FOCAL_CANDIDATES))]
    # then finely between its neighbours: a steep view's misfit changes by pixels within one step
    step = FOCAL_CANDIDATES[1] / FOCAL_CANDIDATES[0]
    fine = best * step ** np.linspace(-1.0, 1.0, 21)
    return float(fine[np.argmin(cost(fine))] * size[0])


def solved_focal_is_steady(h: np.ndarray, size: tuple[int, int], solved: float) -> bool:
    """Does :func:`focal_from_homography` stay within ``STEADY_FOCAL`` of ``solved`` when any of the
    lattice's corners moves by ``CORNER_JITTER`` of the picture's width (0.5 px at 1280)? A steep view's
    does; a square-on view's swings or vanishes."""
    corners = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], dtype=np.float64)
    img = np.c_[corners, np.ones(4)] @ np.asarray(h, dtype=np.float64).T
    img = img[:, :2] / img[:, 2:]
    d = CORNER_JITTER * size[0]
    for k in range(4):
        for delta in ((d, 0.0), (-d, 0.0), (0.0, d), (0.0, -d)):
            moved = img.copy()
            moved[k] += delta
            hk = cv2.getPerspectiveTransform(corners.astype(np.float32), moved.astype(np.float32))
            f = focal_from_homography(hk, size)
            if f is None or abs(np.log(f / solved)) > STEADY_FOCAL:
                return False
    return True


def uncalibrated_focal(h: np.ndarray, size: tuple[int, int]) -> float:
    """The focal length (px) :func:`viewpoint` uses without a calibrated lens: the rotation constraints'
    own solution (:func:`focal_from_homography`, what the networks were trained with, and on real photos,
    whose lens centre may not be the picture's, the steadier) where it is steady, else :func:`likely_focal`."""
    solved = focal_from_homography(h, size)
    if solved is not None and solved_focal_is_steady(h, size, solved):
        return solved
    return likely_focal(h, size)


def viewpoint(h_lattice: np.ndarray, size: tuple[int, int], camera_matrix: np.ndarray | None = None) -> Viewpoint:
    """The camera's foot and height from a lattice → image homography and the picture's (width, height);
    ``camera_matrix`` (3 × 3, for pictures of this size) when the camera is calibrated."""
    if camera_matrix is not None:
        k = np.asarray(camera_matrix, dtype=np.float64)
        f = float(np.sqrt(k[0, 0] * k[1, 1]))
    else:
        f = uncalibrated_focal(h_lattice, size)
        k = _intrinsics(np.array([f]), size)[0]
    m = np.linalg.solve(k, np.asarray(h_lattice, dtype=np.float64))
    scale = 0.5 * (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    if m[2, 2] < 0:  # the board must lie in front of the camera
        scale = -scale
    r1, r2, t = m[:, 0] / scale, m[:, 1] / scale, m[:, 2] / scale
    r3 = np.cross(r1, r2)
    rot = np.column_stack([r1, r2, r3])
    centre = -rot.T @ t  # the camera centre in lattice units (z along the plane's normal)
    return Viewpoint(nadir=centre[:2].copy(), height=float(abs(centre[2])), focal=f)


__all__ = ["FOCAL_SPREAD", "LATTICE_MISFIT_PX", "TYPICAL_FOCAL", "Viewpoint", "focal_from_homography",
           "lattice_misfit", "likely_focal", "solved_focal_is_steady", "uncalibrated_focal",
           "viewpoint"]
