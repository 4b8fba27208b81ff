"""The watch loop's LedSink (never blocks, never raises) and `dama leds test`."""

from __future__ import annotations

import os
import time

import pytest

from board_io.leds import LedSink
from board_io.leds.protocol import SQUARES, LedState
from dama.cli import main as dama

FAST = {"reply_timeout": 0.25, "handshake_timeout": 0.5, "backoff": (0.05, 0.2), "min_interval": 0.01}


def test_sink_lights_a_violation_on_the_board(sim, wait_for):
    sink = LedSink(sim.path, **FAST)
    try:
        assert sink.name == "leds"
        sink.handle({"event": "violation", "kind": "illegal_move", "squares": ["c3", "e5"], "legal": ["c3-d4"]})
        assert wait_for(lambda: set(sim.device.frame.lit()) == {"c3", "e5"})
        assert sim.device.frame["e5"].state is LedState.BLINK_FAST
    finally:
        sink.close()


@pytest.mark.parametrize("port", ["/dev/does-not-exist", "loop://"])
def test_sink_with_a_dead_device_never_blocks_or_raises(port):
    sink = LedSink(port, **FAST)
    try:
        slowest = 0.0
        for ply in range(200):
            for event in ({"event": "move", "ply": ply, "path": ["c3", "d4"]},
                          {"event": "violation", "kind": "missed_capture", "squares": ["d4"], "legal": ["bad"]}):
                start = time.perf_counter()
                sink.handle(event)
                slowest = max(slowest, time.perf_counter() - start)
        # any wait for the device would cost at least a reply timeout (0.25 s) or an open attempt
        assert slowest < 0.1
        assert not sink.driver.connected
    finally:
        start = time.perf_counter()
        sink.close()
        assert time.perf_counter() - start < 2.5


def test_sink_with_a_device_that_never_answers_does_not_block(wait_for):
    master, slave = os.openpty()  # a port whose other end nobody reads
    try:
        sink = LedSink(os.ttyname(slave), **FAST)
        slowest = 0.0
        for _ in range(100):
            start = time.perf_counter()
            sink.handle({"event": "pending", "remaining": ["d4"]})
            slowest = max(slowest, time.perf_counter() - start)
        assert slowest < 0.1  # the handshake with the mute port takes >= 0.25 s per try: not on our time
        assert not sink.driver.connected
        sink.close()
    finally:
        os.close(master)
        os.close(slave)


def test_sink_rejects_bad_options_at_construction():
    with pytest.raises(ValueError, match="unknown LED style option"):
        LedSink("loop://", sparkle_colour="ffffff")


def test_cli_lights_every_square_in_order_then_blinks(sim, capsys):
    assert dama(["leds", "test", "--port", sim.path, "--delay", "0"]) == 0
    out = capsys.readouterr().out.split("\n")
    assert out[0].startswith("connected: dama-leds 1")
    assert out[1:33] == list(SQUARES)
    assert "blink" in out[33]
    frames = [line.split()[1] for line in sim.device.received if line.startswith("frame")]
    singles = [f.index("o") for f in frames if f.count("o") == 1 and set(f) == {"o", "."}]
    assert [SQUARES[i] for i in singles] == list(SQUARES)
    assert any(set(f) == {"s", "f"} for f in frames)
    assert sim.device.frame.lit() == {}  # cleared at the end


def test_cli_port_that_cannot_be_opened(capsys):
    assert dama(["leds", "test", "--port", "/dev/no-such-tty", "--delay", "0"]) == 1
    out = capsys.readouterr().out
    assert "cannot open /dev/no-such-tty" in out and "Traceback" not in out


def test_cli_port_without_a_board(capsys):
    master, slave = os.openpty()
    try:
        code = dama(["leds", "test", "--port", os.ttyname(slave), "--timeout", "0.5", "--delay", "0"])
    finally:
        os.close(master)
        os.close(slave)
    assert code == 1
    assert "no dama-leds board answered" in capsys.readouterr().out


def test_cli_rejects_bad_brightness(sim, capsys):
    assert dama(["leds", "test", "--port", sim.path, "--brightness", "300"]) == 2
    assert "0..255" in capsys.readouterr().out
