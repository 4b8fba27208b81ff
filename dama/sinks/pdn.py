"""The PDN recorder: the game record rewritten atomically (temp file + ``os.replace``) after every
event that changes it, so the file on disk is always a whole, readable game."""

from __future__ import annotations

import os
import tempfile
from typing import Any

from dama.record import GameRecord
from dama.sinks import for_board

CHANGES_RECORD = frozenset({"game_start", "move", "violation", "corrected", "accepted", "takeback", "game_over"})


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` so a reader or a crash sees the old file or the new one, never half."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".pdn-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class PdnSink:
    """Keep ``path`` equal to the PDN of the game of ``board``. ``prior`` events (from a journal being
    resumed) are folded in first."""

    name = "pdn"

    def __init__(self, path: str, board: str | None = None, tags: dict[str, str] | None = None,
                 prior: list[dict[str, Any]] | None = None, start_fen: str | None = None) -> None:
        self.path = path
        self.board = board
        self.tags = dict(tags or {})
        self.record = GameRecord(start_fen) if start_fen else GameRecord()
        self.writes = 0
        for event in prior or []:
            self.record.apply(event)

    def handle(self, event: dict[str, Any]) -> None:
        if not for_board(event, self.board):
            return
        self.record.apply(event)
        if event.get("event") in CHANGES_RECORD:
            write_atomic(self.path, self.record.pdn(self.tags))
            self.writes += 1

    def close(self) -> None:
        pass
