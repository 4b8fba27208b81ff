"""``LedSink``: the event-bus consumer that lights the board during ``dama watch --leds P``."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from board_io.leds.driver import LedDriver
from board_io.leds.planner import LedPlanner, LedStyle

log = logging.getLogger(__name__)

_DRIVER_OPTIONS = {
    "baudrate", "min_interval", "reply_timeout", "handshake_timeout", "retries", "keepalive", "backoff",
    "brightness", "clear_on_close", "opener",
}


class LedSink:
    """Events in, LED frames out. ``handle`` only updates the planner and hands the newest frame to the
    driver thread, so it returns in microseconds whatever the device does (absent, slow, unplugged).

    Options: any :class:`LedDriver` keyword (``brightness=40``, ``min_interval=0.1`` ...) and style
    options ``<role>_state`` / ``<role>_colour`` (``violation_colour="ff00ff"``); a bad option raises
    ValueError at construction, never later.
    """

    name = "leds"

    def __init__(self, port: str, **options: Any) -> None:
        driver_opts = {k: v for k, v in options.items() if k in _DRIVER_OPTIONS}
        style_opts = {k: v for k, v in options.items() if k not in _DRIVER_OPTIONS}
        self.planner = LedPlanner(LedStyle().with_options(style_opts))
        self.driver = LedDriver(port, **driver_opts)

    def handle(self, event: dict[str, Any] | Mapping[str, Any]) -> None:
        try:
            self.driver.show(self.planner.update(event))
        except Exception:  # noqa: BLE001 - a sink must never break the event bus
            log.exception("LED sink could not handle event %r", dict(event).get("event"))

    def close(self) -> None:
        self.driver.close()
