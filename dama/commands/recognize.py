"""Recognize the board in one image: corners, orientation (čl. 2.4) and the 32 dark squares.

    dama recognize IMAGE [--profile FILE] [--white-at bottom|top|left|right] --json

Prints ``{"found": true, "corners": {...}, "orientation_ok": ..., "board": "<32 chars>", "ms": ...}``, or
``{"found": false, "reason": "..."}`` for a missing or corrupt file, a blank frame, no board or only part
of one. Exit status 0 when a board was found, 1 when not, 2 for a bad profile.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", help="image file (PNG, JPEG, ...)")
    parser.add_argument("--profile", help="calibration profile (JSON) with the colour models and White's side")
    parser.add_argument("--white-at", choices=("bottom", "top", "left", "right"),
                        help="image side nearest White (overrides the profile and the pieces)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (the default output)")
    parser.add_argument("--overlay", help="also write the image with the recognized grid and pieces here")


def _load_profile(path: str) -> dict:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    # Calibration profiles may nest the vision part; accept both.
    return data.get("vision", data) if isinstance(data.get("vision"), dict) else data


def run(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from vision.pipeline import VisionPipeline

    profile = None
    if args.profile:
        try:
            profile = _load_profile(args.profile)
        except (OSError, ValueError) as exc:
            print(f"dama recognize: cannot read profile {args.profile}: {exc}", file=sys.stderr)
            return 2
    try:
        vp = VisionPipeline(profile=profile, white_at=args.white_at)
    except (ValueError, KeyError, TypeError) as exc:
        print(f"dama recognize: bad profile {args.profile}: {exc}", file=sys.stderr)
        return 2
    path = Path(args.image)
    frame = None
    if not path.is_file():
        out = {"found": False, "reason": f"no such file: {args.image}"}
    else:
        frame = cv2.imdecode(np.fromfile(str(path), dtype=np.uint8), cv2.IMREAD_COLOR)
        if frame is None:
            out = {"found": False, "reason": f"not a readable image: {args.image}"}
        else:
            res = vp.process(frame)
            out = res.to_json()
            if args.overlay:
                cv2.imwrite(args.overlay, vp.draw_overlay(frame, res))
    print(json.dumps(out))
    return 0 if out["found"] else 1
