"""End to end: pieces half a square tall under a steep camera (the fhgr photos' discs are about 0.4 of a
square thick). A piece set down there covers most of the light square behind it; the motion test took
that for a hand that never left, and every later move was lost (vision.occlusion.leaning_onto)."""

from dataclasses import replace

import numpy as np
import pytest
from rendered_game import play_opening

pytestmark = pytest.mark.slow
PLIES = 4


def test_every_move_of_tall_pieces_under_a_steep_camera_is_recorded(tmp_path):
    from vision.render import random_scene_params

    for k in range(100):  # the first seeded scene with a camera tilted over 42°
        params = random_scene_params(np.random.default_rng([88, 3, k]), size=(640, 360), fill=(0.6, 1.0))
        if params.tilt_deg > 42:
            break
    params = replace(params, piece_height=0.5, piece_diameter=0.92)
    expected, moves, events = play_opening(tmp_path, params, PLIES)
    assert not [e for e in events if e["event"] == "violation"]
    assert moves == expected
