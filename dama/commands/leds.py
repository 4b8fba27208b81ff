"""Serial LED board: light each square in turn to check the installation, or run a simulated board."""

from __future__ import annotations

import argparse
import logging
import time

from board_io.leds.protocol import SQUARES, Frame, LedState, SquareLed

WHITE = (255, 255, 255)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    test = sub.add_parser("test", help="light a1, c1, ... h8 one by one, then a blink test")
    test.add_argument("--port", required=True, help="serial device (/dev/ttyUSB0) or pyserial URL (socket://h:p)")
    test.add_argument("--delay", type=float, default=0.5, help="seconds each square stays lit (default 0.5)")
    test.add_argument("--brightness", type=int, default=None, help="0..255 (default: the board's own)")
    test.add_argument("--timeout", type=float, default=4.0, help="seconds to wait for the handshake")
    test.add_argument("-v", "--verbose", action="store_true", help="log the driver's traffic problems")
    sim = sub.add_parser("simulate", help="run a simulated board on a pseudo-terminal and print its path")
    sim.add_argument("--mono", action="store_true", help="a single-colour board (rgb=0)")


def run(args: argparse.Namespace) -> int:
    if args.action == "simulate":
        from board_io.leds.simulator import main as simulate

        return simulate(rgb=not args.mono)
    return _test(args)


def _test(args: argparse.Namespace) -> int:
    import serial

    from board_io.leds.driver import LedDriver, open_port

    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.ERROR, format="%(levelname)s %(message)s")
    if args.delay < 0:
        print("dama leds test: --delay must be >= 0")
        return 2
    if args.brightness is not None and not 0 <= args.brightness <= 255:
        print("dama leds test: --brightness must be 0..255")
        return 2
    try:  # a clear message for the common mistake (wrong path, no permission) before any retrying
        open_port(args.port).close()
    except (serial.SerialException, OSError, ValueError) as exc:
        print(f"dama leds test: cannot open {args.port}: {exc}")
        return 1
    driver = LedDriver(args.port, handshake_timeout=args.timeout, brightness=args.brightness, keepalive=5.0)
    try:
        deadline = time.monotonic() + args.timeout + 1.0
        while not driver.connected and time.monotonic() < deadline:
            time.sleep(0.05)
        if not driver.connected or driver.hello is None:
            print(f"dama leds test: no dama-leds board answered on {args.port} at 115200 baud "
                  "(firmware flashed? right port?)")
            return 1
        print(f"connected: {driver.hello.line()}")
        missed = []
        for square in SQUARES:
            print(square, flush=True)
            driver.show(Frame.from_squares({square: SquareLed(LedState.ON, WHITE)}))
            if not driver.wait_shown(2.0):
                missed.append(square)
            time.sleep(args.delay)
        print("blink test: ranks 1-4 blink slowly, ranks 5-8 blink fast", flush=True)
        blink = {sq: SquareLed(LedState.BLINK_SLOW if sq[1] in "1234" else LedState.BLINK_FAST, WHITE)
                 for sq in SQUARES}
        driver.show(Frame.from_squares(blink))
        if not driver.wait_shown(2.0):
            missed.append("blink")
        time.sleep(args.delay * 6)
        driver.show(Frame())
        driver.wait_shown(2.0)
        if missed:
            print(f"the board did not confirm: {' '.join(missed)}")
            return 1
        print("done: every square was lit once; check that each lit under the square named")
        return 0
    finally:
        driver.close()
