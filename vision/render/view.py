"""The ideal pinhole canvas a scene is drawn on, and its conversion to the (distorted) output image.

Drawing happens without lens distortion on a canvas a little larger than the output (``margin``);
:meth:`View.finish` remaps it through the camera's cached distortion map, or just crops it.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.render.camera import Camera, distortion_map


class View:
    """Projection onto the ideal canvas of one camera."""

    def __init__(self, camera: Camera) -> None:
        self.camera = camera
        w, h = camera.size
        if camera.has_distortion:
            self._map_x, self._map_y, self.margin = distortion_map(camera)
        else:
            self._map_x = self._map_y = None
            self.margin = (0, 0)
        mx, my = self.margin
        self.size = (w + 2 * mx, h + 2 * my)
        self.K = camera.K.copy()
        self.K[0, 2] += mx
        self.K[1, 2] += my
        self.R = camera.R
        self.t = camera.tvec.copy()
        self.centre = camera.position
        self.f = float(self.K[0, 0])

    def to_camera(self, pts: np.ndarray) -> np.ndarray:
        return np.asarray(pts, dtype=np.float64).reshape(-1, 3) @ self.R.T + self.t

    def project(self, pts: np.ndarray) -> np.ndarray:
        """Ideal canvas pixels (N, 2) of board-frame points (N, 3) in front of the camera."""
        pc = self.to_camera(pts)
        z = np.maximum(pc[:, 2], 1e-6)
        return np.stack([self.K[0, 0] * pc[:, 0] / z + self.K[0, 2], self.K[1, 1] * pc[:, 1] / z + self.K[1, 2]], 1)

    def depth(self, pts: np.ndarray) -> np.ndarray:
        return self.to_camera(pts)[:, 2]

    def plane_homography(self, z: float, texel_to_mm: np.ndarray) -> np.ndarray:
        """Homography from texture pixels of a horizontal plane at height ``z`` to canvas pixels.

        ``texel_to_mm`` (3×3) maps texture pixels (u, v, 1) to plane coordinates (x, y, 1) in mm.
        """
        P = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z + self.t])
        return P @ texel_to_mm

    def rays(self, step: int = 1) -> np.ndarray:
        """Unit-free ray directions in board coordinates for every ``step``-th canvas pixel (rows, cols, 3)."""
        w, h = self.size
        u, v = np.meshgrid(np.arange(0, w, step, dtype=np.float32), np.arange(0, h, step, dtype=np.float32))
        Kinv = np.linalg.inv(self.K).astype(np.float32)
        cam = np.stack([Kinv[0, 0] * u + Kinv[0, 2], Kinv[1, 1] * v + Kinv[1, 2], np.ones_like(u)], -1)
        return cam @ self.R.astype(np.float32)  # row vectors: d_board = R^T d_cam

    def finish(self, canvas: np.ndarray, nearest: bool = False) -> np.ndarray:
        """Output image from the ideal canvas: lens distortion applied, margin removed."""
        if self._map_x is None:
            return canvas
        interp = cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR
        return cv2.remap(canvas, self._map_x, self._map_y, interp, borderMode=cv2.BORDER_REPLICATE)
