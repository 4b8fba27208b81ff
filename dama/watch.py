"""The watch loop: frame source → vision → stabilizer → referee → event bus → sinks.

:func:`watch` builds a :class:`~dama.companion.Companion` with one board from a :class:`WatchConfig`,
attaches the sinks (journal always, PDN always, ``--events``, terminal printer, LEDs...), serves the
dashboard unless headless, and runs the frames of the source through the board's session until the
source ends or the user presses Ctrl-C. Vision runs on the loop's thread and is never stalled by sinks
(they have their own queues and threads, see :mod:`dama.bus`); for live sources a grabber thread keeps
only the newest frame, so a slow frame never makes the picture lag behind the board.

Recording loses nothing: the journal gets every event (fsynced) and the PDN is rewritten atomically
after every move. Without ``--journal`` the journal goes to ``$DAMA_HOME/journal/<date>-<board>.jsonl``
(``DAMA_HOME`` defaults to ``~/.local/share/dama``), and ``--resume`` without ``--journal`` continues the
newest one there.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from board_io.sources import Frame, FrameSource, SourceError, open_source
from dama.bus import EventBus
from dama.companion import BoardSession, Companion, RefereeLike, StabilizerLike, VisionLike, default_referee
from dama.sinks.journal import EventsSink, JournalSink, read_journal
from dama.sinks.pdn import PdnSink
from dama.sinks.printer import PrinterSink
from rules import Position

log = logging.getLogger("dama.watch")

DEFAULT_WEB = "127.0.0.1:8000"


class WatchError(Exception):
    """A problem the user can fix (bad option, missing source); printed without a traceback."""


def dama_home() -> str:
    return os.environ.get("DAMA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share", "dama")


def newest_journal(folder: str) -> str | None:
    try:
        files = [os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".jsonl")]
    except FileNotFoundError:
        return None
    return max(files, key=os.path.getmtime) if files else None


@dataclass
class WatchConfig:
    source: str
    fen: str | None = None
    profile: str | None = None
    pdn: str | None = None
    events: str | None = None
    journal: str | None = None
    resume: bool = False
    web: str | None = None
    headless: bool = False
    fast: bool = False
    leds: str | None = None
    speak: str | None = None
    say: str | None = None
    board: str = "main"
    print_events: bool = True
    keep_serving: bool = True  # after a recorded source ends, keep the dashboard up until Ctrl-C
    tags: dict[str, str] = field(default_factory=dict)
    # Injection points (tests, benchmark); None means the real components.
    vision_factory: Callable[[str | None], VisionLike] | None = None
    stabilizer_factory: Callable[[], StabilizerLike] | None = None
    referee_factory: Callable[[Position], RefereeLike] | None = None
    source_factory: Callable[..., FrameSource] | None = None
    extra_sinks: list[Any] = field(default_factory=list)
    on_started: Callable[[Companion, str | None], None] | None = None


def parse_host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise WatchError(f"--web {text!r}: expected HOST:PORT, e.g. {DEFAULT_WEB}")
    return host or "127.0.0.1", int(port)


def real_vision(profile: str | None) -> VisionLike:
    """The vision pipeline, built from a calibration profile file when one is given."""
    try:
        from vision.pipeline import VisionPipeline
    except ImportError as exc:
        raise WatchError(f"the vision pipeline is not available ({exc})") from None
    data = None
    if profile:
        from calibration.profile import load_profile
        from calibration.vision_adapter import pipeline_profile

        try:
            data = pipeline_profile(load_profile(profile))
        except ValueError as exc:  # ProfileError names the file and the problem
            raise WatchError(str(exc)) from None
    try:
        return VisionPipeline(profile=data)
    except ValueError as exc:
        raise WatchError(f"--profile {profile}: {exc}") from None


def real_stabilizer() -> StabilizerLike:
    try:
        from vision.stabilizer import Stabilizer
    except ImportError as exc:
        raise WatchError(f"the stabilizer is not available ({exc})") from None
    return Stabilizer(hold_seconds=0.5)


def optional_sinks(config: WatchConfig, notices: list[str]) -> list[Any]:
    """LED and speech sinks when asked for; a clear notice (never a fake) for the ones not built yet."""
    sinks: list[Any] = []
    if config.leds:
        try:
            from board_io.leds.sink import LedSink
        except ImportError as exc:
            notices.append(f"--leds: the LED driver is not available yet ({exc}); continuing without LEDs")
        else:
            try:
                sinks.append(LedSink(config.leds))
            except (OSError, ValueError) as exc:
                raise WatchError(f"--leds {config.leds}: {exc}") from None
    if config.speak or config.say:
        try:
            from board_io.speech import SpeechSink, TextSink
        except ImportError as exc:
            notices.append(f"--speak/--say: speech output is not available yet ({exc}); continuing without")
            return sinks
        if config.speak:
            try:
                sinks.append(SpeechSink(lang=config.speak))
            except RuntimeError as exc:
                raise WatchError(f"--speak: {exc}") from None
        if config.say:
            sinks.append(TextSink(lang=config.say))
    return sinks


class LatestFrames:
    """For live sources: a thread reads frames as fast as the camera gives them and keeps only the
    newest, so vision always works on the present and a slow frame never builds a backlog."""

    def __init__(self, source: FrameSource) -> None:
        self.source = source
        self._cond = threading.Condition()
        self._frame: Frame | None = None
        self._done = False
        self.skipped = 0
        self._thread = threading.Thread(target=self._run, name="grabber", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for frame in self.source:
                with self._cond:
                    if self._frame is not None:
                        self.skipped += 1
                    self._frame = frame
                    self._cond.notify()
        except Exception:
            log.exception("frame source failed")
        finally:
            with self._cond:
                self._done = True
                self._cond.notify()

    def __iter__(self) -> Iterator[Frame]:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._frame is not None or self._done)
                frame, self._frame = self._frame, None
                if frame is None:
                    return
            yield frame

    def close(self) -> None:
        self.source.close()


def run_frames(session: BoardSession, frames: Any, stop: threading.Event | None = None) -> int:
    """Feed ``frames`` to ``session`` until they end or ``stop`` is set; the number of frames."""
    n = 0
    for frame in frames:
        if stop is not None and stop.is_set():
            break
        session.process(frame.t, frame.image)
        n += 1
    return n


class WebServer:
    """The dashboard served by waitress on a thread of its own."""

    def __init__(self, companion: Companion, host: str, port: int) -> None:
        from waitress import create_server

        from webui import create_app, needs_token, new_token

        self.token = new_token() if needs_token(host) else None
        app = create_app(companion, {"CONTROL_TOKEN": self.token})
        try:
            self.server = create_server(app, host=host, port=port, threads=8)
        except OSError as exc:
            raise WatchError(f"cannot serve the dashboard on {host}:{port}: {exc.strerror or exc}") from None
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        self.url = f"http://{shown}:{self.server.effective_port}/"
        self.thread = threading.Thread(target=self._serve, name="web", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        with contextlib.suppress(Exception):  # closing the server makes run() raise on some platforms
            self.server.run()

    def close(self) -> None:
        self.server.close()


def build(config: WatchConfig, notices: list[str]) -> tuple[Companion, BoardSession]:
    """The companion with one board and its sinks, resumed from the journal when asked."""
    board = config.board
    journal = config.journal
    prior: list[dict[str, Any]] = []
    if config.resume:
        journal = journal or newest_journal(os.path.join(dama_home(), "journal"))
        if not journal or not os.path.exists(journal):
            raise WatchError("--resume: no journal to resume (give --journal FILE)")
        prior = read_journal(journal)
        if not prior:
            raise WatchError(f"--resume: the journal {journal} holds no events")
    if journal is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        journal = os.path.join(dama_home(), "journal", f"{stamp}-{board}.jsonl")
    pdn_path = config.pdn or os.path.splitext(journal)[0] + ".pdn"

    fen = None
    if config.fen:
        try:
            fen = Position.from_fen(config.fen).fen()
        except ValueError as exc:
            raise WatchError(f"--fen: {exc}") from None
    vision = (config.vision_factory or real_vision)(config.profile)
    stabilizer = (config.stabilizer_factory or real_stabilizer)()
    referee_factory = config.referee_factory or default_referee
    if config.referee_factory is None:
        try:
            import rules.referee  # noqa: F401
        except ImportError as exc:
            raise WatchError(f"the referee is not available ({exc})") from None

    tags = {"Event": "dama watch", "Site": config.source, "Date": time.strftime("%Y.%m.%d"), **config.tags}
    companion = Companion(EventBus(), tags)
    start = Position.start().fen()
    session = BoardSession(board, companion.bus, vision=vision, stabilizer=stabilizer,
                           referee_factory=referee_factory, fen=fen, source=config.source,
                           learn_start=not config.profile and not prior and fen in (None, start))
    if prior:
        session.replay(prior)
    companion.add(session)
    bus = companion.bus
    bus.add(JournalSink(journal, board), maxsize=100_000)  # the record: a queue that never fills in practice
    bus.add(PdnSink(pdn_path, board, tags, prior=prior), maxsize=100_000)
    if config.events:
        bus.add(EventsSink(config.events, board), maxsize=100_000)
    if config.print_events and not config.say:  # --say prints the announcements instead
        bus.add(PrinterSink())
    for sink in [*optional_sinks(config, notices), *config.extra_sinks]:
        bus.add(sink)
    session.journal_path = journal  # type: ignore[attr-defined]
    session.pdn_path = pdn_path  # type: ignore[attr-defined]
    return companion, session


def watch(config: WatchConfig, stop: threading.Event | None = None, out: Any = None) -> int:
    """Run ``dama watch``; the exit status. Messages for the user go to ``out`` (stderr by default)."""
    out = out or sys.stderr

    def say(text: str) -> None:
        print(text, file=out, flush=True)

    notices: list[str] = []
    try:
        companion, session = build(config, notices)
    except WatchError as exc:
        say(f"dama watch: {exc}")
        return 2
    for n in notices:
        say(n)
        session.emit({"event": "notice", "message": n}, 0.0)
    server = None
    source: Any = None
    try:
        try:
            opener = config.source_factory or open_source
            source = opener(config.source, fast=config.fast, on_status=session.source_status)
        except SourceError as exc:
            say(f"dama watch: {exc}")
            return 2
        if not config.headless:
            host, port = parse_host_port(config.web or DEFAULT_WEB)
            server = WebServer(companion, host, port)
            say(f"dashboard: {server.url}")
            if server.token:
                say(f"control token (needed for the buttons from other machines): {server.token}")
        say(f"journal: {session.journal_path}   pdn: {session.pdn_path}")  # type: ignore[attr-defined]
        if config.on_started:
            config.on_started(companion, server.url if server else None)
        frames = LatestFrames(source) if source.live else source
        count = run_frames(session, frames, stop)
        log.info("%d frames processed", count)
        if server is not None and config.keep_serving and not (stop and stop.is_set()):
            say(f"the source has ended; the dashboard stays at {server.url} (Ctrl-C to quit)")
            while not (stop and stop.is_set()):
                time.sleep(0.5)
        return 0
    except WatchError as exc:
        say(f"dama watch: {exc}")
        return 2
    except KeyboardInterrupt:
        say("stopped; the game is saved")
        return 0
    finally:
        if source is not None:
            source.close()
        if server is not None:
            server.close()
        companion.close()
