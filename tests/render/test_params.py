"""Random scene parameters (vision/render/params.py): every drawn camera sees the board from a sane place;
printed boards' palettes."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.render import random_scene_params
from vision.render.params import _luma, printed_palette, with_printed_board
from vision.render.view import View


def _draws():
    # a pose whose placement iteration ran away through a distorting lens (camera 10^16 mm off; the
    # table renderer then never finished), found rendering training scenes, and a spread of others
    yield [2612, 286], (640, 360)
    for k in range(24):
        yield [77, k], ((1280, 720), (640, 360), (480, 270))[k % 3]


@pytest.mark.parametrize(("seed", "size"), list(_draws()))
def test_camera_is_near_the_board_and_sees_all_of_it(seed, size):
    rng = np.random.default_rng(seed)
    if seed == [2612, 286]:
        rng.random()  # the training renderer drew the frame size first
    params = random_scene_params(rng, size=size)
    centre = View(params.camera).centre
    board = params.geometry.center_mm
    assert np.isfinite(centre).all()
    assert np.linalg.norm(centre[:2] - np.asarray(board)) < 5000 and 0 < centre[2] < 5000
    pix = params.camera.project(params.geometry.playing_corners3d()[:4])
    assert np.isfinite(pix).all()
    assert pix.min() >= -1 and (pix.max(axis=0) <= np.array(size)).all()


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_printed_palette_never_has_a_light_colour_much_darker_than_the_playing_one(seed):
    light, dark, frame = printed_palette(np.random.default_rng(seed))
    for colour in (light, dark, frame):
        assert len(colour) == 3 and all(0.0 <= c <= 255.0 for c in colour)
    assert _luma(light) >= 0.8 * _luma(dark) - 1e-9


def test_printed_palettes_cover_many_hues_and_some_near_equal_lightness():
    rng = np.random.default_rng(3)
    palettes = [printed_palette(rng) for _ in range(300)]
    hues = {int(cv2.cvtColor(np.uint8([[dark]]), cv2.COLOR_BGR2HSV)[0, 0, 0]) // 30 for _, dark, _ in palettes}
    assert len(hues) == 6  # every sixth of the hue circle
    ratios = np.array([_luma(dark) / _luma(light) for light, dark, _ in palettes])
    assert (ratios > 0.8).sum() > 10 and (ratios < 0.5).sum() > 10


def test_a_printed_board_changes_only_the_board_colours_and_finish():
    params = random_scene_params(np.random.default_rng(4), size=(640, 360))
    printed = with_printed_board(params, np.random.default_rng(9))
    assert printed.board_finish == "printed" and params.board_finish == "wood"
    assert replace(printed, board_finish="wood", light_wood=params.light_wood, dark_wood=params.dark_wood,
                   frame_wood=params.frame_wood) == params


def test_an_unknown_board_finish_is_rejected():
    params = random_scene_params(np.random.default_rng(4), size=(640, 360))
    with pytest.raises(ValueError, match="board_finish"):
        replace(params, board_finish="marble")


@pytest.mark.parametrize("seed", [1, 2])
def test_every_benchmark_scene_shows_its_whole_board(seed):
    """The camera placement ends with all four playing corners inside the frame, also where ten placements
    could not match the asked fill exactly: scene 482 of `dama bench vision --seed 2` (48° of tilt, a wide
    lens) had two corners out of the frame."""
    from vision.bench import scene_draws

    size = np.array([1280, 720])
    for i, params, _board, _hand, _mirrored in scene_draws(600, tuple(size), seed):
        pix = params.camera.project(params.geometry.playing_corners3d()[:4])
        assert np.isfinite(pix).all() and pix.min() >= 0 and (pix.max(axis=0) <= size - 1).all(), i
