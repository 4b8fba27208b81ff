"""Synthetic scene renderer: wooden draughts boards, pieces, hands, camera, light and sensor.

Used by the vision tests, the vision benchmark, the calibration tests and the demo video::

    from vision.render import Camera, SceneParams, random_scene_params, render_scene, render_video, Rendered
    params = random_scene_params(np.random.default_rng(7), size=(640, 360))
    r = render_scene("wwwwwwwwwwww........bbbbbbbbbbbb", params)
    r.image, r.corners["a1"], r.square_centers, r.hand_mask, r.occluded, r.camera

See docs/renderer.md for the model (board frame in mm, camera, distortion) and the video format.
"""

from vision.render.camera import Camera
from vision.render.geometry import SQUARE_NAMES, BoardGeometry
from vision.render.params import HandPose, SceneParams, random_scene_params
from vision.render.plane import random_camera, random_plane_pose, render_plane
from vision.render.scene import Rendered, render_scene
from vision.render.video import render_video

__all__ = [
    "SQUARE_NAMES",
    "BoardGeometry",
    "Camera",
    "HandPose",
    "Rendered",
    "SceneParams",
    "random_camera",
    "random_plane_pose",
    "random_scene_params",
    "render_plane",
    "render_scene",
    "render_video",
]
