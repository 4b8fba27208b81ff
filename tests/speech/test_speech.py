"""The speech sink: real espeak-ng audio in Czech and English, and a queue that never blocks."""

import io
import shutil
import threading
import time
import wave

import numpy as np
import pytest

from board_io.announce import Announcement, announce
from board_io.speech import EspeakEngine, SpeechSink, TextSink

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="Debian package espeak-ng missing")


def _audio(path):
    with wave.open(str(path)) as w:
        frames = w.readframes(w.getnframes())
        return np.frombuffer(frames, dtype=np.int16), w.getframerate()


@needs_espeak
@pytest.mark.parametrize("lang", ["cs", "en"])
def test_espeak_renders_an_announcement_to_audible_wav(tmp_path, lang):
    said = announce({"event": "move", "side": "white", "path": ["c3", "e5"], "captured": ["d4"]}, lang)
    samples, rate = _audio(EspeakEngine().render_wav(said.spoken, lang, tmp_path / "a.wav"))
    seconds = len(samples) / rate
    assert 1.0 < seconds < 10.0, seconds  # a short sentence, spoken at a normal rate
    assert np.sqrt(np.mean(samples.astype(float) ** 2)) > 300  # not silence


@needs_espeak
def test_czech_and_english_voices_differ(tmp_path):
    engine = EspeakEngine()
    cs, _ = _audio(engine.render_wav("dobrý den", "cs", tmp_path / "cs.wav"))
    en, _ = _audio(engine.render_wav("dobrý den", "en", tmp_path / "en.wav"))
    n = min(len(cs), len(en))
    assert len(cs) != len(en) or not np.array_equal(cs[:n], en[:n])


@needs_espeak
def test_longer_announcements_take_longer(tmp_path):
    engine = EspeakEngine()
    short, rate = _audio(engine.render_wav("a1 to b2", "en", tmp_path / "s.wav"))
    long, _ = _audio(engine.render_wav("White: a1 takes b2 and d4, via c3, lands on e5. Becomes a king.", "en",
                                       tmp_path / "l.wav"))
    assert len(long) > 2 * len(short)


class SlowEngine:
    """A speech engine that takes ``seconds`` per utterance and can be interrupted, like espeak-ng."""

    def __init__(self, seconds=0.3):
        self.seconds = seconds
        self.started: list[str] = []
        self.interrupted: list[str] = []
        self._stop = threading.Event()

    def speak(self, text, lang):
        self.started.append(text)
        self._stop.clear()
        if self._stop.wait(self.seconds):
            self.interrupted.append(text)

    def stop(self):
        self._stop.set()


def _move(i):
    return {"event": "move", "side": "white", "path": [f"a{1 + 2 * (i % 4)}", "b2"], "captured": []}


def _wait_until(cond, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return False


def test_handle_never_blocks_on_a_slow_engine():
    sink = SpeechSink("en", engine=SlowEngine(seconds=1.0))
    t0 = time.perf_counter()
    for i in range(50):
        sink.handle(_move(i))
    assert time.perf_counter() - t0 < 0.5  # 50 events queued while one utterance takes a second
    assert sink.dropped >= 40  # the backlog is bounded: stale news is dropped, not spoken late
    sink.close()


def test_assertive_announcement_interrupts_and_goes_first():
    engine = SlowEngine(seconds=2.0)
    sink = SpeechSink("en", engine=engine)
    sink.handle(_move(0))
    assert _wait_until(lambda: len(engine.started) == 1)
    sink.handle(_move(1))
    sink.handle({"event": "violation", "kind": "missed_capture", "side": "black", "legal": ["d6xf4"]})
    assert _wait_until(lambda: len(engine.started) >= 2)
    assert engine.interrupted == [engine.started[0]]  # the polite move was cut off
    assert "Warning" in engine.started[1]  # the violation came before the queued move
    sink.close()


def test_stale_announcements_are_dropped():
    clock = [0.0]
    engine = SlowEngine(seconds=0.2)
    sink = SpeechSink("en", engine=engine, max_age=5.0, clock=lambda: clock[0])
    sink.handle(_move(0))
    assert _wait_until(lambda: len(engine.started) == 1)
    sink.handle(_move(1))
    clock[0] = 100.0  # the queued move is now long out of date
    assert _wait_until(lambda: not sink._queue)
    time.sleep(0.3)
    assert len(engine.started) == 1 and sink.dropped == 1
    sink.close()


def test_repeat_says_the_last_announcement_again():
    engine = SlowEngine(seconds=0.01)
    sink = SpeechSink("cs", engine=engine)
    sink.handle(_move(0))
    assert _wait_until(lambda: sink.last is not None)
    sink.repeat()
    assert _wait_until(lambda: len(engine.started) == 2)
    assert engine.started[0] == engine.started[1]
    sink.close()


def test_interrupt_clears_the_queue():
    engine = SlowEngine(seconds=1.0)
    sink = SpeechSink("en", engine=engine)
    for i in range(4):
        sink.handle(_move(i))
    assert _wait_until(lambda: len(engine.started) == 1)
    sink.interrupt()
    time.sleep(0.2)
    assert engine.interrupted and not sink._queue
    sink.close()


def test_text_sink_prints_one_line_per_announcement():
    out = io.StringIO()
    sink = TextSink("en", stream=out)
    sink.handle(_move(0))
    sink.handle({"event": "status", "board_found": True, "orientation_ok": True})  # no change: silent
    sink.handle({"event": "violation", "kind": "illegal_move", "side": "white", "message": "a man moved back"})
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("White: a1 to b2") and lines[1].startswith("! Warning")


def test_announcement_is_a_value():
    a = Announcement("x", "polite", "x", "move")
    assert a == Announcement("x", "polite", "x", "move")
