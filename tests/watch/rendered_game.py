"""The demo game's opening rendered under given scene parameters and played through ``dama watch``: the
shared body of the end-to-end tests that vary only the scene (tall pieces, pieces off centre)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from dama.demo.script import demo_script
from dama.record import pdn_moves
from dama.watch import WatchConfig, watch


def play_opening(tmp_path: Path, params, plies: int, hold_seconds: float = 1.5,
                 retouch: Callable[[np.ndarray, float], np.ndarray] | None = None) -> tuple[list, list, list[dict]]:
    """(the script's first ``plies`` moves, the moves recorded, the events) of the opening rendered with
    ``params`` (640×360 scenes in the tests, 10 fps) and watched headless. ``retouch(frame, t)`` changes
    each frame of the video first (the light of the room, say)."""
    from vision.render import render_video

    script = demo_script()
    end = next(i for i, s in enumerate(script.steps) if s.note.startswith(f"{plies + 1}."))
    boards = [s.board for s in script.steps[:end] if s.kind in ("start", "move")]
    video = tmp_path / "game.mp4"
    render_video(boards, video, params=params, fps=10, hold_seconds=hold_seconds)
    if retouch is not None:
        video = _retouched(video, retouch)
    cfg = WatchConfig(source=str(video), headless=True, fast=True, print_events=False,
                      journal=str(tmp_path / "g.jsonl"), pdn=str(tmp_path / "g.pdn"),
                      events=str(tmp_path / "e.jsonl"))
    assert watch(cfg) == 0
    events = [json.loads(line) for line in (tmp_path / "e.jsonl").read_text().splitlines()]
    return script.moves[:len(boards) - 1], pdn_moves((tmp_path / "g.pdn").read_text()), events


def _retouched(video: Path, retouch: Callable[[np.ndarray, float], np.ndarray]) -> Path:
    """``video`` with every frame passed through ``retouch(frame, t)``, written beside it (an MJPG AVI)."""
    cap = cv2.VideoCapture(str(video))
    fps = cap.get(cv2.CAP_PROP_FPS)
    out_path = video.with_name(video.stem + "-retouched.avi")
    out = None
    n = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        frame = retouch(frame, n / fps)
        if out is None:
            out = cv2.VideoWriter(str(out_path), cv2.VideoWriter_fourcc(*"MJPG"), fps,
                                  (frame.shape[1], frame.shape[0]))
        out.write(frame)
        n += 1
    cap.release()
    assert out is not None, f"{video}: no frames"
    out.release()
    return out_path
