"""Recognize the board in one image: corners, orientation (čl. 2.4) and the 32 dark squares.

    dama recognize IMAGE [--profile FILE] [--white-at bottom|top|left|right] --json

Prints ``{"found": true, "corners": {...}, "orientation_ok": ..., "board": "<32 chars>", "ms": ...}``, or
``{"found": false, "reason": "..."}`` for a missing or corrupt file, a blank frame, no board or only part
of one. Exit status 0 when a board was found, 1 when not, 2 for a bad profile or an ``--overlay`` path
that cannot be written (checked before the picture is read: its folder must exist and OpenCV must know
its extension). With a calibration
profile whose lens was calibrated, the picture is undistorted first and the corners are pixels of the
undistorted picture (as the profile's own corners are).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", help="image file (PNG, JPEG, ...)")
    parser.add_argument("--profile", help="calibration profile (JSON) with the colour models and White's side")
    parser.add_argument("--white-at", choices=("bottom", "top", "left", "right"),
                        help="image side nearest White (overrides the profile and the pieces)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (the default output)")
    parser.add_argument("--crown-px", action="store_true",
                        help="also print \"crown_px\": for each of the 32 dark squares (observation order), how many "
                        "picture pixels a king's top lands beyond a man's (a man 0.2 of a square thick); under 6 a "
                        "king may read as a man there")
    parser.add_argument("--overlay", help="also write the image with the recognized grid and pieces here (a blue "
                        "corner triangle marks each dark square where the camera does not show a king's height)")


def _load_profile(path: str) -> dict:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return data


def _pipeline(args: argparse.Namespace) -> tuple[Any, Callable[[Any], Any]] | int:
    """(the vision pipeline, how a frame is prepared for it) for ``args.profile``, or exit status 2.

    A calibration profile (``dama calibrate``: it has a ``version``) gives its colour models, corners and
    lens, and a picture is undistorted with that lens first, as the watch loop does; a vision profile
    (``VisionPipeline.profile()``, or one nested under ``vision``) is the pipeline's own data."""
    from vision.pipeline import VisionPipeline

    data = None
    if args.profile:
        try:
            data = _load_profile(args.profile)
        except (OSError, ValueError) as exc:
            print(f"dama recognize: cannot read profile {args.profile}: {exc}", file=sys.stderr)
            return 2
    try:
        if data is not None and "version" in data:
            from calibration.live import LiveCalibration
            from calibration.profile import load_profile

            live = LiveCalibration(load_profile(args.profile))
            return live.pipeline(white_at=args.white_at), live.prepare
        if data is not None and isinstance(data.get("vision"), dict):
            data = data["vision"]
        return VisionPipeline(profile=data, white_at=args.white_at), lambda frame: frame
    except (ValueError, KeyError, TypeError) as exc:  # ProfileError is a ValueError naming the file
        print(f"dama recognize: bad profile {args.profile}: {exc}", file=sys.stderr)
        return 2


def _read_image(path: Path) -> tuple[Any, str]:
    """(the BGR picture, "") or (None, why not): a missing path, a folder, an empty, unreadable or
    undecodable file each get their own reason, never a traceback (OpenCV asserts on an empty buffer)."""
    import cv2
    import numpy as np

    if not path.exists():
        return None, "no such file"
    if not path.is_file():
        return None, "not a file"
    try:
        data = np.fromfile(str(path), dtype=np.uint8)
    except OSError as exc:
        return None, f"cannot read the file ({exc.strerror or exc})"
    if data.size == 0:
        return None, "empty file"
    try:
        frame = cv2.imdecode(data, cv2.IMREAD_COLOR)
    except cv2.error:
        frame = None
    if frame is None or frame.size == 0:
        return None, "not a readable image"
    return frame, ""


def _unwritable(path: Path) -> str:
    """Why ``path`` cannot take the overlay picture, or "" (its folder exists, OpenCV writes its type)."""
    import cv2

    if path.is_dir():
        return "it is a folder"
    if not path.parent.is_dir():
        return f"no such folder {path.parent}"
    try:
        known = cv2.haveImageWriter(str(path))
    except cv2.error:
        known = False
    return "" if known else "unknown picture type (use .png or .jpg)"


def run(args: argparse.Namespace) -> int:
    import cv2

    if args.overlay and (why := _unwritable(Path(args.overlay))):
        print(f"dama recognize: cannot write the overlay to {args.overlay}: {why}", file=sys.stderr)
        return 2
    made = _pipeline(args)
    if isinstance(made, int):
        return made
    vp, prepare = made
    frame, why = _read_image(Path(args.image))
    if frame is None:
        out = {"found": False, "reason": f"{why}: {args.image}"}
    else:
        frame = prepare(frame)
        res = vp.process(frame)
        out = res.to_json()
        if args.crown_px and res.found and res.crown_px is not None:
            out["crown_px"] = [round(float(v), 1) for v in res.crown_px]
        if args.overlay and not cv2.imwrite(args.overlay, vp.draw_overlay(frame, res, flat_crowns=True)):
            print(json.dumps(out))  # the reading is not lost with the picture
            print(f"dama recognize: could not write the overlay to {args.overlay}", file=sys.stderr)
            return 2
    print(json.dumps(out))
    return 0 if out["found"] else 1
