"""One board's session (vision → stabilizer → referee → events) and the container the dashboard reads.

:class:`BoardSession` owns everything about one board: the vision pipeline, the stabilizer, the referee,
the game record folded from its own events, and the latest camera frame. Frames come in from the watch
loop (:mod:`dama.watch`) on one thread; dashboard actions come in on web threads; a lock keeps the
referee consistent between them. Everything a session says goes out as an event on the shared
:class:`~dama.bus.EventBus`, with ``board`` and ``t`` added.

:class:`Companion` holds the sessions of every board watched by this process (``dama watch --source
name=SRC`` repeated; each session is fed by a thread of its own) and is the interface of the dashboard
(``webui.create_app``):

- ``boards() -> list[str]``
- ``snapshot(board) -> dict``: JSON-able: ``board``, ``fen``, ``board_string``, ``turn``, ``moves``
  (``[{ply, side, move, t}]``), ``alerts`` (violation events not yet corrected or accepted),
  ``status`` (``{board_found, orientation_ok, hand, state}``, state one of ``no_board``,
  ``orientation_wrong``, ``hand``, ``setting_up``, ``waiting``, ``capture_pending``, ``game_over``), ``pending`` (the
  pending-capture event or None), ``result``, ``result_reason``, ``flipped``, ``last_move``
  (``{ply, side, move, t, path, captured}`` or None), ``fps``, ``source`` (name and last source message),
  ``t`` (latest frame time), ``observation`` (last stable board seen), ``masked`` (square names),
  ``frames``.
- ``frame_jpeg(board, overlay=True) -> bytes | None``: the latest frame, encoded only when asked.
- ``subscribe() -> Subscription`` (``get(timeout)``, ``close()``) for Server-Sent Events.
- ``control(board, action, **params) -> dict``: ``new_game`` (``fen=`` optional), ``flip``,
  ``setup_from_camera`` (``turn="white"|"black"``), ``accept`` (čl. 5.7), ``takeback``, ``mask_squares``
  (``squares=["e5"]``: read them from the game, not the camera; ``[]`` undoes it). Raises
  ``ValueError`` with a message for an unknown board or action or a refused action.
- ``pdn(board) -> str``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import cv2
import numpy as np

from dama.bus import EventBus, Subscription
from dama.masking import StandingDifferences, parse_squares, read_through_masks, square_names
from dama.record import GameRecord
from dama.setup import setup_message, still_setting_up
from rules import Color, Position

log = logging.getLogger("dama.companion")

Event = dict[str, Any]
ACTIONS = ("new_game", "flip", "setup_from_camera", "accept", "takeback", "mask_squares")
UNSEEN = "?" * 32
RELEARN_ATTEMPTS = 10  # frames to learn the colours on when the game's position is first seen after a give-up


class RefereeLike(Protocol):
    position: Position

    def observe(self, observation: str, t: float | None = None) -> list[Event]: ...
    def accept(self) -> list[Event]: ...
    def takeback(self) -> list[Event]: ...
    def reset(self, position: Position) -> list[Event]: ...


class VisionLike(Protocol):
    def process(self, frame: np.ndarray, t: float) -> Any: ...
    def draw_overlay(self, frame: np.ndarray, result: Any, highlight: list[str] | None = None,
                     masked: list[str] | None = None) -> np.ndarray: ...


class StabilizerLike(Protocol):
    def update(self, t: float, board: str, hand: bool) -> str | None: ...


def default_referee(position: Position) -> RefereeLike:
    from rules.referee import Referee

    return Referee(position)


class BoardSession:
    """One board: frames in, events out."""

    def __init__(self, board: str, bus: EventBus, *, vision: VisionLike, stabilizer: StabilizerLike,
                 referee_factory: Callable[[Position], RefereeLike] = default_referee,
                 fen: str | None = None, source: str = "", t_offset: float = 0.0,
                 learn_colours: bool = False, learn_attempts: int = 50,
                 vision_loader: Callable[[str], VisionLike] | None = None, masked: list[int] | None = None) -> None:
        self.board = board
        self.vision_loader = vision_loader  # builds a pipeline from a profile file (reload_profile)
        self.bus = bus
        self.vision = vision
        self.stabilizer = stabilizer
        self.referee_factory = referee_factory
        self.source = source
        self.source_message = ""
        self.t_offset = t_offset
        self.lock = threading.RLock()
        self.position = Position.from_fen(fen) if fen else Position.start()
        self.referee = referee_factory(self.position)
        self.record = GameRecord(self.position.fen())
        self.flipped = False
        self.status: dict[str, Any] = {"board_found": False, "orientation_ok": None, "hand": False,
                                       "state": "no_board"}
        self.observation: str | None = None  # the last stable board seen (given to the referee unless being set up)
        self.setting_up = False  # before the first move, the board seen is still being set up (dama.setup)
        self.masked: list[int] = list(masked or [])  # squares the camera misreads, read from the game (dama.masking)
        self.standing = StandingDifferences()  # squares that keep contradicting the game: masking suggested
        self.t = 0.0
        self.frames = 0
        self.vision_errors = 0  # frames vision failed on and the loop skipped (_vision_failed)
        self._vision_errors_told: set[str] = set()
        self.fps = 0.0
        self._last_wall: float | None = None
        self._dt = 0.0
        self._frame: np.ndarray | None = None
        self._result: Any = None
        self._frame_lock = threading.Lock()
        self.started = False
        # Learn the colours on the first clear frames from the position the game is in (no profile given):
        # the start position, a position set up from a FEN, or where a resumed game stood.
        self.learning = learn_colours and (hasattr(vision, "learn_position") or (
            hasattr(vision, "learn_start_position") and self.position == Position.start()))
        self.learn_attempts = learn_attempts
        # Learning gave up (the board was empty, or being set up, while the attempts ran): once, it is tried
        # again when a stable board first shows the game's position before the first move.
        self.relearn = self.learning

    # -- events ---------------------------------------------------------------------------------
    def emit(self, event: Event, t: float | None = None) -> Event:
        """Stamp ``event`` with board and time, fold it into the record, publish it."""
        event = dict(event)
        event.setdefault("t", round(self.t if t is None else t, 3))
        event["board"] = self.board
        with self.lock:
            self.record.apply(event)
        self.bus.publish(event)
        return event

    def _emit_all(self, events: list[Event], t: float | None = None) -> list[Event]:
        return [self.emit(e, t) for e in events]

    def start(self, t: float | None = None) -> None:
        """Announce the game (or the set-up position) once, before the first frame."""
        if not self.started:
            self.started = True
            self.emit({"event": "game_start", "fen": self.referee.position.fen()}, t)

    # -- frames ---------------------------------------------------------------------------------
    def process(self, t: float, image: np.ndarray) -> None:
        """Run one frame through vision, the stabilizer and (when the board is stable) the referee."""
        t = t + self.t_offset
        self.t = t
        self.start(t)
        now = time.monotonic()
        if self._last_wall is not None:  # average the frame interval, then invert (an average of
            dt = now - self._last_wall     # rates would overweight the quick frames)
            self._dt = dt if self._dt == 0.0 else 0.9 * self._dt + 0.1 * dt
            self.fps = 1.0 / self._dt if self._dt > 0 else 0.0
        self._last_wall = now
        self.frames += 1
        try:
            result = self.vision.process(image, t)
            if self.learning and getattr(result, "found", False) and not getattr(result, "hand", False):
                self._learn(image, t)
                result = self.vision.process(image, t)
        except Exception as exc:  # one frame vision cannot read must not end a game being recorded
            self._vision_failed(exc, t)
            return
        with self._frame_lock:
            self._frame, self._result = image, result
        found = bool(getattr(result, "found", False))
        hand = bool(getattr(result, "hand", False))
        board = getattr(result, "board", None) if found else None
        self._update_status(found, getattr(result, "orientation_ok", None) if found else None, hand)
        if self.learning:  # readings before the colours are learned would only make false alerts
            return
        stable = self.stabilizer.update(t, board or UNSEEN, hand or not found)
        if stable is not None and found and self.masked:
            with self.lock:
                stable = read_through_masks(stable, self.referee.position, self.masked)
        if stable is not None and stable != self.observation and found:
            off = self._setup_squares(stable)
            if off:
                self._still_setting_up(stable, off, t)
            else:
                self.observe(stable, t)

    def _vision_failed(self, exc: Exception, t: float) -> None:
        """Skip a frame vision failed on, as if the camera had dropped it: the stabilizer never sees it, the
        game stands as it was, and the next frame is read as usual. Each kind of failure is logged with its
        traceback and told once as a ``vision_error`` notice; the count is in the board's state, so a
        camera whose every frame fails shows it rather than going quiet (a bug in vision would otherwise
        end the whole recording, as it did for a frame a few pixels across)."""
        self.vision_errors += 1
        what = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        if what in self._vision_errors_told:
            log.debug("board %s: vision failed again on a frame (%s)", self.board, what)
            return
        self._vision_errors_told.add(what)
        log.error("board %s: vision failed on a frame, skipped", self.board, exc_info=exc)
        self.emit({"event": "notice", "kind": "vision_error",
                   "message": f"vision could not read a frame ({what}); it was skipped, the game goes on"}, t)

    def _setup_squares(self, observation: str) -> list[str]:
        """Before the first move (and with no alert open), the squares that show ``observation`` is a board
        still being set up (:func:`dama.setup.still_setting_up`); empty when the referee judges it."""
        with self.lock:
            if self.record.moves or self.record.alerts or self.record.result:
                return []
            return still_setting_up(observation, self.referee.position, self.setting_up)

    def _still_setting_up(self, observation: str, off: list[str], t: float) -> None:
        """Keep a board being set up from the referee (no false alarm) and say what differs."""
        with self.lock:
            self.observation = observation  # what "set up from camera" would start from
            self.setting_up = True
        self.emit({"event": "notice", "kind": "setting_up", "squares": off, "message": setup_message(off)}, t)
        self._refresh_state()

    def _learn(self, image: np.ndarray, t: float) -> None:
        """One attempt to learn the piece colours from a view of the position the game is in (čl. 2.8 for
        the start position; a set-up or resumed game knows its position as well)."""
        board = self.referee.position.board_string()
        start = board == Position.start().board_string()
        where = "the start position" if start else "the position on the board"
        learn = getattr(self.vision, "learn_position", None)
        try:
            report = learn(image, board) if learn else self.vision.learn_start_position(image)  # type: ignore[attr-defined]
        except ValueError as exc:  # too few pieces of a kind to learn their colours from
            self.learning = False
            self.emit({"event": "notice", "message": f"cannot learn the piece colours from {where} ({exc}); "
                       "using the default colours"}, t)
            return
        self.learn_attempts -= 1
        if report.get("ok"):
            self.learning = self.relearn = False
            back = round(32 * report.get("agreement", 0))
            back_text = f"then read back {back} of 32 squares as it" if start else "then read back as it"
            self.emit({"event": "notice", "message": f"piece colours learned from {where} ({back_text})"}, t)
        elif self.learn_attempts <= 0:
            self.learning = False
            self.emit({"event": "notice", "message": "could not learn the piece colours from "
                       f"{where} ({report.get('reason')}); using the default colours"}, t)

    def observe(self, observation: str, t: float) -> list[Event]:
        """Give the referee a stable board; journal it first so ``--resume`` can replay it."""
        with self.lock:
            self.observation = observation
            self.setting_up = False
            self.emit({"event": "observation", "observation": observation}, t)
            before = self.referee.position
            standing = self.standing.update(observation, before, self.masked)
            events = self.referee.observe(observation, t)
            out = self._emit_all(events, t)
            after = self.referee.position.board_string().lower()
            if observation.lower() == after and any(e.get("event") == "move" for e in events):
                # The board shows the position the referee accepted: its men tell the camera how men look
                # on their squares now (vision.men_seen), for telling kings from men (the čl. 3.6 reminder).
                see = getattr(self.vision, "see_position", None)
                if callable(see):
                    see(self.referee.position.board_string())
            if self.relearn and not self.learning and not self.record.moves and observation.lower() == after:
                self.relearn, self.learning, self.learn_attempts = False, True, RELEARN_ATTEMPTS
            standing = [i for i in standing if observation[i].lower() != after[i]]  # not accepted meanwhile
            if standing:
                self.emit({"event": "notice", "kind": "misread", "squares": square_names(standing),
                           "message": self.standing.message(standing, observation, before)}, t)
            self._refresh_state()
            return out

    def _update_status(self, found: bool, orientation_ok: bool | None, hand: bool) -> None:
        status = {"board_found": found, "orientation_ok": orientation_ok, "hand": hand,
                  "state": self._state(found, orientation_ok, hand)}
        if status != self.status:
            self.status = status
            self.emit({"event": "status", **status})

    def _state(self, found: bool, orientation_ok: bool | None, hand: bool) -> str:
        if not found:
            return "no_board"
        if orientation_ok is False:
            return "orientation_wrong"
        if self.record.result:
            return "game_over"
        if hand:
            return "hand"
        if self.setting_up:
            return "setting_up"
        if self.record.pending:
            return "capture_pending"
        return "waiting"

    def _refresh_state(self) -> None:
        s = self.status
        self._update_status(s["board_found"], s["orientation_ok"], s["hand"])

    def source_status(self, state: str, message: str) -> None:
        """A message of the frame source (lost, reconnecting, restored, ended) as a ``source`` event."""
        self.source_message = message
        self.emit({"event": "source", "state": state, "message": message})

    # -- controls -------------------------------------------------------------------------------
    def control(self, action: str, **params: Any) -> dict[str, Any]:
        if action == "reload_profile":
            return self.reload_profile(str(params.get("path") or ""))
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}; one of {', '.join(ACTIONS)}")
        if action == "mask_squares":
            return self.mask_squares(params.get("squares"))
        with self.lock:
            if action == "flip":
                self.flipped = not self.flipped
                self.emit({"event": "control", "action": "flip", "flipped": self.flipped})
                return {"ok": True, "flipped": self.flipped}
            fen = self._control_fen(action, params)
            record = {"event": "control", "action": action}
            if fen is not None:
                record["fen"] = fen
            self.emit(record)
            events = self._apply_control(action, fen)
            if action in ("new_game", "setup_from_camera", "takeback") and hasattr(self.stabilizer, "reset"):
                self.stabilizer.reset()  # the next still board is shown to the referee afresh
                self.observation = None
                self.setting_up = False
            out = self._emit_all(events)
            self._refresh_state()
            return {"ok": True, "events": out, "fen": self.referee.position.fen()}

    def mask_squares(self, squares: object) -> dict[str, Any]:
        """Read these squares from the game instead of the camera (dama.masking); none: the camera again.

        The stabilizer starts afresh so the board is judged again with the new mask.
        """
        masked = parse_squares(squares)  # ValueError naming a bad square, before anything changes
        names = square_names(masked)
        with self.lock:
            self.masked = masked
            if hasattr(self.stabilizer, "reset"):
                self.stabilizer.reset()
            self.observation = None
        self.emit({"event": "control", "action": "mask_squares", "squares": names})
        message = (f"the camera's reading of {', '.join(names)} is replaced by the game's" if names
                   else "every square is read by the camera again")
        self.emit({"event": "notice", "kind": "masked", "squares": names, "message": message})
        return {"ok": True, "masked": names, "message": message}

    def reload_profile(self, path: str) -> dict[str, Any]:
        """Use a calibration profile saved from the dashboard's calibration page from the next frame on.

        The game is untouched; the stabilizer starts afresh so a board read with the old profile is not
        mixed with one read with the new.
        """
        if self.vision_loader is None:
            raise ValueError("this board cannot reload a calibration profile; restart with --profile")
        if not path:
            raise ValueError("reload_profile needs the path of the profile")
        try:
            vision = self.vision_loader(path)
        except Exception as exc:  # a bad profile must leave the running game and pipeline as they were
            raise ValueError(str(exc)) from None
        with self.lock, self._frame_lock:
            self.vision = vision
            self.learning = self.relearn = False  # the profile's colours are used
            self._result = None
            if hasattr(self.stabilizer, "reset"):
                self.stabilizer.reset()
            self.observation = None
        self.emit({"event": "notice", "message": f"calibration profile {path} in use"})
        return {"ok": True, "profile": path}

    def _control_fen(self, action: str, params: dict[str, Any]) -> str | None:
        if action == "new_game":
            fen = params.get("fen")
            if fen:
                try:
                    return Position.from_fen(str(fen)).fen()
                except ValueError as exc:
                    raise ValueError(f"bad FEN: {exc}") from None
            return Position.start().fen()
        if action == "setup_from_camera":
            if self.observation is None or "?" in self.observation:
                raise ValueError("no complete, stable view of the board yet (take your hand away)")
            turn = str(params.get("turn", "white")).lower()
            if turn not in ("white", "black"):
                raise ValueError("turn must be 'white' or 'black'")
            color = Color.WHITE if turn == "white" else Color.BLACK
            return Position.from_board_string(self.observation, turn=color).fen()
        return None

    def _apply_control(self, action: str, fen: str | None) -> list[Event]:
        """Apply a control to the referee (also used when replaying a journal)."""
        if action in ("new_game", "setup_from_camera"):
            assert fen is not None
            position = Position.from_fen(fen)
            events = list(self.referee.reset(position))
            if not any(e.get("event") == "game_start" for e in events):
                events.insert(0, {"event": "game_start", "fen": position.fen()})
            return events
        if action == "accept":
            return list(self.referee.accept())
        if action == "takeback":
            return list(self.referee.takeback())
        return []

    # -- resume ---------------------------------------------------------------------------------
    def replay(self, events: list[Event]) -> None:
        """Rebuild the game from a journal: the referee from its recorded inputs (game starts,
        observations, controls), the record from the recorded outputs. Nothing is published."""
        with self.lock:
            last_t = 0.0
            for e in events:
                if e.get("board") not in (None, self.board):
                    continue
                kind = e.get("event")
                if isinstance(e.get("t"), (int, float)):
                    last_t = max(last_t, float(e["t"]))
                if kind == "game_start":
                    self.referee = self.referee_factory(Position.from_fen(e["fen"]))
                    self.started = True
                elif kind == "observation":
                    self.observation = e["observation"]
                    self.referee.observe(e["observation"], e.get("t"))
                elif kind == "control":
                    if e.get("action") == "flip":
                        self.flipped = bool(e.get("flipped"))
                    elif e.get("action") == "mask_squares":
                        self.masked = parse_squares(e.get("squares"))
                    else:
                        self._apply_control(e["action"], e.get("fen"))
                if kind not in ("observation", "control"):
                    self.record.apply(e)
            self.t_offset = last_t + 1.0
            self.t = last_t
            theirs, ours = self.referee.position.fen(), self.record.fen
            if theirs != ours:
                log.warning("resume: the replayed referee is at %s but the journal records %s", theirs, ours)
            if self.started:
                self.emit({"event": "notice", "message": f"resumed after {len(self.record.moves)} moves",
                           "fen": theirs}, self.t_offset)

    # -- what the dashboard reads --------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            return {
                "board": self.board,
                **self.record.summary(self.referee.position),
                "status": dict(self.status),
                "flipped": self.flipped,
                "fps": round(self.fps, 1),
                "t": round(self.t, 3),
                "frames": self.frames,
                "vision_errors": self.vision_errors,  # frames skipped because vision failed on them
                "observation": self.observation,
                "masked": square_names(self.masked),
                "source": {"name": self.source, "message": self.source_message},
            }

    def highlight(self) -> list[str]:
        """Squares to mark on the camera image: those of open alerts and of a pending capture."""
        with self.lock:
            squares: list[str] = []
            for a in self.record.alerts:
                squares.extend(str(s) for s in a.get("squares", []))
            if self.record.pending:
                squares.extend(str(s) for s in self.record.pending.get("remaining", []))
            return list(dict.fromkeys(squares))

    def frame_jpeg(self, overlay: bool = True, quality: int = 80) -> bytes | None:
        with self._frame_lock:
            frame, result = self._frame, self._result
        if frame is None:
            return None
        if overlay and result is not None and getattr(result, "found", False):
            try:
                frame = self.vision.draw_overlay(frame, result, highlight=self.highlight(),
                                                 masked=square_names(self.masked))
            except Exception:
                log.exception("overlay drawing failed; sending the plain frame")
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return bytes(data) if ok else None

    def pdn(self, tags: dict[str, str] | None = None) -> str:
        with self.lock:
            return self.record.pdn(tags)


class Companion:
    """Every board watched by this process, behind the interface the dashboard reads."""

    def __init__(self, bus: EventBus | None = None, tags: dict[str, str] | None = None,
                 board_tags: dict[str, dict[str, str]] | None = None) -> None:
        self.bus = bus or EventBus()
        self.tags = dict(tags or {})  # PDN tags of every board (Event, Site, Round …)
        self.board_tags = {b: dict(t) for b, t in (board_tags or {}).items()}  # one board's (White, Board …)
        self._sessions: dict[str, BoardSession] = {}

    def add(self, session: BoardSession) -> BoardSession:
        if session.board in self._sessions:
            raise ValueError(f"board {session.board!r} is already watched")
        self._sessions[session.board] = session
        return session

    def session(self, board: str) -> BoardSession:
        try:
            return self._sessions[board]
        except KeyError:
            raise ValueError(f"unknown board {board!r}; boards: {', '.join(self._sessions)}") from None

    def boards(self) -> list[str]:
        return list(self._sessions)

    def snapshot(self, board: str) -> dict[str, Any]:
        return self.session(board).snapshot()

    def frame_jpeg(self, board: str, overlay: bool = True) -> bytes | None:
        return self.session(board).frame_jpeg(overlay)

    def subscribe(self) -> Subscription:
        return self.bus.subscribe()

    def control(self, board: str, action: str, **params: Any) -> dict[str, Any]:
        return self.session(board).control(action, **params)

    def tags_of(self, board: str) -> dict[str, str]:
        """The PDN tags of ``board``: the common ones overridden by the board's own."""
        return {**self.tags, **self.board_tags.get(board, {})}

    def pdn(self, board: str) -> str:
        return self.session(board).pdn(self.tags_of(board))

    def close(self, timeout: float = 10.0) -> None:
        self.bus.close(timeout)
