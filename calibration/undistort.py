"""Undistortion of live frames with the profile's intrinsics (straight grid lines on wide-angle webcams).

The remap tables cost far more than applying them, so they are built once per camera and frame size and
cached. The undistorted frame keeps the camera matrix ``K`` (same scale and centre), so board corners
measured on it stay valid for as long as the camera does not move.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from calibration.profile import CameraIntrinsics, Profile


def _key(camera: CameraIntrinsics) -> tuple:
    return (tuple(camera.size), tuple(tuple(r) for r in camera.K), tuple(camera.dist))


@lru_cache(maxsize=8)
def _maps(key: tuple, frame_size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    size, K, dist = key
    K = np.array(K, np.float64)
    sx, sy = frame_size[0] / size[0], frame_size[1] / size[1]
    if (sx, sy) != (1.0, 1.0):  # the camera delivers another resolution than at calibration time
        K = K * np.array([[sx], [sy], [1.0]])
    return cv2.initUndistortRectifyMap(K, np.array(dist, np.float64), None, K, frame_size, cv2.CV_16SC2)


def undistort(frame: np.ndarray, camera: CameraIntrinsics | Profile | None) -> np.ndarray:
    """``frame`` with lens distortion removed; the frame itself when there are no intrinsics.

    The watch loop calls this on every frame before the vision pipeline; accepts a profile for
    convenience.
    """
    if isinstance(camera, Profile):
        camera = camera.camera
    if camera is None or not any(camera.dist):
        return frame
    h, w = frame.shape[:2]
    map1, map2 = _maps(_key(camera), (w, h))
    return cv2.remap(frame, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


def undistort_points(points: np.ndarray, camera: CameraIntrinsics | None) -> np.ndarray:
    """Raw-image pixel positions (N, 2) → positions in the undistorted frame of :func:`undistort`."""
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    if camera is None:
        return pts.reshape(-1, 2)
    K = np.array(camera.K, np.float64)
    out = cv2.undistortPoints(pts, K, np.array(camera.dist, np.float64), P=K)
    return out.reshape(-1, 2)


def distort_points(points: np.ndarray, camera: CameraIntrinsics | None) -> np.ndarray:
    """Undistorted-frame positions (N, 2) → raw-image positions (for drawing on the live image)."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    if camera is None:
        return pts
    K = np.array(camera.K, np.float64)
    norm = cv2.undistortPoints(pts.reshape(-1, 1, 2), K, None).reshape(-1, 2)  # remove K only
    obj = np.hstack([norm, np.ones((len(norm), 1))])
    out, _ = cv2.projectPoints(obj, np.zeros(3), np.zeros(3), K, np.array(camera.dist, np.float64))
    return out.reshape(-1, 2)
