"""The Flask dashboard and its JSON/SSE API.

``create_app(companion, config)`` is the application factory (the pattern of Flask's tutorial): the
caller (``dama watch`` / ``dama demo``) builds the companion, hands it in and serves the app with
waitress. The app only reads the companion (snapshots, frames, an event subscription) and forwards the
dashboard's control requests to ``companion.control``; it keeps no game state of its own.
"""

from __future__ import annotations

import ipaddress
import secrets
from typing import Any

from flask import Flask

from webui.companion import CompanionLike
from webui.sse import StreamSlots

__all__ = ["create_app", "needs_token", "new_token"]

DEFAULTS: dict[str, Any] = {
    # None: controls are open (the app is bound to 127.0.0.1). A string: POST /api/control needs it.
    "CONTROL_TOKEN": None,
    # Seconds between SSE heartbeat comments; keeps proxies from closing an idle stream and lets the
    # server notice a client that went away.
    "SSE_HEARTBEAT": 15.0,
    # At most this many pages follow the event stream at once (each holds one server thread; serve with
    # more threads than this). Pages beyond it poll /api/state instead.
    "SSE_MAX_STREAMS": 6,
    # Milliseconds between two camera frames fetched by the page (only while the image is visible).
    "FRAME_INTERVAL_MS": 250,
    "TITLE": "Dáma companion",
    # Language of the announcements in the aria-live region ("en" or "cs"), as `dama watch --speak`.
    "ANNOUNCE_LANG": "en",
}


def create_app(companion: CompanionLike, config: dict[str, Any] | None = None) -> Flask:
    """Build the dashboard for ``companion``; ``config`` overrides :data:`DEFAULTS` (and Flask's own keys)."""
    app = Flask(__name__)
    app.config.from_mapping(DEFAULTS)
    if config:
        app.config.from_mapping(config)
    token = app.config["CONTROL_TOKEN"]
    if token is not None and (not isinstance(token, str) or len(token) < 8):
        raise ValueError("CONTROL_TOKEN must be a string of at least 8 characters (or None to leave controls open)")
    if app.config["ANNOUNCE_LANG"] not in ("en", "cs"):
        raise ValueError(f"ANNOUNCE_LANG must be 'en' or 'cs', not {app.config['ANNOUNCE_LANG']!r}")
    app.extensions["dama_companion"] = companion
    app.extensions["dama_sse_slots"] = StreamSlots(int(app.config["SSE_MAX_STREAMS"]))

    from webui import api, calibration_page, pages, security

    security.init_app(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(calibration_page.bp)  # calibration page (issue 5)
    return app


def needs_token(host: str) -> bool:
    """True when serving on ``host`` exposes the app beyond this machine, so controls need a token."""
    if host == "localhost":
        return False
    if host in ("", "*", "0.0.0.0", "::"):
        return True
    try:
        return not ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return True  # a host name: assume it is reachable from elsewhere


def new_token() -> str:
    """A fresh random control token for the caller to print at start-up."""
    return secrets.token_urlsafe(16)
