"""Rendered views of the printed pattern through a known camera with lens distortion.

Uses ``vision.render.render_plane`` when the renderer provides it; otherwise the same recipe with the
renderer's own camera model and distortion remap (ideal pinhole warp, then ``distortion_map``), so the
ground truth is the renderer's ``Camera`` either way.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.pattern import PatternSpec, pattern_image, texture_mm_size
from vision.render.camera import Camera, distortion_map


def _rotation(tilt_deg: float, axis_angle: float, spin_deg: float) -> np.ndarray:
    spin = cv2.Rodrigues(np.array([0.0, 0.0, np.radians(spin_deg)]))[0]
    axis = np.array([np.cos(axis_angle), np.sin(axis_angle), 0.0])
    tilt = cv2.Rodrigues(axis * np.radians(tilt_deg))[0]
    return tilt @ spin


def random_pose(rng: np.random.Generator, K: np.ndarray, size: tuple[int, int], plane_mm: tuple[float, float],
                tilt_max: float = 40.0) -> tuple[np.ndarray, np.ndarray]:
    """(rvec, tvec) of the pattern plane: tilted up to ``tilt_max``, centred somewhere in the picture."""
    w, h = size
    R = _rotation(rng.uniform(0, tilt_max), rng.uniform(0, 2 * np.pi), rng.uniform(-25, 25))
    fill = rng.uniform(0.45, 0.7)
    depth = K[0, 0] * plane_mm[0] / (fill * w)
    u, v = rng.uniform(0.3 * w, 0.7 * w), rng.uniform(0.3 * h, 0.7 * h)
    centre_cam = depth * np.linalg.inv(K) @ np.array([u, v, 1.0])
    centre_plane = np.array([plane_mm[0] / 2, plane_mm[1] / 2, 0.0])
    tvec = centre_cam - R @ centre_plane
    return cv2.Rodrigues(R)[0].ravel(), tvec


def render_view(texture: np.ndarray, plane_mm: tuple[float, float], camera: Camera,
                rng: np.random.Generator) -> np.ndarray:
    """The texture on the z = 0 plane seen by ``camera`` (distortion included), with blur and noise."""
    try:
        from vision.render import render_plane  # type: ignore[attr-defined]
    except ImportError:
        render_plane = None
    tex = cv2.cvtColor(texture, cv2.COLOR_GRAY2BGR) if texture.ndim == 2 else texture
    if render_plane is not None:
        img = render_plane(tex, plane_mm, camera)
    else:
        map_x, map_y, (mx, my) = distortion_map(camera)
        th, tw = tex.shape[:2]
        mm = np.array([[0, 0, 0], [plane_mm[0], 0, 0], [plane_mm[0], plane_mm[1], 0], [0, plane_mm[1], 0]],
                      np.float64)
        ideal, _ = cv2.projectPoints(mm, camera.rvec, camera.tvec, camera.K, None)
        src = np.array([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]], np.float32)
        H = cv2.getPerspectiveTransform(src, (ideal.reshape(-1, 2) + [mx, my]).astype(np.float32))
        w, h = camera.size
        canvas = cv2.warpPerspective(tex, H, (w + 2 * mx, h + 2 * my), flags=cv2.INTER_AREA,
                                     borderValue=(90, 110, 120))
        img = cv2.remap(canvas, map_x, map_y, cv2.INTER_LINEAR)
    img = cv2.GaussianBlur(img, (0, 0), 0.6)
    noisy = img.astype(np.float32) + rng.normal(0, 2.0, img.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def pattern_views(camera: Camera, spec: PatternSpec, n: int, seed: int) -> list[np.ndarray]:
    """``n`` views of the pattern (texture with its white margin) through ``camera``, random poses."""
    rng = np.random.default_rng(seed)
    texture = pattern_image(spec, px_per_square=48)
    plane = texture_mm_size(spec)
    frames = []
    while len(frames) < n:
        rvec, tvec = random_pose(rng, camera.K, camera.size, plane)
        cam = Camera(K=camera.K, dist=camera.dist, rvec=rvec, tvec=tvec, size=camera.size)
        frames.append(render_view(texture, plane, cam, rng))
    return frames
