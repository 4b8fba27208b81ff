"""What a frame may be: every stage reads 8-bit BGR, and pictures arrive in other forms.

Cameras, video files, ``dama recognize``'s image files and callers of the Python API hand over grey
pictures, BGRA (a PNG with transparency, some capture back-ends), 16-bit ones (PNG, machine-vision
cameras) and floats (numpy users, 0–1 or 0–255). Each is turned into 8-bit BGR here, once, at the
pipeline's door; anything else (booleans, signed integers, five channels) is refused with a reason that
names it, never an OpenCV assertion from deep inside a stage.
"""

from __future__ import annotations

import cv2
import numpy as np


def as_bgr8(frame: object) -> np.ndarray | str:
    """``frame`` as a (H, W, 3) uint8 BGR array, or the reason it is not a picture (a string)."""
    if not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3) or frame.size == 0:
        return "not an image"
    if frame.ndim == 3:
        channels = frame.shape[2]
        if channels == 1:
            frame = frame[:, :, 0]
        elif channels == 4:
            frame = frame[:, :, :3]  # BGRA: the alpha channel says nothing about the board
        elif channels != 3:
            return f"not an image ({channels} channels; grey, BGR or BGRA expected)"
    if frame.dtype == np.uint16:
        frame = (frame >> 8).astype(np.uint8)
    elif np.issubdtype(frame.dtype, np.floating):
        values = np.nan_to_num(frame.astype(np.float32), nan=0.0, posinf=255.0, neginf=0.0)
        top = float(values.max())
        if top <= 1.0:  # 0–1, the float convention
            values = values * 255.0
        frame = np.clip(values + 0.5, 0, 255).astype(np.uint8)
    elif frame.dtype != np.uint8:
        return f"not an image (pixels of type {frame.dtype}; 8- or 16-bit or float expected)"
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    return frame
