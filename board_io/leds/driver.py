"""The host side: a pyserial driver that keeps a dama-leds board showing the latest frame.

The caller only ever sets the wanted frame (:meth:`LedDriver.show`, never blocks); a thread of its own
opens the port, handshakes, sends the newest frame at most every ``min_interval`` seconds (older frames
are simply overwritten: only the latest matters), retries on ``err``/timeouts, and when the device
disappears reconnects with exponential backoff and sends the current frame again.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import serial

from board_io.leds.protocol import (
    BAUDRATE,
    DEVICE_NAME,
    PROTOCOL_VERSION,
    Frame,
    Hello,
    LineError,
    cmd_bright,
    cmd_frame,
    cmd_hello,
    decode_line,
    encode_line,
    parse_hello,
)

log = logging.getLogger(__name__)


class DeviceError(Exception):
    """The device did not answer as the protocol says (timeouts, repeated errors, wrong version)."""


class _Rebooted(Exception):
    """The device announced itself in the middle of a session: it lost its frame."""


def open_port(port: str, baudrate: int = BAUDRATE) -> serial.SerialBase:
    """A device path (``/dev/ttyUSB0``) or any pyserial URL (``socket://host:port``, ``loop://``)."""
    return serial.serial_for_url(port, baudrate=baudrate, timeout=0.05, write_timeout=1.0)


class LedDriver:
    """Keeps one LED board in sync with the latest :class:`Frame`; safe to call from any thread."""

    def __init__(
        self,
        port: str,
        *,
        baudrate: int = BAUDRATE,
        min_interval: float = 0.05,
        reply_timeout: float = 0.5,
        handshake_timeout: float = 3.0,
        retries: int = 3,
        keepalive: float = 1.0,
        backoff: tuple[float, float] = (0.2, 5.0),
        brightness: int | None = None,
        clear_on_close: bool = True,
        opener: Callable[[str, int], Any] = open_port,
    ) -> None:
        self.port = port
        self.baudrate = baudrate
        self.min_interval = min_interval
        self.reply_timeout = reply_timeout
        self.handshake_timeout = handshake_timeout
        self.retries = retries
        self.keepalive = keepalive
        self.backoff = backoff
        self.clear_on_close = clear_on_close
        self._opener = opener
        self._cond = threading.Condition()
        self._frame = Frame()
        self._brightness = brightness
        self._acked: Frame | None = None  # the frame the device confirmed, None when unknown
        self._stop = False
        self._wake = False
        self.hello: Hello | None = None
        self.connects = 0  # successful handshakes so far (reconnects included)
        self._ser: Any = None
        self._rx = bytearray()
        self._thread = threading.Thread(target=self._run, name=f"leds:{port}", daemon=True)
        self._thread.start()

    # -- the caller's side: never blocks for I/O ---------------------------------------------------------

    def show(self, frame: Frame) -> None:
        """Make ``frame`` the one to show; returns at once."""
        with self._cond:
            self._frame = frame
            self._wake = True
            self._cond.notify_all()

    def set_brightness(self, level: int) -> None:
        cmd_bright(level)  # validates
        with self._cond:
            self._brightness = level
            self._wake = True
            self._cond.notify_all()

    @property
    def connected(self) -> bool:
        return self._ser is not None and self.hello is not None

    def wait_shown(self, timeout: float) -> bool:
        """Wait until the device has confirmed the current frame (for the CLI and tests)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._acked != self._frame:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def close(self, timeout: float = 2.0) -> None:
        """Stop the thread (clearing the LEDs first when connected); waits at most ``timeout``."""
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._thread.join(timeout)

    # -- the driver thread ------------------------------------------------------------------------------

    def _sleep(self, seconds: float) -> bool:
        """Wait up to ``seconds`` or until woken by show()/close(); True if woken."""
        with self._cond:
            if not self._wake and not self._stop:
                self._cond.wait(seconds)
            woken, self._wake = self._wake, False
            return woken or self._stop

    def _run(self) -> None:
        delay = self.backoff[0]
        failures = 0
        sent_frame: Frame | None = None
        sent_bright: int | None = None
        last_send = last_io = 0.0
        while not self._stop:
            if self._ser is None:
                try:
                    self._connect()
                except Exception as exc:  # noqa: BLE001 - any failure means "try again later"
                    self._disconnect()
                    failures += 1
                    level = logging.WARNING if failures == 1 else logging.DEBUG
                    log.log(level, "LED board %s not available (%s); retrying every <= %.0fs",
                            self.port, exc, self.backoff[1])
                    self._sleep(delay)
                    delay = min(delay * 2, self.backoff[1])
                    continue
                if failures:
                    log.info("LED board %s is back; restoring the current frame", self.port)
                failures, delay = 0, self.backoff[0]
                sent_frame, sent_bright = None, None
                last_io = time.monotonic()
            try:
                with self._cond:
                    frame, bright = self._frame, self._brightness
                if bright is not None and bright != sent_bright:
                    self._command(cmd_bright(bright))
                    sent_bright = bright
                elif frame != sent_frame:
                    wait = last_send + self.min_interval - time.monotonic()
                    if wait > 0:  # rate limit: let newer frames replace this one meanwhile
                        time.sleep(wait)
                        continue
                    with self._cond:
                        frame = self._frame
                    rgb = self.hello.rgb if self.hello else True
                    self._command(cmd_frame(frame, rgb=rgb))
                    sent_frame, last_send = frame, time.monotonic()
                    with self._cond:
                        self._acked = frame
                        self._cond.notify_all()
                elif not self._sleep(max(0.0, last_io + self.keepalive - time.monotonic())):
                    self._command("ping")  # notices an unplugged or rebooted device while idle
                last_io = time.monotonic()
            except _Rebooted:
                log.warning("LED board %s restarted; restoring the current frame", self.port)
                sent_frame, sent_bright = None, None
                self._set_acked(None)
            except Exception as exc:  # noqa: BLE001 - the pipeline must never see driver failures
                log.warning("LED board %s lost (%s); reconnecting", self.port, exc)
                self._disconnect()
                failures = 1
                self._set_acked(None)
        self._shutdown()

    def _set_acked(self, frame: Frame | None) -> None:
        with self._cond:
            self._acked = frame
            self._cond.notify_all()

    def _shutdown(self) -> None:
        if self._ser is not None and self.clear_on_close:
            try:
                self._command("clear", attempts=1)
            except Exception as exc:  # noqa: BLE001
                log.debug("could not clear %s on close: %s", self.port, exc)
        self._disconnect()

    def _connect(self) -> None:
        self._ser = self._opener(self.port, self.baudrate)
        self._rx.clear()
        deadline = time.monotonic() + self.handshake_timeout
        # A newline first ends any half line left in the device's buffer (garbage, a cut-off command).
        hello: Hello | None = None
        while hello is None:
            if time.monotonic() > deadline:
                raise DeviceError(f"no {DEVICE_NAME} handshake within {self.handshake_timeout:.1f}s")
            self._ser.write(b"\n" + encode_line(cmd_hello()))
            end = min(deadline, time.monotonic() + self.reply_timeout)
            while hello is None and time.monotonic() < end:
                body = self._read_line(end)
                if body is None:
                    continue
                if body.startswith(DEVICE_NAME):
                    hello = parse_hello(body)  # the reply, or the banner of a device that just booted
                elif body == "err version":
                    raise DeviceError(f"device does not speak protocol version {PROTOCOL_VERSION}")
        if hello.version != PROTOCOL_VERSION:
            raise DeviceError(f"device speaks protocol {hello.version}, we speak {PROTOCOL_VERSION}")
        if hello.leds < 32:
            log.warning("LED board %s has only %d LEDs; squares beyond are not shown", self.port, hello.leds)
        self.hello = hello
        self.connects += 1
        log.info("LED board connected on %s: %s", self.port, hello.line())

    def _disconnect(self) -> None:
        ser, self._ser, self.hello = self._ser, None, None
        if ser is not None:
            with contextlib.suppress(Exception):
                ser.close()

    def _read_line(self, deadline: float) -> str | None:
        """The next valid line's body before ``deadline``; corrupted lines are logged and skipped."""
        while True:
            nl = self._rx.find(b"\n")
            if nl >= 0:
                raw = bytes(self._rx[: nl + 1])
                del self._rx[: nl + 1]
                try:
                    return decode_line(raw)
                except LineError as exc:
                    if raw.strip():
                        log.debug("dropping bad line from %s: %s (%r)", self.port, exc, raw[:40])
                    continue
            if time.monotonic() >= deadline:
                return None
            chunk = self._ser.read(max(1, self._ser.in_waiting))
            if chunk:
                self._rx += chunk
                if len(self._rx) > 4096:  # a babbling device: keep the tail only
                    del self._rx[:-512]

    def _command(self, body: str, attempts: int | None = None) -> str:
        """Send one command and return the ok/state reply; retries on ``err`` and on timeouts (every
        command is idempotent, so a resend is harmless). Raises DeviceError when all attempts fail."""
        attempts = attempts or self.retries
        problem = ""
        for attempt in range(attempts):
            if attempt:
                self._ser.reset_input_buffer()
                self._rx.clear()
            self._ser.write(encode_line(body))
            deadline = time.monotonic() + self.reply_timeout
            while True:
                reply = self._read_line(deadline)
                if reply is None:
                    problem = "no reply"
                    break
                if reply.startswith(DEVICE_NAME):
                    if "boot=1" in reply.split():
                        raise _Rebooted()
                    continue  # a late reply to our handshake hello: harmless
                if reply == "ok" or reply.startswith(("ok ", "state ")):
                    return reply
                if reply.startswith("err"):
                    problem = reply
                    log.debug("%s answered %r to %r (attempt %d)", self.port, reply, body[:20], attempt + 1)
                    break
                log.debug("ignoring unexpected line from %s: %r", self.port, reply[:40])
        raise DeviceError(f"{body.split()[0]}: {problem} after {attempts} attempts")
