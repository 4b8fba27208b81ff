"""Serve a dashboard app with waitress on a free localhost port for the browser tests."""

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
