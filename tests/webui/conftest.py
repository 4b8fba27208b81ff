"""Fixtures of the dashboard tests: the app built around the rules-backed fake companion."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fake_companion import FakeCompanion  # noqa: E402

from webui import create_app  # noqa: E402


@pytest.fixture
def companion() -> FakeCompanion:
    return FakeCompanion()


@pytest.fixture
def app(companion: FakeCompanion):
    return create_app(companion, {"TESTING": True, "SSE_HEARTBEAT": 0.3})


@pytest.fixture
def client(app):
    return app.test_client()
