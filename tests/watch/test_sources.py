import math
import os

import numpy as np
import pytest
from fakes import FakeClock, write_video

from board_io.sources import (
    ImageFolderSource,
    LiveSource,
    LoopedSource,
    SourceError,
    VideoFileSource,
    open_source,
)

START = "wwwwwwwwwwww........bbbbbbbbbbbb"
AFTER = "wwwwwwwwww.w.......wbbbbbbbbbbbb"  # any board will do for the pixels


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("v") / "clip.mp4")
    n = write_video([START, AFTER], path, fps=10)
    return path, n


def statuses():
    seen = []
    return seen, lambda state, message: seen.append((state, message))


def test_video_times_are_frame_index_over_fps_and_end_is_reported(video):
    path, n = video
    seen, cb = statuses()
    src = open_source(path, fast=True, on_status=cb)
    times = [f.t for f in src]
    assert len(times) == n
    assert times[:3] == [0.0, 0.1, 0.2]
    assert seen[-1][0] == "ended" and "end of video" in seen[-1][1]


def test_truncated_mp4_is_refused_with_a_message(video, tmp_path):
    path, n = video
    with open(path, "rb") as f:
        data = f.read()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[: len(data) // 2])  # mp4 keeps its index at the end: nothing can be read
    with pytest.raises(SourceError, match="cannot read"):
        VideoFileSource(str(cut))


def test_truncated_avi_plays_what_is_left_and_says_it_ended_early(tmp_path):
    path = str(tmp_path / "clip.avi")
    n = write_video([START, AFTER, START], path, fps=10)
    with open(path, "rb") as f:
        data = f.read()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: len(data) // 2])
    seen, cb = statuses()
    frames = list(VideoFileSource(str(cut), fast=True, on_status=cb))
    assert 0 < len(frames) < n
    assert seen[-1][0] == "ended" and f"ended early after {len(frames)} of {n} frames" in seen[-1][1]


def test_corrupt_and_missing_files_give_clear_errors(tmp_path):
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(os.urandom(4000))
    with pytest.raises(SourceError, match="cannot read"):
        open_source(str(junk))
    with pytest.raises(SourceError, match="no such file"):
        open_source(str(tmp_path / "nope.mp4"))
    empty = tmp_path / "empty.mp4"
    empty.write_bytes(b"")
    with pytest.raises(SourceError, match="empty"):
        open_source(str(empty))


def test_camera_index_that_does_not_exist():
    index = next(i for i in range(40, 90) if not os.path.exists(f"/dev/video{i}"))
    with pytest.raises(SourceError, match=f"camera {index} does not exist"):
        open_source(str(index))


def test_image_folder_in_name_order_skips_unreadable(tmp_path):
    import cv2

    for i, shade in enumerate([10, 100, 200]):
        cv2.imwrite(str(tmp_path / f"{i:02d}.png"), np.full((20, 20, 3), shade, np.uint8))
    (tmp_path / "03.png").write_bytes(b"not an image")
    seen, cb = statuses()
    frames = list(ImageFolderSource(str(tmp_path), fps=2.0, on_status=cb))
    assert [int(f.image[0, 0, 0]) for f in frames] == [10, 100, 200]
    assert [f.t for f in frames] == [0.0, 0.5, 1.0]
    assert any(state == "skipped" for state, _ in seen)


class FlakyCamera:
    """A capture that delivers a frame every 0.1 s of (fake) time but has no picture between
    ``down_from`` and ``down_from + down_for``."""

    def __init__(self, clock, down_from, down_for, state):
        self.clock = clock
        self.down = (down_from, down_from + down_for)
        self.state = state
        state["opened"] += 1

    def _dark(self):
        return self.down[0] <= self.clock() < self.down[1]

    def isOpened(self):  # noqa: N802
        return not self._dark()

    def read(self):
        if self._dark():
            return False, None
        self.clock.sleep(0.1)
        return True, np.zeros((4, 4, 3), np.uint8)

    def release(self):
        pass


def test_live_source_reconnects_after_a_10s_dropout_with_backoff():
    clock = FakeClock()
    state = {"opened": 0}
    seen, cb = statuses()
    src = LiveSource("camera 0", lambda: FlakyCamera(clock, 5.0, 10.0, state), on_status=cb, clock=clock,
                     sleep=clock.sleep)
    frames = []
    for f in src:
        frames.append(f.t)
        if f.t > 25:
            break
    kinds = [s for s, _ in seen]
    assert kinds[0] == "opened" and "lost" in kinds and "restored" in kinds
    assert kinds.index("lost") < kinds.index("restored")
    restored = next(m for s, m in seen if s == "restored")
    assert "picture back after" in restored
    gap = max(b - a for a, b in zip(frames, frames[1:], strict=False))
    assert 10.0 <= gap < 10.0 + 4.0 + 0.5  # back within one backoff step of the camera's return
    assert frames[-1] > 25  # and it went on
    assert state["opened"] <= 2 + 10  # backoff, not a busy loop


def test_looped_source_continues_time(video):
    path, n = video
    src = LoopedSource(lambda: VideoFileSource(path, fast=True), duration=2.5 * n / 10)
    times = [f.t for f in src]
    assert len(times) == math.ceil(2.5 * n)
    assert all(b > a for a, b in zip(times, times[1:], strict=False))
