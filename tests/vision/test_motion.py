"""Moving video: hands seen on every frame they are over the board (moving or still), the stabilizer
passing on exactly the positions left on the board, checked against the renderer's per-frame truth."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.geometry import START_BOARD
from vision.pipeline import VisionPipeline
from vision.stabilizer import Stabilizer

FPS = 10.0


def _play(board: str, moves: list[tuple[int, int]]) -> list[str]:
    """Boards after each simple move (from, to) in observation order."""
    out = [board]
    for a, b in moves:
        chars = list(out[-1])
        chars[b], chars[a] = chars[a], "."
        out.append("".join(chars))
    return out


# c3-d4, f6-e5, g3-h4 (no captures: every state between two held ones is reached by one trip)
STATES = _play(START_BOARD, [(9, 13), (22, 18), (11, 15)])


def _run(path: str, truth: dict) -> list[dict]:
    """Each frame through the pipeline (colours learned from the first clear frame) and a stabilizer."""
    cap = cv2.VideoCapture(path)
    vp = VisionPipeline()
    stab = Stabilizer(hold_seconds=0.5)
    learned = False
    rows = []
    for n in range(truth["frame_count"]):
        ok, frame = cap.read()
        assert ok, f"frame {n} missing"
        t = n / FPS
        res = vp.process(frame, t)
        if not learned and res.found and not res.hand:
            learned = bool(vp.learn_start_position(frame)["ok"])
            res = vp.process(frame, t)
        emitted = stab.update(t, res.board if res.found else None, res.hand or not res.found)
        rows.append({"found": res.found, "hand": res.hand, "board": res.board, "emitted": emitted, "frame": frame})
    cap.release()
    return rows


@pytest.fixture(scope="module", params=[3, 11])
def video(request, tmp_path_factory):
    from vision.render import render_video

    path = tmp_path_factory.mktemp("motion") / f"moves-{request.param}.mp4"
    truth = render_video(STATES, path, seed=request.param, size=(480, 270), fps=FPS, hold_seconds=1.2)
    return truth, _run(str(path), truth)


def test_hand_seen_on_almost_every_frame_it_is_over_the_board(video):
    truth, rows = video
    over = [n for n, f in enumerate(truth["frames"]) if f["hand"] and rows[n]["found"]]
    assert len(over) > 30
    recall = sum(rows[n]["hand"] for n in over) / len(over)
    assert recall >= 0.98, f"hand recall {recall:.3f}"


def test_no_hand_on_held_still_frames(video):
    truth, rows = video
    still = [n for n, f in enumerate(truth["frames"]) if not f["hand_in_view"]]
    false = [n for n in still if rows[n]["hand"]]
    assert len(false) <= 0.02 * len(still), f"hand reported on still frames {false}"


def test_stabilizer_emits_once_per_held_state_and_never_under_a_hand(video):
    truth, rows = video
    emitted = [n for n, r in enumerate(rows) if r["emitted"] is not None]
    assert len(emitted) == len(STATES)
    for n, state in zip(emitted, truth["timeline"], strict=True):
        first, last = state["held"]
        assert first <= n <= last, f"frame {n}: a board was passed on while a hand was over it"


def test_stabilizer_emits_exactly_the_held_states_in_order(video):
    # seed 11 puts the emptied square c3 under a glare spot (read as a dark man before vision/squarenet.py)
    truth, rows = video
    assert [r["emitted"] for r in rows if r["emitted"] is not None] == STATES


def test_a_hand_holding_still_stays_seen(video):
    # Freeze the video on a frame with the hand over the board: a still hand is no part of the board.
    truth, rows = video
    held_end = truth["timeline"][0]["held"][1]
    n = next(k for k, f in enumerate(truth["frames"])
             if k > held_end and f["hand"] and f["occluded"].count("1") >= 2)
    vp = VisionPipeline()
    for k in range(n):  # the same history as the video up to that frame
        vp.process(rows[k]["frame"], k / FPS)
    results = [vp.process(rows[n]["frame"], (n + k) / FPS) for k in range(30)]
    assert all(r.hand for r in results)
    assert all("?" in r.board for r in results)


def test_a_hand_shadow_delays_a_move_but_does_not_hide_it(video):
    # A soft shadow over the middle of the board while a move appears (no hand in the picture): the
    # move may wait for the shadow to go, but it is passed on, and nothing else is.
    truth, rows = video
    frame_a = rows[truth["timeline"][0]["held"][1]]["frame"]
    frame_b = rows[truth["timeline"][1]["held"][1]]["frame"]
    h, w = frame_b.shape[:2]
    centre = np.mean([truth["corners"][k] for k in ("a1", "h1", "h8", "a8")], axis=0)
    size = np.linalg.norm(np.subtract(truth["corners"]["h8"], truth["corners"]["a1"]))
    yy, xx = np.mgrid[0:h, 0:w]
    blob = np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2 * (0.15 * size) ** 2))
    shadowed = (frame_b * (1.0 - 0.4 * blob)[..., None]).astype(np.uint8)
    reads = []
    for frame in (frame_a, frame_b):
        vp = VisionPipeline()
        vp.learn_start_position(frame_a)
        reads.append(vp.process(frame).board)
    assert reads[0] != reads[1]
    vp = VisionPipeline()
    vp.learn_start_position(frame_a)
    stab = Stabilizer(hold_seconds=0.5)
    out = []
    for n, frame in enumerate([frame_a] * 10 + [shadowed] * 10 + [frame_b] * 10):
        res = vp.process(frame, n / FPS)
        if (b := stab.update(n / FPS, res.board, res.hand)) is not None:
            out.append(b)
    assert out == reads


def test_stabilizer_grace_after_the_hand_and_minimum_frames():
    a = STATES[0]
    stab = Stabilizer(hold_seconds=0.5, grace_seconds=0.3)
    out = [stab.update(t / 10, a, t < 5) for t in range(20)]  # hand until 0.4 s; clear from 0.5 s
    assert [t / 10 for t, o in enumerate(out) if o] == [pytest.approx(1.2)]  # 0.4 + 0.3 grace + 0.5
    slow = Stabilizer(hold_seconds=0.5, grace_seconds=0.0, min_frames=3)
    assert slow.update(0.0, a, False) is None and slow.update(1.0, a, False) is None
    assert slow.update(2.0, a, False) == a
    with pytest.raises(ValueError):
        Stabilizer(grace_seconds=-0.1)
    with pytest.raises(ValueError):
        Stabilizer(min_frames=0)


def test_settled_view_survives_a_refit_that_lines_up():
    from vision.occlusion import same_place

    h = np.array([[40.0, 2.0, 100.0], [-1.0, 38.0, 50.0], [0.0, 0.0, 1.0]])
    nudged = h.copy()
    nudged[:2, 2] += 2.0  # 2 px when a square is about 40 px
    assert same_place(h, nudged)
    moved = h.copy()
    moved[:2, 2] += 15.0
    assert not same_place(h, moved)
