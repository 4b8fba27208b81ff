"""Read-only broadcast feeds over HTTP: ``/broadcast/round.pdn``, ``/broadcast/<board>.pdn``,
``/broadcast/index.json``.

Pollers are cheap: every response carries an ETag and Last-Modified, a conditional request for an
unchanged document gets ``304 Not Modified`` with no body, and documents are rendered once per change
(:class:`dama.broadcast.feed.BroadcastFeed` caches them). Only GET exists here: nothing on the
broadcast side can change a game.
"""

from __future__ import annotations

from datetime import datetime, timezone

from flask import Blueprint, Flask, Response, abort, current_app, request

bp = Blueprint("broadcast", __name__, url_prefix="/broadcast")


def init_app(app: Flask, feed) -> None:
    """Serve ``feed`` (a :class:`~dama.broadcast.feed.BroadcastFeed`) from ``app``."""
    app.extensions["dama_feed"] = feed
    app.register_blueprint(bp)


def _send(doc, mimetype: str) -> Response:
    if doc is None:
        abort(404)
    resp = Response(doc.body, mimetype=mimetype)
    resp.set_etag(doc.etag.strip('"'))
    resp.last_modified = datetime.fromtimestamp(int(doc.modified), tz=timezone.utc)
    resp.headers["Cache-Control"] = "no-cache"  # always revalidate: moves must show within a second
    resp.headers["Access-Control-Allow-Origin"] = "*"  # public, read-only: viewers on other sites may poll
    return resp.make_conditional(request)


@bp.get("/round.pdn")
def round_pdn() -> Response:
    return _send(current_app.extensions["dama_feed"].round_pdn(), "application/x-draughts-pdn")


@bp.get("/index.json")
def index() -> Response:
    return _send(current_app.extensions["dama_feed"].index(), "application/json")


@bp.get("/<board>.pdn")
def board_pdn(board: str) -> Response:
    feed = current_app.extensions["dama_feed"]
    doc = feed.board_pdn(board)
    if doc is None:
        abort(404, description=f"unknown board {board!r}; boards: {', '.join(feed.boards()) or '(none)'}")
    return _send(doc, "application/x-draughts-pdn")
