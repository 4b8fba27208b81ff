"""Learning the piece colours in the watch loop from the position the game is in: the start position, a
position set up from a FEN, or where a resumed game stood (no calibration profile given)."""

from __future__ import annotations

import numpy as np

from dama.bus import EventBus
from dama.companion import BoardSession, Companion
from rules import Color, Position
from vision.pipeline import VisionPipeline
from vision.render import random_scene_params, render_scene
from vision.stabilizer import Stabilizer

SET_UP = "w.w.ww..w...w..b.w..b..bb.b..b.b"  # a middle game: 7 light men, 8 dark, 17 empty squares


def _play(board: str, frames: int = 20) -> tuple[BoardSession, list[dict]]:
    params = random_scene_params(np.random.default_rng(11), size=(640, 360), tilt_max=30.0, fill=(0.6, 0.9))
    companion = Companion(EventBus())
    events = companion.subscribe()
    fen = Position.from_board_string(board, Color.WHITE).fen()
    session = companion.add(BoardSession("b1", companion.bus, vision=VisionPipeline(), stabilizer=Stabilizer(0.5),
                                         fen=fen, learn_colours=True))
    for n in range(frames):  # one second of video: every frame a fresh noise draw
        session.process(n / 15, render_scene(board, params, seed=n).image)
    companion.close()
    return session, list(iter(lambda: events.get(0.2), None))


def test_colours_are_learned_from_a_set_up_position():
    session, events = _play(SET_UP)
    notices = [e["message"] for e in events if e.get("event") == "notice"]
    assert any("learned from the position on the board" in m for m in notices), notices
    assert session.vision.model is not None
    assert session.observation == SET_UP
    assert not [e for e in events if e.get("event") == "violation"]


def test_a_position_with_too_few_pieces_keeps_the_default_colours():
    ending = "w" + "." * 30 + "b"  # one man each: too few to learn their colours from
    session, events = _play(ending, frames=12)
    notices = [e["message"] for e in events if e.get("event") == "notice"]
    assert any("cannot learn the piece colours" in m and "too few" in m for m in notices), notices
    assert session.vision.model is None and not session.learning


def test_colours_are_learned_once_the_pieces_are_set_up():
    """The program starts on an empty board: learning gives up after its attempts (five here, fifty by
    default: a few seconds, far less than setting up 24 pieces takes) and the board is being set up. When
    the start position is then seen, the colours are learned after all."""
    params = random_scene_params(np.random.default_rng(11), size=(640, 360), tilt_max=30.0, fill=(0.6, 0.9))
    companion = Companion(EventBus())
    events = companion.subscribe()
    session = companion.add(BoardSession("b1", companion.bus, vision=VisionPipeline(), stabilizer=Stabilizer(0.5),
                                         learn_colours=True, learn_attempts=5))
    start = Position.start().board_string()
    for n, board in enumerate(["." * 32] * 14 + [start] * 20):
        session.process(n / 15, render_scene(board, params, seed=n).image)
    companion.close()
    said = [e for e in iter(lambda: events.get(0.2), None)]
    notices = [e["message"] for e in said if e.get("event") == "notice"]
    assert any("could not learn the piece colours" in m for m in notices), notices
    assert any(e.get("kind") == "setting_up" for e in said)
    assert any("piece colours learned from the start position" in m for m in notices), notices
    assert session.vision.model is not None and not session.learning
    assert session.status["state"] == "waiting"
    assert not [e for e in said if e.get("event") == "violation"]


def test_the_men_of_each_accepted_position_refresh_the_crown_readers_yardstick():
    """The start position's men are learned with the colours (vision.men_seen). After the referee accepts
    c3-d4, the board's men as the camera saw them then take the place of those seen before on their spots:
    the man on d4 is now one of them (a spot no man stood on at the start), the one seen on c3 stays (no
    man stands there now), so 25 men are kept. A board the camera read otherwise is not used."""
    from vision.geometry import DARK_SQUARES, SQUARE_NAMES, files_ranks_homography, project

    params = random_scene_params(np.random.default_rng(11), size=(640, 360), tilt_max=30.0, fill=(0.6, 0.9))
    companion = Companion(EventBus())
    events = companion.subscribe()
    session = companion.add(BoardSession("b1", companion.bus, vision=VisionPipeline(), stabilizer=Stabilizer(0.5),
                                         learn_colours=True))
    start = Position.start().board_string()
    after = Position.start().play(Position.start().parse_move("c3-d4")).board_string()
    for n, board in enumerate([start] * 15 + [after] * 15):
        session.process(n / 15, render_scene(board, params, seed=n).image)
    companion.close()
    said = list(iter(lambda: events.get(0.2), None))
    assert [e["move"] for e in said if e.get("event") == "move"] == ["c3-d4"]
    vp = session.vision
    men = vp.men_seen
    assert men is not None and len(men.logits) == 25
    corners = vp.process(render_scene(after, params, seed=99).image, 3.0).corners
    spot = project(files_ranks_homography(corners), np.array(DARK_SQUARES, dtype=float) + 0.5)
    near = lambda name: np.linalg.norm(men.points - spot[SQUARE_NAMES.index(name)], axis=1).min()  # noqa: E731
    side = np.linalg.norm(np.subtract(corners["a1"], corners["h1"])) / 8
    assert near("d4") < 0.1 * side and near("c3") < 0.1 * side and near("e5") > 0.5 * side
    assert men.colours[np.linalg.norm(men.points - spot[SQUARE_NAMES.index("d4")], axis=1).argmin()] == 1
    assert not vp.see_position(start)  # the camera shows c3-d4 played, not the start position
    assert vp.men_seen is men
