"""Figures for docs/calibration.md: the guided flow on rendered videos with known cameras (lens distortion).

    .venv/bin/python tests/calibration/measure.py [--seeds 8] [--size 640x480] [--empty 4]

Per seed: focal length error, RMS reprojection error, worst corner error against the renderer's corners
(brought into the undistorted picture with the calibrated lens), the checklist.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from calib_video import calibration_video  # noqa: E402

from calibration.board import corner_error  # noqa: E402
from calibration.flow import CalibrationFlow, Options  # noqa: E402
from calibration.undistort import undistort_points  # noqa: E402


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--size", default="640x480")
    ap.add_argument("--empty", type=int, default=0, help="frames of the empty board before the start position")
    args = ap.parse_args(argv)
    size = tuple(int(v) for v in args.size.split("x"))
    focal, rms, corner = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seeds):
            path = Path(tmp) / f"cal{seed}.avi"
            truth = calibration_video(path, seed, size=size, empty_frames=args.empty)
            cap = cv2.VideoCapture(str(path))
            frames = []
            while True:
                ok, frame = cap.read()
                if not ok:
                    break
                frames.append(frame)
            t0 = time.perf_counter()
            result = CalibrationFlow("m", Options(), say=lambda line: None).run(frames)
            dt = time.perf_counter() - t0
            line = f"seed {seed}: {len(frames)} frames, flow {dt:.1f} s"
            cam = result.profile.camera
            if cam is not None:
                err = cam.focal[0] / truth["camera"].K[0, 0] - 1
                focal.append(abs(err))
                rms.append(cam.rms or 0.0)
                line += f", focal {err:+.2%}, RMS {cam.rms:.2f} px"
            if result.profile.board is not None:
                expected = {k: tuple(undistort_points(np.array([v]), cam)[0]) for k, v in truth["corners"].items()}
                e = corner_error(result.profile.board.corners, expected)
                corner.append(e)
                line += f", corners {e:.2f} px"
            ticks = "".join({True: "x", False: " ", None: "-"}[c.ok] for c in result.checklist)
            print(f"{line}, checklist [{ticks}]")
    if focal:
        print(f"focal error: median {np.median(focal):.2%}, max {max(focal):.2%}; "
              f"RMS: median {np.median(rms):.2f} px, max {max(rms):.2f} px")
    if corner:
        print(f"corner error: median {np.median(corner):.2f} px, max {max(corner):.2f} px, "
              f"within 1 px: {sum(e <= 1 for e in corner)}/{len(corner)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
