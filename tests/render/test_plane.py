"""render_plane: a printed chessboard seen through a distorted camera lands where projectPoints says."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.render.camera import Camera
from vision.render.plane import random_camera, random_plane_pose, render_plane

SQ_MM = 25.0


def chessboard(cols: int = 10, rows: int = 7, px: int = 32) -> np.ndarray:
    """A calibration chessboard with a one-square white margin; inner corners (cols-1)×(rows-1)."""
    tex = np.zeros((rows * px, cols * px), np.uint8)
    for r in range(rows):
        for c in range(cols):
            if (r + c) % 2 == 0:
                tex[r * px : (r + 1) * px, c * px : (c + 1) * px] = 255
    return cv2.copyMakeBorder(tex, px, px, px, px, cv2.BORDER_CONSTANT, value=255)


@pytest.mark.parametrize("seed,distortion", [(1, False), (2, True), (3, True)])
def test_detected_corners_match_projection(seed: int, distortion: bool) -> None:
    rng = np.random.default_rng(seed)
    cam = random_camera(rng, (640, 480), distortion=distortion)
    size_mm = (12 * SQ_MM, 9 * SQ_MM)
    pose = random_plane_pose(rng, cam, size_mm, tilt_max=40, fill=(0.5, 0.8))
    img = render_plane(chessboard(), size_mm, cam, pose=pose)
    assert img.shape == (480, 640, 3)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    ok, found = cv2.findChessboardCorners(grey, (9, 6))
    assert ok
    found = cv2.cornerSubPix(grey, found, (5, 5), (-1, -1),
                             (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)).reshape(-1, 2)
    truth = np.array([[(2 + x) * SQ_MM, (2 + y) * SQ_MM, 0.0] for y in range(6) for x in range(9)])
    proj = Camera(cam.K, cam.dist, *pose, cam.size).project(truth)
    err = np.linalg.norm(found[:, None] - proj[None], axis=2).min(1)
    assert err.max() < 0.5


def test_print_is_not_mirrored() -> None:
    """Texture x→right, y→down keeps its handedness in the image (the camera looks at the print)."""
    rng = np.random.default_rng(4)
    cam = random_camera(rng, (320, 240), distortion=False)
    for _ in range(5):
        pose = random_plane_pose(rng, cam, (200.0, 100.0))
        p = Camera(cam.K, cam.dist, *pose, cam.size).project(np.array([[0, 0, 0], [200, 0, 0], [0, 100, 0.0]]))
        ex, ey = p[1] - p[0], p[2] - p[0]
        assert ex[0] * ey[1] - ex[1] * ey[0] > 0


def test_plane_fully_in_frame_and_background() -> None:
    rng = np.random.default_rng(5)
    cam = random_camera(rng, (320, 240), distortion=True)
    pose = random_plane_pose(rng, cam, (300.0, 200.0))
    corners = Camera(cam.K, cam.dist, *pose, cam.size).project(np.array([[0, 0, 0], [300, 0, 0], [300, 200, 0],
                                                                         [0, 200, 0.0]]))
    assert (corners >= 0).all() and (corners[:, 0] < 320).all() and (corners[:, 1] < 240).all()
    img = render_plane(np.full((20, 30, 3), 255, np.uint8), (300.0, 200.0), cam, background=(0, 0, 90), pose=pose)
    assert (img[0, 0] == (0, 0, 90)).all() or (img[-1, -1] == (0, 0, 90)).all()
    with pytest.raises(ValueError):
        render_plane(np.zeros((4, 4), np.float32), (10.0, 10.0), cam, pose=pose)
