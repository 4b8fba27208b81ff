"""Speech output: every announcement spoken offline through espeak-ng, without ever blocking the caller.

:class:`SpeechSink` is an event-stream sink (``name``, ``handle(event)``, ``close()``). ``handle`` only
turns the event into an :class:`~board_io.announce.Announcement` and queues it; a worker thread speaks.
The queue is short and fresh: announcements older than ``max_age`` seconds are dropped unspoken, an
assertive one (a violation, game over) interrupts whatever polite one is being spoken and jumps the
queue, and the last one can be repeated on request. :class:`TextSink` prints the same announcements one
per line (``dama watch --say``) for a braille display or a terminal screen reader.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Protocol, TextIO

from board_io.announce import Announcement, Announcer

log = logging.getLogger(__name__)

VOICES = {"cs": "cs", "en": "en"}


class SpeechEngine(Protocol):
    def speak(self, text: str, lang: str) -> None:
        """Say ``text``; returns when done or when :meth:`stop` is called."""

    def stop(self) -> None:
        """Interrupt what is being said now (from another thread)."""


class EspeakEngine:
    """espeak-ng in a subprocess per utterance, so an utterance can be cut off by killing it."""

    def __init__(self, rate: int = 165, executable: str | None = None) -> None:
        self.executable = executable or shutil.which("espeak-ng")
        if not self.executable:
            raise RuntimeError("espeak-ng is not installed (Debian package espeak-ng)")
        self.rate = rate
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def command(self, text: str, lang: str, wav: Path | None = None) -> list[str]:
        cmd = [self.executable, "-v", VOICES[lang], "-s", str(self.rate)]
        if wav is not None:
            cmd += ["-w", str(wav)]
        return [*cmd, "--", text]

    def speak(self, text: str, lang: str) -> None:
        with self._lock:
            self._proc = subprocess.Popen(self.command(text, lang), stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE)
        _, err = self._proc.communicate()
        if self._proc.returncode not in (0, -15) and err:
            log.warning("espeak-ng: %s", err.decode(errors="replace").strip())

    def stop(self) -> None:
        with self._lock:
            if self._proc and self._proc.poll() is None:
                self._proc.terminate()

    def render_wav(self, text: str, lang: str, path: str | Path) -> Path:
        """Write the utterance to a WAV file instead of the sound card (tests, pre-recorded prompts)."""
        path = Path(path)
        subprocess.run(self.command(text, lang, wav=path), check=True, capture_output=True, timeout=60)
        return path


class SpeechSink:
    """Speaks announcements of the event stream in ``lang`` ("cs" or "en")."""

    name = "speech"

    def __init__(self, lang: str = "en", engine: SpeechEngine | None = None, max_age: float = 8.0,
                 max_queue: int = 6, clock=time.monotonic) -> None:
        self.lang = lang
        self.engine = engine if engine is not None else EspeakEngine()
        self.max_age = max_age
        self.max_queue = max_queue
        self.clock = clock
        self.spoken: list[Announcement] = []  # what was actually said, in order (for tests and logs)
        self.dropped = 0
        self.last: Announcement | None = None
        self._queue: deque[tuple[float, Announcement]] = deque()
        self._current: Announcement | None = None
        self._announcer = Announcer(lang)
        self._cv = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="speech", daemon=True)
        self._thread.start()

    # --- the sink interface -----------------------------------------------------------------------

    def handle(self, event: dict[str, Any]) -> None:
        said = self._announcer(event)
        if said is not None:
            self.say(said)

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._queue.clear()
            self._cv.notify_all()
        self.engine.stop()
        self._thread.join(timeout=5)

    # --- control ----------------------------------------------------------------------------------

    def say(self, item: Announcement) -> None:
        """Queue an announcement; never blocks."""
        with self._cv:
            now = self.clock()
            if item.politeness == "assertive":
                # urgent: goes first, and cuts off a polite utterance in progress
                self._queue.appendleft((now, item))
                if self._current is not None and self._current.politeness != "assertive":
                    self.engine.stop()
            else:
                self._queue.append((now, item))
            while len(self._queue) > self.max_queue:  # too much backlog: the oldest polite news is stale
                victim = next((e for e in self._queue if e[1].politeness == "polite"), self._queue[0])
                self._queue.remove(victim)
                self.dropped += 1
            self._cv.notify()

    def repeat(self) -> None:
        """Say the last announcement again (a keyboard shortcut on the dashboard)."""
        if self.last is not None:
            self.say(self.last)

    def interrupt(self) -> None:
        """Stop talking now and forget what was queued."""
        with self._cv:
            self.dropped += len(self._queue)
            self._queue.clear()
        self.engine.stop()

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._queue and not self._closed:
                    self._cv.wait()
                if self._closed:
                    return
                queued_at, item = self._queue.popleft()
                if self.clock() - queued_at > self.max_age:
                    self.dropped += 1
                    continue
                self._current = item
            try:
                self.engine.speak(item.spoken, self.lang)
                self.spoken.append(item)
                self.last = item
            except Exception:  # a broken engine must not kill the sink
                log.exception("speech failed")
            finally:
                with self._cv:
                    self._current = None


class TextSink:
    """Prints every announcement as one plain line (``dama watch --say``): for braille displays and
    terminal screen readers, which speak plain text faster than any built-in voice."""

    name = "say"

    def __init__(self, lang: str = "en", stream: TextIO | None = None) -> None:
        self.lang = lang
        self.stream = stream or sys.stdout
        self._announcer = Announcer(lang)

    def handle(self, event: dict[str, Any]) -> None:
        said = self._announcer(event)
        if said is not None:
            prefix = "! " if said.politeness == "assertive" else ""
            print(prefix + said.text, file=self.stream, flush=True)

    def close(self) -> None:
        pass
