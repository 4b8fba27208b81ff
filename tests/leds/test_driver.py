"""The driver against the simulated board on a real pty: handshake, frames, bad lines, slow and vanishing
devices."""

from __future__ import annotations

import logging
import os
import time

from board_io.leds.protocol import Frame, LedState, SquareLed, encode_line
from board_io.leds.simulator import DeviceSimulator

RED = (255, 0, 0)


def frame_of(*squares: str, state: LedState = LedState.ON) -> Frame:
    return Frame.from_squares({sq: SquareLed(state, RED) for sq in squares})


def test_handshake_reads_capabilities_over_a_real_pty(sim, make_driver, wait_for):
    assert os.path.realpath(sim.path).startswith("/dev/pts/")
    driver = make_driver(sim.path)
    assert wait_for(lambda: driver.connected)
    assert driver.hello.version == 1 and driver.hello.leds == 32 and driver.hello.rgb
    assert sim.device.received[0] == "hello 1"


def test_frames_reach_the_device(sim, make_driver):
    driver = make_driver(sim.path)
    frame = frame_of("d4", "f6", state=LedState.BLINK_FAST)
    driver.show(frame)
    assert driver.wait_shown(3.0)
    assert sim.device.frame == frame


def test_mono_device_gets_frames_without_colours():
    with DeviceSimulator(rgb=False) as sim:
        from board_io.leds.driver import LedDriver

        driver = LedDriver(sim.path, reply_timeout=0.25, backoff=(0.05, 0.2))
        try:
            driver.show(frame_of("a1"))
            assert driver.wait_shown(3.0)
            sent = [line for line in sim.device.received if line.startswith("frame")][-1]
            assert sent == "frame o" + "." * 31
        finally:
            driver.close()


def test_updates_are_coalesced_and_only_the_latest_frame_counts(sim, make_driver, wait_for):
    sim.reply_delay = 0.02
    driver = make_driver(sim.path, min_interval=0.05)
    assert wait_for(lambda: driver.connected)
    squares = ["a1", "c1", "e1", "g1", "b2", "d2", "f2", "h2", "a3", "c3"] * 5
    for sq in squares:
        driver.show(frame_of(sq))
    assert driver.wait_shown(3.0)
    assert sim.device.frame == frame_of(squares[-1])
    frames_sent = sum(line.startswith("frame") for line in sim.device.received)
    assert 1 <= frames_sent < len(squares) // 2


def test_corrupted_replies_are_retried(sim, make_driver, wait_for):
    driver = make_driver(sim.path)
    assert wait_for(lambda: driver.connected)
    sim.corrupt_replies = 2
    driver.show(frame_of("h8"))
    assert driver.wait_shown(3.0)
    assert sim.device.frame == frame_of("h8")
    assert driver.connects == 1  # two bad replies are retried, not a reason to reconnect


def test_garbage_bytes_on_the_line_are_survived(sim, make_driver):
    sim.garbage_every = 2
    driver = make_driver(sim.path)
    for sq in ("a1", "c3", "e5"):
        driver.show(frame_of(sq))
        assert driver.wait_shown(3.0)
        assert sim.device.frame == frame_of(sq)


def test_garbage_written_to_the_device_is_rejected_not_obeyed(sim):
    import serial

    with serial.Serial(sim.path, 115200, timeout=1) as port:
        port.write(b"\xff\x00set a1 on\nset a1 on*00\n")
        replies = [port.readline() for _ in range(2)]
    assert replies[0].startswith(b"err binary") and replies[1].startswith(b"err checksum")
    assert sim.device.frame == Frame()


def test_slow_device_still_gets_the_frame(sim, make_driver):
    sim.reply_delay = 0.15
    driver = make_driver(sim.path, reply_timeout=0.5)
    driver.show(frame_of("b8"))
    assert driver.wait_shown(5.0)
    assert sim.device.frame == frame_of("b8")


def test_device_that_disappears_and_comes_back_gets_the_frame_again(sim, make_driver, caplog, wait_for):
    caplog.set_level(logging.INFO, logger="board_io.leds.driver")
    driver = make_driver(sim.path)
    frame = frame_of("c3", "d4")
    driver.show(frame)
    assert driver.wait_shown(3.0)
    sim.disappear()
    assert wait_for(lambda: not driver.connected)
    time.sleep(0.3)  # a few failed reconnects while unplugged
    sim.reappear(reset=True)  # a board that lost power: all dark
    assert wait_for(lambda: sim.device.frame == frame)
    assert driver.connects == 2
    assert any("lost" in r.message for r in caplog.records)


def test_device_reboot_without_unplug_is_noticed_by_its_banner(sim, make_driver, wait_for):
    driver = make_driver(sim.path)
    frame = frame_of("e1")
    driver.show(frame)
    assert driver.wait_shown(3.0)
    sim.device.reset()
    sim.send_raw(encode_line(sim.device.banner()))  # a board that restarted announces itself
    assert wait_for(lambda: sim.device.frame == frame)


def test_brightness_is_sent_and_restored(sim, make_driver, wait_for):
    driver = make_driver(sim.path, brightness=20)
    assert wait_for(lambda: sim.device.brightness == 20)
    driver.set_brightness(99)
    assert wait_for(lambda: sim.device.brightness == 99)


def test_socket_url_works_too(make_driver):
    with DeviceSimulator(transport="tcp") as sim:
        assert sim.url.startswith("socket://")
        driver = make_driver(sim.url)
        driver.show(frame_of("g7"))
        assert driver.wait_shown(3.0)
        assert sim.device.frame == frame_of("g7")


def test_close_clears_the_board(sim, make_driver):
    driver = make_driver(sim.path)
    driver.show(frame_of("a1"))
    assert driver.wait_shown(3.0)
    driver.close()
    assert sim.device.frame == Frame()
