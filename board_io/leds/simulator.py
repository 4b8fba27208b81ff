"""A dama-leds board in software, on a pseudo-terminal, so the driver talks to a real serial device path.

The device side runs :class:`board_io.leds.device.LedDevice`. ``path`` is a symlink that always points at
the current pty slave, so "unplug and replug" (:meth:`disappear` / :meth:`reappear`) keeps the same path,
as a udev ``/dev/serial/by-id`` link does. Knobs imitate bad hardware: a slow device, garbage bytes on
the line, corrupted replies, a reboot that forgets the frame. ``transport="tcp"`` serves the same device
on ``socket://127.0.0.1:PORT`` instead.

Run ``python -m board_io.leds.simulator`` to get a device to point ``dama leds test --port`` at.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import tempfile
import threading
import time
import tty

from board_io.leds.device import LedDevice, LineAssembler
from board_io.leds.protocol import encode_line


class DeviceSimulator:
    """A simulated LED board; use as a context manager or call :meth:`start` / :meth:`stop`."""

    def __init__(
        self,
        *,
        rgb: bool = True,
        reply_delay: float = 0.0,
        garbage_every: int = 0,
        garbage: bytes = b"\x00\xfe#!GARBAGE",
        corrupt_replies: int = 0,
        transport: str = "pty",
        link_dir: str | None = None,
    ) -> None:
        self.device = LedDevice(rgb=rgb)
        self.reply_delay = reply_delay  # seconds before each reply (a slow device)
        self.garbage_every = garbage_every  # every Nth reply is preceded by garbage bytes (0: never)
        self.garbage = garbage
        self.corrupt_replies = corrupt_replies  # this many next replies get a wrong checksum
        self.transport = transport
        self.replies = 0
        self._dir = tempfile.mkdtemp(prefix="dama-leds-") if link_dir is None else link_dir
        self.path = os.path.join(self._dir, "ttyLEDS")
        self._lock = threading.Lock()
        self._master: int | None = None  # pty master, or the accepted TCP connection's fd
        self._slave: int | None = None
        self._conn: socket.socket | None = None
        self._server: socket.socket | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="leds-simulator", daemon=True)
        self._rx = LineAssembler()

    # -- lifecycle ----------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """What to give the driver: the device path, or ``socket://`` for the TCP transport."""
        if self.transport == "tcp":
            assert self._server is not None
            host, port = self._server.getsockname()
            return f"socket://{host}:{port}"
        return self.path

    def start(self) -> DeviceSimulator:
        if self.transport == "tcp":
            self._server = socket.create_server(("127.0.0.1", 0))
            self._server.setblocking(False)
        else:
            self._plug()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(2.0)
        self.disappear()
        if self._server is not None:
            self._server.close()
        with contextlib.suppress(OSError):
            os.rmdir(self._dir)

    def __enter__(self) -> DeviceSimulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def disappear(self) -> None:
        """Unplug: close the pty (the driver's reads and writes fail) and remove the path."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()  # owns the fd stored in _master
            else:
                for fd in (self._master, self._slave):
                    if fd is not None:
                        with contextlib.suppress(OSError):
                            os.close(fd)
            self._master = self._slave = None
            self._conn = None
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)

    def reappear(self, reset: bool = True) -> None:
        """Plug back in: a new pty behind the same path; ``reset`` forgets the frame, as a real board
        that lost power does, and announces itself with the boot banner."""
        if reset:
            self.device.reset()
        self._plug()
        if reset:
            self.send_raw(encode_line(self.device.banner()))

    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: a serial line, not a terminal
        with self._lock:
            self._master, self._slave = master, slave
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
            os.symlink(os.ttyname(slave), self.path)

    # -- the device thread -----------------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        """Write bytes as the device (a banner, garbage); dropped while unplugged."""
        with self._lock:
            fd = self._master
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.write(fd, data)

    def _accept(self) -> None:
        assert self._server is not None
        try:
            conn, _ = self._server.accept()
        except BlockingIOError:
            return
        with self._lock:
            if self._conn is not None:
                self._conn.close()
            self._conn, self._master = conn, conn.fileno()
        self._rx = LineAssembler()

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._server is not None:
                self._accept()
            with self._lock:
                fd = self._master
            if fd is None:
                time.sleep(0.02)
                continue
            try:
                ready, _, _ = select.select([fd], [], [], 0.02)
                data = os.read(fd, 4096) if ready else b""
            except (OSError, ValueError):
                time.sleep(0.02)  # closed under us (disappear) or the peer hung up
                continue
            if ready and not data and self.transport == "tcp":
                with self._lock:
                    if self._conn is not None:
                        self._conn.close()
                    self._conn, self._master = None, None
                continue
            for line in self._rx.feed(data):
                reply = self.device.handle(line)
                if reply is None:
                    continue
                if self.reply_delay:
                    time.sleep(self.reply_delay)
                self.replies += 1
                if self.garbage_every and self.replies % self.garbage_every == 0:
                    reply = self.garbage + reply
                if self.corrupt_replies > 0:
                    self.corrupt_replies -= 1
                    reply = reply[:-3] + (b"00" if reply[-3:-1] != b"00" else b"11") + b"\n"
                self.send_raw(reply)


def main(rgb: bool = True) -> int:
    """Run a simulated board until Ctrl-C (or SIGTERM), printing its path and the frame when it changes."""

    def terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # leave through the context manager: the pty and its link are removed

    signal.signal(signal.SIGTERM, terminate)
    with DeviceSimulator(rgb=rgb) as sim:
        print(f"simulated LED board on {sim.path}  (dama leds test --port {sim.path})", flush=True)
        shown = None
        try:
            while True:
                time.sleep(0.2)
                if sim.device.frame != shown:
                    shown = sim.device.frame
                    lit = " ".join(f"{sq}:{led.state.value}" for sq, led in shown.lit().items())
                    print(f"frame: {lit or '(all off)'}", flush=True)
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":
    raise SystemExit(main())
