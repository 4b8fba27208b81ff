"""End to end: pieces half a square tall under a steep camera (the fhgr photos' discs are about 0.4 of a
square thick). A piece set down there covers most of the light square behind it; the motion test took
that for a hand that never left, and every later move was lost (vision.occlusion.leaning_onto)."""

import json
from dataclasses import replace

import numpy as np
import pytest

from dama.demo.script import demo_script
from dama.record import pdn_moves
from dama.watch import WatchConfig, watch

pytestmark = pytest.mark.slow
PLIES = 4


def test_every_move_of_tall_pieces_under_a_steep_camera_is_recorded(tmp_path):
    from vision.render import random_scene_params, render_video

    script = demo_script()
    end = next(i for i, s in enumerate(script.steps) if s.note.startswith(f"{PLIES + 1}."))
    boards = [s.board for s in script.steps[:end] if s.kind in ("start", "move")]
    for k in range(100):  # the first seeded scene with a camera tilted over 42°
        params = random_scene_params(np.random.default_rng([88, 3, k]), size=(640, 360), fill=(0.6, 1.0))
        if params.tilt_deg > 42:
            break
    params = replace(params, piece_height=0.5, piece_diameter=0.92)
    video = tmp_path / "tall.mp4"
    render_video(boards, video, params=params, fps=10, hold_seconds=1.5)
    cfg = WatchConfig(source=str(video), headless=True, fast=True, print_events=False,
                      journal=str(tmp_path / "g.jsonl"), pdn=str(tmp_path / "g.pdn"),
                      events=str(tmp_path / "e.jsonl"))
    assert watch(cfg) == 0
    events = [json.loads(line) for line in (tmp_path / "e.jsonl").read_text().splitlines()]
    assert not [e for e in events if e["event"] == "violation"]
    assert pdn_moves((tmp_path / "g.pdn").read_text()) == script.moves[:len(boards) - 1]
