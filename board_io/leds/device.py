"""The device side of the protocol in Python: the reference the firmware follows and the simulator runs.

Pure logic: :meth:`LedDevice.handle` takes one received line and returns the reply line (or None).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from board_io.leds.protocol import (
    MAX_LINE,
    PROTOCOL_VERSION,
    WHITE,
    Frame,
    Hello,
    LedState,
    LineError,
    SquareLed,
    decode_line,
    encode_line,
    frame_from_words,
    parse_colour,
    square_index,
)

_STATE_WORDS = {s.value: s for s in LedState}


@dataclass
class LedDevice:
    """State of a dama-leds board: the frame it shows, its brightness, what it has received."""

    rgb: bool = True
    frame: Frame = field(default_factory=Frame)
    brightness: int = 64
    received: list[str] = field(default_factory=list)  # bodies of accepted lines, oldest first
    rejected: int = 0  # lines answered with err

    def hello(self) -> Hello:
        return Hello(PROTOCOL_VERSION, leds=32, rgb=self.rgb, extra=(("hw", "sim"),))

    def banner(self) -> str:
        """What the board sends when it (re)starts: the hello reply plus ``boot=1``."""
        return self.hello().line() + " boot=1"

    def reset(self) -> None:
        """Power cycle: all LEDs off, default brightness (what an Arduino does when the port opens)."""
        self.frame = Frame()
        self.brightness = 64

    def handle(self, raw: bytes) -> bytes | None:
        """One received line -> the encoded reply; None for an empty line (a host's resync newline)."""
        if not raw.strip(b"\r\n"):
            return None
        try:
            body = decode_line(raw)
            reply = self._execute(body.split())
        except LineError as exc:
            self.rejected += 1
            return encode_line(f"err {exc.reason}")
        self.received.append(body)
        return encode_line(reply)

    def _execute(self, words: list[str]) -> str:
        if not words:
            raise LineError("syntax", "empty command")
        cmd, args = words[0], words[1:]
        if cmd == "hello":
            if len(args) != 1 or args[0] != str(PROTOCOL_VERSION):
                raise LineError("version", f"speaks {PROTOCOL_VERSION}")
            return self.hello().line()
        if cmd == "ping":
            return "ok"
        if cmd == "clear":
            self.frame = Frame()
            return "ok"
        if cmd == "bright":
            if len(args) != 1 or not args[0].isdigit() or int(args[0]) > 255:
                raise LineError("range", "bright 0..255")
            self.brightness = int(args[0])
            return "ok"
        if cmd == "set":
            return self._set(args)
        if cmd == "frame":
            if len(args) not in (1, 2):
                raise LineError("syntax", "frame <32 states> [<192 hex>]")
            self.frame = frame_from_words(args[0], args[1] if len(args) == 2 else None)
            return "ok"
        if cmd == "state":
            return f"state {self.frame.states()} {self.frame.colours()}"
        raise LineError("unknown", cmd)

    def _set(self, args: list[str]) -> str:
        if len(args) not in (2, 3):
            raise LineError("syntax", "set <square> <state> [rrggbb]")
        try:
            index = square_index(args[0])
        except ValueError:
            raise LineError("square", args[0]) from None
        state = _STATE_WORDS.get(args[1])
        if state is None:
            raise LineError("state", args[1])
        colour = WHITE
        if len(args) == 3:
            try:
                colour = parse_colour(args[2])
            except ValueError:
                raise LineError("colour", args[2]) from None
        leds = list(self.frame.leds)
        leds[index] = SquareLed(state, colour)
        self.frame = Frame(tuple(leds))
        return "ok"


class LineAssembler:
    """Bytes in, complete lines out; an over-long line is dropped up to its newline (as the firmware
    does), reported once as a ``toolong`` line so the sender gets an error reply."""

    def __init__(self, limit: int = MAX_LINE) -> None:
        self.limit = limit
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> list[bytes]:
        lines: list[bytes] = []
        for b in data:
            if b == 0x0A:
                if self._overflow:
                    lines.append(b"~" * (MAX_LINE + 1))  # decode_line rejects it: err toolong
                else:
                    lines.append(bytes(self._buf))
                self._buf.clear()
                self._overflow = False
            elif self._overflow:
                continue
            elif len(self._buf) >= self.limit + 1:
                self._overflow = True
                self._buf.clear()
            else:
                self._buf.append(b)
        return lines
