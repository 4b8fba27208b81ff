"""Serve a dashboard app with waitress on a free localhost port, and open it in the browser, for the tests."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from flask import Flask
from waitress.server import create_server


@contextlib.contextmanager
def serve(app: Flask, threads: int = 8) -> Iterator[str]:
    """Yield the base URL of ``app`` served on 127.0.0.1; stop the server afterwards."""
    server = create_server(app, host="127.0.0.1", port=0, threads=threads)
    thread = threading.Thread(target=server.run, name="test-web", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.close()
        server.task_dispatcher.shutdown(timeout=5)
        thread.join(5)


def open_page(browser, url: str, width: int = 1200, height: int = 900):
    """A new browser context and page at ``url``; the list collects console errors and page errors.

    ``bypass_csp``: Playwright's waiting helpers evaluate strings, which the page's own policy forbids.
    """
    context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return context, page, errors
