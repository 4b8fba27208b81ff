"""The calibration page: drag the board's corners on the live picture, pick White's side, run the checklist.

The work is done by :mod:`calibration.web` (plain functions); this blueprint only moves JSON and the
dashboard's current frame between them and the page, and saves the profile. Which file holds a board's
profile comes from ``CALIBRATION_PROFILES`` in the app config (``{board: path}`` or one path for all);
without it, the profile named after the board in the user's configuration folder. After a change the
running companion is asked to reload the profile with the control action ``reload_profile``; a
companion that does not know that action picks the change up at its next start.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request

from webui.companion import companion, resolve_board
from webui.security import require_token

bp = Blueprint("calibration", __name__)


def _path(board: str) -> Path:
    from calibration.profile import profile_path

    configured = current_app.config.get("CALIBRATION_PROFILES")
    if isinstance(configured, dict) and board in configured:
        return Path(configured[board])
    if isinstance(configured, (str, Path)):
        return Path(configured)
    return profile_path(board)


def _load(board: str) -> Any:
    from calibration.profile import Profile, ProfileError, load_profile

    path = _path(board)
    if not path.exists():
        return Profile(name=board)
    try:
        return load_profile(path)
    except ProfileError as exc:
        abort(422, description=f"{exc}. Saving corners here writes a fresh profile.")


def _frame(board: str) -> Any:
    from calibration.web import decode_jpeg

    return decode_jpeg(companion().frame_jpeg(board, overlay=False))


def _save(board: str, profile: Any) -> dict[str, Any]:
    from calibration.profile import save_profile

    path = save_profile(profile, _path(board))
    try:
        companion().control(board, "reload_profile", path=str(path))
        applied = True
    except Exception:  # an older companion without the action: the file is saved all the same
        applied = False
    return {"saved": str(path), "applied": applied}


@bp.get("/calibration")
def page() -> str:
    board = resolve_board()
    return render_template("calibration.html", board=board, title=current_app.config["TITLE"],
                           frame_interval=int(current_app.config["FRAME_INTERVAL_MS"]),
                           token_required=current_app.config["CONTROL_TOKEN"] is not None)


@bp.get("/api/calibration/state")
def state() -> Response:
    from calibration.web import state as page_state

    board = resolve_board()
    return jsonify({**page_state(_load(board)), "board": board})


@bp.get("/api/calibration/check")
def check() -> Response:
    from calibration.web import check as run_check

    board = resolve_board()
    return jsonify(run_check(_load(board), _frame(board)))


@bp.post("/api/calibration/corners")
@require_token
def corners() -> Response:
    from calibration.web import set_corners

    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        abort(400, description='send JSON: {"board": ..., "corners": [[x, y], ...4], "white_side": ...}')
    board = resolve_board(body.get("board"))
    profile = _load(board)
    try:
        out = set_corners(profile, body.get("corners"), body.get("white_side") or None, _frame(board))
    except ValueError as exc:
        abort(400, description=str(exc))
    return jsonify({**out, **_save(board, profile)})


@bp.post("/api/calibration/learn")
@require_token
def learn() -> Response:
    from calibration.web import learn as relearn

    body = request.get_json(silent=True) or {}
    board = resolve_board(body.get("board") if isinstance(body, dict) else None)
    profile = _load(board)
    try:
        out = relearn(profile, _frame(board))
    except ValueError as exc:
        abort(409, description=str(exc))
    return jsonify({**out, **_save(board, profile)})
