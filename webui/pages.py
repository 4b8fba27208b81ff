"""The HTML pages: one board, or an overview when several boards are watched (issue 6 builds on it)."""

from __future__ import annotations

from flask import Blueprint, abort, current_app, render_template, url_for
from werkzeug.routing import BuildError

from webui.companion import companion

bp = Blueprint("pages", __name__)

# Keyboard shortcuts of the board page (also listed on the page and in docs/dashboard.md).
SHORTCUTS: list[tuple[str, str, str]] = [
    ("l", "last_move", "say the last move"),
    ("c", "last_capture", "say the last capture"),
    ("1 … 8", "rank", "read that rank, square by square"),
    ("p", "position", "read the whole position rank by rank"),
    ("w", "side white", "list the white pieces"),
    ("b", "side black", "list the black pieces"),
    ("x", "captures", "list the captures available now"),
    ("s", "status", "say the status and open alerts"),
    ("r", "repeat", "repeat the last announcement"),
    ("?", "help", "show or hide this list"),
]


def _common() -> dict[str, object]:
    return {
        "title": current_app.config["TITLE"],
        "frame_interval": int(current_app.config["FRAME_INTERVAL_MS"]),
        "token_required": current_app.config["CONTROL_TOKEN"] is not None,
        "shortcuts": SHORTCUTS,
    }


def _calibration_url(board: str) -> str | None:
    """The calibration page of ``board`` when that page is part of the app (issue 5)."""
    try:
        return url_for("calibration.page", board=board)
    except BuildError:
        return None


@bp.get("/")
def index() -> str:
    boards = companion().boards()
    if len(boards) == 1:
        return render_template("board.html", board=boards[0], single=True,
                               calibration_url=_calibration_url(boards[0]), **_common())
    return render_template("overview.html", boards=boards, **_common())


@bp.get("/board/<board>")
def board_page(board: str) -> str:
    if board not in companion().boards():
        abort(404, description=f"unknown board {board!r}")
    return render_template("board.html", board=board, single=len(companion().boards()) == 1,
                           calibration_url=_calibration_url(board), **_common())
