"""Edge-based corner refinement on rendered start positions: it pulls rough corners onto the render's."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from calib_lined import lined_board, start_pieces

from calibration.board import corner_error
from calibration.board_fit import BOARD_UV, _edge_points, _light_parity, _residuals, refine_corners
from calibration.colours import START
from calibration.profile import CameraIntrinsics
from calibration.undistort import undistort, undistort_points
from vision.render import random_scene_params, render_scene

NAMES = ("a1", "h1", "h8", "a8")


def _scene(seed: int):
    params = random_scene_params(np.random.default_rng(seed), size=(640, 480), tilt_max=35.0, fill=(0.6, 0.8))
    frames = [render_scene(START, params, seed=i) for i in range(3)]
    still = np.median(np.stack([f.image for f in frames]), axis=0).astype(np.uint8)
    return still, frames[0].corners


@pytest.mark.parametrize("seed", [3, 11])
def test_rough_corners_are_pulled_onto_the_board(seed):
    still, truth = _scene(seed)
    rng = np.random.default_rng(seed)
    rough = np.array([truth[k] for k in NAMES]) + rng.uniform(-3.0, 3.0, (4, 2))
    start_error = corner_error(dict(zip(NAMES, map(tuple, rough), strict=True)), truth)
    fit = refine_corners(still, rough)
    assert fit is not None
    found = dict(zip(NAMES, map(tuple, fit.points), strict=True))
    assert start_error > 1.5
    assert corner_error(found, truth) < 1.0
    assert fit.used > 300  # edges from the whole board, not a handful


def test_corners_keep_their_order():
    still, truth = _scene(3)
    rough = np.array([truth[k] for k in ("h8", "a8", "a1", "h1")])  # any consistent order
    fit = refine_corners(still, rough)
    assert fit is not None
    assert np.max(np.linalg.norm(fit.points - rough, axis=1)) < 2.0


def test_no_board_gives_none():
    rng = np.random.default_rng(0)
    noise = rng.integers(90, 110, (480, 640, 3), dtype=np.uint8)
    quad = np.array([(100, 400), (500, 400), (450, 80), (150, 80)], np.float64)
    assert refine_corners(noise, quad) is None


LINED = np.array([(150.0, 400.0), (500.0, 385.0), (455.0, 90.0), (190.0, 70.0)])  # a1 h1 h8 a8, tilted
NUDGE = np.array([[2.0, -1.5], [-2.0, 2.0], [1.5, 2.0], [-2.0, -2.0]])


@pytest.mark.parametrize("shadow", [(0.2, 0.2), (0.25, -0.1)])
def test_inlaid_lines_and_shadowed_pieces_do_not_tilt_the_fit(shadow):
    # the light/dark step sits half a line's width into the light square, on alternate sides along
    # each line; shadows hide more steps of one side than of the other (the fit without the light-side
    # offset was 1.2 and 0.65 px off here)
    img = lined_board(LINED, size=(640, 480), line=0.05, pieces=start_pieces(), shadow=shadow)
    fit = refine_corners(img, LINED + NUDGE)
    assert fit is not None
    assert np.max(np.linalg.norm(fit.points - LINED, axis=1)) < 0.35


@pytest.mark.parametrize("line", [0.0, 0.05, 0.08])
def test_light_offset_is_half_the_inlaid_line(line):
    img = lined_board(LINED, size=(640, 480), line=line, pieces=start_pieces(), shadow=(0.2, 0.2))
    fit = refine_corners(img, LINED + NUDGE)
    assert fit is not None
    half_px = line / 2 * np.linalg.norm(LINED[1] - LINED[0]) / 8  # board units to px along the a1-h1 edge
    assert fit.light_offset_px == pytest.approx(half_px, abs=0.15 + 0.15 * half_px)


def _lens_scene(seed: int, board: str = START):
    """The calibration flow's view: a distorting camera, frames undistorted with its own lens, median of 3."""
    params = random_scene_params(np.random.default_rng(seed), size=(640, 480), distortion=True, tilt_max=35.0,
                                 fill=(0.6, 0.8))
    cam = params.camera
    lens = CameraIntrinsics(size=(640, 480), K=np.asarray(cam.K).tolist(), dist=np.asarray(cam.dist, float).tolist())
    frames = [render_scene(board, params, seed=i) for i in range(3)]
    still = np.median(np.stack([undistort(f.image, lens) for f in frames]), axis=0).astype(np.uint8)
    truth = undistort_points(np.array([frames[0].corners[k] for k in NAMES]), lens)
    return still, truth, params


@pytest.mark.parametrize("seed", [0, 2, 3, 6, 12, 13])
def test_rendered_corners_within_a_pixel_through_a_distorting_lens(seed):
    # issue #5's goal on the flow's scenes (with and without inlaid lines); seed 3 is the closest call
    # (0.96 px) until the renderer draws its veneer edges exactly, see the next test
    still, truth, _ = _lens_scene(seed)
    rough = truth + np.random.default_rng(seed).uniform(-3.0, 3.0, (4, 2))
    fit = refine_corners(still, rough)
    assert fit is not None
    assert np.max(np.linalg.norm(fit.points - truth, axis=1)) <= 1.0


def test_renderer_light_dark_steps_lie_on_its_ground_truth():
    # a board without inlaid lines: every inner line's step, measured at the render's true lines,
    # should sit on them (per-line median within 0.4 % of a square); the rounding puts it up to 0.9 % off
    still, truth, params = _lens_scene(3, board="." * 32)
    assert not params.border_lines
    h = cv2.getPerspectiveTransform(BOARD_UV.astype(np.float32), truth.astype(np.float32)).astype(np.float64)
    grey = cv2.cvtColor(still, cv2.COLOR_BGR2GRAY).astype(np.float32)
    edge, lines = _edge_points(grey, h, *_light_parity(grey, h))
    r = _residuals(np.linalg.inv(h), edge, lines)
    per_line = [np.median(r[(lines[:, 0] == a) & (lines[:, 1] == k)]) for a in (0, 1) for k in range(1, 8)]
    assert np.max(np.abs(per_line)) < 0.004
