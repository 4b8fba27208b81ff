"""Frame sources: camera index, video file, folder of images, stream URL.

Every source is an iterator of :class:`Frame` (``t`` in seconds, ``image`` BGR). ``t`` is the video time
for recorded material (frame index / fps), so a run is reproducible and latency is measured in video
time; for live material it is monotonic time since the source was opened.

Live sources (camera, URL) keep going when the picture is lost: they report ``lost``, reopen the device
with exponential backoff (0.5 s doubling up to 4 s) and report ``restored``, so the game goes on after a
loose cable or a Wi-Fi drop. Recorded sources end with a clear ``ended`` message that says whether the
file ended normally or early (truncated or corrupt). Problems that make a source unusable from the
start (no such file, camera index that does not exist) raise :class:`SourceError` with a message meant
for the user, never a traceback.

Status reports go to ``on_status(state, message)`` (and to the ``board_io.sources`` logger); the watch
loop turns them into ``source`` events. States: ``opened``, ``lost``, ``reconnecting``, ``restored``,
``ended``.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import cv2
import numpy as np

log = logging.getLogger("board_io.sources")

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff")
StatusCallback = Callable[[str, str], None]


class SourceError(Exception):
    """A source cannot be used at all; the message is meant for the user."""


@dataclass
class Frame:
    t: float
    image: np.ndarray
    index: int


class Capture(Protocol):
    """The part of ``cv2.VideoCapture`` the live source needs (tests pass a stand-in)."""

    def isOpened(self) -> bool: ...  # noqa: N802 (OpenCV's name)
    def read(self) -> tuple[bool, Any]: ...
    def release(self) -> None: ...


def _report(on_status: StatusCallback | None, state: str, message: str, level: int = logging.INFO) -> None:
    log.log(level, "%s", message)
    if on_status is not None:
        on_status(state, message)


class Pacer:
    """Plays recorded frames at their own rate (frame ``index / fps`` seconds after the first), or as
    fast as they come when ``fast`` (``dama watch --fast``)."""

    def __init__(self, fps: float, fast: bool) -> None:
        self.fps = fps
        self.fast = fast
        self.start = time.monotonic()

    def time_of(self, index: int) -> float:
        """Video time of frame ``index``, after waiting until it is due."""
        t = index / self.fps
        if not self.fast:
            delay = self.start + t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        return t


class FrameSource:
    """Base class: iterate for frames, ``close()`` to release the device. ``live`` tells the loop
    whether time is wall time (live) or video time (recorded)."""

    name: str = "source"
    live: bool = False

    def __iter__(self) -> Iterator[Frame]:
        return self.frames()

    def frames(self) -> Iterator[Frame]:
        raise NotImplementedError

    def close(self) -> None:
        pass


class VideoFileSource(FrameSource):
    """A video file; paced in real time unless ``fast``."""

    def __init__(self, path: str, *, fast: bool = False, on_status: StatusCallback | None = None,
                 default_fps: float = 15.0) -> None:
        self.name = path
        self.path = path
        self.fast = fast
        self.on_status = on_status
        if not os.path.isfile(path):
            raise SourceError(f"video file {path!r} does not exist")
        if os.path.getsize(path) == 0:
            raise SourceError(f"video file {path!r} is empty")
        self._cap = cv2.VideoCapture(path)
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceError(f"cannot read {path!r}: not a video OpenCV can open "
                              "(corrupt or unknown format)")
        fps = self._cap.get(cv2.CAP_PROP_FPS) or 0.0
        self.fps = fps if 1.0 <= fps <= 1000.0 else default_fps
        count = self._cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0.0
        self.frame_count = int(count) if count > 0 else None
        self.width = int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0)
        self.height = int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)

    def frames(self) -> Iterator[Frame]:
        pacer = Pacer(self.fps, self.fast)
        index = 0
        try:
            while True:
                ok, image = self._cap.read()
                if not ok or image is None:
                    break
                yield Frame(pacer.time_of(index), image, index)
                index += 1
        finally:
            self._cap.release()
        self._report_end(index)

    def _report_end(self, read: int) -> None:
        if read == 0:
            _report(self.on_status, "ended", f"{self.path}: no frame could be decoded (corrupt video)",
                    logging.ERROR)
        elif self.frame_count is not None and read < self.frame_count - 1:
            _report(self.on_status, "ended",
                    f"{self.path}: video ended early after {read} of {self.frame_count} frames "
                    f"({read / self.fps:.1f} s; truncated or corrupt)", logging.WARNING)
        else:
            _report(self.on_status, "ended", f"{self.path}: end of video after {read} frames "
                    f"({read / self.fps:.1f} s)")

    def close(self) -> None:
        self._cap.release()


class ImageFolderSource(FrameSource):
    """A folder of still images in name order, each shown for ``1 / fps`` seconds of video time.

    The default of one image per second suits a folder of photos taken after each move: the stabilizer
    sees each position long enough to accept it.
    """

    def __init__(self, path: str, *, fps: float = 1.0, fast: bool = True,
                 on_status: StatusCallback | None = None) -> None:
        self.name = path
        self.path = path
        self.fps = fps
        self.fast = fast
        self.on_status = on_status
        self.files = sorted(f for f in os.listdir(path) if f.lower().endswith(IMAGE_EXTENSIONS))
        if not self.files:
            raise SourceError(f"folder {path!r} holds no images ({', '.join(IMAGE_EXTENSIONS)})")

    def frames(self) -> Iterator[Frame]:
        pacer = Pacer(self.fps, self.fast)
        index = 0
        for name in self.files:
            image = cv2.imread(os.path.join(self.path, name), cv2.IMREAD_COLOR)
            if image is None:
                _report(self.on_status, "skipped", f"{self.path}/{name}: not a readable image, skipped",
                        logging.WARNING)
                continue
            yield Frame(pacer.time_of(index), image, index)
            index += 1
        _report(self.on_status, "ended", f"{self.path}: end of folder after {index} images")


class LiveSource(FrameSource):
    """A camera or stream that reconnects with exponential backoff when the picture is lost.

    ``opener`` makes a new capture; ``clock`` and ``sleep`` are injectable so the reconnect logic can
    be tested without waiting. ``max_outage`` (seconds, None = forever) ends the source after a loss
    that lasts too long.
    """

    live = True

    def __init__(self, name: str, opener: Callable[[], Capture], *, on_status: StatusCallback | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                 first_backoff: float = 0.5, max_backoff: float = 4.0, max_outage: float | None = None,
                 failures_before_loss: int = 3) -> None:
        self.name = name
        self.opener = opener
        self.on_status = on_status
        self.clock = clock
        self.sleep = sleep
        self.first_backoff = first_backoff
        self.max_backoff = max_backoff
        self.max_outage = max_outage
        self.failures_before_loss = failures_before_loss
        self._closed = False
        self.outages = 0
        self._cap = opener()
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceError(f"cannot open {name}")
        self._t0 = clock()

    def frames(self) -> Iterator[Frame]:
        index = 0
        failures = 0
        _report(self.on_status, "opened", f"{self.name}: opened")
        while not self._closed:
            ok, image = self._cap.read()
            if ok and image is not None:
                failures = 0
                yield Frame(self.clock() - self._t0, image, index)
                index += 1
                continue
            failures += 1
            if failures < self.failures_before_loss:  # a single bad read is not a loss
                continue
            if not self._reconnect():
                break
            failures = 0

    def _reconnect(self) -> bool:
        self.outages += 1
        lost_at = self.clock()
        _report(self.on_status, "lost", f"{self.name}: picture lost; reconnecting (the game goes on)",
                logging.WARNING)
        self._cap.release()
        delay = self.first_backoff
        attempt = 0
        while not self._closed:
            if self.max_outage is not None and self.clock() - lost_at > self.max_outage:
                _report(self.on_status, "ended", f"{self.name}: gave up after {self.max_outage:.0f} s "
                        "without picture", logging.ERROR)
                return False
            self.sleep(delay)
            attempt += 1
            cap = self.opener()
            ok, image = cap.read() if cap.isOpened() else (False, None)
            if ok and image is not None:
                self._cap = cap
                _report(self.on_status, "restored", f"{self.name}: picture back after "
                        f"{self.clock() - lost_at:.1f} s ({attempt} attempts)")
                return True
            cap.release()
            _report(self.on_status, "reconnecting", f"{self.name}: still no picture, attempt {attempt}; "
                    f"next try in {min(delay * 2, self.max_backoff):.1f} s", logging.WARNING)
            delay = min(delay * 2, self.max_backoff)
        return False

    def close(self) -> None:
        self._closed = True
        self._cap.release()


def camera_indices(limit: int = 10) -> list[int]:
    """Camera indices that have a device node (Linux), for the error message of a wrong index."""
    return [i for i in range(limit) if os.path.exists(f"/dev/video{i}")]


def open_camera(index: int, *, on_status: StatusCallback | None = None, **kwargs: Any) -> LiveSource:
    if os.name == "posix" and os.path.isdir("/dev") and not os.path.exists(f"/dev/video{index}"):
        found = camera_indices()
        hint = f"cameras found: {', '.join(map(str, found))}" if found else "no camera found on this machine"
        raise SourceError(f"camera {index} does not exist ({hint})")

    def opener() -> Capture:
        return cv2.VideoCapture(index)

    try:
        return LiveSource(f"camera {index}", opener, on_status=on_status, **kwargs)
    except SourceError:
        raise SourceError(f"camera {index} exists but cannot be opened (in use by another program, or no "
                          "permission: is the user in the 'video' group?)") from None


def open_stream(url: str, *, on_status: StatusCallback | None = None, **kwargs: Any) -> LiveSource:
    def opener() -> Capture:
        return cv2.VideoCapture(url)

    try:
        return LiveSource(url, opener, on_status=on_status, **kwargs)
    except SourceError:
        raise SourceError(f"cannot open stream {url!r} (wrong address, server down, or a format OpenCV "
                          "cannot read)") from None


def open_source(spec: str, *, fast: bool = False, on_status: StatusCallback | None = None,
                folder_fps: float = 1.0) -> FrameSource:
    """Open what ``--source`` names: a camera index (``0``), a video file, a folder of images, or a URL
    (``rtsp://``, ``http://``, anything OpenCV opens)."""
    spec = spec.strip()
    if spec.isdigit():
        return open_camera(int(spec), on_status=on_status)
    if "://" in spec:
        return open_stream(spec, on_status=on_status)
    if os.path.isdir(spec):
        return ImageFolderSource(spec, fps=folder_fps, fast=fast, on_status=on_status)
    if os.path.isfile(spec):
        return VideoFileSource(spec, fast=fast, on_status=on_status)
    raise SourceError(f"--source {spec!r}: no such file or folder, and not a camera index or URL")


class LoopedSource(FrameSource):
    """Replays a recorded source until ``duration`` seconds of video time have passed, with time going on
    across loops: a short clip stands in for a long game (memory benchmark)."""

    def __init__(self, open_inner: Callable[[], FrameSource], duration: float) -> None:
        self.open_inner = open_inner
        self.duration = duration
        self.name = "looped source"

    def frames(self) -> Iterator[Frame]:
        offset = 0.0
        index = 0
        while offset < self.duration:
            inner = self.open_inner()
            fps = float(getattr(inner, "fps", 15.0))
            count = 0
            for frame in inner:
                t = offset + frame.t
                if t >= self.duration:
                    return
                yield Frame(t, frame.image, index)
                index += 1
                count += 1
            if count == 0:
                return
            offset += count / fps
