"""Pinhole camera with OpenCV lens distortion, pose helpers and the cached distortion remap.

Points are in the board frame (mm, see :mod:`vision.render.geometry`); ``rvec``/``tvec`` map board
coordinates to camera coordinates exactly as in ``cv2.projectPoints``.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(eq=False)
class Camera:
    """A calibrated camera: intrinsics ``K`` (3×3, px), ``dist`` (k1, k2, p1, p2, k3), pose, image size.

    ``camera.project(points_mm)`` gives image pixels *after* lens distortion, so the renderer's ground
    truth (corners, square centres) is what a detector sees in the output image.
    """

    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    size: tuple[int, int]  # (width, height)

    def __post_init__(self) -> None:
        self.K = np.asarray(self.K, dtype=np.float64).reshape(3, 3)
        d = np.zeros(5, dtype=np.float64)
        given = np.asarray(self.dist if self.dist is not None else [], dtype=np.float64).ravel()[:5]
        d[: len(given)] = given
        self.dist = d
        self.rvec = np.asarray(self.rvec, dtype=np.float64).reshape(3)
        self.tvec = np.asarray(self.tvec, dtype=np.float64).reshape(3)
        self.size = (int(self.size[0]), int(self.size[1]))

    @property
    def R(self) -> np.ndarray:
        """Rotation board → camera."""
        return cv2.Rodrigues(self.rvec)[0]

    @property
    def position(self) -> np.ndarray:
        """Camera centre in board coordinates (mm)."""
        return -self.R.T @ self.tvec

    @property
    def has_distortion(self) -> bool:
        return bool(np.any(self.dist != 0))

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Image positions (N, 2) of board-frame points (N, 3), lens distortion included."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3)
        img, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.K, self.dist)
        return img.reshape(-1, 2)

    def depth(self, points_mm: np.ndarray) -> np.ndarray:
        """Distance along the optical axis (mm) of board-frame points (N, 3)."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3)
        return pts @ self.R[2] + self.tvec[2]

    def key(self) -> str:
        """Stable hash of all parameters (cache key for distortion maps)."""
        h = hashlib.sha1()
        for a in (self.K, self.dist, self.rvec, self.tvec, np.array(self.size, dtype=np.float64)):
            h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
        return h.hexdigest()

    def to_dict(self) -> dict:
        """JSON-friendly form (lists of floats)."""
        return {
            "K": self.K.tolist(),
            "dist": self.dist.tolist(),
            "rvec": self.rvec.tolist(),
            "tvec": self.tvec.tolist(),
            "size": list(self.size),
        }

    @classmethod
    def from_dict(cls, d: dict) -> Camera:
        return cls(K=d["K"], dist=d["dist"], rvec=d["rvec"], tvec=d["tvec"], size=tuple(d["size"]))


def intrinsics(size: tuple[int, int], hfov_deg: float, principal_offset: tuple[float, float] = (0, 0)) -> np.ndarray:
    """K for an image of ``size`` with horizontal field of view ``hfov_deg`` and square pixels."""
    w, h = size
    f = (w / 2.0) / np.tan(np.radians(hfov_deg) / 2.0)
    return np.array([[f, 0, w / 2.0 + principal_offset[0]], [0, f, h / 2.0 + principal_offset[1]], [0, 0, 1]])


def orbit_pose(
    target: np.ndarray, distance: float, tilt_deg: float, azimuth_deg: float, roll_deg: float
) -> tuple[np.ndarray, np.ndarray]:
    """(rvec, tvec) of a camera looking at ``target`` from ``distance`` mm.

    ``tilt_deg`` is the angle of the optical axis from straight down; ``azimuth_deg`` says where the
    camera stands (0: behind White's edge looking towards Black, 90: at the h-file side); ``roll_deg``
    turns the image about the optical axis. With all three 0, a1 is at the bottom left of the image.
    """
    t, a = np.radians(tilt_deg), np.radians(azimuth_deg)
    forward = np.array([np.sin(a), np.cos(a), 0.0])  # horizontal viewing direction
    up = np.array([0.0, 0.0, 1.0])
    centre = np.asarray(target, dtype=np.float64) - distance * np.sin(t) * forward + distance * np.cos(t) * up
    z_cam = np.asarray(target, dtype=np.float64) - centre
    z_cam /= np.linalg.norm(z_cam)
    # image "down" is the horizontal forward direction's opposite, made orthogonal to the optical axis
    y_cam = -(forward - np.dot(forward, z_cam) * z_cam)
    y_cam /= np.linalg.norm(y_cam)
    x_cam = np.cross(y_cam, z_cam)
    R = np.stack([x_cam, y_cam, z_cam])
    r = np.radians(roll_deg)
    Rz = np.array([[np.cos(r), -np.sin(r), 0], [np.sin(r), np.cos(r), 0], [0, 0, 1]])
    R = Rz @ R
    rvec = cv2.Rodrigues(R)[0].ravel()
    return rvec, -R @ centre


# ---------------------------------------------------------------------------------------------------
# Distortion: render an ideal pinhole image on a slightly larger canvas, then remap it.

_MAP_CACHE: OrderedDict[str, tuple[np.ndarray, np.ndarray, tuple[int, int]]] = OrderedDict()


MAP_STEP = 4  # px between exactly undistorted grid points; the map is smooth, bilinear in between


def _undistorted_grid(camera: Camera) -> np.ndarray:
    """(H, W, 2) ideal pinhole positions of every output pixel: ``cv2.undistortPoints`` on a grid of
    every ``MAP_STEP`` pixels, bilinearly interpolated (the map is smooth: errors below 0.01 px)."""
    w, h = camera.size
    gx = np.linspace(0, w - 1, max(2, int(np.ceil((w - 1) / MAP_STEP)) + 1))
    gy = np.linspace(0, h - 1, max(2, int(np.ceil((h - 1) / MAP_STEP)) + 1))
    xs, ys = np.meshgrid(gx, gy)
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    coarse = cv2.undistortPoints(pts, camera.K, camera.dist, P=camera.K).reshape(len(gy), len(gx), 2)
    # separable bilinear interpolation in float64 (cv2.remap quantizes positions to 1/32 of a cell)
    u = np.arange(w) * ((len(gx) - 1) / max(w - 1, 1))
    v = np.arange(h) * ((len(gy) - 1) / max(h - 1, 1))
    i0 = np.minimum(u.astype(int), len(gx) - 2)
    j0 = np.minimum(v.astype(int), len(gy) - 2)
    tx = (u - i0)[None, :, None]
    ty = (v - j0)[:, None, None]
    rows0, rows1 = coarse[j0], coarse[j0 + 1]
    top = rows0[:, i0] * (1 - tx) + rows0[:, i0 + 1] * tx
    bottom = rows1[:, i0] * (1 - tx) + rows1[:, i0 + 1] * tx
    return top * (1 - ty) + bottom * ty


def distortion_map(camera: Camera) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    """(map_x, map_y, margin) turning an ideal canvas into the distorted output image.

    For every output pixel ``cv2.undistortPoints`` says where the undistorted ray hits the ideal
    image; the ideal canvas is the output size plus ``margin`` (mx, my) on each side so that barrel
    distortion samples real content, not a border. Cached per camera (a few entries).
    """
    key = camera.key()
    if key in _MAP_CACHE:
        _MAP_CACHE.move_to_end(key)
        return _MAP_CACHE[key]
    w, h = camera.size
    ideal = _undistorted_grid(camera)
    mx = int(np.ceil(np.clip(max(-ideal[..., 0].min(), ideal[..., 0].max() - (w - 1), 0), 0, w * 0.25))) + 2
    my = int(np.ceil(np.clip(max(-ideal[..., 1].min(), ideal[..., 1].max() - (h - 1), 0), 0, h * 0.25))) + 2
    map_x = (ideal[..., 0] + mx).astype(np.float32)
    map_y = (ideal[..., 1] + my).astype(np.float32)
    entry = (map_x, map_y, (mx, my))
    _MAP_CACHE[key] = entry
    while len(_MAP_CACHE) > 4:
        _MAP_CACHE.popitem(last=False)
    return entry
