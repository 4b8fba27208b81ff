"""Animate a script of board states: a hand enters, lifts and places pieces, leaves; each state is
then held still and unoccluded. Writes an mp4 (or numbered PNGs) and a JSON ground truth."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.render.camera import Camera
from vision.render.geometry import SQUARE_NAMES, parse_board
from vision.render.hand import SIDES, hand_in_view
from vision.render.params import HandPose, SceneParams, random_scene_params
from vision.render.scene import SceneRenderer, renderer_for

CARRY_MM = 70.0  # height of the fingertips while carrying
OFF_STEPS_MM = (400.0, 700.0, 1000.0, 1500.0, 2200.0, 3000.0)  # tried beyond the edge, nearest first
FAST_MM_S = 1600.0  # hand speed while coming from or going out of the picture


@dataclass
class _Key:
    t: float
    xy: np.ndarray
    z: float
    board: str
    holding: str | None
    side: str


@dataclass
class _Step:
    """One square the hand visits: take the piece there and/or leave ``place`` there."""

    square: int
    take: bool
    place: str | None


def plan_trips(old: str, new: str) -> list[tuple[str, list[_Step], str | None]]:
    """Hand trips turning ``old`` into ``new``: (side, steps, piece carried in from off the board).

    A moved piece travels with the hand (pairing a vacated square with a newly filled one of the
    same colour); captured pieces are then removed one trip each; anything else is brought or
    replaced by its own trip (e.g. crowning: a second disc is put on a man).
    """
    removed = [i for i in range(32) if old[i] != "." and new[i] == "."]
    added = [i for i in range(32) if old[i] == "." and new[i] != "."]
    changed = [i for i in range(32) if old[i] != "." and new[i] != "." and old[i] != new[i]]
    trips: list[tuple[str, list[_Step], str | None]] = []
    mover_side: str | None = None
    for j in list(added):
        same = [i for i in removed if old[i].lower() == new[j].lower()]
        if not same:
            continue
        i = same[0]
        removed.remove(i)
        added.remove(j)
        mover_side = "white" if new[j].lower() == "w" else "black"
        trips.append((mover_side, [_Step(i, True, None), _Step(j, False, new[j])], None))
    for i in removed:
        side = mover_side or ("black" if old[i].lower() == "w" else "white")
        trips.append((side, [_Step(i, True, None)], None))
    for i in changed:
        side = "white" if new[i].lower() == "w" else "black"
        # crowning brings one disc, uncrowning takes one away, a piece of the other colour replaces it
        same_colour = old[i].lower() == new[i].lower()
        carried = (new[i].lower() if new[i].isupper() else None) if same_colour else new[i]
        trips.append((side, [_Step(i, True, new[i])], carried))
    for j in added:
        side = "white" if new[j].lower() == "w" else "black"
        trips.append((side, [_Step(j, False, new[j])], new[j]))
    return trips


def _smooth(a: float) -> float:
    return a * a * (3 - 2 * a)


class _Animator:
    """Turns trips into keyframes and keyframes into per-frame (board, hand) pairs."""

    def __init__(self, renderer: SceneRenderer, fps: float) -> None:
        self.r = renderer
        self.g = renderer.params.geometry
        self.fps = fps
        self.piece_h = renderer.pieces.h

    def off_point(self, side: str, near: np.ndarray) -> np.ndarray:
        """Where the hand appears and vanishes: beyond the ``side`` edge, far enough that the hand is
        out of the picture when possible (so it never pops up in the middle of the table)."""
        out = np.array(SIDES[side])
        c = np.array(self.g.center_mm)
        along = np.array([-out[1], out[0]])
        base = c + along * ((near - c) @ along) * 0.5
        edge = self.g.playing_mm / 2 + self.g.frame_mm
        for extra in OFF_STEPS_MM:
            point = base + out * (edge + extra)
            pose = HandPose(height_mm=CARRY_MM + 40, side=side, xy_mm=(float(point[0]), float(point[1])))
            if not hand_in_view(self.r, pose):
                break
        return point

    def trip_keys(self, t: float, board: str, side: str, steps: list[_Step], carried: str | None) -> tuple[
            list[_Key], float, str]:
        keys: list[_Key] = []
        first = np.array(self.g.square_center(steps[0].square))
        pos = self.off_point(side, first)
        holding = carried
        keys.append(_Key(t, pos, CARRY_MM + 40, board, holding, side))
        for st in steps:
            target = np.array(self.g.square_center(st.square))
            far = np.linalg.norm(target - pos)
            t += 0.25 + (far / FAST_MM_S if st is steps[0] else far / 900.0)
            keys.append(_Key(t, target, CARRY_MM, board, holding, side))
            stack = 2 if board[st.square].isupper() else (1 if board[st.square] != "." else 0)
            placed = 2 if (st.place or "w").isupper() else 1
            grip = stack * self.piece_h + 6.0 if st.take else placed * self.piece_h + 4.0
            t += 0.35
            keys.append(_Key(t, target, grip, board, holding, side))
            t += 0.12
            chars = list(board)
            old = board[st.square]
            if st.take and st.place is not None:  # a swap on one square
                if old.lower() != st.place.lower():
                    holding = old  # the replaced piece leaves with the hand
                else:  # crowning leaves the carried disc on the man; uncrowning takes a disc away
                    holding = old.lower() if old.isupper() and st.place.islower() else None
                chars[st.square] = st.place
            elif st.take:
                holding = old
                chars[st.square] = "."
            elif st.place is not None:
                chars[st.square] = st.place
                holding = None
            board = "".join(chars)
            keys.append(_Key(t, target, grip, board, holding, side))
            t += 0.3
            keys.append(_Key(t, target, CARRY_MM, board, holding, side))
            pos = target
        off = self.off_point(side, pos)
        t += 0.25 + np.linalg.norm(off - pos) / FAST_MM_S
        keys.append(_Key(t, off, CARRY_MM + 40, board, holding, side))
        return keys, t, board

    def frames(self, keys: list[_Key], t0: float, t1: float, start_frame: int) -> list[tuple[str, HandPose | None]]:
        """Sample keyframes at the frame times in [t0, t1)."""
        out = []
        k = 0
        n0 = start_frame
        n1 = max(n0 + 1, int(round(t1 * self.fps)))
        for n in range(n0, n1):
            t = n / self.fps
            while k + 1 < len(keys) - 1 and keys[k + 1].t <= t:
                k += 1
            a, b = keys[k], keys[min(k + 1, len(keys) - 1)]
            s = 0.0 if b.t <= a.t else _smooth(float(np.clip((t - a.t) / (b.t - a.t), 0, 1)))
            xy = a.xy + (b.xy - a.xy) * s
            z = a.z + (b.z - a.z) * s
            board, holding = (b.board, b.holding) if t >= b.t else (a.board, a.holding)
            out.append((board, HandPose(height_mm=float(z), holding=holding, side=a.side,
                                        xy_mm=(float(xy[0]), float(xy[1])))))
        return out


def camera_motion(n: int, fps: float, shake_deg: float, bumps: int, earliest: int, seed: int) -> np.ndarray | None:
    """Per-frame camera rotations (n, 3) in degrees: smooth hand-held wobble plus lasting bumps.

    None when there is no motion. Wobble: three sinusoids per axis (0.15-1.2 Hz, random phases),
    scaled so the largest rotation is about ``shake_deg``. Bumps: at random frames from ``earliest``
    on, a jolt of 1-3° about a random axis reached within two frames, which stays.
    """
    if shake_deg <= 0 and bumps <= 0:
        return None
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, 7])
    t = np.arange(n) / fps
    rot = np.zeros((n, 3))
    if shake_deg > 0:
        for axis, weight in enumerate((1.0, 1.0, 0.5)):  # roll about the optical axis is smaller
            wave = sum(np.sin(2 * np.pi * rng.uniform(0.15, 1.2) * t + rng.uniform(0, 2 * np.pi)) for _ in range(3))
            rot[:, axis] = wave / 3.0 * shake_deg * weight
    if bumps > 0 and earliest < n:
        for f in np.sort(rng.integers(earliest, n, bumps)):
            axis = rng.standard_normal(3)
            step = axis / np.linalg.norm(axis) * rng.uniform(1.0, 3.0)
            ramp = np.clip((np.arange(n) - f + 1) / 2.0, 0, 1)[:, None]
            rot += ramp * step[None, :]
    return rot


def _ranges(flags: list[bool]) -> list[list[int]]:
    out: list[list[int]] = []
    for i, f in enumerate(flags):
        if f and out and out[-1][1] == i - 1:
            out[-1][1] = i
        elif f:
            out.append([i, i])
    return out


def render_video(
    states: list[str],
    out_path: str | Path,
    seed: int = 0,
    size: tuple[int, int] = (1280, 720),
    fps: float = 15.0,
    hold_seconds: float = 1.5,
    params: SceneParams | None = None,
    progress: Callable[[int, int], None] | None = None,
    shake_deg: float = 0.0,
    bumps: int = 0,
) -> dict:
    """Animate ``states`` (observation strings; the first is the start) into ``out_path``.

    Between consecutive states a hand makes the change (see :func:`plan_trips`), then the state is
    held still and unoccluded for ``hold_seconds``. ``out_path`` ending in ``.mp4`` (or any other file
    name) gets an mp4 ('mp4v'); an existing folder or a path without suffix gets numbered PNGs
    ``frame_000000.png``. The ground truth is returned and written to ``out_path`` with suffix
    ``.json``: fps, size, frame_count, camera, corners, square_centers, ``timeline`` (per state:
    index, board, ``held`` = [first, last] frame, inclusive), ``hand`` (inclusive frame ranges where
    the hand touches the board area) and ``frames`` (per frame: board, occluded, hand). Same inputs
    and seed give byte-identical frames; ``frames[i]["hand_in_view"]`` says whether any of the hand
    or arm is in the picture at all. ``progress(done, total)`` is called after every frame.
    Without ``params`` the scene is ``random_scene_params(default_rng(seed), size=size)``; with them,
    ``size`` is ignored (the camera's size is used).

    Camera motion (off by default): ``shake_deg`` > 0 lets the camera wobble smoothly about its own
    centre like a hand-held phone (peak rotation about that many degrees); ``bumps`` > 0 knocks it
    that many times, at random moments after the first held state, by 1-3° that stay. The image
    then moves during held ranges too (the board and the absence of hands still hold), and every
    entry of ``frames`` gets the frame's ``corners`` and ``camera``.
    """
    if not states:
        raise ValueError("the script has no board states")
    states = [parse_board(s) for s in states]
    if fps <= 0 or hold_seconds < 0:
        raise ValueError("fps must be positive and hold_seconds not negative")
    if not (0 <= shake_deg <= 10) or bumps < 0:
        raise ValueError("shake_deg must be in [0, 10] and bumps not negative")
    if params is None:
        params = random_scene_params(np.random.default_rng(seed), size=size)
    renderer = renderer_for(params)
    anim = _Animator(renderer, fps)
    # schedule: (board, hand) per frame
    schedule: list[tuple[str, HandPose | None]] = []
    held: list[list[int]] = []
    hold_n = max(1, int(round(hold_seconds * fps)))
    board = states[0]
    for idx, target in enumerate(states):
        if idx > 0:
            for side, steps, carried in plan_trips(board, target):
                t0 = len(schedule) / fps
                keys, t1, board = anim.trip_keys(t0, board, side, steps, carried)
                schedule += anim.frames(keys, t0, t1, len(schedule))
            board = target  # the hand has made exactly this position
        held.append([len(schedule), len(schedule) + hold_n - 1])
        schedule += [(target, None)] * hold_n
    out_path = Path(out_path)
    as_folder = out_path.is_dir() or out_path.suffix == ""
    writer = None
    w, h = params.camera.size
    if as_folder:
        out_path.mkdir(parents=True, exist_ok=True)
    else:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        writer = cv2.VideoWriter(str(out_path), cv2.VideoWriter_fourcc(*"mp4v"), float(fps), (w, h))
        if not writer.isOpened():
            raise OSError(f"cannot open a video writer for {out_path}")
    edge = renderer.params.geometry.outer_corners3d()
    outline = np.concatenate([edge[i] + (edge[(i + 1) % 4] - edge[i]) * np.linspace(0, 1, 16)[:, None]
                              for i in range(4)])

    def board_area(cam: Camera) -> np.ndarray:
        area = np.zeros((h, w), dtype=np.uint8)
        cv2.fillPoly(area, [np.round(cam.project(outline)).astype(np.int32)], 1)
        return area.astype(bool)

    rotations = camera_motion(len(schedule), fps, shake_deg, bumps, held[0][1] + 1, seed)
    board_px = board_area(params.camera)
    frames_gt = []
    try:
        for n, (b, hand) in enumerate(schedule):
            rot = None if rotations is None else tuple(float(v) for v in rotations[n])
            r = renderer.frame(b, hand, seed=n, camera_rotation=rot)
            if writer is not None:
                writer.write(r.image)
            else:
                cv2.imwrite(str(out_path / f"frame_{n:06d}.png"), r.image)
            area = board_px if rot is None else board_area(r.camera)
            over = bool(hand is not None and (r.hand_mask & area).any())
            in_view = bool(r.hand_mask.any())
            entry = {"board": b, "occluded": r.occluded, "hand": over, "hand_in_view": in_view}
            if rot is not None:
                entry["corners"] = {k: list(v) for k, v in r.corners.items()}
                entry["camera"] = r.camera.to_dict()
            frames_gt.append(entry)
            if progress is not None:
                progress(n + 1, len(schedule))
    finally:
        if writer is not None:
            writer.release()
    truth = {
        "fps": float(fps),
        "size": [w, h],
        "frame_count": len(schedule),
        "seed": int(seed),
        "camera": params.camera.to_dict(),
        "corners": {k: list(v) for k, v in renderer.corners.items()},
        "square_centers": {n: list(map(float, p)) for n, p in zip(SQUARE_NAMES, renderer.square_centers, strict=True)},
        "timeline": [{"index": i, "board": s, "held": held[i]} for i, s in enumerate(states)],
        "hand": _ranges([f["hand"] for f in frames_gt]),
        "frames": frames_gt,
    }
    json_path = out_path.with_suffix(".json") if not as_folder else out_path.parent / (out_path.name + ".json")
    json_path.write_text(json.dumps(truth, indent=1))
    return truth
