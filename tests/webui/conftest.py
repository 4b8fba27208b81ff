"""Fixtures of the dashboard tests: the app built around the rules-backed fake companion."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fake_companion import FakeCompanion  # noqa: E402

from webui import create_app  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium driven by Playwright (never a downloaded browser)."""
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed (Debian package `chromium`; scripts/system-deps.sh installs it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def companion() -> FakeCompanion:
    return FakeCompanion()


@pytest.fixture
def app(companion: FakeCompanion):
    return create_app(companion, {"TESTING": True, "SSE_HEARTBEAT": 0.3})


@pytest.fixture
def client(app):
    return app.test_client()
