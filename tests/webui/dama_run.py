"""Run the real ``dama demo`` on a rendered video in a subprocess, for the browser tests and the README
screenshot: the whole pipeline (frame source, vision, stabilizer, referee, sinks, waitress)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = re.compile(r"dashboard: (http://\S+)")  # the line may go on with other addresses


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def render_demo_video(boards: list[str], path: Path, hold_seconds: float = 1.2) -> Path:
    """A short demo video of ``boards`` (observation strings), hands included, 640×360 at 12 fps."""
    from vision.render import render_video

    if not path.exists():
        render_video(boards, str(path), seed=3, size=(640, 360), fps=12.0, hold_seconds=hold_seconds)
    return path


@contextlib.contextmanager
def dama_demo(video: Path, out: Path, *extra: str, start_timeout: float = 60.0) -> Iterator[tuple[str, list[str]]]:
    """Start ``dama demo --video VIDEO --web 127.0.0.1:PORT``; yield the dashboard URL and its output lines.

    The process is stopped with Ctrl-C (SIGINT) at the end, as a user would.
    """
    port = free_port()
    cmd = [sys.executable, "-m", "dama.cli", "demo", "--video", str(video), "--web", f"127.0.0.1:{port}",
           "--out", str(out), *extra]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines: list[str] = []
    ready = threading.Event()
    url: list[str] = []

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            found = DASHBOARD.match(line)
            if found and not url:
                url.append(found.group(1).rstrip("/"))
                ready.set()
        ready.set()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        if not ready.wait(start_timeout) or not url:
            raise RuntimeError("dama demo did not start its dashboard:\n" + "\n".join(lines))
        yield url[0], lines
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        reader.join(5)
        time.sleep(0.1)
