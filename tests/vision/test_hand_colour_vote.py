"""No colour vote against the network beside a hand (vision.pipeline.HAND_COLOUR_VOTE): with a hand in the
picture, the colours learned from the hand-free start position may confirm the network's reading where a
fingertip can reach, but not overturn it."""

from __future__ import annotations

import pytest

import vision.pipeline as pipeline
from vision.bench import render_bench_scene, square_right
from vision.geometry import SQUARE_NAMES
from vision.render.scene import occluded_string
from vision.squarenet import COLOUR_VOTE_MOST


def _calibrated_reading(scene) -> pipeline.FrameResult:
    vp = pipeline.VisionPipeline()
    assert vp.learn_start_position(scene.start)["ok"]
    vp.reset_tracking()
    return vp.process(scene.image, 0.0)


@pytest.mark.parametrize(("seed", "i", "square", "wrong"), [
    (4, 289, "h2", "b"),  # an empty edge square in the hand's shadow: the colours call it a dark man
    (5, 515, "f8", "."),  # a dark man stained like its square beside the hand: the colours call it bare wood
])
def test_a_square_beside_a_hand_keeps_the_networks_reading(get_bench_draw, monkeypatch, seed, i, square, wrong):
    """Scenes of `dama bench vision --seed 4` and `--seed 5`, calibrated: with the colours' usual bounded
    vote (e³) against the network the square beside the hand reads wrong; with none, as the network reads
    it, and the whole board reads right (kings as men)."""
    scene = render_bench_scene(*get_bench_draw(seed, i))
    assert scene.hand_on_board
    k = SQUARE_NAMES.index(square)
    res = _calibrated_reading(scene)
    assert res.hand and res.board[k] == scene.board[k].lower() != wrong
    occluded = occluded_string(scene.hand_share)
    assert all(square_right(g, t, o)[1] for g, t, o in zip(res.board, scene.board, occluded, strict=True))
    monkeypatch.setattr(pipeline, "HAND_COLOUR_VOTE", COLOUR_VOTE_MOST)
    assert _calibrated_reading(scene).board[k] == wrong


def test_colours_that_agree_with_the_network_beside_a_hand_still_make_it_sure(get_bench_draw):
    """Scene 65 of `dama bench vision --seed 3`, calibrated: c7 is empty, a finger over 8 % of its middle, the
    network 0.77 sure of the empty square and 0.18 of a hand. The colours agree with it and make it sure; a
    square beside a hand that is not sure reads ``?`` (vision.pipeline.SURE_BESIDE_HAND), so with no vote at
    all there it would."""
    scene = render_bench_scene(*get_bench_draw(3, 65))
    k = SQUARE_NAMES.index("c7")
    assert scene.board[k] == "." and 0.05 < scene.hand_share[k] < 0.2
    assert _calibrated_reading(scene).board[k] == "."
