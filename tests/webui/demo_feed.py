"""A demo-style run for the dashboard tests: the real companion, stabilizer and referee, fed with frames
rendered by ``vision.render`` for each board of the demo script.

Only the reading of the picture is taken from the renderer's ground truth (the board each frame was
rendered from), so these tests follow the dashboard through the real session machinery without
depending on how well the vision pipeline reads the demo scene.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from dama.bus import EventBus
from dama.companion import BoardSession, Companion
from dama.demo.script import Step, demo_script


@dataclass
class TruthResult:
    board: str
    found: bool = True
    hand: bool = False
    orientation_ok: bool | None = True


class TruthVision:
    """Vision that knows what was rendered: ``process`` returns the board of the frame being fed."""

    def __init__(self) -> None:
        self.board = "?" * 32

    def process(self, frame: np.ndarray, t: float) -> TruthResult:
        return TruthResult(self.board)

    def draw_overlay(self, frame: np.ndarray, result: Any, highlight: list[str] | None = None,
                     masked: list[str] | None = None) -> np.ndarray:
        out = frame.copy()
        out[:6, :, :] = (0, 200, 0)  # a visible band: the overlay was asked for
        return out


def render_steps(steps: list[Step], size: tuple[int, int] = (480, 270), seed: int = 3) -> list[np.ndarray]:
    from vision.render import random_scene_params, render_scene

    params = random_scene_params(np.random.default_rng(seed), size=size)
    return [render_scene(s.board, params).image for s in steps]


class DemoFeed:
    """A companion with one board and a way to play the demo script into it, step by step."""

    def __init__(self, steps: int | None = None) -> None:
        from vision.stabilizer import Stabilizer

        self.script = demo_script()
        self.steps = self.script.steps[: steps or len(self.script.steps)]
        self.images = render_steps(self.steps)
        self.bus = EventBus()
        self.companion = Companion(self.bus, tags={"Event": "webui test"})
        self.vision = TruthVision()
        self.session = self.companion.add(BoardSession("1", self.bus, vision=self.vision,
                                                       stabilizer=Stabilizer(hold_seconds=0.5)))
        self.t = 0.0

    def show(self, index: int) -> None:
        """The camera sees step ``index`` long enough for the stabilizer to pass it to the referee."""
        self.vision.board = self.steps[index].board
        for _ in range(3):
            self.session.process(self.t, self.images[index])
            self.t += 0.3

    def play(self, until: int, pause: float = 0.0, stop: threading.Event | None = None) -> None:
        for i in range(until):
            if stop is not None and stop.is_set():
                return
            self.show(i)
            if pause and stop is not None:
                stop.wait(pause)

    def index_of(self, kind: str) -> int:
        return next(i for i, s in enumerate(self.steps) if s.kind == kind)

    def close(self) -> None:
        self.companion.close(2.0)
