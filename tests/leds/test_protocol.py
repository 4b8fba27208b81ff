"""Framing, checksums and the reference device's command handling."""

from __future__ import annotations

import pytest

from board_io.leds.device import LedDevice, LineAssembler
from board_io.leds.protocol import (
    SQUARES,
    Frame,
    LedState,
    LineError,
    SquareLed,
    checksum,
    cmd_frame,
    cmd_set,
    decode_line,
    encode_line,
    parse_hello,
)


def test_square_order_is_the_observation_order():
    assert SQUARES[:5] == ("a1", "c1", "e1", "g1", "b2")
    assert SQUARES[-1] == "h8" and len(SQUARES) == 32


def test_encode_appends_xor_checksum_and_decode_accepts_it():
    line = encode_line("clear")
    body, star, tail = line.partition(b"*")
    expected = 0
    for b in b"clear":
        expected ^= b
    assert tail == b"%02X\n" % expected
    assert decode_line(line) == "clear"
    assert decode_line(b"clear*" + tail.lower()) == "clear"  # lower-case hex accepted


@pytest.mark.parametrize(
    "raw, reason",
    [
        (b"clear\n", "checksum"),
        (b"clear*00\n", "checksum"),
        (b"clear*zz\n", "checksum"),
        (b"cl\x00ear*00\n", "binary"),
        (b"x" * 300 + b"\n", "toolong"),
    ],
)
def test_decode_rejects_bad_lines(raw, reason):
    with pytest.raises(LineError) as info:
        decode_line(raw)
    assert info.value.reason == reason


def test_single_flipped_bit_is_caught():
    line = bytearray(encode_line("set d4 blinkfast ff0000"))
    line[5] ^= 0x04
    with pytest.raises(LineError):
        decode_line(bytes(line))


def test_hello_roundtrip_keeps_unknown_capabilities():
    hello = parse_hello("dama-leds 1 leds=32 rgb=0 blink=1 bright=1 hw=max7219")
    assert hello.version == 1 and hello.leds == 32 and hello.rgb is False
    assert ("hw", "max7219") in hello.extra
    assert parse_hello(hello.line()) == hello
    with pytest.raises(ValueError):
        parse_hello("ok")


def _ask(device: LedDevice, body: str) -> str:
    reply = device.handle(encode_line(body))
    assert reply is not None
    return decode_line(reply)


def test_device_set_frame_clear_and_state():
    dev = LedDevice()
    assert _ask(dev, "hello 1").startswith("dama-leds 1 leds=32")
    assert _ask(dev, "set d4 blinkfast ff0000") == "ok"
    assert dev.frame["d4"] == SquareLed(LedState.BLINK_FAST, (255, 0, 0))
    frame = Frame.from_squares({"a1": SquareLed(LedState.ON, (1, 2, 3)), "h8": SquareLed(LedState.BLINK_SLOW)})
    assert _ask(dev, cmd_frame(frame)) == "ok"
    assert dev.frame == frame
    assert _ask(dev, "state") == f"state {frame.states()} {frame.colours()}"
    assert _ask(dev, "bright 10") == "ok" and dev.brightness == 10
    assert _ask(dev, "clear") == "ok" and dev.frame == Frame()


@pytest.mark.parametrize(
    "body, error",
    [
        ("set d5 on", "err square"),  # a light square
        ("set z9 on", "err square"),
        ("set d4 glow", "err state"),
        ("set d4 on red", "err colour"),
        ("frame " + "." * 31, "err length"),
        ("frame " + "x" * 32, "err state"),
        ("bright 256", "err range"),
        ("hello 2", "err version"),
        ("dance", "err unknown"),
    ],
)
def test_device_rejects_bad_commands_and_keeps_its_frame(body, error):
    dev = LedDevice()
    _ask(dev, "set a1 on")
    before = dev.frame
    assert _ask(dev, body) == error
    assert dev.frame == before and dev.rejected == 1


def test_device_answers_bad_checksum_and_ignores_empty_lines():
    dev = LedDevice()
    assert decode_line(dev.handle(b"set a1 on*00\n")) == "err checksum"
    assert dev.frame == Frame()
    assert dev.handle(b"\n") is None


def test_assembler_splits_lines_and_rejects_overlong_ones():
    asm = LineAssembler(limit=20)
    lines = asm.feed(b"abc\nde") + asm.feed(b"f\n" + b"y" * 50 + b"\nok\n")
    assert lines[0] == b"abc" and lines[1] == b"def" and lines[3] == b"ok"
    with pytest.raises(LineError) as info:
        decode_line(lines[2])
    assert info.value.reason == "toolong"


def test_set_command_names_the_square_and_checksum_matches():
    body = cmd_set("D4", SquareLed(LedState.ON, (0, 255, 0)))
    assert body == "set d4 on 00ff00"
    assert checksum(body.encode()) == int(encode_line(body)[-3:-1], 16)


def test_wire_examples_in_the_protocol_document_carry_correct_checksums():
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "serial-protocol.md").read_text()
    lines = re.findall(r"^\s+(?:[<>] )?(\S[^*\n]*\*[0-9A-F]{2})$", doc, flags=re.M)
    assert len(lines) >= 8
    deliberately_bad = [line for line in lines if line == "set d4 on ff0000*00"]
    assert len(deliberately_bad) == 1  # the session shows one corrupted line and its err reply
    for line in lines:
        if line not in deliberately_bad:
            assert decode_line(line.encode()) == line[:-3]
