"""End to end: pieces set down up to 0.22 of a square off their squares' centres, as in a quick game
(vision.render.params.with_pieces_off_centre). In single pictures such boards read far worse than the
plain ones (`dama bench vision --off-centre`, docs/vision.md); in a game the start position's colours, the
motion test and the referee carry them, and this keeps it so."""

import numpy as np
import pytest
from rendered_game import play_opening

pytestmark = pytest.mark.slow
PLIES = 4


def test_every_move_of_pieces_set_down_off_centre_is_recorded(tmp_path):
    from vision.render import random_scene_params
    from vision.render.params import with_pieces_off_centre

    rng = np.random.default_rng([89, 4])
    params = with_pieces_off_centre(random_scene_params(rng, size=(640, 360), fill=(0.6, 1.0)), rng)
    off = np.abs(np.array(params.piece_offsets)) / params.geometry.square_mm
    assert off.max() > 0.2 and np.median(off.max(axis=1)) > 0.1  # the pieces really stand off centre
    expected, moves, events = play_opening(tmp_path, params, PLIES)
    assert not [e for e in events if e["event"] == "violation"]
    assert moves == expected
