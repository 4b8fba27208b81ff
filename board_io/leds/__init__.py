"""Serial LED board under the dark squares: protocol, driver, planner (events -> frame), simulator.

``LedSink(port, **options)`` is what the watch loop uses; see ``docs/serial-protocol.md`` and
``docs/leds.md``.
"""

from board_io.leds.driver import LedDriver
from board_io.leds.planner import LedPlanner, LedStyle
from board_io.leds.protocol import SQUARES, Frame, LedState, SquareLed
from board_io.leds.sink import LedSink

__all__ = ["SQUARES", "Frame", "LedDriver", "LedPlanner", "LedSink", "LedState", "LedStyle", "SquareLed"]
