"""Sinks: independent consumers of the event stream (see :mod:`dama.bus`).

Each sink has ``name``, ``handle(event)`` and ``close()``; it only reads events, never calls another sink
or the loop. Ours: :class:`~dama.sinks.journal.JournalSink` (every event, fsynced, the basis of
``--resume``), :class:`~dama.sinks.journal.EventsSink` (``--events``), :class:`~dama.sinks.pdn.PdnSink`
(the game record, rewritten atomically after every move) and :class:`~dama.sinks.printer.PrinterSink`
(one line per event on the terminal). Others plug theirs in the same way (LEDs, speech, broadcast).
"""

from __future__ import annotations

from typing import Any


def for_board(event: dict[str, Any], board: str | None) -> bool:
    """Whether a per-board sink of ``board`` (None: all boards) takes ``event``."""
    return board is None or event.get("board") in (None, board)
