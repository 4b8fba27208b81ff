"""Shared fixtures: a simulated board on a pty and a driver tuned for fast tests."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from board_io.leds.driver import LedDriver
from board_io.leds.simulator import DeviceSimulator

FAST = {"reply_timeout": 0.25, "handshake_timeout": 1.0, "backoff": (0.05, 0.2), "min_interval": 0.01,
        "keepalive": 0.2}


@pytest.fixture
def sim() -> Iterator[DeviceSimulator]:
    with DeviceSimulator() as simulator:
        yield simulator


@pytest.fixture
def make_driver() -> Iterator[Callable[..., LedDriver]]:
    drivers: list[LedDriver] = []

    def make(port: str, **options) -> LedDriver:
        driver = LedDriver(port, **{**FAST, **options})
        drivers.append(driver)
        return driver

    yield make
    for driver in drivers:
        driver.close()


def _wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


@pytest.fixture
def wait_for() -> Callable[..., bool]:
    """Poll a condition (the driver works in its own thread) for at most a few seconds."""
    return _wait_for
