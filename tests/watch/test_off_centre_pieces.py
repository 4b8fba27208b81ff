"""End to end: pieces set down up to 0.22 of a square off their squares' centres, as in a quick game
(vision.render.params.with_pieces_off_centre). In single pictures such boards read far worse than the
plain ones (`dama bench vision --off-centre`, docs/vision.md); in a game the start position's colours, the
motion test and the referee carry them, and this keeps it so."""

import json

import numpy as np
import pytest

from dama.demo.script import demo_script
from dama.record import pdn_moves
from dama.watch import WatchConfig, watch

pytestmark = pytest.mark.slow
PLIES = 4


def test_every_move_of_pieces_set_down_off_centre_is_recorded(tmp_path):
    from vision.render import random_scene_params, render_video
    from vision.render.params import with_pieces_off_centre

    script = demo_script()
    end = next(i for i, s in enumerate(script.steps) if s.note.startswith(f"{PLIES + 1}."))
    boards = [s.board for s in script.steps[:end] if s.kind in ("start", "move")]
    rng = np.random.default_rng([89, 4])
    params = with_pieces_off_centre(random_scene_params(rng, size=(640, 360), fill=(0.6, 1.0)), rng)
    off = np.abs(np.array(params.piece_offsets)) / params.geometry.square_mm
    assert off.max() > 0.2 and np.median(off.max(axis=1)) > 0.1  # the pieces really stand off centre
    video = tmp_path / "off.mp4"
    render_video(boards, video, params=params, fps=10, hold_seconds=1.5)
    cfg = WatchConfig(source=str(video), headless=True, fast=True, print_events=False,
                      journal=str(tmp_path / "g.jsonl"), pdn=str(tmp_path / "g.pdn"),
                      events=str(tmp_path / "e.jsonl"))
    assert watch(cfg) == 0
    events = [json.loads(line) for line in (tmp_path / "e.jsonl").read_text().splitlines()]
    assert not [e for e in events if e["event"] == "violation"]
    assert pdn_moves((tmp_path / "g.pdn").read_text()) == script.moves[:len(boards) - 1]
