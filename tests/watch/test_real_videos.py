"""Real camera videos through `dama watch` (issue 9): a game filmed by someone else, on a board we never
saw, must raise no false alarm. These two videos show a printed board whose pieces stand on the light
squares, so no Czech move can be recorded from them; what matters is that nothing illegal is claimed."""

from __future__ import annotations

import json

import pytest

from dama.watch import WatchConfig, watch
from vision.bench import PHOTO_ROOT

VIDEOS = PHOTO_ROOT / "desafio_damas"


@pytest.mark.parametrize("name", ["video-2024-09-02.mp4", "video-2024-09-03.mp4"])
def test_real_video_plays_through_without_false_alarms(tmp_path, name):
    video = VIDEOS / name
    if not video.exists():
        pytest.skip(f"{video} not available")
    events_path = tmp_path / "events.jsonl"
    config = WatchConfig(source=str(video), fast=True, headless=True, journal=str(tmp_path / "j.jsonl"),
                         events=str(events_path), print_events=False, keep_serving=False)
    with open(tmp_path / "log.txt", "w") as log:
        assert watch(config, out=log) == 0
    events = [json.loads(line) for line in events_path.read_text().splitlines()]
    kinds = [e["event"] for e in events]
    assert "violation" not in kinds, [e for e in events if e["event"] == "violation"]
    assert "move" not in kinds  # a board set up otherwise is still being set up (dama/setup.py), not a game
    statuses = [e for e in events if e["event"] == "status"]
    assert any(e["board_found"] for e in statuses)  # the board is seen, not just nothing happening
    assert kinds[-1] == "source" and events[-1]["state"] == "ended"
