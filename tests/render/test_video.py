"""Video animation: trip planning, held ranges, determinism, ground truth file."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.render import random_scene_params, render_video
from vision.render.geometry import square_index
from vision.render.video import plan_trips

START = "wwwwwwwwwwww........bbbbbbbbbbbb"


def put(board: str, **squares: str) -> str:
    chars = list(board)
    for name, piece in squares.items():
        chars[square_index(name)] = piece
    return "".join(chars)


def test_plan_move_travels_with_the_hand() -> None:
    after = put(START, c3=".", d4="w")
    trips = plan_trips(START, after)
    assert len(trips) == 1
    side, steps, carried = trips[0]
    assert side == "white" and carried is None
    assert [(s.square, s.take, s.place) for s in steps] == [(square_index("c3"), True, None),
                                                            (square_index("d4"), False, "w")]


def test_plan_capture_removes_each_piece_with_its_own_visit() -> None:
    before = put("." * 32, c3="w", d4="b", f6="b")
    after = put("." * 32, g7="w")
    trips = plan_trips(before, after)
    assert len(trips) == 3
    assert trips[0][1][0].square == square_index("c3") and trips[0][1][1].place == "w"
    removed = sorted(t[1][0].square for t in trips[1:])
    assert removed == sorted([square_index("d4"), square_index("f6")])
    assert all(t[0] == "white" for t in trips)  # the capturer's hand takes them


def test_plan_crowning_and_setup() -> None:
    trips = plan_trips(put("." * 32, d8="w"), put("." * 32, d8="W", a1="b"))
    kinds = {(t[1][0].square, t[1][0].take, t[1][0].place, t[2]) for t in trips}
    assert (square_index("d8"), True, "W", "w") in kinds  # one disc is brought and put on the man
    assert (square_index("a1"), False, "b", "b") in kinds


def _read(path) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, f = cap.read()
        if not ok:
            break
        frames.append(f)
    cap.release()
    return frames


@pytest.fixture(scope="module")
def small_video(tmp_path_factory):
    out = tmp_path_factory.mktemp("video") / "game.mp4"
    states = [START, put(START, c3=".", d4="w"), put(START, c3=".", d4="w", f6=".", e5="b")]
    params = random_scene_params(np.random.default_rng(4), size=(320, 180))
    truth = render_video(states, out, params=params, fps=8.0, hold_seconds=1.0)
    return out, states, truth, params


def test_video_file_and_ground_truth(small_video) -> None:
    out, states, truth, params = small_video
    frames = _read(out)
    assert len(frames) == truth["frame_count"]
    assert frames[0].shape == (180, 320, 3)
    on_disk = json.loads(out.with_suffix(".json").read_text())
    assert on_disk == json.loads(json.dumps(truth))
    assert [t["board"] for t in truth["timeline"]] == states
    assert set(truth["corners"]) == {"a1", "h1", "h8", "a8"}
    assert len(truth["frames"]) == truth["frame_count"]
    assert truth["timeline"][-1]["held"][1] == truth["frame_count"] - 1


def test_held_ranges_are_still_and_unoccluded(small_video) -> None:
    out, states, truth, params = small_video
    frames = _read(out)
    hand_frames = {i for a, b in truth["hand"] for i in range(a, b + 1)}
    assert hand_frames, "a hand must make the changes"
    for entry in truth["timeline"]:
        a, b = entry["held"]
        assert b - a + 1 == 8  # 1 s at 8 fps
        assert not hand_frames & set(range(a, b + 1))
        for i in range(a, b + 1):
            assert truth["frames"][i]["board"] == entry["board"]
            assert truth["frames"][i]["occluded"] == "0" * 32
        # only sensor noise (fresh every frame, as in a real camera) and compression change
        noise_bound = 1.6 * params.noise_sigma + 1.0
        for i in range(a, b):
            assert np.abs(frames[i].astype(int) - frames[i + 1].astype(int)).mean() < noise_bound
    # while the hand works, frames differ from the still state far more than noise does
    # (measured inside the playing area, from the ground-truth corners)
    area = np.zeros(frames[0].shape[:2], np.uint8)
    quad = np.array([truth["corners"][k] for k in ("a1", "h1", "h8", "a8")])
    cv2.fillConvexPoly(area, np.round(quad).astype(np.int32), 1)
    inside = area.astype(bool)
    first_still = frames[truth["timeline"][0]["held"][1]].astype(int)

    def change(i: int) -> float:
        return float(np.abs(frames[i].astype(int) - first_still).sum(2)[inside].mean())

    assert max(change(i) for i in hand_frames) > change(0) + 10.0  # noise alone gives change(0)


def test_hand_comes_from_outside_the_picture(small_video) -> None:
    """Each visit starts and ends with the hand out of view, so it never pops up on the table."""
    _, _, truth, _ = small_video
    seen = [f["hand_in_view"] for f in truth["frames"]]
    held = [e["held"] for e in truth["timeline"]]
    for (_, end), (start, _) in zip(held, held[1:], strict=False):
        assert not seen[end + 1] and not seen[start - 1]
        assert any(seen[end + 1 : start])


def test_transitions_sit_between_held_states(small_video) -> None:
    _, _, truth, _ = small_video
    held = [e["held"] for e in truth["timeline"]]
    for (_, b0), (a1, _) in zip(held, held[1:], strict=False):
        between = [i for r in truth["hand"] for i in range(r[0], r[1] + 1) if b0 < i < a1]
        assert between, "each change is made by a hand between the held ranges"


def test_video_frames_are_deterministic(tmp_path) -> None:
    states = [START, put(START, c3=".", d4="w")]
    params = random_scene_params(np.random.default_rng(9), size=(160, 90))
    render_video(states, tmp_path / "a", params=params, fps=4.0, hold_seconds=0.5)
    render_video(states, tmp_path / "b", params=params, fps=4.0, hold_seconds=0.5)
    a = sorted((tmp_path / "a").glob("frame_*.png"))
    b = sorted((tmp_path / "b").glob("frame_*.png"))
    assert len(a) == len(b) > 4
    for x, y in zip(a, b, strict=True):
        assert x.read_bytes() == y.read_bytes()
    assert (tmp_path / "a.json").exists()


def test_empty_or_bad_script_is_rejected(tmp_path) -> None:
    with pytest.raises(ValueError):
        render_video([], tmp_path / "x.mp4")
    with pytest.raises(ValueError, match="32 characters"):
        render_video([START, "w" * 31], tmp_path / "x.mp4", size=(64, 36))


def test_capture_is_animated_piece_by_piece(tmp_path) -> None:
    """c3xe5xg7: the capturer travels, then each captured piece leaves in its own hand visit."""
    before = put("." * 32, c3="w", d4="b", f6="b", h8="b")
    after = put("." * 32, g7="w", h8="b")
    params = random_scene_params(np.random.default_rng(2), size=(96, 54))
    truth = render_video([before, after], tmp_path / "cap", params=params, fps=6.0, hold_seconds=0.5)
    distinct = list(dict.fromkeys(f["board"] for f in truth["frames"]))
    lifted = put(before, c3=".")
    landed = put(lifted, g7="w")
    one_gone = put(landed, d4=".")
    assert distinct == [before, lifted, landed, one_gone, after]
    assert len(truth["hand"]) == 3  # three separate visits over the board


def test_crowning_video_brings_one_disc(tmp_path) -> None:
    before = put("." * 32, d8="w", a1="b")
    after = put("." * 32, d8="W", a1="b")
    params = random_scene_params(np.random.default_rng(3), size=(96, 54))
    truth = render_video([before, after], tmp_path / "crown", params=params, fps=5.0, hold_seconds=0.4)
    distinct = list(dict.fromkeys(f["board"] for f in truth["frames"]))
    assert distinct == [before, after]  # the man never leaves d8
    assert truth["hand"]


def test_bumped_camera_has_per_frame_truth(tmp_path) -> None:
    states = [START, put(START, c3=".", d4="w")]
    params = random_scene_params(np.random.default_rng(5), size=(96, 54))
    truth = render_video(states, tmp_path / "bump", params=params, fps=5.0, hold_seconds=1.0, bumps=1)
    corners = [np.array(f["corners"]["a1"]) for f in truth["frames"]]
    moves = [np.linalg.norm(b - a) for a, b in zip(corners, corners[1:], strict=False)]
    first_held = truth["timeline"][0]["held"]
    assert max(moves[: first_held[1]]) == 0  # no bump before the first state was seen
    assert max(moves) > 0.5  # the bump moved the picture
    assert sum(m > 0.01 for m in moves) <= 2  # a jolt over two frames, then the camera stays
    assert truth["frames"][0]["corners"] == truth["corners"]  # the scene's camera until the first bump
