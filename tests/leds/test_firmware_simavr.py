"""The real firmware (board_io/firmware, built with avr-gcc) run under simavr: the driver talks to it over a
pty and the LED output is decoded from the pins (WS2812 pulse widths, MAX7219 SPI words)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import serial

from board_io.leds.driver import LedDriver
from board_io.leds.protocol import SQUARES, Frame, LedState, LineError, SquareLed, decode_line, encode_line

FIRMWARE = Path(__file__).resolve().parents[2] / "board_io" / "firmware"


def _missing() -> list[str]:
    missing = []
    if not shutil.which("avr-gcc"):
        missing.append("gcc-avr")
    if not Path("/usr/lib/avr/include/avr/io.h").exists() and not list(Path("/usr").glob("**/avr/include/avr/io.h")):
        missing.append("avr-libc")
    if not Path("/usr/include/simavr/sim_avr.h").exists():
        missing.append("libsimavr-dev")
    if not Path("/usr/include/libelf.h").exists() and not Path("/usr/include/gelf.h").exists():
        missing.append("libelf-dev")
    for tool, package in (("pkg-config", "pkg-config"), ("make", "make"), ("cc", "gcc")):
        if not shutil.which(tool):
            missing.append(package)
    return missing


pytestmark = pytest.mark.skipif(bool(_missing()), reason=f"needs Debian packages: {' '.join(_missing())}")


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("firmware")
    for target in (["all"], ["all", "VARIANT=max7219"], ["harness"]):
        result = subprocess.run(["make", "-s", "-C", str(FIRMWARE), f"BUILD={out}", *target],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
    return out


class SimulatedBoard:
    """The harness process: ``port`` is the pty path, ``outputs(kind)`` the decoded LED frames so far."""

    def __init__(self, build: Path, elf: str, tmp: Path) -> None:
        self.port = str(tmp / "ttyAVR")
        self.out = tmp / "leds.txt"
        self.proc = subprocess.Popen([str(build / "simavr_harness"), str(build / elf), self.port, str(self.out)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 5
        while not os.path.exists(self.port):
            assert self.proc.poll() is None, self.proc.stderr.read().decode()
            assert time.monotonic() < deadline, "harness did not create its pty"
            time.sleep(0.02)

    def outputs(self, kind: str) -> list[tuple[float, str]]:
        rows = []
        for line in self.out.read_text().splitlines():
            parts = line.split(" ", 2)
            if parts[0] == kind and len(parts) == 3:
                rows.append((float(parts[1]), parts[2]))
        return rows

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(5)


@pytest.fixture
def ws_board(build, tmp_path):
    board = SimulatedBoard(build, "dama_leds.elf", tmp_path)
    yield board
    board.close()


@pytest.fixture
def max_board(build, tmp_path):
    board = SimulatedBoard(build, "dama_leds_max7219.elf", tmp_path)
    yield board
    board.close()


def chain_order() -> list[str]:
    """The WS2812 wiring of docs/serial-protocol.md: rank 1 left to right, rank 2 right to left, ..."""
    order = []
    for rank in "12345678":
        row = sorted((sq for sq in SQUARES if sq[1] == rank), reverse=rank in "2468")
        order += row
    return order


def decode_ws(data: str) -> dict[str, tuple[int, int, int]]:
    raw = bytes.fromhex(data)
    return {sq: (raw[3 * k + 1], raw[3 * k], raw[3 * k + 2]) for k, sq in enumerate(chain_order())}


def ask(port: serial.Serial, body: bytes) -> str:
    """Send raw bytes, return the reply; skips the power-up banner, which may reach us cut (a port opened
    while the board was talking), exactly as the driver does."""
    port.write(body)
    while True:
        raw = port.readline()
        assert raw, "no reply from the firmware"
        try:
            text = decode_line(raw)
        except LineError:
            continue
        if "boot=1" not in text.split():
            return text


def test_firmware_answers_the_protocol_and_rejects_bad_lines(ws_board):
    with serial.Serial(ws_board.port, 115200, timeout=2) as port:
        port.write(b"\n")
        assert ask(port, encode_line("hello 1")) == "dama-leds 1 leds=32 rgb=1 blink=1 bright=1 hw=ws2812"
        assert ask(port, b"set d4 on ff0000*00\n") == "err checksum"
        assert ask(port, b"set \xff4 on\n") == "err binary"
        assert ask(port, encode_line("set d5 on")) == "err square"
        assert ask(port, encode_line("set d4 glow")) == "err state"
        assert ask(port, encode_line("frame " + "o" * 31)) == "err length"
        assert ask(port, b"x" * 300 + b"\n") == "err toolong"
        assert ask(port, encode_line("hello 7")) == "err version"
        assert ask(port, encode_line("set d4 on 102030")) == "ok"
        assert ask(port, encode_line("state")) == "state " + "." * 13 + "o" + "." * 18 + " " + "".join(
            "102030" if sq == "d4" else "000000" for sq in SQUARES)


def test_set_command_lights_the_named_led_at_the_set_brightness(ws_board):
    with serial.Serial(ws_board.port, 115200, timeout=2) as port:
        port.write(b"\n")
        assert ask(port, encode_line("bright 63")) == "ok"
        assert ask(port, encode_line("set g1 on ff8040")) == "ok"
    time.sleep(0.1)
    leds = decode_ws(ws_board.outputs("ws")[-1][1])
    assert leds["g1"] == (255 * 64 >> 8, 128 * 64 >> 8, 64 * 64 >> 8)
    assert all(v == (0, 0, 0) for sq, v in leds.items() if sq != "g1")


def test_driver_frame_shows_on_the_ws2812_pins_and_blinks_at_its_rates(ws_board):
    frame = Frame.from_squares({
        "c3": SquareLed(LedState.ON, (255, 0, 0)),
        "d4": SquareLed(LedState.ON, (0, 200, 0)),
        "e5": SquareLed(LedState.BLINK_FAST, (0, 0, 255)),
        "h8": SquareLed(LedState.BLINK_SLOW, (255, 255, 255)),
    })
    driver = LedDriver(ws_board.port, brightness=255, reply_timeout=0.5, backoff=(0.05, 0.2))
    try:
        driver.show(frame)
        assert driver.wait_shown(5.0)
        # The device renders before it answers "ok", but the pins' capture may reach the test later than the
        # answer on a busy machine: the frame is shown from the first output in which it is lit.
        deadline = time.monotonic() + 15
        while not (lit := [t for t, d in ws_board.outputs("ws") if decode_ws(d)["c3"] == (255, 0, 0)]):
            assert time.monotonic() < deadline, "the frame never reached the WS2812 pins"
            time.sleep(0.05)
        shown_at = lit[0]
        while ws_board.outputs("ws")[-1][0] - shown_at < 1300 and time.monotonic() < deadline:
            time.sleep(0.05)  # 1.3 s of simulated time, however busy the machine is
    finally:
        driver.close()
    frames = [(t, decode_ws(d)) for t, d in ws_board.outputs("ws") if t >= shown_at]
    frames = frames[:-1]  # the last one is the clear sent on close
    assert len(frames) >= 8
    for _, leds in frames:
        assert leds["c3"] == (255, 0, 0) and leds["d4"] == (0, 200, 0)
        assert leds["e5"] in ((0, 0, 255), (0, 0, 0)) and leds["h8"] in ((255, 255, 255), (0, 0, 0))
        assert all(v == (0, 0, 0) for sq, v in leds.items() if sq not in ("c3", "d4", "e5", "h8"))

    def toggle_gaps(square: str) -> list[float]:
        times = [t2 for (t1, a), (t2, b) in zip(frames, frames[1:], strict=False) if a[square] != b[square]]
        return [b - a for a, b in zip(times, times[1:], strict=False)]

    fast, slow = toggle_gaps("e5"), toggle_gaps("h8")
    assert len(fast) >= 6 and all(abs(gap - 125) < 5 for gap in fast)  # blinkfast: 4 Hz
    assert slow and all(abs(gap - 500) < 5 for gap in slow)  # blinkslow: 1 Hz


def test_max7219_variant_shows_the_frame_on_the_matrix(max_board):
    frame = Frame.from_squares({sq: SquareLed(LedState.ON) for sq in ("a1", "b2", "h8", "d4")})
    driver = LedDriver(max_board.port, brightness=255, reply_timeout=0.5, backoff=(0.05, 0.2))
    try:
        driver.show(frame)
        assert driver.wait_shown(5.0)
        assert driver.hello is not None and not driver.hello.rgb
        time.sleep(0.05)
        intensity, rows = max_board.outputs("mx")[-1][1].split()
    finally:
        driver.close()
    assert int(intensity) == 15
    bits = bytes.fromhex(rows)
    lit = {f"{'abcdefgh'[f]}{r + 1}" for r in range(8) for f in range(8) if bits[r] & (0x80 >> f)}
    assert lit == {"a1", "b2", "h8", "d4"}
