"""The benchmark's scene draws (vision/bench.py): its variants change only what they name."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

from vision.bench import scene_draws

BOARD_COLOURS = {"board_finish", "light_wood", "dark_wood", "frame_wood"}
PIECE_SIZE = {"piece_height", "piece_diameter"}


def _same(a, b) -> bool:
    if hasattr(a, "__dataclass_fields__"):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    return np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b


@pytest.mark.parametrize(("thick", "printed"), [(True, False), (False, True), (True, True)])
def test_a_variant_keeps_the_scenes_cameras_positions_and_hands(thick, printed):
    plain = list(scene_draws(12, (640, 360), 1))
    variant = list(scene_draws(12, (640, 360), 1, thick=thick, printed=printed))
    for (i, p, board, hand, mirrored), (j, q, board2, hand2, mirrored2) in zip(plain, variant, strict=True):
        assert (i, board, hand, mirrored) == (j, board2, hand2, mirrored2)
        changed = {f.name for f in fields(p) if not _same(getattr(p, f.name), getattr(q, f.name))}
        assert changed == (BOARD_COLOURS if printed else set()) | (PIECE_SIZE if thick else set())
        assert q.board_finish == ("printed" if printed else "wood")
