"""Any planar texture (e.g. a printed calibration chessboard) seen through a camera with distortion.

For the calibration engineer: the plane frame has its origin at the texture's top-left corner, x
along the texture's columns, y along its rows (mm), z = x × y into the paper: a camera on the −z side
sees the print unmirrored. ``pose`` (rvec, tvec) maps plane coordinates to camera coordinates as in
``cv2.projectPoints``.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.render.camera import Camera, intrinsics
from vision.render.params import fit_camera
from vision.render.view import View


def plane_corners(size_mm: tuple[float, float]) -> np.ndarray:
    """(4, 3) corners of a plane of ``size_mm`` (w, h): top-left, top-right, bottom-right, bottom-left."""
    w, h = (float(v) for v in size_mm)
    return np.array([[0, 0, 0], [w, 0, 0], [w, h, 0], [0, h, 0]], dtype=np.float64)


def random_plane_pose(
    rng: np.random.Generator,
    camera: Camera,
    size_mm: tuple[float, float],
    tilt_max: float = 45.0,
    fill: tuple[float, float] = (0.3, 0.9),
) -> tuple[np.ndarray, np.ndarray]:
    """A random pose (rvec, tvec) of a ``size_mm`` plane fully inside ``camera``'s frame: tilt up to
    ``tilt_max`` degrees, any rotation, spanning a fraction in ``fill`` of the frame. The camera's
    intrinsics and distortion are kept; only the pose is drawn."""
    # pose the camera in a helper frame with y and z flipped (z up towards the camera, as orbit_pose
    # expects), then turn the pose back into the plane frame: R = R' · diag(1, -1, -1)
    flip = np.diag([1.0, -1.0, -1.0])
    corners = plane_corners(size_mm) @ flip
    tilt = float(rng.uniform(0, tilt_max))
    azimuth = float(rng.uniform(0, 360))
    roll = float(rng.uniform(-180, 180))
    f = float(rng.uniform(*fill))
    cam = fit_camera(rng, camera.K, camera.dist, camera.size, corners, tilt, azimuth, roll, f)
    rvec = cv2.Rodrigues(cam.R @ flip)[0].ravel()
    return rvec, cam.tvec.copy()


def random_camera(rng: np.random.Generator, size: tuple[int, int] = (1280, 720), distortion: bool = True) -> Camera:
    """A random camera (60±12° horizontal field of view, OpenCV distortion if asked) with an identity pose;
    pair it with :func:`random_plane_pose`."""
    K = intrinsics(size, float(rng.uniform(48, 72)), tuple(rng.uniform(-0.02, 0.02, 2) * np.array(size)))
    dist = np.zeros(5)
    if distortion:
        dist = np.array([rng.uniform(-0.35, 0.12), rng.uniform(-0.05, 0.12), rng.uniform(-0.002, 0.002),
                         rng.uniform(-0.002, 0.002), rng.uniform(-0.02, 0.02)])
    return Camera(K, dist, np.zeros(3), np.array([0.0, 0.0, 1000.0]), size)


def render_plane(
    texture_bgr: np.ndarray,
    size_mm: tuple[float, float],
    camera: Camera,
    background: np.ndarray | tuple[float, float, float] | None = None,
    pose: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Image (BGR uint8, camera size) of ``texture_bgr`` printed at ``size_mm`` (w, h) on a plane.

    ``pose`` (rvec, tvec) places the plane; None uses ``camera.rvec``/``camera.tvec``. ``background``
    is an image of the camera's size, a BGR colour, or None (mid grey). The texture is drawn anti-
    aliased (pre-shrunk when much finer than the image), then lens distortion is applied; image
    positions of plane points are ``Camera(K, dist, *pose, size).project(points)``. No noise is added.
    """
    tex = np.asarray(texture_bgr)
    if tex.ndim == 2:
        tex = cv2.cvtColor(tex, cv2.COLOR_GRAY2BGR)
    if tex.ndim != 3 or tex.shape[2] != 3 or tex.dtype != np.uint8:
        raise ValueError("texture must be a BGR (or grey) uint8 image")
    w_mm, h_mm = (float(v) for v in size_mm)
    if w_mm <= 0 or h_mm <= 0:
        raise ValueError(f"size_mm must be positive, got {size_mm}")
    cam = camera if pose is None else Camera(camera.K, camera.dist, pose[0], pose[1], camera.size)
    view = View(cam)
    corners = plane_corners((w_mm, h_mm))
    if np.any(view.depth(corners) <= 1.0):
        raise ValueError("the plane is (partly) behind the camera")
    th, tw = tex.shape[:2]
    # texture pixels per canvas pixel: shrink first when minifying a lot (warpPerspective does not filter)
    img_pts = view.project(corners)
    span_px = max(np.ptp(img_pts[:, 0]), np.ptp(img_pts[:, 1]), 1.0)
    ratio = max(tw, th) / span_px
    if ratio > 1.5:
        k = 1.0 / ratio * 1.2
        tex = cv2.resize(tex, (max(2, int(tw * k)), max(2, int(th * k))), interpolation=cv2.INTER_AREA)
        th, tw = tex.shape[:2]
    # texel centres: u in [-0.5, tw - 0.5] covers x in [0, w_mm]
    T = np.array([[w_mm / tw, 0, w_mm / tw * 0.5], [0, h_mm / th, h_mm / th * 0.5], [0, 0, 1]])
    H = view.plane_homography(0.0, T)
    cw, ch = view.size
    warped = cv2.warpPerspective(tex, H, (cw, ch), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    alpha = np.zeros((ch, cw), dtype=np.uint8)
    cv2.fillConvexPoly(alpha, np.round(img_pts * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
    if background is None:
        bg = np.full((ch, cw, 3), 128, dtype=np.uint8)
    elif isinstance(background, np.ndarray):
        if background.shape[:2] != (cam.size[1], cam.size[0]):
            raise ValueError(f"background must be {cam.size[0]}x{cam.size[1]}, got {background.shape[1]}x"
                             f"{background.shape[0]}")
        mx, my = view.margin
        bg = cv2.copyMakeBorder(background, my, my, mx, mx, cv2.BORDER_REFLECT)
    else:
        bg = np.empty((ch, cw, 3), dtype=np.uint8)
        bg[:] = np.clip(np.asarray(background, dtype=np.float64), 0, 255).astype(np.uint8)
    a = (alpha.astype(np.float32) / 255.0)[..., None]
    canvas = (bg * (1 - a) + warped * a + 0.5).astype(np.uint8)
    return view.finish(canvas)
