"""The demo video: rendered from the demo script by our renderer on first use, cached, reused after.

Why render instead of committing the video: OpenCV's only mp4 encoder in the pip wheel ('mp4v') gives
about 60 MB for the four minutes of the demo at 640×360 (no bitrate control, no H.264), far above what
belongs in a repository; rendering is deterministic (fixed seed, byte-identical frames) and takes about
half a minute here. The cache key is a hash of the script's boards, the render settings and the
renderer's source, so a change to any of them renders a fresh video. The file is written to a temporary
name and renamed when complete, so an interrupted render is never used.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from dama.demo.script import demo_script

SEED = 3
SIZE = (640, 360)
FPS = 12.0
HOLD_SECONDS = 1.5


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dama"


def _renderer_fingerprint() -> str:
    import vision.render

    digest = hashlib.sha256()
    folder = Path(vision.render.__file__).parent
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def video_key(boards: list[str], seed: int = SEED, size: tuple[int, int] = SIZE, fps: float = FPS,
              hold_seconds: float = HOLD_SECONDS) -> str:
    digest = hashlib.sha256()
    digest.update(repr((boards, seed, size, fps, hold_seconds)).encode())
    digest.update(_renderer_fingerprint().encode())
    return digest.hexdigest()[:16]


def _progress_bar(out=sys.stderr) -> Callable[[int, int], None]:
    def show(done: int, total: int) -> None:
        if done == total or done % 25 == 0:
            width = 30
            filled = width * done // max(total, 1)
            end = "\n" if done == total else ""
            print(f"\rrendering the demo video [{'#' * filled}{'.' * (width - filled)}] {done}/{total} frames",
                  end=end, file=out, flush=True)

    return show


def ensure_demo_video(folder: Path | None = None, *, show_progress: bool = True, size: tuple[int, int] = SIZE,
                      fps: float = FPS, hold_seconds: float = HOLD_SECONDS, seed: int = SEED) -> Path:
    """The path of the demo video, rendering it first if it is not in the cache."""
    from vision.render import render_video

    boards = demo_script().boards
    folder = folder or cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"demo-{video_key(boards, seed, size, fps, hold_seconds)}.mp4"
    if path.exists():
        return path
    render_into_cache(path, lambda tmp: render_video(boards, tmp, seed=seed, size=size, fps=fps,
                                                     hold_seconds=hold_seconds,
                                                     progress=_progress_bar() if show_progress else None))
    for old in folder.glob("demo-*"):  # videos of an older script or renderer are never used again
        if old.stem != path.stem:
            old.unlink(missing_ok=True)
    return path


def render_into_cache(path: Path, render: Callable[[Path], object]) -> Path:
    """``render(tmp)`` into a temporary file of this process's own beside ``path``, then renamed onto it
    with the ground truth ``.json`` the renderer writes beside the video.

    An interrupted render is never used, and two processes filling the cache at once (two test runs,
    several boards of one broadcast) each rename a complete file of their own: with one shared temporary
    name one renamed the file away under the other, whose rename then failed.
    """
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    try:
        render(Path(tmp))
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        truth = Path(tmp).with_suffix(".json")
        if truth.exists():
            os.replace(truth, path.with_suffix(".json"))
    finally:
        for leftover in (Path(tmp), Path(tmp).with_suffix(".json")):
            leftover.unlink(missing_ok=True)
    return path
