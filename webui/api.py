"""The JSON/SSE API: state, events, control, PDN, camera frame, board SVG and spoken readings."""

from __future__ import annotations

import re

from flask import Blueprint, Response, abort, current_app, jsonify, request

from webui import reading, sse
from webui.announce import violation_title
from webui.boardview import board_svg_for
from webui.companion import companion, resolve_board
from webui.security import require_token

bp = Blueprint("api", __name__, url_prefix="/api")

ACTIONS = ("new_game", "flip", "setup_from_camera", "accept", "takeback", "mask_squares")
NO_STORE = {"Cache-Control": "no-store"}


@bp.get("/boards")
def boards() -> Response:
    return jsonify(boards=companion().boards())


@bp.get("/state")
def state() -> Response:
    """The companion's snapshot of one board (``?board=``, optional when there is one board)."""
    board = resolve_board()
    snap = dict(companion().snapshot(board))
    # each alert also carries its headline with the rule article, worded once here for every page
    snap["alerts"] = [{**a, "title": _capital(violation_title(str(a.get("kind", ""))))}
                      for a in snap.get("alerts") or []]
    resp = jsonify(snap)
    resp.headers.update(NO_STORE)
    return resp


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


@bp.get("/events")
def events() -> Response:
    """Server-Sent Events; ``?board=`` limits the stream to one board."""
    board = request.args.get("board") or None
    if board is not None:
        board = resolve_board(board)
    cfg = current_app.config
    slots: sse.StreamSlots = current_app.extensions["dama_sse_slots"]
    if not slots.take():
        abort(503, description=f"{slots.limit} live pages are open already; this page refreshes by polling")
    try:
        sub = companion().subscribe()
    except Exception:
        slots.give_back()
        raise
    # the stream needs nothing of the request: no stream_with_context, no request context held open
    body = sse.stream(sub, board, float(cfg["SSE_HEARTBEAT"]), cfg["ANNOUNCE_LANG"])
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    resp = Response(body, mimetype="text/event-stream", headers=headers)
    # also when the stream is never read: the slot and the subscription are given back
    resp.call_on_close(sub.close)
    resp.call_on_close(slots.give_back)
    return resp


@bp.post("/control")
@require_token
def control() -> Response | tuple[Response, int]:
    """Run one control action: JSON ``{"action": ..., "board": ..., ...params}``."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        abort(400, description='send JSON like {"action": "flip", "board": "1"}')
    action = body.get("action")
    if action not in ACTIONS:
        abort(400, description=f"unknown action {action!r}; one of {', '.join(ACTIONS)}")
    board = resolve_board(body.get("board") if body.get("board") is not None else None)
    params = {k: v for k, v in body.items() if k not in ("action", "board", "token")}
    for key, value in params.items():
        if not isinstance(value, str | int | float | bool) or not re.fullmatch(r"[a-z_]{1,32}", key):
            abort(400, description=f"parameter {key!r} must be a plain name with a string, number or boolean")
    try:
        result = companion().control(board, action, **params)
    except (ValueError, TypeError) as exc:
        abort(400, description=f"{action} refused: {exc}")
    return jsonify(result if isinstance(result, dict) else {"ok": True})


@bp.get("/pdn")
def pdn() -> Response:
    """The game as PDN; ``?download=1`` asks the browser to save it as a file."""
    board = resolve_board()
    resp = Response(companion().pdn(board), mimetype="application/x-draughts-pdn")
    resp.headers.update(NO_STORE)
    if request.args.get("download") not in (None, "", "0"):
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", board)
        resp.headers["Content-Disposition"] = f'attachment; filename="dama-{safe}.pdn"'
    return resp


@bp.get("/frame.jpg")
def frame() -> Response:
    """The latest camera frame (with grid and pieces drawn unless ``?overlay=0``); 204 when there is none."""
    board = resolve_board()
    overlay = request.args.get("overlay", "1") not in ("0", "false", "no")
    data = companion().frame_jpeg(board, overlay=overlay)
    if data is None:
        return Response(status=204, headers=NO_STORE)
    return Response(data, mimetype="image/jpeg", headers=NO_STORE)


@bp.get("/board.svg")
def board_svg() -> Response:
    """The board as SVG with alerts, the last move and pending captures marked."""
    board = resolve_board()
    size = request.args.get("size", type=int) or 480
    svg = board_svg_for(companion().snapshot(board), size=max(120, min(size, 2000)))
    return Response(svg, mimetype="image/svg+xml", headers=NO_STORE)


@bp.get("/read")
def read() -> Response:
    """A spoken reading of the position: ``?what=last_move|last_capture|rank|position|side|captures|status&arg=``."""
    board = resolve_board()
    what = request.args.get("what", "")
    try:
        text = reading.answer(companion().snapshot(board), what, request.args.get("arg"))
    except ValueError as exc:
        abort(400, description=str(exc))
    return jsonify(text=text)


