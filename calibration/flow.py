"""The guided calibration: lens (if a pattern is shown), board, orientation, colours, the check.

The flow eats frames from any iterable (a camera, a video file) and talks through two callbacks:
``say(line)`` for progress and ``confirm(question) -> bool`` for the one question it asks (are these
the board's corners?). It never blocks on anything else, so the same code serves the terminal, the
dashboard and the tests. It ends with a checklist and a profile ready to save.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration import vision_adapter
from calibration.board import (
    OrientationReport,
    board_calibration,
    label_corners,
    orient_from_start,
    rule_2_4,
    start_score,
    top_view,
)
from calibration.board_fit import refine_corners
from calibration.colours import (
    LightingReport,
    SquareProblem,
    check_start,
    classify,
    dark_square_samples,
    learn,
    lighting,
    square_vectors,
)
from calibration.intrinsics import IntrinsicsResult, ViewCollector, find_pattern, solve
from calibration.pattern import PatternSpec
from calibration.profile import CORNER_NAMES, CameraIntrinsics, Profile
from calibration.undistort import undistort

EMPTY_SCORE = 0.35  # start_score below this: no pieces (rendered boards: empty <= 0.16, start >= 0.78)
START_SCORE = 0.5  # at least this: White's pieces stand on ranks 1-3


@dataclass
class Options:
    """How the flow behaves; the defaults suit a 15–30 fps camera or video."""

    pattern: PatternSpec | None = field(default_factory=PatternSpec)  # None: no lens step
    pattern_wait: int = 12  # frames to look for the pattern before skipping the lens step
    pattern_gone: int = 15  # frames without the pattern that end the lens step
    min_views: int = 6
    target_views: int = 12
    corners: np.ndarray | None = None  # manual corners (any order), pipeline-frame pixels
    white_side: str | None = None  # manual side; None reads it from the start position
    stable_frames: int = 3  # consecutive detections that must agree
    stable_px: float = 1.5
    max_frames: int | None = None  # give up after this many frames (live sources)


@dataclass
class CheckItem:
    name: str
    ok: bool | None  # None: skipped
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "detail": self.detail}


@dataclass
class FlowResult:
    """Outcome of the guided flow: the profile and the final checklist."""

    profile: Profile
    checklist: list[CheckItem]
    intrinsics: IntrinsicsResult | None = None
    orientation: OrientationReport | None = None
    problems: list[SquareProblem] = field(default_factory=list)
    lighting: LightingReport | None = None
    frames: int = 0

    @property
    def ok(self) -> bool:
        return all(item.ok is not False for item in self.checklist)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "checklist": [c.to_json() for c in self.checklist],
                "problems": [{"square": p.square, "expected": p.expected, "read": p.read,
                              "message": p.message} for p in self.problems],
                "profile": self.profile.to_json()}


def _stable(points: list[np.ndarray], tolerance: float) -> bool:
    ref = points[-1]
    return all(np.max(np.linalg.norm(p - ref, axis=1)) <= tolerance for p in points[:-1])


def _match_order(points: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Rotate ``points`` so they correspond one to one with ``ref`` (detectors may start anywhere)."""
    best = min(range(4), key=lambda k: float(np.sum(np.linalg.norm(np.roll(points, -k, 0) - ref, axis=1))))
    return np.roll(points, -best, 0)


def board_visible(frame: np.ndarray, pts: np.ndarray, previous: np.ndarray | None = None) -> bool:
    """Is a still checkerboard inside these corners (not the pattern sheet, not a moving hand)?"""
    named = label_corners(pts, "bottom")
    _, contrast = rule_2_4(frame, named)
    if abs(contrast) < 12:
        return False
    if previous is None:
        return True
    a = top_view(frame, named).astype(np.int16)
    b = top_view(previous, named).astype(np.int16)
    return float(np.mean(np.abs(a - b))) < 6.0


def still_board_frames(frames: Iterable[np.ndarray], pts: np.ndarray, count: int = 3) -> list[np.ndarray]:
    """The first ``count`` consecutive frames showing a still board inside ``pts`` ([] if none)."""
    kept: list[np.ndarray] = []
    for frame in frames:
        if board_visible(frame, pts, kept[-1] if kept else None):
            kept.append(frame)
            if len(kept) == count:
                return kept
        else:
            kept = []
    return []


class CalibrationFlow:
    """Run :meth:`run` once over a frame stream; see the module docstring."""

    def __init__(self, name: str, options: Options | None = None,
                 say: Callable[[str], None] = print,
                 confirm: Callable[[str], bool] = lambda question: True) -> None:
        self.name = name
        self.opt = options or Options()
        self.say = say
        self.confirm = confirm
        self.frames = 0  # frames read so far
        self.empty_points: np.ndarray | None = None  # corners measured on the empty board, if shown
        self.told_setup = False
        self.camera: CameraIntrinsics | None = None  # set once the lens is calibrated

    # --- step 1: lens ------------------------------------------------------------------------------

    def lens(self, frames: Iterable[np.ndarray], first: list[np.ndarray] | None = None) -> IntrinsicsResult | None:
        """Collect pattern views and solve; frames that may show the board are handed on in ``first``."""
        first = [] if first is None else first
        spec = self.opt.pattern
        assert spec is not None
        self.say(f"[1/5] Lens: show the printed pattern ({spec.cols}x{spec.rows} squares of "
                 f"{spec.square_mm:g} mm), or the board to skip this step")
        collector = ViewCollector(spec, target_views=self.opt.target_views)
        gone = 0
        for frame in frames:
            self.frames += 1
            if collector.image_size is None:
                collector.image_size = (frame.shape[1], frame.shape[0])
            corners = find_pattern(frame, spec)
            if corners is None:
                gone += 1
                first.append(frame)  # maybe the board already: the next step gets these frames
                if not collector.views and gone >= self.opt.pattern_wait:
                    self.say("      no pattern in view: lens step skipped (lens distortion not corrected)")
                    return None
                if collector.views and gone >= self.opt.pattern_gone:
                    break
                continue
            gone = 0
            first.clear()
            offer = collector.add(corners)
            if offer.accepted:
                self.say("      " + collector.progress())
            if collector.ready:
                break
        if not collector.views:
            self.say("      no pattern in view: lens step skipped (lens distortion not corrected)")
            return None
        if len(collector.views) < self.opt.min_views:
            self.say(f"      only {len(collector.views)} different views (need {self.opt.min_views}): "
                     "lens step skipped; move and tilt the pattern more next time")
            return None
        assert collector.image_size is not None
        result = solve(collector.views, spec, collector.image_size)
        fx, fy = result.camera.focal
        dropped = f" ({result.dropped} blurred or misdetected views left out)" if result.dropped else ""
        self.say(f"      calibrated from {len(result.per_view)} views{dropped}: focal length {fx:.1f} x {fy:.1f} px, "
                 f"RMS reprojection error {result.rms:.2f} px"
                 + ("" if result.rms < 1.0 else " (high: was the sheet flat and the picture sharp?)"))
        return result

    # --- steps 2-5 ---------------------------------------------------------------------------------

    def _board_frames(self, frames: Iterable[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray] | None:
        """Frames on which the board is found at the same place ``stable_frames`` times in a row."""
        recent: list[np.ndarray] = []
        kept: list[np.ndarray] = []
        misses = 0
        for frame in frames:
            self.frames += 1
            if self.opt.max_frames is not None and self.frames > self.opt.max_frames:
                return None
            frame = undistort(frame, self.camera)
            if self.opt.corners is not None:
                pts = np.asarray(self.opt.corners, np.float64)
                if not board_visible(frame, pts, kept[-1] if kept else None):
                    recent, kept = [], []
                    continue
                recent.append(pts)
                kept.append(frame)
                if len(kept) >= self.opt.stable_frames:
                    if start_score(frame, orient_from_start(frame, pts).corners) >= START_SCORE:
                        return kept[-self.opt.stable_frames:], pts
                    if not self.told_setup:
                        self.say("      the pieces are not in the start position yet: set them up")
                        self.told_setup = True
                    recent, kept = [], []
                continue
            pts = vision_adapter.find_board_points(frame)
            if pts is None:
                recent, kept = [], []
                misses += 1
                if misses % 90 == 0:
                    self.say("      board not found yet: the whole board in view, nothing on its edges, "
                             "no hands over it")
                continue
            if recent:
                pts = _match_order(pts, recent[-1])
            recent.append(pts)
            kept.append(frame)
            recent, kept = recent[-self.opt.stable_frames:], kept[-self.opt.stable_frames:]
            if len(recent) == self.opt.stable_frames and _stable(recent, self.opt.stable_px):
                points = np.mean(recent, axis=0)
                score = start_score(frame, orient_from_start(frame, points).corners)
                if score < EMPTY_SCORE:
                    # every corner of the grid is visible: the most precise fit there is; keep it
                    # for as long as the board stays put, then wait for the pieces
                    if self.empty_points is None:
                        self.say("      empty board seen: its corners are measured; now set up the start position")
                    self.empty_points = points
                    recent, kept = [], []
                    continue
                if score < START_SCORE:
                    if not self.told_setup:
                        self.say("      the pieces are not in the start position yet: set them up")
                        self.told_setup = True
                    recent, kept = [], []
                    continue
                if self.empty_points is not None:
                    square = float(np.linalg.norm(points[1] - points[0])) / 8
                    near = _match_order(self.empty_points, points)
                    if float(np.max(np.linalg.norm(near - points, axis=1))) < 0.25 * square:
                        self.say("      corners taken from the empty board (more precise)")
                        return kept, near
                return kept, points
        return None

    def run(self, frames: Iterable[np.ndarray]) -> FlowResult:
        """The whole guided flow; never raises for a bad picture, it reports it in the checklist."""
        self.frames = 0
        self.camera = None
        profile = Profile(name=self.name)
        checklist: list[CheckItem] = []
        stream = iter(frames)
        lens: IntrinsicsResult | None = None
        pending: list[np.ndarray] = []
        if self.opt.pattern is not None and self.opt.corners is None:
            lens = self.lens(stream, pending)
        if lens is not None:
            profile.camera = lens.camera
            self.camera = lens.camera
        lens_item = CheckItem("lens calibrated", None if lens is None else lens.rms < 1.0,
                              "skipped: no pattern shown" if lens is None else f"RMS {lens.rms:.2f} px")

        self.say("[2/5] Board: show the board with the pieces in the start position")
        found = self._board_frames([*pending, *stream])
        if found is None:
            detail = ("only the empty board was seen: set up the start position and run again"
                      if self.empty_points is not None else "no steady view of the whole board")
            checklist = [CheckItem("board found", False, detail),
                         CheckItem("orientation correct", None, "needs the board"),
                         CheckItem("pieces read correctly", None, "needs the board"),
                         CheckItem("lighting acceptable", None, "needs the board"), lens_item]
            self._print_checklist(checklist)
            return FlowResult(profile, checklist, intrinsics=lens, frames=self.frames)
        board_frames, points = found
        frame = np.median(np.stack(board_frames), axis=0).astype(np.uint8)  # steadier than one frame
        if self.opt.corners is None:
            # the localizer's corners are extrapolated from its inner corners; every grid edge of the
            # still view, ranks 1-8, measures them better (calibration.board_fit)
            edge_fit = refine_corners(frame, points)
            if edge_fit is not None:
                points = edge_fit.points
        orientation = orient_from_start(frame, points)
        corners = orientation.corners if self.opt.white_side is None else label_corners(points, self.opt.white_side)
        source = "manual" if self.opt.corners is not None else "auto"
        shown = "  ".join(f"{k} ({corners[k][0]:.1f}, {corners[k][1]:.1f})" for k in CORNER_NAMES)
        self.say(f"      found ({source}): {shown}")
        if source == "auto" and not self.confirm("      Are these the corners of the playing area?"):
            self.say("      give them by hand: dama calibrate --corners \"x,y x,y x,y x,y\", or drag them "
                     "on the dashboard's calibration page")
            checklist = [CheckItem("board found", False, "corners not confirmed"), lens_item]
            self._print_checklist(checklist)
            return FlowResult(profile, checklist, intrinsics=lens, frames=self.frames)
        profile.board = board_calibration(corners, source, (frame.shape[1], frame.shape[0]))
        checklist.append(CheckItem("board found", True, f"{source} corners"))

        self.say("[3/5] Orientation")
        if self.opt.white_side is not None and self.opt.white_side != orientation.white_side:
            self.say(f"      note: the pieces suggest White at the {orientation.white_side}, you said "
                     f"{self.opt.white_side}; using yours")
        rule_ok, _ = rule_2_4(frame, corners)
        if corners == orientation.corners:
            self.say("      " + orientation.message())
        else:
            self.say(f"      White sits at the {self.opt.white_side} of the picture (given); "
                     + ("a dark square is at each player's left" if rule_ok else
                        "but the square at White's left is light (čl. 2.4)"))
        checklist.append(CheckItem("orientation correct", rule_ok,
                                   f"White at the {profile.board.white_side}; dark square at each "
                                   f"player's left (čl. 2.4)" if rule_ok else
                                   "turn the board 90 degrees: a dark square belongs at each player's left "
                                   "(čl. 2.4)"))

        self.say("[4/5] Colours: learning from the start position (12 light, 12 dark pieces, 8 empty squares)")
        profile.colours = {}
        try:
            learned, reason = vision_adapter.learn_with_pipeline(frame, profile)
        except Exception as exc:  # the pipeline is another package: report, do not crash the set-up
            learned, reason = None, str(exc)
        if learned is not None:
            profile.colours["vision"] = learned
        elif reason:
            self.say(f"      the recognizer could not find the board on this picture ({reason}): the colours "
                     "are learned at the corners above; take hands and objects off the board")
        vec = square_vectors(frame, corners)
        model = vision_adapter.colour_model(profile)
        if model is None:  # one model either way: vision's, learned at the calibrated corners
            model = learn(vec)
            vision_adapter.set_colour_model(profile, model)
        self.say("[5/5] Check")
        dark, light = dark_square_samples(frame, corners)
        result = vision_adapter.pipeline_result(frame, profile)
        reading = result.board if result is not None else classify(model, vec)[0]
        problems = check_start(reading, dark)
        for p in problems:
            self.say("      " + p.message)
        good = 32 - len(problems)
        self.say(f"      {good}/32 squares read correctly")
        light_report = lighting(frame, corners, model, light, dark, vec)
        self.say("      " + light_report.message())
        checklist.append(CheckItem("pieces read correctly", not problems, f"{good}/32 squares"))
        checklist.append(CheckItem("lighting acceptable", light_report.ok, light_report.message()))
        kings = vision_adapter.crown_verdict(result)
        if kings is not None:  # advice, not a fault: in a game the referee knows the kings (čl. 3.6)
            everywhere, line = kings
            self.say("      " + line)
            checklist.append(CheckItem("kings' height in view", True if everywhere else None, line))
        checklist.append(lens_item)
        self._print_checklist(checklist)
        return FlowResult(profile, checklist, intrinsics=lens, orientation=orientation, problems=problems,
                          lighting=light_report, frames=self.frames)

    def _print_checklist(self, checklist: list[CheckItem]) -> None:
        self.say("Checklist")
        for item in checklist:
            mark = {True: "[x]", False: "[ ]", None: "[-]"}[item.ok]
            self.say(f"  {mark} {item.name}: {item.detail}")
