"""What the dashboard needs of a companion (``dama.companion.Companion`` implements it).

Written as a Protocol so the web app can be built and tested against any object with these methods; the
dashboard never reaches past them into the pipeline.
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import abort, current_app, request


class Subscription(Protocol):
    def get(self, timeout: float | None = None) -> dict[str, Any] | None: ...

    def close(self) -> None: ...


class CompanionLike(Protocol):
    def boards(self) -> list[str]: ...

    def snapshot(self, board: str) -> dict[str, Any]: ...

    def frame_jpeg(self, board: str, overlay: bool = True) -> bytes | None: ...

    def subscribe(self) -> Subscription: ...

    def control(self, board: str, action: str, **params: Any) -> dict[str, Any]: ...

    def pdn(self, board: str) -> str: ...


def companion() -> CompanionLike:
    """The companion of the running app."""
    return current_app.extensions["dama_companion"]


def resolve_board(board: str | None = None) -> str:
    """The board a request is about: ``board`` (or ``?board=``), or the only board when there is one.

    Aborts with 404 for an unknown board and 400 when several boards exist and none was named, so a
    client always gets a message saying what to send instead of a traceback.
    """
    boards = companion().boards()
    name = board if board is not None else request.args.get("board")
    if name is None or name == "":
        if len(boards) == 1:
            return boards[0]
        if not boards:
            abort(404, description="no board is being watched")
        abort(400, description=f"several boards are watched; add ?board= one of: {', '.join(boards)}")
    if name not in boards:
        abort(404, description=f"unknown board {name!r}; boards: {', '.join(boards) or '(none)'}")
    return name
