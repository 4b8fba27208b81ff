"""The dama-leds serial protocol: line framing, checksums, squares, states and frames.

One command per line, ASCII, ``<body>*XX\\n`` where ``XX`` is the XOR of the body's bytes as two hex digits
(as in NMEA sentences and ChessLink's block parity). Both directions use the same framing, so corrupted
or half-received lines are rejected by whoever reads them. The full description, with the reasons behind
each choice, is in ``docs/serial-protocol.md``; the device side lives in :mod:`board_io.leds.device`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

PROTOCOL_VERSION = 1
BAUDRATE = 115200
MAX_LINE = 240  # bytes before the newline; the firmware's receive buffer (RAM is 2 KB on an ATmega328P)
DEVICE_NAME = "dama-leds"


def _dark_squares() -> tuple[str, ...]:
    """The 32 dark squares in observation order (a1 c1 e1 g1 b2 ... h8), as in DESIGN.md."""
    names = []
    for rank in range(8):
        for file in range(8):
            if (file + rank) % 2 == 0:
                names.append("abcdefgh"[file] + str(rank + 1))
    return tuple(names)


SQUARES: tuple[str, ...] = _dark_squares()
SQUARE_INDEX: dict[str, int] = {name: i for i, name in enumerate(SQUARES)}
CORNERS: tuple[str, ...] = ("a1", "h8", "b8", "g1")  # the dark squares nearest the four corners


class LedState(str, enum.Enum):
    """What one square's LED does; the word is used in ``set`` and the letter in ``frame``."""

    OFF = "off"
    ON = "on"
    BLINK_SLOW = "blinkslow"
    BLINK_FAST = "blinkfast"

    @property
    def letter(self) -> str:
        return _STATE_LETTER[self]

    @classmethod
    def from_letter(cls, letter: str) -> LedState:
        try:
            return _LETTER_STATE[letter]
        except KeyError:
            raise ValueError(f"unknown state letter {letter!r}") from None


_STATE_LETTER = {LedState.OFF: ".", LedState.ON: "o", LedState.BLINK_SLOW: "s", LedState.BLINK_FAST: "f"}
_LETTER_STATE = {v: k for k, v in _STATE_LETTER.items()}

Colour = tuple[int, int, int]
WHITE: Colour = (255, 255, 255)


def parse_colour(text: str) -> Colour:
    """``ff8000`` -> (255, 128, 0); ValueError naming the problem otherwise."""
    if len(text) != 6 or any(c not in "0123456789abcdefABCDEF" for c in text):
        raise ValueError(f"colour must be 6 hex digits rrggbb, got {text!r}")
    return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)


def format_colour(colour: Colour) -> str:
    r, g, b = colour
    return f"{r:02x}{g:02x}{b:02x}"


@dataclass(frozen=True)
class SquareLed:
    """One square's LED: a state and the colour it shows when lit."""

    state: LedState = LedState.OFF
    colour: Colour = WHITE


OFF = SquareLed()


@dataclass(frozen=True)
class Frame:
    """The whole board's LEDs: 32 :class:`SquareLed` in observation order. Immutable, so it can be shared
    between the event thread and the driver thread without copying."""

    leds: tuple[SquareLed, ...] = (OFF,) * 32

    def __post_init__(self) -> None:
        if len(self.leds) != 32:
            raise ValueError(f"a frame has 32 squares, got {len(self.leds)}")

    @classmethod
    def from_squares(cls, squares: Mapping[str, SquareLed]) -> Frame:
        """A frame with the named squares set and the others off."""
        leds = [OFF] * 32
        for name, led in squares.items():
            leds[square_index(name)] = led
        return cls(tuple(leds))

    def __getitem__(self, square: str) -> SquareLed:
        return self.leds[square_index(square)]

    def lit(self) -> dict[str, SquareLed]:
        """The squares that are not off, by name (handy in tests and logs)."""
        return {SQUARES[i]: led for i, led in enumerate(self.leds) if led.state is not LedState.OFF}

    def states(self) -> str:
        return "".join(led.state.letter for led in self.leds)

    def colours(self) -> str:
        return "".join(format_colour(led.colour) for led in self.leds)


def square_index(name: str) -> int:
    """Index of a dark square in observation order; ValueError for light or unknown squares."""
    try:
        return SQUARE_INDEX[name.lower()]
    except KeyError:
        raise ValueError(f"{name!r} is not a dark square (a1, c1, ... h8)") from None


# ---------------------------------------------------------------------------------------------- framing


def checksum(body: bytes) -> int:
    """XOR of all bytes, the block parity ChessLink uses; cheap on an 8-bit MCU and catches any
    single-byte corruption and every dropped byte that is not a pair of equal bytes."""
    value = 0
    for b in body:
        value ^= b
    return value


def encode_line(body: str) -> bytes:
    """``'clear'`` -> ``b'clear*XX\\n'``. The body must be printable ASCII without ``*``."""
    raw = body.encode("ascii")
    if any(b < 0x20 or b > 0x7E or b == 0x2A for b in raw):
        raise ValueError(f"line body must be printable ASCII without '*': {body!r}")
    if len(raw) + 3 > MAX_LINE:
        raise ValueError(f"line too long ({len(raw) + 3} > {MAX_LINE} bytes)")
    return raw + b"*%02X\n" % checksum(raw)


class LineError(ValueError):
    """A received line that must be rejected; ``reason`` is the word sent back in ``err <reason>``."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


def decode_line(line: bytes) -> str:
    """Check one received line (without or with its newline) and return the body.

    Raises :class:`LineError` with reason ``checksum`` (no ``*XX`` or a wrong one), ``toolong`` or
    ``binary`` (bytes outside printable ASCII: line noise, a baud-rate mismatch).
    """
    line = line.rstrip(b"\r\n")
    if len(line) > MAX_LINE:
        raise LineError("toolong", f"{len(line)} bytes")
    if any(b < 0x20 or b > 0x7E for b in line):
        raise LineError("binary", repr(line[:20]))
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 3:
        raise LineError("checksum", "missing *XX")
    body, given = line[:star], line[star + 1 :]
    try:
        value = int(given, 16)
    except ValueError:
        raise LineError("checksum", f"not hex: {given!r}") from None
    if value != checksum(body):
        raise LineError("checksum", f"got {given.decode()}, computed {checksum(body):02X}")
    return body.decode("ascii")


# ---------------------------------------------------------------------------------------------- commands


def cmd_hello(version: int = PROTOCOL_VERSION) -> str:
    return f"hello {version}"


def cmd_set(square: str, led: SquareLed) -> str:
    name = SQUARES[square_index(square)]
    return f"set {name} {led.state.value} {format_colour(led.colour)}"


def cmd_frame(frame: Frame, rgb: bool = True) -> str:
    """The whole frame: 32 state letters, then (RGB devices) 32 colours as 192 hex digits. Idempotent,
    so a lost reply is repaired by sending it again."""
    return f"frame {frame.states()} {frame.colours()}" if rgb else f"frame {frame.states()}"


def cmd_bright(level: int) -> str:
    if not 0 <= level <= 255:
        raise ValueError(f"brightness must be 0..255, got {level}")
    return f"bright {level}"


@dataclass(frozen=True)
class Hello:
    """What the device said in its handshake reply / boot banner."""

    version: int
    leds: int = 32
    rgb: bool = True
    blink: bool = True
    bright: bool = True
    extra: tuple[tuple[str, str], ...] = ()

    def line(self) -> str:
        fields = f"leds={self.leds} rgb={int(self.rgb)} blink={int(self.blink)} bright={int(self.bright)}"
        extra = "".join(f" {k}={v}" for k, v in self.extra)
        return f"{DEVICE_NAME} {self.version} {fields}{extra}"


def parse_hello(body: str) -> Hello:
    """``dama-leds 1 leds=32 rgb=1 blink=1 bright=1 hw=ws2812`` -> :class:`Hello`; unknown keys are
    kept (forward compatible), missing ones take the defaults."""
    words = body.split()
    if len(words) < 2 or words[0] != DEVICE_NAME:
        raise ValueError(f"not a {DEVICE_NAME} greeting: {body!r}")
    try:
        version = int(words[1])
    except ValueError:
        raise ValueError(f"bad protocol version in {body!r}") from None
    fields: dict[str, str] = {}
    for word in words[2:]:
        key, _, value = word.partition("=")
        fields[key] = value
    known = {"leds", "rgb", "blink", "bright", "boot"}  # boot=1 only marks the banner
    try:
        return Hello(
            version=version,
            leds=int(fields.get("leds", "32")),
            rgb=fields.get("rgb", "1") != "0",
            blink=fields.get("blink", "1") != "0",
            bright=fields.get("bright", "1") != "0",
            extra=tuple((k, v) for k, v in fields.items() if k not in known),
        )
    except ValueError:
        raise ValueError(f"bad capability value in {body!r}") from None


def frame_from_words(states: str, colours: str | None, default: Colour = WHITE) -> Frame:
    """Parse the arguments of ``frame`` (raises LineError with the reason the device replies)."""
    if len(states) != 32:
        raise LineError("length", f"{len(states)} states, expected 32")
    try:
        letters = [LedState.from_letter(c) for c in states]
    except ValueError as exc:
        raise LineError("state", str(exc)) from None
    cols: list[Colour] = [default] * 32
    if colours is not None:
        if len(colours) != 192:
            raise LineError("length", f"{len(colours)} colour digits, expected 192")
        try:
            cols = [parse_colour(colours[i * 6 : i * 6 + 6]) for i in range(32)]
        except ValueError as exc:
            raise LineError("colour", str(exc)) from None
    return Frame(tuple(SquareLed(s, c) for s, c in zip(letters, cols, strict=True)))


def squares_in_order(names: Iterable[str]) -> list[str]:
    """Names sorted in observation order without duplicates (stable output for logs and tests)."""
    return sorted({SQUARES[square_index(n)] for n in names}, key=SQUARE_INDEX.__getitem__)
