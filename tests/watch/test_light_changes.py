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
