"""Who may change the game: same-origin requests only, and a token when the app is exposed.

Read-only views stay open to anyone who can reach the server. State-changing requests (POST) are refused
when they come from another origin (a page elsewhere cannot drive the dashboard through the user's
browser), and, when ``CONTROL_TOKEN`` is set (the app is bound to an address other than loopback), they
must carry the token printed at start-up, in the ``X-Control-Token`` header or a ``token`` field.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from flask import Flask, Response, abort, jsonify, request
from werkzeug.exceptions import HTTPException

F = TypeVar("F", bound=Callable[..., Any])

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

# Everything the page loads comes from this server (the machine is offline at run time). Inline styles
# are allowed because SVG boards carry presentation styles; scripts are never inline.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


def init_app(app: Flask) -> None:
    app.before_request(_reject_cross_origin)
    app.after_request(_security_headers)
    app.register_error_handler(HTTPException, _error_response)


def same_origin(req: Any = None) -> bool:
    """False when the browser tells us the request comes from another site.

    Browsers send ``Origin`` on cross-origin POSTs and ``Sec-Fetch-Site`` on every request; clients that
    send neither (curl, scripts on this machine) are not browsers acting for a user, so they pass here
    and meet the token rule instead.
    """
    req = req or request
    site = req.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = req.headers.get("Origin")
    if origin is None:
        return True
    return origin == f"{req.scheme}://{req.host}"


def loopback_host(req: Any = None) -> bool:
    """True when the request was addressed to this computer by name (127.x, localhost, ::1)."""
    req = req or request
    host = req.host.rsplit(":", 1)[0] if not req.host.startswith("[") else req.host[1:].split("]")[0]
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _reject_cross_origin() -> None:
    from flask import current_app

    if request.method not in UNSAFE_METHODS:
        return
    if not same_origin():
        abort(403, description="cross-origin request refused: controls work only from the dashboard's own page")
    # Without a token the controls are for this computer only. A page elsewhere that points its own
    # host name at 127.0.0.1 (DNS rebinding) would pass the origin check, but not this one.
    if current_app.config.get("CONTROL_TOKEN") is None and not loopback_host():
        abort(403, description=f"controls without a token answer only to 127.0.0.1 or localhost, not {request.host!r}")


def token_ok(expected: str | None, req: Any = None) -> bool:
    """True when no token is configured, or the request carries the configured one."""
    if expected is None:
        return True
    req = req or request
    given = req.headers.get("X-Control-Token")
    if given is None:
        body = req.get_json(silent=True) if req.is_json else None
        given = body.get("token") if isinstance(body, dict) else req.form.get("token")
    return isinstance(given, str) and hmac.compare_digest(given.encode(), expected.encode())


def require_token(view: F) -> F:
    """Refuse the view with 401 unless :func:`token_ok` (the token printed when the server started)."""
    from flask import current_app

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not token_ok(current_app.config.get("CONTROL_TOKEN")):
            abort(401, description="control token missing or wrong: use the token printed when the server started")
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]


def _security_headers(resp: Response) -> Response:
    resp.headers.setdefault("Content-Security-Policy", CSP)
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "same-origin")
    resp.headers.setdefault("X-Frame-Options", "DENY")
    return resp


def _error_response(err: HTTPException) -> Any:
    """JSON errors for the API (a message a client can show); Flask's plain pages elsewhere."""
    if request.path.startswith("/api/"):
        resp = jsonify(error=err.description or err.name, status=err.code)
        resp.status_code = err.code or 500
        return resp
    return err
