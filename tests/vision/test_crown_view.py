"""Where the camera shows a king's height (vision/crown_view.py): the geometry alone, the pipeline's own
estimate against the renderer's camera, the line a user reads at calibration, the overlay's marks."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.crown_view import KING_SHOWN_PX, MAN_HEIGHT, crown_px, top_at, verdict
from vision.geometry import SQUARE_NAMES, START_BOARD
from vision.viewpoint import Viewpoint

LATTICE = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], dtype=np.float32)


def _pinhole(tilt_deg: float, turn_deg: float, distance: float, focal: float):
    """A camera looking at the board's middle from ``distance`` squares, tilted from straight down: its
    projection of lattice points (u, v, z) (z squares above the board), and the Viewpoint it stands at."""
    t, a = np.radians(tilt_deg), np.radians(turn_deg)
    centre = np.array([4.0, 4.0, 0.0]) + distance * np.array([np.sin(t) * np.cos(a), np.sin(t) * np.sin(a),
                                                               np.cos(t)])
    look = np.array([4.0, 4.0, 0.0]) - centre
    z = look / np.linalg.norm(look)
    up = np.array([0.0, 0.0, 1.0]) if tilt_deg > 1e-3 else np.array([0.0, 1.0, 0.0])
    x = np.cross(z, up)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    rot = np.stack([x, y, z])
    k = np.array([[focal, 0, 640.0], [0, focal, 360.0], [0, 0, 1]])

    def project(pts: np.ndarray) -> np.ndarray:
        cam = (np.asarray(pts, dtype=np.float64) - centre) @ rot.T @ k.T
        return cam[:, :2] / cam[:, 2:3]

    return project, Viewpoint(nadir=centre[:2], height=float(centre[2]), focal=focal)


@settings(max_examples=60, deadline=None)
@given(tilt=st.floats(0.0, 55.0), turn=st.floats(0.0, 360.0), distance=st.floats(9.0, 25.0),
       focal=st.floats(700.0, 1600.0), man=st.floats(0.1, 0.45))
def test_crown_px_is_where_a_pinhole_camera_sees_the_two_tops(tilt, turn, distance, focal, man):
    """A king's top (two men high) and a man's top projected by the camera itself are as far apart in the
    picture as crown_px says, for any pose: the plane homography and the camera's place tell it all."""
    project, view = _pinhole(tilt, turn, distance, focal)
    h = cv2.getPerspectiveTransform(LATTICE, project(np.c_[LATTICE, np.zeros(4)]).astype(np.float32))
    centres = np.array([(u + 0.5, v + 0.5) for v in range(8) for u in range(8) if (u + v) % 2 == 0])
    want = np.linalg.norm(project(np.c_[centres, np.full(len(centres), 2 * man)])
                          - project(np.c_[centres, np.full(len(centres), man)]), axis=1)
    got = crown_px(view, h, centres, man)
    assert np.allclose(got, want, rtol=1e-3, atol=1e-3)


def test_nothing_moves_straight_below_the_camera_and_taller_men_show_more():
    project, view = _pinhole(20.0, 30.0, 14.0, 1000.0)
    h = cv2.getPerspectiveTransform(LATTICE, project(np.c_[LATTICE, np.zeros(4)]).astype(np.float32))
    assert np.allclose(top_at(view, view.nadir[None], 0.5), view.nadir[None])
    assert crown_px(view, h, view.nadir[None], 0.3)[0] < 1e-6
    centres = np.array([[0.5, 0.5], [4.5, 4.5], [7.5, 7.5]])
    assert (crown_px(view, h, centres, 0.3) > crown_px(view, h, centres, 0.2)).all()


def test_a_degenerate_fit_says_nothing_shows_rather_than_infinity():
    """A top that would land at or beyond the horizon (a fit the camera could not have) gives 0, never inf
    or NaN (which `dama recognize --crown-px` could not print as JSON)."""
    project, view = _pinhole(30.0, 0.0, 12.0, 900.0)
    h = cv2.getPerspectiveTransform(LATTICE, project(np.c_[LATTICE, np.zeros(4)]).astype(np.float32))
    low = Viewpoint(nadir=view.nadir, height=0.3, focal=view.focal)  # below a king's top: rays never meet
    centres = np.array([[0.5, 0.5], [4.5, 4.5], [7.5, 7.5]])
    for v in (low, Viewpoint(nadir=view.nadir, height=0.2, focal=view.focal)):
        px = crown_px(v, h, centres, 0.2)
        assert np.isfinite(px).all() and (px >= 0).all()
    assert (crown_px(low, h, centres, 0.2) == 0).all()
    assert (crown_px(view, -h, centres, 0.2) > 0).all()  # a homography's sign is arbitrary


def test_the_pipelines_own_estimate_follows_the_scenes_camera():
    """On rendered boards from nearly straight above to steep, FrameResult.crown_px (a man MAN_HEIGHT thick)
    is the renderer's own distance between the two tops, scaled to that man: within a fifth and a pixel on
    nine squares in ten (the pipeline's focal length is a guess without a calibrated lens, loosest square-on),
    and where some squares show a king's height and some do not, it names nine in ten of them alike."""
    from vision.bench import crown_px as true_crown_px
    from vision.pipeline import VisionPipeline
    from vision.render import random_scene_params, render_scene

    drawn = [random_scene_params(np.random.default_rng(900 + s), size=(640, 360), fill=(0.6, 0.9)) for s in range(60)]
    for target in (4.0, 18.0, 32.0, 47.0):  # the scene drawn nearest each tilt
        seed = int(np.argmin([abs(p.tilt_deg - target) for p in drawn]))
        params = drawn[seed]
        assert abs(params.tilt_deg - target) < 4
        r = render_scene(START_BOARD, params, seed=seed)
        res = VisionPipeline(profile={"corners": {"a1": list(r.corners["a1"])}}).process(r.image)
        assert res.found and res.crown_px is not None
        want = true_crown_px(params) * MAN_HEIGHT / params.piece_height
        close = np.abs(res.crown_px - want) <= 0.2 * want + 1.0
        assert close.mean() >= 0.9, (params.tilt_deg, np.c_[want, res.crown_px].round(1))
        shows = want >= KING_SHOWN_PX
        if shows.any() and not shows.all():  # the squares it names are the camera's own
            assert np.mean((res.crown_px >= KING_SHOWN_PX) == shows) >= 0.9, params.tilt_deg


def test_the_verdict_names_the_squares_where_a_king_may_pass_for_a_man():
    everywhere = verdict(np.full(32, KING_SHOWN_PX))
    assert "all 32" in everywhere
    px = np.full(32, 9.0)
    px[[5, 6, 13]] = [1.0, KING_SHOWN_PX - 0.1, 4.0]
    line = verdict(px)
    assert "29/32" in line and f"{SQUARE_NAMES[5]}, {SQUARE_NAMES[6]}, {SQUARE_NAMES[13]}" in line
    assert "referee" in line and "tilt" in line
    assert "none of the 32" in verdict(np.zeros(32))
    few = np.zeros(32)
    few[[30, 31]] = 7.0  # most squares do not show it: the few that do are named
    assert f"2/32 dark squares, only on {SQUARE_NAMES[30]}, {SQUARE_NAMES[31]};" in verdict(few)
    px[:] = 0.0
    px[:20] = 8.0
    assert "20/32" in verdict(px) and "and 4 more a king may pass" in verdict(px)


@pytest.mark.parametrize("flat_squares", [(), (0, 9, 31)])
def test_the_overlay_marks_only_the_squares_where_the_height_does_not_show(flat_squares):
    from vision.geometry import image_to_topview
    from vision.overlay import FLAT, draw_overlay
    from vision.pipeline import TOPVIEW_SIZE, FrameResult

    frame = np.full((360, 360, 3), 128, np.uint8)
    corners = {"a1": (40.0, 320.0), "h1": (320.0, 320.0), "h8": (320.0, 40.0), "a8": (40.0, 40.0)}
    px = np.full(32, 10.0)
    px[list(flat_squares)] = 2.0
    res = FrameResult(found=True, corners=corners, orientation_ok=True, board="." * 32,
                      homography=image_to_topview(corners, TOPVIEW_SIZE), crown_px=px)
    plain = draw_overlay(frame, res)
    marked = draw_overlay(frame, res, flat_crowns=True)
    blue = np.all(marked == FLAT, axis=2)
    assert blue.any() == bool(flat_squares)
    for n in flat_squares:  # each triangle sits in its square's a1-side corner
        f, r = "abcdefgh".index(SQUARE_NAMES[n][0]), int(SQUARE_NAMES[n][1]) - 1
        x, y = int(40 + 35 * f), int(320 - 35 * r)
        assert blue[y - 11:y + 1, x:x + 12].any(), SQUARE_NAMES[n]
        assert not blue[y - 34:y - 14, x + 14:x + 34].any(), SQUARE_NAMES[n]  # the rest of the square: bare
    assert np.array_equal(plain, marked) == (not flat_squares)
