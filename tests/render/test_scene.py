"""Scene rendering: determinism, ground truth agrees with what is drawn, hands and occlusion."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.render import HandPose, SceneParams, random_scene_params, render_scene
from vision.render import scene as scene_mod
from vision.render.geometry import SQUARE_NAMES, square_index

START = "wwwwwwwwwwww........bbbbbbbbbbbb"
EMPTY = "." * 32
SIZE = (480, 270)


def clean(params: SceneParams) -> SceneParams:
    """The same scene without sensor noise, JPEG, blur, glare or shadows: exact pixel comparisons."""
    return replace(params, noise_sigma=0.0, jpeg_quality=100, blur_sigma=0.0, glare=(), shadow_strength=0.0)


def test_same_seed_same_bytes() -> None:
    a = render_scene(START, random_scene_params(np.random.default_rng(5), size=SIZE), seed=3)
    scene_mod._RENDERERS.clear()  # rebuild every cached layer from scratch
    b = render_scene(START, random_scene_params(np.random.default_rng(5), size=SIZE), seed=3)
    assert a.image.dtype == np.uint8 and a.image.shape == (SIZE[1], SIZE[0], 3)
    assert a.image.tobytes() == b.image.tobytes()
    assert a.corners == b.corners


def test_different_seeds_give_different_scenes() -> None:
    imgs = [render_scene(START, random_scene_params(np.random.default_rng(s), size=SIZE)).image for s in range(3)]
    for i in range(3):
        for j in range(i + 1, 3):
            assert np.abs(imgs[i].astype(int) - imgs[j].astype(int)).mean() > 10


@pytest.mark.parametrize("distortion", [False, True])
def test_corners_inside_frame_over_fill_range(distortion: bool) -> None:
    for seed in range(40):
        p = random_scene_params(np.random.default_rng(seed), size=(640, 360), distortion=distortion)
        r_corners = p.camera.project(p.geometry.playing_corners3d())
        w, h = p.size
        assert (r_corners >= 0).all() and (r_corners[:, 0] < w).all() and (r_corners[:, 1] < h).all(), seed
        span = max(np.ptp(r_corners[:, 0]) / w, np.ptp(r_corners[:, 1]) / h)
        assert 0.25 < span <= 1.0, (seed, span)


def test_fill_parameter_controls_board_size() -> None:
    small = random_scene_params(np.random.default_rng(1), size=(640, 360), fill=(0.35, 0.35))
    big = random_scene_params(np.random.default_rng(1), size=(640, 360), fill=(0.9, 0.9))

    def span(p: SceneParams) -> float:
        c = p.camera.project(p.geometry.playing_corners3d())
        return max(np.ptp(c[:, 0]) / 640, np.ptp(c[:, 1]) / 360)

    assert span(small) == pytest.approx(0.35 * 0.97, abs=0.03)
    assert span(big) == pytest.approx(0.9 * 0.97, abs=0.03)


@pytest.mark.parametrize("seed,distortion,turn", [(11, False, None), (12, True, None), (13, False, None),
                                                 (14, True, (1.5, -1.0, 4.0))])
def test_pieces_drawn_at_square_centers(seed: int, distortion: bool, turn) -> None:
    """A lone dark piece changes the pixels around the reported square centre, and nowhere far away
    (also with the camera turned about its centre, as by a bump)."""
    p = clean(random_scene_params(np.random.default_rng(seed), size=SIZE, tilt_max=35, distortion=distortion))
    empty = render_scene(EMPTY, p, camera_rotation=turn).image.astype(int)
    r = render_scene(EMPTY, p, camera_rotation=turn)
    c = np.array([r.corners[k] for k in ("a1", "h1", "h8", "a8")])
    sq_px = np.mean(np.linalg.norm(c - np.roll(c, 1, axis=0), axis=1)) / 8  # a square's side in pixels
    for name in ("a1", "d4", "h8", "g1"):
        i = square_index(name)
        board = EMPTY[:i] + "b" + EMPTY[i + 1 :]
        r = render_scene(board, p, camera_rotation=turn)
        diff = np.abs(r.image.astype(int) - empty).sum(2) > 12  # dark on dark wood: small differences
        ys, xs = np.nonzero(diff)
        assert len(xs) > 0.15 * sq_px**2, name
        centre = r.square_centers[i]
        blob = np.array([xs.mean(), ys.mean()])
        assert np.linalg.norm(blob - centre) < 0.5 * sq_px, (name, blob, centre)
        # every changed pixel lies within about one square of the centre (piece + its height)
        far = np.hypot(xs - centre[0], ys - centre[1]) > 1.3 * sq_px
        assert far.mean() < 0.02, name


def test_corner_names_follow_white_side() -> None:
    """a1 is the corner nearest White's pieces, h8 nearest Black's."""
    p = random_scene_params(np.random.default_rng(21), size=SIZE)
    r = render_scene(START, p)
    white = r.square_centers[:12].mean(0)
    black = r.square_centers[20:].mean(0)
    a1, h8 = np.array(r.corners["a1"]), np.array(r.corners["h8"])
    assert np.linalg.norm(a1 - white) < np.linalg.norm(a1 - black)
    assert np.linalg.norm(h8 - black) < np.linalg.norm(h8 - white)


def test_light_and_dark_pieces_and_kings_differ() -> None:
    p = clean(random_scene_params(np.random.default_rng(8), size=SIZE, tilt_max=45))
    i = square_index("d4")
    imgs = {c: render_scene(EMPTY[:i] + c + EMPTY[i + 1 :], p).image for c in "wbB"}
    x, y = np.round(render_scene(EMPTY, p).square_centers[i]).astype(int)
    patch = {c: imgs[c][y - 2 : y + 3, x - 2 : x + 3].astype(float).mean() for c in imgs}
    assert patch["w"] > patch["b"] + 40
    assert np.abs(imgs["B"].astype(int) - imgs["b"].astype(int)).sum() > 0  # the crown adds a second disc


def test_no_hand_means_empty_mask() -> None:
    r = render_scene(START, random_scene_params(np.random.default_rng(2), size=SIZE))
    assert not r.hand_mask.any()
    assert r.occluded == "0" * 32
    assert r.hand_share.shape == (32,) and not r.hand_share.any()


@pytest.mark.parametrize("seed", [3, 4, 30])
def test_hand_mask_and_occluded_agree(seed: int) -> None:
    p = clean(random_scene_params(np.random.default_rng(seed), size=SIZE))
    plain = render_scene(START, p)
    r = render_scene(START, p, hand=HandPose("d4", 45.0, None))
    assert r.hand_mask.shape == (SIZE[1], SIZE[0]) and r.hand_mask.dtype == bool
    assert r.hand_mask.sum() > 200
    assert "1" in r.occluded
    # occluded is the hand's share of each square's centre, thresholded
    assert r.hand_share.shape == (32,) and ((r.hand_share > 0) & (r.hand_share < 1)).any()
    assert r.occluded == "".join("1" if f >= scene_mod.OCCLUSION_FRACTION else "0" for f in r.hand_share)
    # the hand covers what was there: the image changed under the mask
    diff = np.abs(r.image.astype(int) - plain.image.astype(int)).sum(2)
    assert diff[r.hand_mask].mean() > 30
    # an occluded square has hand pixels at or near its centre; far-away squares are not occluded
    for i, flag in enumerate(r.occluded):
        x, y = np.round(r.square_centers[i]).astype(int)
        win = r.hand_mask[max(0, y - 6) : y + 7, max(0, x - 6) : x + 7]
        if flag == "1":
            assert win.any(), SQUARE_NAMES[i]
        elif not (0 <= x < SIZE[0] and 0 <= y < SIZE[1]):
            continue
        elif win.all():
            pytest.fail(f"{SQUARE_NAMES[i]} is fully covered but not marked occluded")


@pytest.mark.parametrize("seed", [1, 2])
def test_hand_seen_from_above_occludes_its_target(seed: int) -> None:
    """Straight from above there is no parallax: fingertips at 20 mm over d4 hide d4, not far squares."""
    p = random_scene_params(np.random.default_rng(seed), size=SIZE, tilt_max=3)
    r = render_scene(START, p, hand=HandPose("d4", 20.0, None, side="white"))
    assert r.occluded[square_index("d4")] == "1"
    assert r.occluded[square_index("h8")] == "0"  # the arm comes from White's side, h8 is behind it


def test_held_piece_is_drawn() -> None:
    p = clean(random_scene_params(np.random.default_rng(6), size=SIZE))
    empty_hand = render_scene(EMPTY, p, hand=HandPose("e5", 30.0, None))
    holding = render_scene(EMPTY, p, hand=HandPose("e5", 30.0, "w"))
    assert np.abs(holding.image.astype(int) - empty_hand.image.astype(int)).sum() > 1000


@pytest.mark.parametrize("board", ["w" * 31, "x" * 32, "", 42])
def test_bad_board_is_rejected(board) -> None:
    with pytest.raises(ValueError):
        render_scene(board, random_scene_params(np.random.default_rng(0), size=(64, 36)))


def test_bad_hand_square_is_rejected() -> None:
    p = random_scene_params(np.random.default_rng(0), size=(64, 36))
    with pytest.raises(ValueError, match="dark square"):
        render_scene(START, p, hand=HandPose("d5", 40.0))


def test_many_random_scenes_render_with_consistent_truth() -> None:
    """Smoke over the parameter space (tables, frames, distortion, hands from every side)."""
    rng = np.random.default_rng(0)
    sides = ("auto", "white", "black", "left", "right")
    for seed in range(30):
        p = random_scene_params(np.random.default_rng(100 + seed), size=(128, 72), distortion=seed % 2 == 1)
        board = "".join(rng.choice(list(".wbWB"), 32))
        hand = None
        if seed % 3:
            hand = HandPose(SQUARE_NAMES[seed % 32], float(rng.uniform(10, 120)), None, sides[seed % 5])
        r = render_scene(board, p, hand=hand, seed=seed)
        assert r.image.shape == (72, 128, 3)
        assert r.square_centers.shape == (32, 2) and len(r.occluded) == 32
        c = np.array(list(r.corners.values()))
        assert (c >= 0).all() and (c[:, 0] < 128).all() and (c[:, 1] < 72).all()
        if hand is None:
            assert not r.hand_mask.any() and r.occluded == "0" * 32


@pytest.mark.parametrize("kwargs", [{"holding": "x"}, {"side": "north"}, {"height_mm": -5.0}])
def test_bad_hand_pose_is_rejected(kwargs) -> None:
    with pytest.raises(ValueError):
        HandPose("d4", **{"height_mm": 40.0, **kwargs})


def test_camera_rotation_moves_the_truth() -> None:
    p = random_scene_params(np.random.default_rng(3), size=SIZE)
    still = render_scene(START, p)
    turned = render_scene(START, p, camera_rotation=(0.0, 0.0, 5.0))
    a = np.array(list(still.corners.values()))
    b = np.array(list(turned.corners.values()))
    assert np.linalg.norm(a - b, axis=1).max() > 3
    assert np.allclose(turned.camera.project(p.geometry.playing_corners3d()), b)
    assert np.allclose(turned.camera.position, p.camera.position)  # turned about its own centre


def _square_spread(image: np.ndarray, corners: dict, parity: int) -> float:
    """Median lightness spread inside the squares of one colour (their middle half), in a 40-px top view."""
    import cv2

    src = np.float32([corners[k] for k in ("a1", "h1", "h8", "a8")])
    dst = np.float32([[0, 320], [320, 320], [320, 0], [0, 0]])
    grey = cv2.cvtColor(cv2.warpPerspective(image, cv2.getPerspectiveTransform(src, dst), (320, 320)),
                        cv2.COLOR_BGR2GRAY).astype(float)
    spreads = [grey[r * 40 + 10:r * 40 + 30, f * 40 + 10:f * 40 + 30].std()
               for r in range(8) for f in range(8) if (r + f) % 2 == parity]
    return float(np.median(spreads))


def test_a_printed_board_is_flat_where_wood_shows_grain() -> None:
    from vision.render.params import with_printed_board

    base = random_scene_params(np.random.default_rng(11), size=(1280, 720), fill=(0.9, 0.95))
    base = replace(clean(base), tilt_deg=0.0, gradient=(0.0, 0.0), vignette=0.0, cast_shadows=())
    printed = with_printed_board(base, np.random.default_rng(2))
    wood = replace(printed, board_finish="wood")  # the same colours, with grain
    flat, grain = render_scene(EMPTY, printed), render_scene(EMPTY, wood)
    for parity in (0, 1):  # light and dark squares
        a, b = _square_spread(flat.image, flat.corners, parity), _square_spread(grain.image, grain.corners, parity)
        assert a < 0.5 * b, (parity, a, b)


def test_a_seamless_king_differs_from_a_stacked_one_only_inside_its_own_outline() -> None:
    """`with_seamless_kings`: one tall disc where a stack shows the lower disc's bevelled rim halfway up its
    side. Same height and width, so the outline is the stack's; men are drawn as before."""
    from vision.render.params import with_seamless_kings

    p = clean(random_scene_params(np.random.default_rng(8), size=(960, 540), tilt_max=45))
    assert p.tilt_deg > 30  # the side walls show
    flush = with_seamless_kings(p)
    i = square_index("d4")
    king = EMPTY[:i] + "B" + EMPTY[i + 1:]
    bare, stacked, seamless = (render_scene(b, q).image.astype(int) for b, q in ((EMPTY, p), (king, p), (king, flush)))
    outline = np.abs(stacked - bare).sum(axis=2) > 0
    moved = np.abs(seamless - stacked).sum(axis=2) > 0
    assert moved.sum() > 20  # the seam is gone
    assert not (moved & ~outline).any()
    men = EMPTY[:i] + "b" + EMPTY[i + 1:]
    assert np.array_equal(render_scene(men, p).image, render_scene(men, flush).image)


def test_a_matte_piece_loses_only_the_glint_on_its_rim() -> None:
    """`piece_sheen`: the glint on each disc's bevelled rim where it mirrors the light. A matte piece
    (`with_matte_pieces`, oiled or worn wood) is drawn within the same outline and never brighter: only the
    glint goes, and at sheen 0 the rim is the lit colour alone."""
    from vision.render.params import MATTE_SHEEN, with_matte_pieces

    p = clean(random_scene_params(np.random.default_rng(8), size=(960, 540), tilt_max=45))
    for board in (START, "WWWW" + "." * 24 + "BBBB"):
        bare, shiny, dull = (render_scene(b, q).image.astype(int)
                             for b, q in ((EMPTY, p), (board, p), (board, replace(p, piece_sheen=0.0))))
        outline = np.abs(shiny - bare).sum(axis=2) > 0
        moved = np.abs(dull - shiny).sum(axis=2) > 0
        assert moved.sum() > 5, board  # the glint is gone
        assert not (moved & ~outline).any()
        assert (dull <= shiny).all()
    q = with_matte_pieces(p, np.random.default_rng(0))
    assert MATTE_SHEEN[0] <= q.piece_sheen <= MATTE_SHEEN[1] < p.piece_sheen
    assert replace(q, piece_sheen=p.piece_sheen) == p
