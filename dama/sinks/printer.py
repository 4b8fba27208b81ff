"""The terminal printer: one readable line per event worth a human's attention (headless runs)."""

from __future__ import annotations

import sys
from typing import IO, Any

from dama.record import violation_text


def _time(t: Any) -> str:
    if not isinstance(t, (int, float)):
        return "      "
    m, s = divmod(float(t), 60)
    return f"{int(m):3d}:{s:04.1f}"


def describe(event: dict[str, Any]) -> str | None:
    """The line for ``event``, or None for events not worth printing (frames, inputs)."""
    kind = event.get("event")
    if kind == "move":
        ply = int(event.get("ply", 0))
        number = f"{(ply + 1) // 2}." if event.get("side") == "white" else f"{(ply + 1) // 2}..."
        return f"{number} {event.get('move')}"
    if kind == "violation":
        return f"! {violation_text(event)}"
    if kind == "corrected":
        return "  corrected"
    if kind == "accepted":
        return f"  accepted as it stands (čl. 5.7): {event.get('fen', '')}"
    if kind == "pending":
        remaining = ", ".join(event.get("remaining", []))
        return f"  capture under way: {event.get('move', '')} (remove {remaining})"
    if kind == "reminder":
        return f"  reminder: {event.get('message', '')}"
    if kind == "game_over":
        return f"game over: {event.get('result')} ({event.get('reason', '')})"
    if kind == "game_start":
        return f"new game: {event.get('fen', '')}"
    if kind == "takeback":
        why = f" ({event['reason']})" if event.get("reason") else ""
        return f"  move taken back{why}; position {event.get('fen', '')}"
    if kind == "source":
        return f"  [{event.get('state')}] {event.get('message', '')}"
    if kind == "status":
        return f"  status: {event.get('state')}"
    if kind in ("error", "notice"):
        return f"  {kind}: {event.get('message', '')}"
    return None


class PrinterSink:
    name = "printer"

    def __init__(self, stream: IO[str] | None = None, show_status: bool = False,
                 board: str | None = None) -> None:
        self.stream = stream or sys.stdout
        self.show_status = show_status
        self.board = board

    def handle(self, event: dict[str, Any]) -> None:
        if event.get("event") == "status" and not self.show_status:
            return
        line = describe(event)
        if line is None:
            return
        prefix = f"[{event['board']}] " if self.board is None and event.get("board") not in (None, "main") else ""
        print(f"{_time(event.get('t'))}  {prefix}{line}", file=self.stream, flush=True)

    def close(self) -> None:
        pass
