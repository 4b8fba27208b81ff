"""The benchmark's scene draws (vision/bench.py): its variants change only what they name."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

from vision.bench import scene_draws

BOARD_COLOURS = {"board_finish", "light_wood", "dark_wood", "frame_wood"}
PIECE_SIZE = {"piece_height", "piece_diameter"}
PLACEMENT = {"piece_offsets"}


def _same(a, b) -> bool:
    if hasattr(a, "__dataclass_fields__"):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    return np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b


@pytest.mark.parametrize(("thick", "printed", "off_centre"),
                         [(True, False, False), (False, True, False), (True, True, False), (False, False, True),
                          (True, True, True)])
def test_a_variant_keeps_the_scenes_cameras_positions_and_hands(thick, printed, off_centre):
    plain = list(scene_draws(12, (640, 360), 1))
    variant = list(scene_draws(12, (640, 360), 1, thick=thick, printed=printed, off_centre=off_centre))
    for (i, p, board, hand, mirrored), (j, q, board2, hand2, mirrored2) in zip(plain, variant, strict=True):
        assert (i, board, hand, mirrored) == (j, board2, hand2, mirrored2)
        changed = {f.name for f in fields(p) if not _same(getattr(p, f.name), getattr(q, f.name))}
        assert changed == ((BOARD_COLOURS if printed else set()) | (PIECE_SIZE if thick else set())
                           | (PLACEMENT if off_centre else set()))
        assert q.board_finish == ("printed" if printed else "wood")


def test_off_centre_pieces_reach_past_the_careful_players_offsets_but_stay_on_their_square():
    """Plain scenes keep pieces within 0.08 of a square of the centre; off-centre ones go to 0.22, never so
    far that the piece's middle leaves its square."""
    plain = [p for _, p, *_ in scene_draws(20, (640, 360), 1)]
    moved = [p for _, p, *_ in scene_draws(20, (640, 360), 1, off_centre=True)]
    for p, q in zip(plain, moved, strict=True):
        a = np.abs(np.array(p.piece_offsets)) / p.geometry.square_mm
        b = np.abs(np.array(q.piece_offsets)) / q.geometry.square_mm
        assert a.max() <= 0.08 + 1e-9
        assert b.max() <= 0.22 + 1e-9
    assert max(np.abs(np.array(q.piece_offsets)).max() / q.geometry.square_mm for q in moved) > 0.2
