"""Stand-ins for the loop tests that must not depend on camera accuracy: a synthetic "camera" whose
frames encode the board plainly, a vision that decodes them, and a minimal
referee used only while ``rules.referee`` is absent. None of this is used by the product."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from board_io.sources import Frame
from rules import Color, Position, square_name

CELL = 8
COLOURS = {".": (90, 90, 90), "w": (240, 240, 240), "b": (20, 20, 20), "W": (240, 180, 60), "B": (60, 20, 120)}
HAND = (30, 140, 230)


def dark_cells() -> list[tuple[int, int]]:
    """(row, col) in the image of each dark square in observation order (a1 bottom-left)."""
    cells = []
    for rank in range(8):
        for file in range(8):
            if (file + rank) % 2 == 0:
                cells.append((7 - rank, file))
    return cells


def encode(board: str, hand: bool = False) -> np.ndarray:
    img = np.full((8 * CELL, 8 * CELL, 3), 200, np.uint8)
    for ch, (r, c) in zip(board, dark_cells(), strict=True):
        img[r * CELL:(r + 1) * CELL, c * CELL:(c + 1) * CELL] = COLOURS[ch]
    if hand:
        img[2 * CELL:5 * CELL, 2 * CELL:6 * CELL] = HAND
    return img


@dataclass
class FakeResult:
    found: bool
    board: str | None
    hand: bool
    orientation_ok: bool | None = True
    reason: str = ""
    ms: float = 0.0


class FakeVision:
    def __init__(self, profile: str | None = None) -> None:
        self.profile = profile

    def process(self, frame: np.ndarray, t: float) -> FakeResult:
        if frame.shape[:2] != (8 * CELL, 8 * CELL):
            frame = cv2.resize(frame, (8 * CELL, 8 * CELL), interpolation=cv2.INTER_NEAREST)
        hand = bool(np.abs(frame[3 * CELL + 4, 3 * CELL + 4].astype(int) - HAND).sum() < 60)
        chars = []
        for r, c in dark_cells():
            px = frame[r * CELL + CELL // 2, c * CELL + CELL // 2].astype(int)
            best = min(COLOURS, key=lambda k: int(np.abs(px - COLOURS[k]).sum()))
            chars.append(best)
        return FakeResult(True, "".join(chars), hand)

    def draw_overlay(self, frame: np.ndarray, result: FakeResult, highlight: list[str] | None = None,
                     masked: list[str] | None = None) -> np.ndarray:
        out = frame.copy()
        cv2.rectangle(out, (0, 0), (out.shape[1] - 1, out.shape[0] - 1), (0, 255, 0), 1)
        return out


def frames_for(states: list[str], fps: float = 10.0, hold: float = 1.5, hand: float = 0.5,
               size: tuple[int, int] | None = None) -> Iterator[Frame]:
    """Each state shown for ``hold`` seconds, a hand over the board for ``hand`` seconds between."""
    i = 0
    for k, state in enumerate(states):
        spans = [(False, hold)] if k == 0 else [(True, hand), (False, hold)]
        for with_hand, seconds in spans:
            img = encode(state, with_hand)
            if size:
                img = cv2.resize(img, size, interpolation=cv2.INTER_NEAREST)
            for _ in range(int(round(seconds * fps))):
                yield Frame(i / fps, img, i)
                i += 1


def write_video(states: list[str], path: str, fps: float = 10.0, size: tuple[int, int] = (128, 128),
                **kwargs: float) -> int:
    codec = "MJPG" if path.endswith(".avi") else "mp4v"
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*codec), fps, size)
    n = 0
    for frame in frames_for(states, fps=fps, size=size, **kwargs):
        writer.write(frame.image)
        n += 1
    writer.release()
    return n


class MiniReferee:
    """Only while rules.referee is absent: explains a board by one legal move, else flags it."""

    def __init__(self, position: Position | None = None) -> None:
        self.position = position or Position.start()
        self.history: list[Position] = []
        self.flagged: str | None = None
        self.ply = 0

    def observe(self, observation: str, t: float | None = None) -> list[dict]:
        if observation == self.position.board_string():
            if self.flagged:
                self.flagged = None
                return [{"event": "corrected"}]
            return []
        for m in self.position.legal_moves():
            after = self.position.play(m)
            if after.board_string() == observation:
                self.history.append(self.position)
                self.ply += 1
                side = "white" if self.position.turn == Color.WHITE else "black"
                event = {"event": "move", "ply": self.ply, "side": side, "move": self.position.notation(m),
                         "path": m.path_names(), "captured": m.captured_names(), "fen": after.fen()}
                self.position = after
                self.flagged = None
                return [event]
        pending = self._pending(observation)
        if pending:
            return [pending]
        if self.flagged == observation:
            return []
        self.flagged = observation
        side = "white" if self.position.turn == Color.WHITE else "black"
        kind = "missed_capture" if self.position.has_capture() else "illegal_move"
        return [{"event": "violation", "kind": kind, "side": side, "squares": [],
                 "legal": [self.position.notation(m) for m in self.position.legal_moves()],
                 "message": "not a legal move"}]

    def _pending(self, observation: str) -> dict | None:
        before = self.position.board_string()
        for m in self.position.legal_moves():
            if len(m.captured) < 2:
                continue
            after = list(self.position.play(m).board_string())
            remaining = [s for s in m.captured if observation[s] != "."]
            for s in remaining:
                after[s] = before[s]
            if remaining and "".join(after) == observation:
                return {"event": "pending", "side": "white" if self.position.turn == Color.WHITE else "black",
                        "move": self.position.notation(m), "remaining": [square_name(s) for s in remaining]}
        return None

    def accept(self) -> list[dict]:
        if not self.flagged:
            return []
        self.position = Position.from_board_string(self.flagged, self.position.turn.opponent)
        self.flagged = None
        return [{"event": "accepted", "fen": self.position.fen()}]

    def takeback(self) -> list[dict]:
        if not self.history:
            return []
        self.position = self.history.pop()
        self.ply -= 1
        return [{"event": "takeback", "ply": self.ply, "fen": self.position.fen()}]

    def reset(self, position: Position) -> list[dict]:
        self.position, self.history, self.flagged, self.ply = position, [], None, 0
        return []


def referee_factory():
    try:
        from rules.referee import Referee
    except ImportError:
        return MiniReferee
    return Referee


class ListSource:
    """A recorded source made of :func:`frames_for` frames (``--source`` stand-in for loop tests)."""

    live = False

    def __init__(self, frames, name="frames", on_status=None):
        self.name = name
        self._frames = list(frames)
        self.on_status = on_status

    def __iter__(self):
        yield from self._frames
        if self.on_status:
            self.on_status("ended", f"{self.name}: end of video after {len(self._frames)} frames")

    def close(self):
        pass


class FakeClock:
    """Time that passes only when a source sleeps: reconnection back-off tested without waiting."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.now += s
