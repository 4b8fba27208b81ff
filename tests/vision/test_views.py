"""Boards printed in two colours of equal lightness: found in a colour view, the playing colour told by
the pieces (vision.views, vision.localize.localize_frame)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.localize import NotFound, check_fit, localize, localize_frame, to_gray
from vision.views import LIGHTNESS, SATURATION, negated, view_of, view_values

RED = (40, 40, 215)  # BGR; about as light as GREEN in CIE L*
GREEN = (40, 130, 40)
CELL = 60
MARGIN = 90


def _flat_board(playing: tuple, other: tuple, pieces: int, seed: int) -> np.ndarray:
    """Top view of an 8×8 board with a plain border; ``pieces`` discs, light and dark, on the ``playing``
    colour (cell (i, j) with i + j even, a1 at the bottom left)."""
    rng = np.random.default_rng(seed)
    size = 8 * CELL + 2 * MARGIN
    img = np.full((size, size, 3), (200, 200, 170), np.uint8)
    cells = [(i, j) for j in range(8) for i in range(8) if (i + j) % 2 == 0]
    for j in range(8):
        for i in range(8):
            x, y = MARGIN + i * CELL, MARGIN + (7 - j) * CELL
            img[y:y + CELL, x:x + CELL] = playing if (i + j) % 2 == 0 else other
    for k in rng.choice(len(cells), size=pieces, replace=False):
        i, j = cells[k]
        centre = (MARGIN + i * CELL + CELL // 2, MARGIN + (7 - j) * CELL + CELL // 2)
        colour = (150, 200, 225) if k % 2 else (25, 25, 25)
        cv2.circle(img, centre, int(CELL * 0.4), colour, -1, cv2.LINE_AA)
    return img


def _photo(top: np.ndarray, angle: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The board seen in perspective on a 1280×720 frame: (frame, image points of a1, h1, h8, a8)."""
    rng = np.random.default_rng(seed)
    src = np.float32([[MARGIN, MARGIN + 8 * CELL], [MARGIN + 8 * CELL, MARGIN + 8 * CELL],
                      [MARGIN + 8 * CELL, MARGIN], [MARGIN, MARGIN]])
    c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    base = np.float32([[-230, 200], [230, 200], [170, -150], [-170, -150]])  # a tilted camera's trapezoid
    dst = (base @ np.float32([[c, s], [-s, c]])) + np.float32([640, 370]) + rng.uniform(-15, 15, (4, 2))
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    frame = cv2.warpPerspective(top, m, (1280, 720), borderValue=(120, 160, 190))
    noise = rng.normal(0, 3, frame.shape)
    return np.clip(frame + noise, 0, 255).astype(np.uint8), dst


def _a1_corner(fit) -> np.ndarray:
    """Image point of the outer corner of the fit's dark cell that is a1 for the given layout: of the four
    outer corners, the one whose cell is dark (the playing colour)."""
    uv = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], np.float64)
    cell = np.array([[0, 0], [7, 0], [7, 7], [0, 7]])
    dark = [k for k in range(4) if (cell[k].sum() % 2) != fit.bright_parity]
    pts = uv @ fit.h[:, :2].T + fit.h[:, 2]
    return (pts[:, :2] / pts[:, 2:3])[dark]


def test_equal_lightness_colours_are_a_flat_field_in_lightness():
    top = _flat_board(RED, GREEN, 0, 0)
    lab = cv2.cvtColor(np.uint8([[RED, GREEN]]), cv2.COLOR_BGR2LAB)[0]
    assert abs(int(lab[0, 0]) - int(lab[1, 0])) < 5  # the premise: L* nearly equal
    squares = top[MARGIN:-MARGIN, MARGIN:-MARGIN]
    assert to_gray(squares).std() < 0.05 * to_gray(squares, "a").std()


@pytest.mark.parametrize("angle,seed", [(0, 1), (35, 2), (-70, 3), (160, 4)])
def test_a_red_green_board_is_found_in_its_colour_view_and_its_pieces_tell_the_playing_colour(angle, seed):
    frame, truth = _photo(_flat_board(RED, GREEN, 14, seed), angle, seed)
    with pytest.raises(NotFound):
        localize(to_gray(frame))  # lightness alone shows no board
    fit = localize_frame(frame)
    assert fit.view != LIGHTNESS
    corners = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], np.float64) @ fit.h[:, :2].T + fit.h[:, 2]
    corners = corners[:, :2] / corners[:, 2:3]
    for p in truth:
        assert np.min(np.linalg.norm(corners - p, axis=1)) < 0.1 * CELL
    # the pieces stand on red: the a1 and h8 corners (the playing colour's) are the red corner cells
    dark_corners = _a1_corner(fit)
    for p in (truth[0], truth[2]):
        assert np.min(np.linalg.norm(dark_corners - p, axis=1)) < 0.1 * CELL
    assert check_fit(frame, fit)  # tracking looks at the same view, with the same polarity


def test_the_playing_colour_follows_the_pieces_not_the_colours():
    """Pieces on the green squares this time: the same board, the other colour plays."""
    frame, truth = _photo(_flat_board(GREEN, RED, 14, 5), 20, 5)
    fit = localize_frame(frame)
    dark_corners = _a1_corner(fit)
    for p in (truth[0], truth[2]):
        assert np.min(np.linalg.norm(dark_corners - p, axis=1)) < 0.1 * CELL


PURPLE = (150, 45, 145)  # BGR; darker than LIGHT_GREEN in L* (97 against 141), far apart in a* and b*
LIGHT_GREEN = (30, 150, 70)


@pytest.mark.parametrize("angle,seed", [(10, 7), (-120, 8)])
def test_pieces_on_the_lighter_of_two_hues_make_it_the_playing_colour(angle, seed):
    """Lightness finds this board and would make the darker purple the playing colour; the pieces stand
    on the lighter green (čl. 2.4: the light squares are always empty), so green plays, and the fit moves
    to a colour view in which the purple squares are the brighter ones, for tracking's polarity test."""
    frame, truth = _photo(_flat_board(LIGHT_GREEN, PURPLE, 14, seed), angle, seed)
    assert localize(to_gray(frame)).view == LIGHTNESS  # the premise: lightness alone finds the board
    fit = localize_frame(frame)
    assert fit.view != LIGHTNESS
    dark_corners = _a1_corner(fit)
    for p in (truth[0], truth[2]):
        assert np.min(np.linalg.norm(dark_corners - p, axis=1)) < 0.1 * CELL
    assert check_fit(frame, fit)


def test_an_empty_board_of_two_hues_keeps_the_darker_colour_playing():
    frame, truth = _photo(_flat_board(PURPLE, LIGHT_GREEN, 0, 9), 30, 9)
    fit = localize_frame(frame)
    dark_corners = _a1_corner(fit)
    for p in (truth[0], truth[2]):
        assert np.min(np.linalg.norm(dark_corners - p, axis=1)) < 0.1 * CELL


def test_a_wooden_board_stays_in_lightness():
    frame, _ = _photo(_flat_board((60, 90, 140), (150, 200, 230), 10, 6), 10, 6)
    assert localize_frame(frame).view == LIGHTNESS


LIGHT_WOOD = (123, 166, 198)  # BGR, sampled from a render of a maple and a walnut board: b* equal, a* 12
DARK_WOOD = (49, 84, 133)  # apart, saturation 98 against 161 (HSV, 8-bit)


def _shadowed(top: np.ndarray, seed: int) -> np.ndarray:
    """``top`` crossed by hard shadow bands (lightness × 0.45) a little under a square apart: what tall
    pieces under a low lamp throw, every square cut into shapes that are no quads."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:top.shape[0], 0:top.shape[1]]
    a = np.radians(30 + rng.uniform(-10, 10))
    band = ((x * np.cos(a) + y * np.sin(a)) / (0.9 * CELL) + rng.uniform()) % 1.0 < 0.45
    out = top.astype(np.float32)
    out[band] *= 0.45
    return out.astype(np.uint8)


@pytest.mark.parametrize("angle,seed", [(0, 1), (35, 2), (-70, 3), (160, 4)])
def test_a_wooden_board_cut_by_shadows_is_found_in_saturation(angle, seed):
    frame, truth = _photo(_shadowed(_flat_board(DARK_WOOD, LIGHT_WOOD, 14, seed), seed), angle, seed)
    with pytest.raises(NotFound):
        localize(to_gray(frame))  # the premise: lightness shows no board, nor do a* and b* (below)
    fit = localize_frame(frame)
    assert fit.view[0] == SATURATION
    corners = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], np.float64) @ fit.h[:, :2].T + fit.h[:, 2]
    corners = corners[:, :2] / corners[:, 2:3]
    for p in truth:
        assert np.min(np.linalg.norm(corners - p, axis=1)) < 0.05 * CELL
    dark_corners = _a1_corner(fit)  # the pieces tell the playing colour here too
    for p in (truth[0], truth[2]):
        assert np.min(np.linalg.norm(dark_corners - p, axis=1)) < 0.05 * CELL
    assert check_fit(frame, fit)


def test_a_shadow_leaves_saturation_as_it_was():
    bgr = np.uint8([[LIGHT_WOOD, DARK_WOOD]])
    dimmed = (bgr.astype(np.float32) * 0.45).astype(np.uint8)
    assert np.abs(view_of(bgr, SATURATION).astype(int) - view_of(dimmed, SATURATION)).max() <= 3
    assert np.abs(view_of(bgr, LIGHTNESS).astype(int) - view_of(dimmed, LIGHTNESS)).min() > 50


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, 255)] * 3), min_size=1, max_size=20), st.sampled_from(["a", "b", "s"]))
def test_sampled_values_match_the_view_image_and_negation_turns_them_round(pixels, view):
    bgr = np.uint8([pixels])
    assert np.allclose(view_values(bgr, LIGHTNESS), view_of(bgr, LIGHTNESS)[0], atol=0.51)
    whole = view_of(bgr, view)[0].astype(np.float32)
    # OpenCV rounds saturation to whole levels; the sampled values keep the fraction
    assert np.allclose(view_values(bgr, view), whole, atol=0.51 if view == SATURATION else 0)
    turned = view_values(bgr, negated(view))
    brighter = whole[:, None] < whole[None, :]
    assert (turned[:, None] >= turned[None, :])[brighter].all()  # the order of grey levels turned round
    assert negated(negated(view)) == view
