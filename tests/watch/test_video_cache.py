"""Rendered videos enter the cache whole, even when two processes render the same one at once
(dama.demo.video.render_into_cache: the demo video, the watch benchmark's clip)."""

import threading
import time
from pathlib import Path

import pytest

from dama.demo.video import render_into_cache


def _slow_render(tmp: Path) -> None:
    with open(tmp, "wb") as f:
        for _ in range(5):
            f.write(b"frame" * 100)
            f.flush()
            time.sleep(0.02)
    tmp.with_suffix(".json").write_text('{"fps": 10}')


def test_two_renders_of_one_video_at_once_both_land_whole(tmp_path):
    path = tmp_path / "bench-abc.mp4"
    errors: list[BaseException] = []

    def run() -> None:
        try:
            assert render_into_cache(path, _slow_render) == path
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert path.read_bytes() == b"frame" * 500
    assert path.with_suffix(".json").read_text() == '{"fps": 10}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench-abc.json", "bench-abc.mp4"]


def test_an_interrupted_render_leaves_nothing_behind(tmp_path):
    path = tmp_path / "demo-abc.mp4"

    def broken(tmp: Path) -> None:
        tmp.write_bytes(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        render_into_cache(path, broken)
    assert list(tmp_path.iterdir()) == []
