"""Bad sources through the whole ``dama watch`` path: clear messages, the game goes on, nothing lost."""

import io
import json
import os

import numpy as np
from fakes import FakeClock, FakeVision, frames_for, referee_factory, write_video

from board_io.sources import LiveSource
from dama.demo.script import demo_script
from dama.record import pdn_moves
from dama.watch import LatestFrames, WatchConfig, watch


def cfg(tmp_path, source, **kw):
    base = dict(source=source, headless=True, fast=True, print_events=False,
                journal=str(tmp_path / "g.jsonl"), pdn=str(tmp_path / "g.pdn"), events=str(tmp_path / "e.jsonl"),
                vision_factory=FakeVision, referee_factory=referee_factory())
    base.update(kw)
    return WatchConfig(**base)


def events(tmp_path):
    with open(tmp_path / "e.jsonl") as f:
        return [json.loads(line) for line in f]


def test_nonexistent_camera_is_a_clear_error(tmp_path):
    index = next(i for i in range(40, 90) if not os.path.exists(f"/dev/video{i}"))
    out = io.StringIO()
    assert watch(cfg(tmp_path, str(index)), out=out) == 2
    assert f"camera {index} does not exist" in out.getvalue()
    assert "Traceback" not in out.getvalue()


def test_corrupt_video_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(os.urandom(5000))
    out = io.StringIO()
    assert watch(cfg(tmp_path, str(bad)), out=out) == 2
    assert "cannot read" in out.getvalue()


def test_truncated_video_keeps_the_moves_before_the_cut(tmp_path):
    script = demo_script()
    clean = [s.board for s in script.steps if s.kind in ("start", "move")][:9]
    path = tmp_path / "game.avi"
    write_video(clean, str(path), fps=10)
    data = path.read_bytes()
    (tmp_path / "cut.avi").write_bytes(data[: int(len(data) * 0.6)])
    assert watch(cfg(tmp_path, str(tmp_path / "cut.avi"))) == 0
    ev = events(tmp_path)
    ended = [e for e in ev if e["event"] == "source" and e["state"] == "ended"]
    assert ended and "ended early" in ended[0]["message"]
    recorded = pdn_moves((tmp_path / "g.pdn").read_text())
    assert 0 < len(recorded) < 8 and recorded == script.moves[: len(recorded)]


class ScriptedCamera:
    """Shows the boards of ``frames`` by (fake) time, 10 frames a second, with no picture at all
    between ``down[0]`` and ``down[1]`` seconds."""

    def __init__(self, clock, frames, down):
        self.clock, self.frames, self.down = clock, frames, down

    def isOpened(self):  # noqa: N802
        return not self.down[0] <= self.clock() < self.down[1]

    def read(self):
        if not self.isOpened():
            return False, None
        i = int(round(self.clock() * 10))
        if i >= len(self.frames):
            return False, None
        self.clock.sleep(0.1)
        return True, self.frames[i].image

    def release(self):
        pass


def test_camera_that_drops_out_for_10s_and_returns(tmp_path):
    script = demo_script()
    clean = [s.board for s in script.steps if s.kind in ("start", "move")][:11]
    frames = list(frames_for(clean, fps=10, hold=10.0))  # a move every 10.5 s
    clock = FakeClock()
    down = (36.05, 46.05)  # ten seconds without picture, during which the 4th move is made

    def source_factory(spec, fast=False, on_status=None):
        src = LiveSource("camera 0", lambda: ScriptedCamera(clock, frames, down), on_status=on_status,
                         clock=clock, sleep=clock.sleep, max_outage=12.0)
        src.live = False  # feed every frame in order (the grabber thread is tested on its own)
        return src

    out = io.StringIO()
    assert watch(cfg(tmp_path, "0", source_factory=source_factory), out=out) == 0
    ev = events(tmp_path)
    states = [e["state"] for e in ev if e["event"] == "source"]
    assert states[:2] == ["opened", "lost"] and "restored" in states
    lost = next(e for e in ev if e["event"] == "source" and e["state"] == "lost")
    assert "reconnecting" in lost["message"] and "game goes on" in lost["message"]
    assert pdn_moves((tmp_path / "g.pdn").read_text()) == script.moves[:10]
    assert not [e for e in ev if e["event"] == "violation"]


def test_latest_frames_keeps_only_the_newest():
    class Burst:
        live = True

        def __iter__(self):
            from board_io.sources import Frame

            for i in range(100):
                yield Frame(i / 10, np.zeros((2, 2, 3), np.uint8), i)

        def close(self):
            pass

    grab = LatestFrames(Burst())
    import time

    time.sleep(0.2)  # the camera runs ahead of a slow consumer
    got = [f.index for f in grab]
    assert got[-1] == 99 and len(got) < 100 and got == sorted(got)
    assert grab.skipped == 100 - len(got)


def test_frames_vision_fails_on_are_skipped_and_the_game_goes_on(tmp_path):
    """A frame vision raises on (a latent bug, a glitched picture) is skipped as a dropped one: the moves
    around it are all recorded, the failure is told once as a notice, and the board's state counts the
    frames skipped. Before, one such frame ended the board's whole recording."""
    from fakes import ListSource

    script = demo_script()
    clean = [s.board for s in script.steps if s.kind in ("start", "move")][:9]
    frames = list(frames_for(clean, fps=10))
    bad = set(range(40, 46)) | set(range(90, 93))  # within a held state and within a hand's passing

    class FailingVision(FakeVision):
        n = 0

        def process(self, frame, t):
            FailingVision.n += 1
            if FailingVision.n - 1 in bad:
                raise RuntimeError("cannot read this frame")
            return super().process(frame, t)

    sessions = []

    def on_started(companion, url):
        sessions.extend(companion.session(b) for b in companion.boards())

    out = io.StringIO()
    assert watch(cfg(tmp_path, "frames", vision_factory=FailingVision,
                     source_factory=lambda spec, fast=False, on_status=None: ListSource(frames, on_status=on_status),
                     on_started=on_started), out=out) == 0
    assert pdn_moves((tmp_path / "g.pdn").read_text()) == script.moves[:8]
    ev = events(tmp_path)
    told = [e for e in ev if e["event"] == "notice" and e.get("kind") == "vision_error"]
    assert len(told) == 1 and "cannot read this frame" in told[0]["message"] and "skipped" in told[0]["message"]
    assert not [e for e in ev if e["event"] == "violation"]
    assert sessions and sessions[0].snapshot()["vision_errors"] == len(bad)
