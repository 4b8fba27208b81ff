"""The watch loop: frame source → vision → stabilizer → referee → event bus → sinks.

:func:`watch` builds a :class:`~dama.companion.Companion` with one session per board from a
:class:`WatchConfig` (``--source SRC``, or ``--source board1=SRC1 --source board2=SRC2 …``), attaches the
sinks (per board: journal, PDN, MQTT publisher; for all: ``--events``, terminal printer, the broadcast
feed and its relay folder, LEDs...), serves the dashboard and the feeds unless headless, and runs each
board's frames through its session on a thread of its own until the sources end or the user presses
Ctrl-C, so a slow board never stalls the others. Vision is never stalled by sinks (they have their own
queues and threads, see :mod:`dama.bus`); for live sources a grabber thread keeps only the newest frame,
so a slow frame never makes the picture lag behind the board.

Recording loses nothing: the journal gets every event (fsynced) and the PDN is rewritten atomically
after every move. Without ``--journal`` the journal goes to ``$DAMA_HOME/journal/<date>-<board>.jsonl``
(``DAMA_HOME`` defaults to ``~/.local/share/dama``), and ``--resume`` without ``--journal`` continues the
newest one there. With several boards each board has its own journal and PDN
(``<journal-dir>/<date>-<board>.jsonl``; ``--journal``/``--pdn`` then need ``{board}`` in the name), and
``--resume`` continues the newest journal of every board.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from board_io.sources import Frame, FrameSource, SourceError, open_source
from dama.broadcast.feed import BroadcastFeed
from dama.bus import EventBus
from dama.companion import BoardSession, Companion, RefereeLike, StabilizerLike, VisionLike, default_referee
from dama.masking import parse_squares
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


BOARD_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")


def parse_sources(items: list[str]) -> list[tuple[str, str]]:
    """``--source`` values → ``[(board, spec)]``. ``NAME=SRC`` names a board; a plain ``SRC`` is board
    ``main`` when it is the only one, else ``board<N>``. A spec that is an existing file, or a URL
    (``rtsp://host/x?a=b``), is never split at its ``=``."""
    out: list[tuple[str, str]] = []
    for n, item in enumerate(items, 1):
        name, eq, spec = item.partition("=")
        if eq and BOARD_NAME.fullmatch(name) and not os.path.exists(item):
            if not spec:
                raise WatchError(f"--source {item!r}: no source after '='; write NAME=SRC, e.g. board1=0")
            out.append((name, spec))
        else:
            out.append(("main" if len(items) == 1 else f"board{n}", item))
    names = [b for b, _ in out]
    for b in names:
        if names.count(b) > 1:
            raise WatchError(f"--source: board {b!r} is given twice; each board needs its own name")
    return out


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
    tags: dict[str, str] = field(default_factory=dict)  # PDN tags of every board (Event, Site, Round)
    # Several boards: [(board, spec)]; empty means the one board ``board`` on ``source``.
    sources: list[tuple[str, str]] = field(default_factory=list)
    board_tags: dict[str, dict[str, str]] = field(default_factory=dict)  # --tag board1:White=Novák
    journal_dir: str | None = None  # default folder of journals and PDNs ($DAMA_HOME/journal)
    feed_folder: str | None = None  # --feed-folder: the relay folder of the broadcast feed
    publish: str | None = None  # --publish mqtt://[user:pass@]host[:port]/topic
    max_viewers: int = 48  # dashboard pages following the event stream at once (each holds a thread)
    masked: dict[str, list[str]] = field(default_factory=dict)  # board -> squares read from the game
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


class UndistortedVision:
    """A vision pipeline behind the profile's lens correction.

    Frames are straightened before vision reads them and before the overlay is drawn on them, so the
    grid on the dashboard's camera image sits on the same picture vision saw (wide-angle webcams bend
    the board's lines; a calibrated lens makes them straight again, see docs/calibration.md).
    """

    def __init__(self, pipeline: Any, prepare: Callable[[Any], Any]) -> None:
        self.pipeline = pipeline
        self.prepare = prepare

    def process(self, frame: Any, t: float) -> Any:
        return self.pipeline.process(self.prepare(frame), t)

    def draw_overlay(self, frame: Any, result: Any, highlight: list[str] | None = None,
                     masked: list[str] | None = None) -> Any:
        return self.pipeline.draw_overlay(self.prepare(frame), result, highlight=highlight or [], masked=masked or [])

    def learn_start_position(self, frame: Any) -> Any:
        return self.pipeline.learn_start_position(self.prepare(frame))

    def learn_position(self, frame: Any, board: str) -> Any:
        return self.pipeline.learn_position(self.prepare(frame), board)

    def __getattr__(self, name: str) -> Any:  # profile(), reset_tracking(), …: the pipeline's own
        return getattr(self.pipeline, name)


def real_vision(profile: str | None) -> VisionLike:
    """The vision pipeline, built from a calibration profile file when one is given (with its lens
    correction applied to every frame when the profile has calibrated intrinsics)."""
    try:
        from vision.pipeline import VisionPipeline
    except ImportError as exc:
        raise WatchError(f"the vision pipeline is not available ({exc})") from None
    if not profile:
        return VisionPipeline(profile=None)
    from calibration.live import LiveCalibration
    from calibration.profile import load_profile

    try:
        live = LiveCalibration(load_profile(profile))
        pipeline = live.pipeline()  # reads with, and adapts, the profile's own colour model
    except ValueError as exc:  # ProfileError names the file and the problem
        raise WatchError(f"--profile {profile}: {exc}") from None
    if live.profile.camera is None or not any(live.profile.camera.dist):
        return pipeline
    return UndistortedVision(pipeline, live.prepare)


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

    def __init__(self, companion: Any, host: str, port: int, feed: BroadcastFeed | None = None,
                 max_viewers: int = 48, config: dict[str, Any] | None = None) -> None:
        from waitress import create_server

        from webui import create_app, needs_token, new_token

        self.token = new_token() if needs_token(host) else None
        # waitress gives each open response a thread: every page following the event stream holds one
        # for as long as it stays, so the pool has room for ``max_viewers`` of them and 16 more for the
        # short requests (feed polls, state, frames); pages beyond the limit poll instead.
        threads = max_viewers + 16
        app = create_app(companion, {"CONTROL_TOKEN": self.token, "SSE_MAX_STREAMS": max_viewers, **(config or {})})
        if feed is not None:
            from webui.broadcast import init_app

            init_app(app, feed)  # /broadcast/round.pdn, /broadcast/<board>.pdn, /broadcast/index.json
        try:
            # A hall's relays keep their connections open between polls (idle ones cost no thread);
            # waitress's default limit of 100 connections would make the 101st wait.
            self.server = create_server(app, host=host, port=port, threads=threads, connection_limit=1000)
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
        # let the handler threads finish first (close the companion before, so event streams end):
        # a response finishing after the server closed makes waitress log a spurious traceback
        with contextlib.suppress(Exception):
            self.server.task_dispatcher.shutdown(cancel_pending=True, timeout=3)
        self.server.close()


class OnlyBoard:
    """Hands a per-board sink (the MQTT publisher) only its own board's events."""

    def __init__(self, sink: Any, board: str) -> None:
        self.sink = sink
        self.board = board
        self.name = getattr(sink, "name", f"sink-{board}")

    def handle(self, event: dict[str, Any]) -> None:
        if event.get("board") in (None, self.board):
            self.sink.handle(event)

    def close(self) -> None:
        self.sink.close()


@dataclass
class Built:
    """What :func:`build_all` made: the companion, one session per board, and the broadcast feed."""

    companion: Companion
    sessions: list[BoardSession]
    feed: BroadcastFeed


def _board_path(template: str, board: str, option: str, several: bool) -> str:
    if "{board}" in template:
        return template.replace("{board}", board)
    if several:
        raise WatchError(f"{option} {template}: with several boards write {{board}} in the name "
                         f"(e.g. games/{{board}}.pdn), or leave it out")
    return template


def _resume_journal(config: WatchConfig, board: str, folder: str, several: bool) -> str:
    if config.journal:
        journal = _board_path(config.journal, board, "--journal", several)
    elif several:
        try:
            mine = [os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(f"-{board}.jsonl")]
        except FileNotFoundError:
            mine = []
        journal = max(mine, key=os.path.getmtime) if mine else ""
    else:
        journal = newest_journal(folder) or ""
    if not journal or not os.path.exists(journal):
        where = f"board {board}: " if several else ""
        raise WatchError(f"--resume: {where}no journal to resume in {folder} (give --journal FILE)")
    return journal


def board_tags(config: WatchConfig, specs: list[tuple[str, str]]) -> dict[str, dict[str, str]]:
    """Each board's own PDN tags: its number in the round, its source as Site unless --site, its --tag."""
    unknown = sorted(set(config.board_tags) - {b for b, _ in specs})
    if unknown:
        raise WatchError(f"--tag: no board named {', '.join(unknown)}; boards: {', '.join(b for b, _ in specs)}")
    out: dict[str, dict[str, str]] = {}
    for number, (board, spec) in enumerate(specs, 1):
        own = {"Board": str(number)}
        if "Site" not in config.tags:
            own["Site"] = spec
        out[board] = {**own, **config.board_tags.get(board, {})}
    return out


def build_all(config: WatchConfig, notices: list[str]) -> Built:
    """The companion with a session per board and its sinks, each board resumed from its journal when asked."""
    specs = config.sources or [(config.board, config.source)]
    several = len(specs) > 1
    if several and config.leds:
        raise WatchError("--leds: the LED board shows one game; watch that board in a process of its own")
    folder = config.journal_dir or os.path.join(dama_home(), "journal")
    fen = None
    if config.fen:
        try:
            fen = Position.from_fen(config.fen).fen()
        except ValueError as exc:
            raise WatchError(f"--fen: {exc}") from None
    publish_url = None
    if config.publish:
        from dama.broadcast.mqtt import MqttUrl

        try:
            publish_url = MqttUrl.parse(config.publish)
        except ValueError as exc:
            raise WatchError(f"--publish {exc}") from None
    referee_factory = config.referee_factory or default_referee
    if config.referee_factory is None:
        try:
            import rules.referee  # noqa: F401
        except ImportError as exc:
            raise WatchError(f"the referee is not available ({exc})") from None

    tags = {"Event": "dama watch", "Date": time.strftime("%Y.%m.%d"), **config.tags}
    own_tags = board_tags(config, specs)
    companion = Companion(EventBus(), tags, own_tags)
    feed = BroadcastFeed(tags, own_tags)
    bus = companion.bus
    stamp = time.strftime("%Y%m%d-%H%M%S")
    per_board: list[tuple[BoardSession, str, str, list[dict[str, Any]]]] = []
    for board, spec in specs:
        prior: list[dict[str, Any]] = []
        if config.resume:
            journal = _resume_journal(config, board, folder, several)
            prior = [e for e in read_journal(journal) if e.get("board") in (None, board)]
            if not prior:
                raise WatchError(f"--resume: the journal {journal} holds no events")
        elif config.journal:
            journal = _board_path(config.journal, board, "--journal", several)
        else:
            journal = os.path.join(folder, f"{stamp}-{board}.jsonl")
        pdn_path = (_board_path(config.pdn, board, "--pdn", several) if config.pdn
                    else os.path.splitext(journal)[0] + ".pdn")
        vision = (config.vision_factory or real_vision)(config.profile)
        stabilizer = (config.stabilizer_factory or real_stabilizer)()
        session = BoardSession(board, bus, vision=vision, stabilizer=stabilizer,
                               referee_factory=referee_factory, fen=fen, source=spec,
                               learn_colours=not config.profile,
                               vision_loader=config.vision_factory or real_vision,
                               masked=parse_squares(config.masked.get(board, [])))
        if prior:
            session.replay(prior)
        companion.add(session)
        session.journal_path = journal  # type: ignore[attr-defined]
        session.pdn_path = pdn_path  # type: ignore[attr-defined]
        per_board.append((session, journal, pdn_path, prior))

    paths = [p for _, j, d, _ in per_board for p in (j, d)]
    if len(set(paths)) < len(paths):
        raise WatchError("two boards would write the same journal or PDN file; use {board} in --journal/--pdn")
    try:
        _add_sinks(config, companion, feed, per_board, publish_url, notices)
    except WatchError:
        companion.close()
        raise
    return Built(companion, [s for s, *_ in per_board], feed)


def _add_sinks(config: WatchConfig, companion: Companion, feed: BroadcastFeed,
               per_board: list[tuple[BoardSession, str, str, list[dict[str, Any]]]], publish_url: Any,
               notices: list[str]) -> None:
    bus = companion.bus
    for session, journal, pdn_path, prior in per_board:
        board = session.board
        # the record: queues that never fill in practice
        bus.add(JournalSink(journal, board, name=f"journal-{board}"), maxsize=100_000)
        pdn_sink = PdnSink(pdn_path, board, companion.tags_of(board), prior=prior)
        pdn_sink.name = f"pdn-{board}"
        bus.add(pdn_sink, maxsize=100_000)
        for event in prior:
            feed.apply(event, board)
        if config.events and "{board}" in config.events:
            bus.add(EventsSink(config.events.replace("{board}", board), board), maxsize=100_000)
        if publish_url is not None:
            from dama.broadcast.mqtt import MqttPublisher

            # seeded with the journal, so a hub's resync after --resume still gets the whole game
            publisher = MqttPublisher(publish_url, board, companion.tags_of(board), history=prior)
            bus.add(OnlyBoard(publisher, board), maxsize=100_000)
    if config.events and "{board}" not in config.events:
        bus.add(EventsSink(config.events), maxsize=100_000)  # one stream; every event carries its board
    bus.add(feed, maxsize=100_000)
    if config.feed_folder:
        from dama.broadcast.folder import FolderSink

        folder_sink = FolderSink(feed, config.feed_folder)
        try:
            folder_sink.write()
        except OSError as exc:
            raise WatchError(f"--feed-folder {config.feed_folder}: {exc.strerror or exc}") from None
        bus.add(folder_sink, maxsize=100_000)
    if config.print_events and not config.say:  # --say prints the announcements instead
        bus.add(PrinterSink())
    for sink in [*optional_sinks(config, notices), *config.extra_sinks]:
        bus.add(sink)


def build(config: WatchConfig, notices: list[str]) -> tuple[Companion, BoardSession]:
    """The companion and its first board (callers that watch one board)."""
    built = build_all(config, notices)
    return built.companion, built.sessions[0]


class BoardRunner:
    """One board's frames on a thread of its own, so a slow board never stalls the others."""

    def __init__(self, session: BoardSession, source: FrameSource, stop: threading.Event) -> None:
        self.session = session
        self.source = source
        self.stop = stop
        self.frames = 0
        self.error: str | None = None
        self.thread = threading.Thread(target=self._run, name=f"board-{session.board}", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        frames = LatestFrames(self.source) if self.source.live else self.source
        try:
            self.frames = run_frames(self.session, frames, self.stop)
        except Exception as exc:  # one board failing must not end the others' games
            log.exception("board %s: the loop failed", self.session.board)
            self.error = f"{type(exc).__name__}: {exc}"
            self.session.source_status("failed", f"board {self.session.board}: the loop stopped ({self.error})")

    def alive(self) -> bool:
        return self.thread.is_alive()


def watch(config: WatchConfig, stop: threading.Event | None = None, out: Any = None) -> int:
    """Run ``dama watch``; the exit status. Messages for the user go to ``out`` (stderr by default)."""
    out = out or sys.stderr
    stop = stop or threading.Event()

    def say(text: str) -> None:
        print(text, file=out, flush=True)

    notices: list[str] = []
    try:
        built = build_all(config, notices)
    except WatchError as exc:
        say(f"dama watch: {exc}")
        return 2
    companion, sessions = built.companion, built.sessions
    for n in notices:
        say(n)
        for session in sessions:
            session.emit({"event": "notice", "message": n}, 0.0)
    server = None
    sources: list[Any] = []
    runners: list[BoardRunner] = []
    try:
        opener = config.source_factory or open_source
        for session in sessions:
            try:
                sources.append(opener(session.source, fast=config.fast, on_status=session.source_status))
            except SourceError as exc:
                prefix = f"board {session.board}: " if len(sessions) > 1 else ""
                say(f"dama watch: {prefix}{exc}")
                return 2
        if not config.headless:
            host, port = parse_host_port(config.web or DEFAULT_WEB)
            server = WebServer(companion, host, port, feed=built.feed, max_viewers=config.max_viewers)
            say(f"dashboard: {server.url}   feeds: {server.url}broadcast/round.pdn")
            if server.token:
                say(f"control token (needed for the buttons from other machines): {server.token}")
        for session in sessions:
            prefix = f"{session.board}: " if len(sessions) > 1 else ""
            say(f"{prefix}journal: {session.journal_path}   pdn: {session.pdn_path}")  # type: ignore[attr-defined]
        if config.on_started:
            config.on_started(companion, server.url if server else None)
        runners = [BoardRunner(s, src, stop) for s, src in zip(sessions, sources, strict=True)]
        for runner in runners:
            runner.start()
        while any(r.alive() for r in runners):
            time.sleep(0.1)  # the main thread only waits (short sleeps keep Ctrl-C responsive)
        log.info("frames processed: %s", ", ".join(f"{r.session.board} {r.frames}" for r in runners))
        failed = [r for r in runners if r.error]
        for r in failed:
            say(f"dama watch: board {r.session.board}: the loop stopped ({r.error})")
        if server is not None and config.keep_serving and not stop.is_set():
            say(f"the source has ended; the dashboard stays at {server.url} (Ctrl-C to quit)")
            while not stop.is_set():
                time.sleep(0.5)
        return 1 if failed else 0
    except WatchError as exc:
        say(f"dama watch: {exc}")
        return 2
    except KeyboardInterrupt:
        say("stopped; the game is saved")
        return 0
    finally:
        stop.set()
        for r in runners:  # a recorded source is closed only once its loop has let go of it
            r.thread.join(5.0 if not r.source.live else 0.5)
        for source in sources:
            with contextlib.suppress(Exception):
                source.close()
        for r in runners:
            r.thread.join(5.0)
        companion.close()  # ends the dashboards' event streams first, so no response outlives the server
        if server is not None:
            server.close()
