"""The journal: every event appended to a JSON-lines file as it happens, flushed and fsynced.

The journal holds the inputs of the referee too (``observation`` events: each stabilized board the
referee was shown, and ``control`` events: dashboard actions), so ``dama watch --resume`` rebuilds the
exact game state by replaying them into a fresh referee (:func:`read_journal`). A power cut can at worst
cut the last line short; reading skips such a line with a warning.
"""

from __future__ import annotations

import json
import logging
import os
from typing import IO, Any

from dama.sinks import for_board

log = logging.getLogger("dama.sinks.journal")

# Events that are inputs of the referee or noise for consumers of `dama referee`'s schema.
INPUT_EVENTS = frozenset({"observation", "control"})


class JournalSink:
    """Append every event of ``board`` to ``path`` (one JSON object a line), fsync each one."""

    def __init__(self, path: str, board: str | None = None, *, fsync: bool = True,
                 skip: frozenset[str] = frozenset(), name: str = "journal") -> None:
        self.name = name
        self.path = path
        self.board = board
        self.fsync = fsync
        self.skip = skip
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        self._file: IO[str] = open(path, "a", encoding="utf-8")  # noqa: SIM115 (kept open for the run)
        self.written = 0

    def handle(self, event: dict[str, Any]) -> None:
        if not for_board(event, self.board) or event.get("event") in self.skip:
            return
        self._file.write(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()
        if self.fsync:
            os.fsync(self._file.fileno())
        self.written += 1

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


def EventsSink(path: str, board: str | None = None) -> JournalSink:  # noqa: N802 (reads as a class)
    """``--events FILE``: the output events as JSON lines, the schema of ``dama referee`` (no inputs)."""
    return JournalSink(path, board, fsync=False, skip=INPUT_EVENTS, name="events")


def read_journal(path: str) -> list[dict[str, Any]]:
    """The events of a journal; a damaged line (cut by a crash) is skipped with a warning."""
    events: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                log.warning("%s:%d: damaged journal line skipped (cut by a crash?)", path, number)
                continue
            if isinstance(event, dict):
                events.append(event)
    return events
