"""End to end: the room's light changes during a game (the camera's exposure, its white balance, a lamp
switched on beside the board). Every square and the frame round the board change at once; the motion
test took that for a hand that never left, and every later move was lost (vision.occlusion,
HandWatch._in_light_of)."""

import numpy as np
import pytest
from rendered_game import play_opening

pytestmark = pytest.mark.slow
PLIES = 4


def _room_light(frame: np.ndarray, t: float) -> np.ndarray:
    """The light of the room at ``t`` seconds: as rendered, then darker (the exposure), then warmer too (the
    white balance), then a lamp on one side (the picture brighter to the right)."""
    x = frame.astype(np.float32)
    if t >= 16.0:
        x *= np.linspace(0.7, 1.1, x.shape[1], dtype=np.float32)[None, :, None]
    elif t >= 11.0:
        x *= np.array([0.8, 0.95, 1.15], np.float32) * 0.85
    elif t >= 6.0:
        x *= 0.7
    return np.clip(x, 0, 255).astype(np.uint8)


def test_every_move_is_recorded_while_the_light_changes(tmp_path):
    from vision.render import random_scene_params

    params = random_scene_params(np.random.default_rng([88, 5]), size=(640, 360), fill=(0.6, 0.9), tilt_max=35.0)
    expected, moves, events = play_opening(tmp_path, params, PLIES, retouch=_room_light)
    assert not [e for e in events if e["event"] == "violation"]
    assert moves == expected


def _spectator(frame: np.ndarray, t: float) -> np.ndarray:
    """From 6 s on, a spectator's shadow over the left 40 % of the picture (60 % of the light, soft-edged)."""
    if t < 6.0:
        return frame
    x = np.arange(frame.shape[1], dtype=np.float32)
    gain = 0.6 + 0.4 / (1.0 + np.exp(-(x - 0.4 * frame.shape[1]) / 25.0))
    return np.clip(frame.astype(np.float32) * gain[None, :, None], 0, 255).astype(np.uint8)


def test_every_move_is_recorded_under_a_spectators_shadow(tmp_path):
    """A shadow standing over part of the board changes only some squares, so it is no change of the whole
    room's light; each square under it keeps its hue and grain, only darker (vision.occlusion.relit_cells).
    Before, it was a hand that never left: no move recorded after it fell (or, fainter, false alarms)."""
    from vision.render import random_scene_params

    params = random_scene_params(np.random.default_rng(3), size=(640, 360))  # `dama render --seed 3`'s scene
    expected, moves, events = play_opening(tmp_path, params, PLIES, retouch=_spectator)
    assert not [e for e in events if e["event"] == "violation"]
    assert moves == expected


def _lamp_shadow(level: float):
    """From 6 s on, the hard-edged shadow of a lamp's arm over the upper left of the picture: ``level`` of the
    light, its edge slanted and blurred over a pixel or two, as a single lamp casts it."""
    def retouch(frame: np.ndarray, t: float) -> np.ndarray:
        if t < 6.0:
            return frame
        h, w = frame.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        across = (xx - 0.5 * w) * np.cos(np.radians(35.0)) + (yy - 0.5 * h) * np.sin(np.radians(35.0))
        gain = level + (1.0 - level) / (1.0 + np.exp(np.clip(-across, -50.0, 50.0)))  # 1 px of blur
        return np.clip(frame.astype(np.float32) * gain[..., None], 0, 255).astype(np.uint8)

    return retouch


@pytest.mark.parametrize("level", [0.55, 0.4])
def test_every_move_is_recorded_under_a_hard_edged_shadow(tmp_path, level):
    """A hard shadow's edge crosses squares: on each side of it a square is relit, but no plane of light
    fits it (vision.occlusion._relit_across_an_edge). Before, the squares along the edge were a hand that
    never left: no move was recorded after the shadow fell. In the shadow the light squares no longer look
    like empty ones, and are known empty because they were seen so (HandWatch._relit_empty); and in a deep
    one a dark man on a dark square looked like bare wood, until the squares were read in the light they
    had (HandReading.light, vision.pipeline._relit_back)."""
    from vision.render import random_scene_params

    params = random_scene_params(np.random.default_rng(3), size=(640, 360))  # `dama render --seed 3`'s scene
    expected, moves, events = play_opening(tmp_path, params, PLIES, retouch=_lamp_shadow(level))
    assert not [e for e in events if e["event"] == "violation"]
    assert moves == expected


def _shadow_until(gain_of_column_or_pixel, gone: float):
    """A shadow over the board from the first frame until ``gone`` seconds: a spectator there when the
    board is first seen who then steps away. ``gain_of_column_or_pixel(h, w)`` gives the light's share
    (an (h, w) or (w,) array)."""
    def retouch(frame: np.ndarray, t: float) -> np.ndarray:
        if t >= gone:
            return frame
        gain = gain_of_column_or_pixel(*frame.shape[:2])
        gain = gain[..., None] if gain.ndim == 2 else gain[None, :, None]
        return np.clip(frame.astype(np.float32) * gain, 0, 255).astype(np.uint8)

    return retouch


def _hard_half(level: float):
    """``level`` of the light over the upper left of the picture, a hard edge slanted at 35° (as
    _lamp_shadow)."""
    def gain(h: int, w: int) -> np.ndarray:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        across = (xx - 0.5 * w) * np.cos(np.radians(35.0)) + (yy - 0.5 * h) * np.sin(np.radians(35.0))
        return level + (1.0 - level) / (1.0 + np.exp(np.clip(-across, -50.0, 50.0)))

    return gain


def _soft_left(h: int, w: int) -> np.ndarray:
    """60 % of the light over the left 40 % of the picture, soft-edged (as _spectator)."""
    x = np.arange(w, dtype=np.float32)
    return 0.6 + 0.4 / (1.0 + np.exp(-(x - 0.4 * w) / 25.0))


@pytest.mark.parametrize(("shadow", "gone"), [(_hard_half(0.55), 11.0), (_soft_left, 10.0)])
def test_every_move_is_recorded_when_a_shadow_there_from_the_start_lifts(tmp_path, shadow, gone):
    """A spectator's or a lamp's shadow already over the board when it is first seen, then gone: its squares
    grow up to 1.8 times as light as the settled view has them, more than one square alone may be relit by,
    and are taken as relit because squares of other lightness beside them rose alike
    (vision.occlusion._lifted_alike); light coming back settles as a move does. Before, the squares it left
    were a hand that never went: no move recorded after it lifted (2 of 4)."""
    from vision.render import random_scene_params

    params = random_scene_params(np.random.default_rng(3), size=(640, 360))  # `dama render --seed 3`'s scene
    expected, moves, events = play_opening(tmp_path, params, PLIES, retouch=_shadow_until(shadow, gone))
    assert not [e for e in events if e["event"] == "violation"]
    assert moves == expected


def test_every_move_is_recorded_under_a_hard_shadow_over_most_of_the_board_from_the_start(tmp_path):
    """A lamp's hard shadow at half the light over more than half of the light squares from the first frame:
    their median is the shadow's colour, and the light squares out of it stray from it, lighter, of its hue
    (vision.occlusion._shadowed). Before, they were a hand on every still frame: no move recorded."""
    from vision.render import random_scene_params

    params = random_scene_params(np.random.default_rng(3), size=(640, 360))
    expected, moves, events = play_opening(tmp_path, params, PLIES, retouch=_shadow_until(_hard_half(0.5), 99.0))
    assert not [e for e in events if e["event"] == "violation"]
    assert moves == expected
