"""A small rendered calibration video: pattern views, then the board in the start position, one camera.

The ground truth returned with it is the renderer's camera and the outer corners of the playing area in
the raw (distorted) picture.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from calib_render import pattern_views

from calibration.pattern import PatternSpec
from vision.render import random_scene_params, render_scene

START = "wwwwwwwwwwww........bbbbbbbbbbbb"


def write_video(path: Path, frames: list[np.ndarray], fps: float = 10.0) -> Path:
    h, w = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (w, h))
    assert writer.isOpened(), "OpenCV cannot write MJPG video here"
    for f in frames:
        writer.write(f)
    writer.release()
    return path


def calibration_video(path: Path, seed: int, size: tuple[int, int] = (640, 480), pattern_frames: int = 14,
                      board_frames: int = 5, spec: PatternSpec | None = None, board: str = START,
                      empty_frames: int = 0) -> dict:
    """Write the video (pattern views, ``empty_frames`` of the empty board, ``board_frames`` of ``board``);
    returns {"camera": Camera, "corners": {a1..a8: (x, y)}, "frames": n}."""
    params = random_scene_params(np.random.default_rng(seed), size=size, distortion=True, tilt_max=35.0,
                                 fill=(0.6, 0.8))
    frames = pattern_views(params.camera, spec or PatternSpec(), pattern_frames, seed) if pattern_frames else []
    corners = None
    for i in range(empty_frames):  # the board before the pieces are set up
        frames.append(render_scene("." * 32, params, seed=100 + i).image)
    for i in range(board_frames):
        rendered = render_scene(board, params, seed=i)
        frames.append(rendered.image)
        corners = rendered.corners
    write_video(path, frames)
    return {"camera": params.camera, "corners": corners, "frames": len(frames)}
