"""Stage 4 (hands) and tracking versus re-localization, on rendered scenes."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from vision.geometry import SQUARE_NAMES, files_ranks_homography
from vision.pipeline import COLOUR_WEIGHT, VisionPipeline

from .conftest import no_fingertip_seen_past, no_hand_both_readers_see


def test_hand_over_board_is_seen_and_hidden_squares_marked(get_scene):
    from vision.render import HandPose, render_scene

    sc = get_scene(3)
    vp = VisionPipeline()
    vp.learn_start_position(sc.start_image)
    seen = 0
    for target in ("d4", "e5", "c3"):
        r = render_scene(sc.board, sc.params, hand=HandPose(target_square=target, height_mm=30.0))
        vp.reset_tracking()
        res = vp.process(r.image)
        assert res.found and res.hand
        # Squares reported (not '?') that the hand covers must not be claimed wrongly as visible pieces
        # far from the truth; at least some covered squares are marked unknown.
        seen += sum(1 for n, ch in enumerate(res.board) if ch == "?" and r.occluded[n] == "1")
    assert seen > 0


def test_no_hand_on_clean_scenes(get_scene):
    for seed in (2, 4, 5):
        sc = get_scene(seed)
        res = VisionPipeline().process(sc.image)
        assert res.found and not res.hand and "?" not in res.board


def test_light_square_covered_by_a_patch(get_scene):
    # Paint a sleeve-coloured blob over the light square e4: the light squares give it away.
    sc = get_scene(5)
    vp = VisionPipeline()
    res = vp.process(sc.image)
    h = np.linalg.inv(res.homography)
    f, r = "abcdefgh".index("e"), 4 - 1  # e4 is a light square
    centre = np.array([(f + 0.5) * 32, (7 - r + 0.5) * 32, 1.0])
    p = h @ centre
    img = sc.image.copy()
    cv2.circle(img, (int(p[0] / p[2]), int(p[1] / p[2])), 14, (140, 80, 40), -1)
    vp.reset_tracking()
    assert vp.process(img).hand


def _soft_mask_over(image: np.ndarray, homography: np.ndarray, squares: list[tuple[int, int]]) -> np.ndarray:
    """(H, W, 1) float mask over top-view squares (file, rank from 0), soft-edged, in image pixels."""
    top = np.zeros((256, 256), np.float32)
    for f, r in squares:
        top[(7 - r) * 32: (8 - r) * 32, f * 32: (f + 1) * 32] = 1.0
    top = cv2.GaussianBlur(top, (0, 0), 3.0)
    mask = cv2.warpPerspective(top, np.linalg.inv(homography), (image.shape[1], image.shape[0]))
    return mask[..., None]


def test_a_shadow_over_light_squares_is_not_a_hand(get_scene):
    """A shadow scales the light squares' colour down and keeps its hue; a sleeve of the same lightness
    brings its own. Only the second is a hand."""
    from vision.render import render_scene

    # Light men all round e4 and d5: a shadowed light square then is no mix of light wood and a dark
    # neighbour (which vision.occlusion._leaning_piece already lets pass).
    board = "".join("w" if n in (10, 13, 14, 17, 18, 21) else "." for n in range(32))  # e3 d4 f4 c5 e5 d6
    image = render_scene(board, get_scene(5).params, seed=1).image
    res = VisionPipeline().process(image)
    assert res.found and not res.hand
    mask = _soft_mask_over(image, res.homography, [(4, 3), (3, 4)])  # e4 and d5 (or, turned, d4 and e5)
    shadowed = (image * (1.0 - 0.4 * mask)).astype(np.uint8)
    seen = VisionPipeline().process(shadowed)
    assert seen.found and not seen.hand and seen.board == board
    grey = np.full_like(image, int(np.median(shadowed[mask[..., 0] > 0.99])))
    sleeve = (shadowed * (1.0 - mask) + grey * mask).astype(np.uint8)
    assert VisionPipeline().process(sleeve).hand


@pytest.mark.parametrize("seed", [3, 5])
def test_a_shadow_over_most_light_squares_is_not_a_hand(get_scene, seed):
    """A lamp's hard shadow over most of the board, in one picture: the light squares' median is then the
    shadow's colour, and the squares out of it stray from it, lighter with its hue scaled
    (vision.occlusion._shadowed). Before, they were a hand on every frame of a board first seen so."""
    from vision.render import render_scene

    sc = get_scene(seed)
    image = render_scene(sc.board, sc.params, seed=1).image
    res = VisionPipeline().process(image)
    assert res.found and not res.hand
    shade = [(f, r) for f in range(8) for r in range(8) if f + r <= 9]  # 46 of the 64 squares
    top = np.zeros((256, 256), np.float32)
    for f, r in shade:
        top[(7 - r) * 32: (8 - r) * 32, f * 32: (f + 1) * 32] = 1.0
    mask = cv2.warpPerspective(cv2.GaussianBlur(top, (0, 0), 1.0), np.linalg.inv(res.homography),
                               (image.shape[1], image.shape[0]))[..., None]
    shadowed = (image * (1.0 - 0.5 * mask)).astype(np.uint8)
    assert not VisionPipeline().process(shadowed).hand


def test_tracking_reuses_fit_and_bump_relocalizes(get_scene):
    sc = get_scene(4)
    vp = VisionPipeline()
    first = vp.process(sc.image, 0.0)
    again = vp.process(sc.image, 0.04)
    assert first.found and not first.tracking
    assert again.tracking and again.board == first.board
    # Bump: the camera shifts by 12 px; the old fit no longer matches and the board is found again.
    m = np.float32([[1, 0, 12], [0, 1, 8]])
    bumped = cv2.warpAffine(sc.image, m, (sc.image.shape[1], sc.image.shape[0]), borderMode=cv2.BORDER_REPLICATE)
    res = vp.process(bumped, 0.08)
    assert res.found and not res.tracking
    for k in ("a1", "h8"):
        moved = np.subtract(res.corners[k], first.corners[k])
        assert np.allclose(moved, (12, 8), atol=1.5)
    assert res.board == first.board


def test_overlay_draws_on_a_copy(get_scene):
    sc = get_scene(2)
    vp = VisionPipeline()
    res = vp.process(sc.image)
    out = vp.draw_overlay(sc.image, res, highlight=[SQUARE_NAMES[10]])
    assert out.shape == sc.image.shape and not np.array_equal(out, sc.image)


def test_a_covered_square_needs_ahand_nearby():
    # "covered" alone on a square, with no covered light neighbour and no covered dark neighbour, is no
    # hand (a hand is wider than a square); with either, it is.
    from vision.classify import dark_cells
    from vision.occlusion import hand_nearby

    cells = [tuple(c) for c in dark_cells(1)]  # (i, j) of the dark cells, bright parity 1
    net = np.zeros(32, dtype=bool)
    a, b = cells.index((2, 2)), cells.index((3, 3))
    net[a] = True
    light = np.zeros((8, 8), dtype=bool)
    assert not hand_nearby(net, light, 1)[a]
    light[2, 3] = True  # the light cell to its right (row j=2, column i=3)
    assert hand_nearby(net, light, 1)[a]
    net[b] = True  # a diagonal neighbour covered too
    assert hand_nearby(net, np.zeros((8, 8), dtype=bool), 1)[[a, b]].all()


def test_an_arm_reaching_an_edge_square_shows_in_the_margin_beside_it():
    """In one picture, a hand over a square at the board's edge can show its arm in the margin beside it.

    Skin and a light wooden frame often look alike, so this is a rate over random scenes, not a rule;
    what must hold is that a clean margin is (nearly) never taken for an arm.
    """
    from vision.bench import random_board
    from vision.occlusion import HandWatch, arm_beside
    from vision.render import HandPose, random_scene_params, render_scene

    rng = np.random.default_rng(41)
    edge = [n for n in SQUARE_NAMES if n[0] in "ah" or n[1] in "18"]
    hidden = seen = false = 0
    for k in range(16):
        params = random_scene_params(rng, size=(960, 540))
        board = random_board(rng)
        target = str(rng.choice(edge))
        i = SQUARE_NAMES.index(target)
        clean = render_scene(board, params, seed=k)
        h = files_ranks_homography(clean.corners)
        false += bool(arm_beside(HandWatch().check(clean.image, h, 1, np.zeros((8, 8), bool)).odd_margin_cells(), 1)[i])
        r = render_scene(board, params, hand=HandPose(target_square=target, height_mm=30.0), seed=k)
        if r.occluded[i] == "1":
            hidden += 1
            seen += bool(arm_beside(HandWatch().check(r.image, h, 1, np.zeros((8, 8), bool)).odd_margin_cells(), 1)[i])
    assert hidden >= 8
    assert seen >= 0.25 * hidden  # 3 of 11 here; 7 of 11 on the benchmark's larger pictures

    assert false <= 1


def test_a_lone_covered_square_stays_hidden_with_an_arm_beside_it():
    from vision.squarenet import COVERED, decide

    prob = np.tile([0.0, 0.9, 0.1, 0.0, 0.0, 0.0], (32, 1))
    prob[0] = [0.001, 0.004, 0.0, 0.0, 0.0, 0.995]  # the network sees a hand over a1 alone
    for arm, want in ((None, False), (np.zeros(32, bool), False), (np.eye(32, dtype=bool)[0], True)):
        pieces, conf = decide(prob)
        VisionPipeline._unknown_pieces_uncovered(prob, pieces, conf, np.zeros((8, 8), bool), 1, arm)
        assert (pieces[0] == COVERED) == want



def _calibrated_picture_with_hand(family: int, seed: int, targets=SQUARE_NAMES, heights=(10, 80),
                                  start_seed: int = 5000, **scene):
    """(board, rendered picture, pipeline calibrated on the same scene's start position) of one picture
    of a seeded family: 960×540, a hand reaching a square of ``targets`` at a height in ``heights`` mm."""
    from vision.bench import random_board
    from vision.geometry import START_BOARD
    from vision.render import HandPose, random_scene_params, render_scene

    rng = np.random.default_rng([family, seed])
    params = random_scene_params(rng, size=(960, 540), **scene)
    board = random_board(rng)
    hand = HandPose(target_square=str(rng.choice(targets)), height_mm=float(rng.uniform(*heights)))
    r = render_scene(board, params, hand=hand, seed=seed)
    vp = VisionPipeline()
    vp.learn_start_position(render_scene(START_BOARD, params, seed=start_seed + seed).image)
    vp.reset_tracking()
    return board, r, vp


def test_squares_under_fingers_read_unknown_in_one_picture():
    """One picture, board learned, a hand over the board: the squares under its fingers are '?', never a
    wrong piece.

    Where a hand is already seen, "covered" needs 0.8 rather than 0.95, and the colour model's veto is
    lifted (a fingertip's skin can fit a light piece's colours). These three scenes of a seeded family of
    such pictures each read a wrong piece under a finger before.
    """
    for seed in (15, 22, 54):
        board, r, vp = _calibrated_picture_with_hand(78, seed)
        res = vp.process(r.image)
        wrong = [SQUARE_NAMES[k] for k, (got, want) in enumerate(zip(res.board, board, strict=True))
                 if got.lower() != want.lower() and not (got == "?" and r.occluded[k] == "1")]
        assert res.found and res.hand and "1" in r.occluded
        assert not wrong, (seed, wrong)


def test_a_fingertip_on_an_edge_square_reads_unknown_in_one_picture_of_a_known_board():
    """One picture of a board the network read alone at calibration, a hand reaching an edge square
    from outside: the network's lone "covered" there stands (and counts from 0.5 when no hand is seen
    elsewhere), so the square reads '?' more often than a wrong piece. (Before, a lone "covered" was
    always taken for a piece the network did not know, and needed 0.95: on these 16 pictures 6 squares
    under a fingertip read as a wrong piece and 3 as '?'; now 1 and 8.)"""
    edge = [n for n in SQUARE_NAMES if n[0] in "ah" or n[1:] in ("1", "8")]
    invented = hidden = 0
    for seed in range(16):
        board, r, vp = _calibrated_picture_with_hand(77, seed, edge, (10, 30), 10_000, fill=(0.6, 0.95))
        assert vp.colour_weight == COLOUR_WEIGHT  # a board the network knows
        got = vp.process(r.image).board
        for g, t, o in zip(got, board, r.occluded, strict=True):
            if o == "1":
                hidden += g == "?"
                invented += g != "?" and g.lower() != t.lower()
    assert hidden > invented, (hidden, invented)


def test_visible_squares_beside_a_hand_keep_a_sure_reading_in_one_picture(monkeypatch):
    """One picture of a known board with a hand over it: a square beside the hand that the network reads
    surely as empty or a man keeps that reading instead of '?', and no more squares under the hand read
    as a wrong piece for it. The same pictures are read with the rule and without it
    (``SURE_BESIDE_HAND`` above 1)."""
    import vision.pipeline as pipeline

    rule = pipeline.SURE_BESIDE_HAND
    counts = {}
    for seed in range(40):
        board, r, vp = _calibrated_picture_with_hand(79, seed)
        for sure in (1.01, rule):
            monkeypatch.setattr(pipeline, "SURE_BESIDE_HAND", sure)
            vp.reset_tracking()
            got = vp.process(r.image).board
            c = counts.setdefault(sure, [0, 0])
            for g, t, o in zip(got, board, r.occluded, strict=True):
                c[0] += o == "0" and g == "?"
                c[1] += o == "1" and g != "?" and g.lower() != t.lower()
    (off_unknown, off_invented), (on_unknown, on_invented) = counts.values()
    assert on_unknown < off_unknown, counts
    assert on_invented <= off_invented, counts


@pytest.mark.parametrize("i", [31, 366, 923])
def test_visible_squares_beside_a_hand_keep_a_sure_reading_in_one_uncalibrated_picture(monkeypatch, get_bench_draw,
                                                                                       i):
    """The same without calibration, where the picture's colours show the network reads the board (it learned
    no colours of its own from it). Scenes of `dama bench vision` that read visible squares beside a hand
    (31, 366) or a suspected one (923) as '?': they keep their readings now, and no square under the hand
    reads as a wrong piece for it."""
    import vision.pipeline as pipeline
    from vision.render import render_scene

    _, params, board, hand, mirrored = get_bench_draw(1, i)
    assert not mirrored
    r = render_scene(board, params, hand=hand, seed=i)
    no_fingertip_seen_past(monkeypatch)  # the patch reader reads some of these squares past the hand on its own

    def read(sure: float) -> tuple[int, int]:
        monkeypatch.setattr(pipeline, "SURE_BESIDE_HAND", sure)
        vp = VisionPipeline(profile={"corners": {"a1": list(r.corners["a1"])}})
        got = vp.process(r.image).board
        assert vp._own_colours[1] is None  # the premise: the network's reading explains this picture's colours
        unknown = sum(o == "0" and g == "?" for g, o in zip(got, r.occluded, strict=True))
        wrong = sum(g != "?" and g.lower() != t.lower() for g, t in zip(got, board, strict=True))
        return unknown, wrong

    rule = pipeline.SURE_BESIDE_HAND
    off, on = read(1.01), read(rule)
    assert off[0] > 0 and on[0] < off[0], (off, on)
    assert on[1] == off[1] == 0, (off, on)


@pytest.mark.parametrize(("seed", "i", "name"), [(5, 521, "e1"), (8, 302, "f2")])
def test_a_square_beside_the_hand_read_95_per_cent_sure_keeps_its_reading(monkeypatch, get_bench_draw, seed, i,
                                                                          name):
    """Scenes of `dama bench vision --seed 5` and `--seed 8`, uncalibrated: a square beside the hand, a finger
    over 4 % of its centre, that the pipeline reads 0.96-0.97 sure. At the bar of 0.98 it was '?' and the board
    wrong; at ``SURE_BESIDE_HAND`` it keeps its reading and the whole board reads right."""
    import vision.pipeline as pipeline
    from vision.bench import render_bench_scene, square_right

    sc = render_bench_scene(*get_bench_draw(seed, i))
    k = SQUARE_NAMES.index(name)
    assert sc.occluded[k] == "0" and sc.hand_on_board

    def read() -> str:
        return VisionPipeline(profile={"corners": {"a1": list(sc.corners["a1"])}}).process(sc.image).board

    monkeypatch.setattr(pipeline, "SURE_BESIDE_HAND", 0.98)
    no_fingertip_seen_past(monkeypatch)  # the patch reader alone now reads such a square past the hand too
    assert read()[k] == "?"
    monkeypatch.undo()
    got = read()
    assert got[k] == sc.board[k], got
    assert all(square_right(g, t, o)[1] for g, t, o in zip(got, sc.board, sc.occluded, strict=True)), got


def test_overlay_crosses_the_squares_read_from_the_game(get_scene):
    """A masked square (dama.masking) gets a grey cross: the overlay changes inside that square only."""
    from vision.geometry import files_ranks_homography

    sc = get_scene(2)
    vp = VisionPipeline()
    res = vp.process(sc.image)
    plain = vp.draw_overlay(sc.image, res)
    crossed = vp.draw_overlay(sc.image, res, masked=["e5"])
    changed = np.argwhere(np.any(plain != crossed, axis=2))[:, ::-1].astype(np.float64)  # (x, y)
    assert len(changed) > 20
    h = files_ranks_homography(res.corners)
    inv = np.linalg.inv(h)
    ph = changed @ inv[:, :2].T + inv[:, 2]
    files_ranks = ph[:, :2] / ph[:, 2:3]  # e5 spans files 4..5, ranks 4..5 in these units
    assert np.all((files_ranks > 3.8) & (files_ranks < 5.2))


def _flat_top_view(paint: dict[tuple[int, int], tuple[int, int, int]]) -> np.ndarray:
    """A 160×160 lattice top view: maple light cells (i + j even), walnut dark ones, some cells painted
    (``paint`` maps lattice (i, j) to a BGR colour over the cell's middle, where a piece or its top shows)."""
    from vision.cells import CELL

    maple, walnut = (150, 200, 225), (40, 70, 110)
    top = np.zeros((8 * CELL, 8 * CELL, 3), np.uint8)
    for j in range(8):
        for i in range(8):
            top[j * CELL:(j + 1) * CELL, i * CELL:(i + 1) * CELL] = maple if (i + j) % 2 == 0 else walnut
    m = CELL // 5
    for (i, j), bgr in paint.items():
        top[j * CELL + m:(j + 1) * CELL - m, i * CELL + m:(i + 1) * CELL - m] = bgr
    return top


def test_a_tall_pieces_top_over_the_light_square_behind_it_is_no_hand():
    """vision.occlusion.leaned_over: a light cell behind a piece (in its lean direction, away from the
    camera) showing that piece's colour is excused; not in front of it, not under a near-vertical camera,
    not next to an empty dark square, and not in a colour of its own (a hand)."""
    from vision.cells import features
    from vision.classify import dark_cells
    from vision.occlusion import leaned_over, light_cover

    black, skin = (25, 25, 28), (120, 150, 205)
    piece, behind, in_front = (3, 4), (3, 5), (3, 3)  # dark cell (i + j odd) and the light cells beside it
    n = len(dark_cells(0))
    lean = np.tile([0.0, 0.8], (n, 1))  # one square up lands 0.8 of a square towards +j: away from the camera

    feat = features(_flat_top_view({piece: black, behind: black}), 0)
    covered, strong = light_cover(feat, 0, 60.0)
    assert covered[behind[1], behind[0]]  # what the static test alone takes for a hand
    assert leaned_over(feat, 0, lean, strong)[behind[1], behind[0]]
    assert not leaned_over(feat, 0, -lean, strong)[behind[1], behind[0]]  # the camera on the other side
    assert not leaned_over(feat, 0, 0.1 * lean, strong)[behind[1], behind[0]]  # nearly straight above

    feat = features(_flat_top_view({piece: black, in_front: black}), 0)
    assert not leaned_over(feat, 0, lean, light_cover(feat, 0, 60.0)[1])[in_front[1], in_front[0]]

    feat = features(_flat_top_view({behind: black}), 0)  # nothing on the dark square to lean
    assert not leaned_over(feat, 0, lean, light_cover(feat, 0, 60.0)[1])[behind[1], behind[0]]

    feat = features(_flat_top_view({piece: black, behind: skin}), 0)
    covered, strong = light_cover(feat, 0, 60.0)
    assert covered[behind[1], behind[0]] and not leaned_over(feat, 0, lean, strong)[behind[1], behind[0]]


def test_a_still_board_is_read_again_only_when_a_square_changes(get_scene, monkeypatch):
    """VisionPipeline._still_reading: frames of a board that stands still reuse the last reading (a third of
    a tracking frame's work), one in REUSE_FRAMES + 1 is read anyway, and the first frame in which a square
    changes is read in full: a piece that appears (here without a hand) shows at once."""
    import vision.pipeline as pipeline
    from vision.render import render_scene

    sc = get_scene(3)
    before = sc.image
    k = sc.board.index(".")
    after_board = sc.board[:k] + "w" + sc.board[k + 1:]
    after = render_scene(after_board, sc.params).image  # the same noise: only that square differs
    full_reads = []
    real = pipeline.describe
    monkeypatch.setattr(pipeline, "describe", lambda x: full_reads.append(1) or real(x))
    vp = VisionPipeline()
    boards = [vp.process(before, n / 10).board for n in range(12)]
    assert len(set(boards)) == 1 and boards[0].lower() == sc.board.lower()
    assert 12 // (pipeline.REUSE_FRAMES + 1) <= len(full_reads) < 12 // 2  # most reused, some read anyway
    res = vp.process(after, 1.2)
    assert res.board[k] == "w", res.board


def test_the_light_squares_a_moved_tall_piece_may_cover_lie_behind_it():
    """vision.occlusion.leaning_onto: behind a changed dark square, away from the camera, within 60° of its
    lean (a diagonal lean covers both light squares beside the diagonal); none under a near-vertical
    camera, none next to an unchanged square."""
    from vision.classify import dark_cells
    from vision.occlusion import GRID, leaning_onto

    n = len(dark_cells(0))
    changed = np.zeros((GRID, GRID), dtype=bool)
    i, j = 3, 4  # a dark cell for bright parity 0 (i + j odd); grid cells are (j + 1, i + 1)
    changed[j + 1, i + 1] = True
    up = leaning_onto(changed, 0, np.tile([0.0, 0.8], (n, 1)))
    assert up[j + 2, i + 1] and up.sum() == 1  # only the light square behind it
    diagonal = leaning_onto(changed, 0, np.tile([0.6, 0.6], (n, 1)))
    assert diagonal[j + 2, i + 1] and diagonal[j + 1, i + 2] and diagonal.sum() == 2
    assert not leaning_onto(changed, 0, np.tile([0.0, 0.1], (n, 1))).any()
    assert not leaning_onto(np.zeros_like(changed), 0, np.tile([0.0, 0.8], (n, 1))).any()


def _read_calibrated(sc) -> str:
    """One picture of benchmark scene ``sc``, read after calibrating on its start position (a board the
    network reads)."""
    vp = VisionPipeline()
    assert vp.learn_start_position(sc.start)["ok"] and vp.familiar
    vp.reset_tracking()
    return vp.process(sc.image).board


def _assert_unknown_there_and_right_elsewhere(got: str, board: str, square: int) -> None:
    """``square`` (observation order) reads ``?`` and every square read otherwise reads right."""
    assert got[square] == "?", got
    assert all(g == t for g, t in zip(got, board, strict=True) if g != "?"), (got, board)


def _no_hand_stands_against_the_colours(monkeypatch) -> None:
    """Lift both bars from which the network's "covered" stands against the colour model's veto, and the hand
    both readers see (``vision.patchnet.both_see_a_hand``)."""
    import vision.pipeline as pipeline
    import vision.squarenet as squarenet

    for module in (squarenet, pipeline):
        monkeypatch.setattr(module, "COVERED_WITH_HAND", 2.0)
    monkeypatch.setattr(pipeline, "COVERED_IN_PICTURE", 2.0)
    no_hand_both_readers_see(monkeypatch)


def _vetoed_hand_reads_unknown(get_bench_draw, monkeypatch, seed: int, i: int, name: str, truth: str,
                               vetoed: str) -> None:
    """Scene ``i`` of `dama bench vision --seed SEED`, the square ``name`` (holding ``truth``) under the hand:
    with no bar from which the network's hand stands against the colours it reads ``vetoed``; as the
    pipeline is, it reads ``?`` and every other square reads right."""
    from vision.bench import render_bench_scene

    sc = render_bench_scene(*get_bench_draw(seed, i))
    k = SQUARE_NAMES.index(name)
    assert sc.board[k] == truth and sc.occluded[k] == "1" and sc.hand_on_board

    _no_hand_stands_against_the_colours(monkeypatch)
    assert _read_calibrated(sc)[k] == vetoed
    monkeypatch.undo()
    _assert_unknown_there_and_right_elsewhere(_read_calibrated(sc), sc.board, k)


def test_a_fingertip_on_an_edge_square_with_its_arm_in_view_is_no_man_on_a_calibrated_board(get_bench_draw,
                                                                                              monkeypatch):
    """Scene 221 of `dama bench vision --seed 2`: a fingertip on the empty d8, the arm over the board's
    frame beside it. The network takes d8 for a hand; the colour model learned at calibration took the
    skin for a light man and vetoed the hand. Where an arm is seen reaching in, the network's hand stands."""
    from vision.bench import render_bench_scene

    sc = render_bench_scene(*get_bench_draw(2, 221))
    d8 = SQUARE_NAMES.index("d8")
    assert sc.board[d8] == "." and sc.occluded[d8] == "1" and sc.hand_on_board

    _no_hand_stands_against_the_colours(monkeypatch)
    assert _read_calibrated(sc)[d8] == "w"
    monkeypatch.undo()
    assert _read_calibrated(sc)[d8] == "?"


def test_a_fingertip_on_a_corner_square_with_no_arm_seen_is_no_man_on_a_calibrated_board(get_bench_draw,
                                                                                        monkeypatch):
    """Scene 40 of `dama bench vision --seed 3`: a light fingertip on the empty corner square d8 of a light
    board, the arm over a light frame, where the margin test does not see it, and no light square beside
    d8 taken for covered. The network takes d8 for a hand; the colour model learned at calibration takes
    the skin for a light man. In one picture of a board the network reads, its hand stands wherever a
    fingertip can reach, whether or not the arm shows (docs/vision.md, "A fingertip wherever one can
    reach")."""
    _vetoed_hand_reads_unknown(get_bench_draw, monkeypatch, 3, 40, "d8", ".", "w")


def test_a_fingertip_one_square_in_from_the_arm_seen_in_the_margin_is_no_king_on_a_calibrated_board(
        get_bench_draw, monkeypatch):
    """Scene 128 of `dama bench vision --seed 5`: the arm crosses the frame beside h6 and its fingertip rests
    on the empty g5, one square further in, with no light square beside g5 taken for covered. The network
    takes g5 for a hand; the colours took the skin for a piece, and the crown reader the finger's height
    for a king. Where the margin shows an arm, its fingertip can be on the edge square beside it or on a
    square diagonally in from that one (docs/vision.md, "A fingertip one square in from the arm")."""
    _vetoed_hand_reads_unknown(get_bench_draw, monkeypatch, 5, 128, "g5", ".", "B")


def test_a_hand_the_colours_take_for_the_bare_square_stays_a_hand_on_a_calibrated_board(get_bench_draw,
                                                                                       monkeypatch):
    """Scene 68 of `dama bench vision` (seed 1): a brown hand lies over the light man on h2 of a brown board,
    no light square beside it taken for covered and the arm in the margin too faint to count. The network
    sees the hand ("covered" 0.95); the colour model learned at calibration finds the bare dark square's
    colours there and vetoed it, so h2 read empty. No piece the network does not know looks like the bare
    square, so on an edge square the network's hand stands where the colours see the empty square."""
    _vetoed_hand_reads_unknown(get_bench_draw, monkeypatch, 1, 68, "h2", "w", ".")


def test_a_fingertip_on_a_corner_man_the_colours_take_for_the_bare_square_reads_unknown(get_bench_draw,
                                                                                        monkeypatch,
                                                                                        square_network_alone):
    """Scene 755 of `dama bench vision` (seed 1): a dark fingertip over the light man on a1, the corner of a
    dark board. The network is less sure of the hand ("covered" 0.72) than where a hand is seen elsewhere
    (``COVERED_WITH_HAND``), and the colours took the skin for the bare square: a1 read empty. Where the
    colours see the bare square, "covered" as the likelier reading stands (``COVERED_IN_PICTURE``). (The premise
    with the square network alone; with the patch reader's vote the higher bar reads a1 as a dark man.)"""
    import vision.pipeline as pipeline
    from vision.bench import render_bench_scene

    sc = render_bench_scene(*get_bench_draw(1, 755))
    a1 = SQUARE_NAMES.index("a1")
    assert sc.board[a1] == "w" and sc.occluded[a1] == "1" and sc.hand_on_board

    square_network_alone()
    monkeypatch.setattr(pipeline, "COVERED_IN_PICTURE", pipeline.COVERED_WITH_HAND)  # the premise: the higher bar
    assert _read_calibrated(sc)[a1] == "."
    monkeypatch.undo()
    _assert_unknown_there_and_right_elsewhere(_read_calibrated(sc), sc.board, a1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=32, max_size=32), st.lists(st.floats(0.0, 1.0), min_size=32, max_size=32),
       st.integers(0, 1))
def test_a_hand_spreads_only_to_squares_beside_it_the_network_calls_covered(pieces, covered, parity):
    """``_hand_spreads``: a square joins the hand exactly when it touches a square read under the hand and the
    network alone called it covered above ``COVERED_WITH_HAND``; nothing else changes, nothing leaves the hand."""
    import vision.pipeline as pipeline
    from vision.classify import dark_cells
    from vision.squarenet import COVERED, COVERED_WITH_HAND

    before = np.array(pieces)
    got, conf = before.copy(), np.full(32, 0.5)
    net = np.array(covered)
    pipeline._hand_spreads(got, conf, net, parity)

    cells = dark_cells(parity)
    under = {tuple(c) for c in cells[before == COVERED]}
    for n, (i, j) in enumerate(cells):
        beside = any((i + di, j + dj) in under for di in (-1, 1) for dj in (-1, 1))
        joins = before[n] != COVERED and beside and net[n] > COVERED_WITH_HAND
        assert got[n] == (COVERED if joins or before[n] == COVERED else before[n])
        assert conf[n] == (net[n] if joins else 0.5)


def test_a_finger_over_a_man_beside_squares_under_the_hand_is_no_piece_on_a_calibrated_board(get_bench_draw,
                                                                                            monkeypatch):
    """Scene 4 of `dama bench vision --seed 3`: a dark hand reaches over the light man on e7 (64 % of its centre
    under the hand) and hides d8 and f8 beside it; no light square is taken for covered. The network says
    "covered" on e7 (0.99), the colour model learned at calibration takes the dark finger for a dark man and
    vetoes it. Beside the squares the network reads under the hand, its "covered" stands (docs/vision.md,
    "A hand spreads to the squares beside it")."""
    import vision.pipeline as pipeline
    from vision.bench import render_bench_scene

    sc = render_bench_scene(*get_bench_draw(3, 4))
    e7, d8, f8 = (SQUARE_NAMES.index(n) for n in ("e7", "d8", "f8"))
    assert sc.board[e7] == "w" and sc.occluded[e7] == sc.occluded[d8] == sc.occluded[f8] == "1"

    no_hand_both_readers_see(monkeypatch)  # which sees e7's hand too (patch reader 1.0, square network 0.99)
    got = _read_calibrated(sc)
    assert got[e7] == got[d8] == got[f8] == "?", got
    monkeypatch.setattr(pipeline, "_hand_spreads", lambda *a: None)  # the premise: the veto stands
    got = _read_calibrated(sc)
    assert got[e7] == "b" and got[d8] == got[f8] == "?", got
    monkeypatch.undo()
    got = _read_calibrated(sc)
    assert got[e7] == got[d8] == got[f8] == "?", got
    assert all(g.lower() == t.lower() for g, t in zip(got, sc.board, strict=True) if g != "?"), (got, sc.board)


def test_a_hand_both_readers_see_is_one_where_the_light_squares_show_none(get_bench_draw, monkeypatch):
    """Scene 242 of `dama bench vision --seed 6`, calibrated: a light hand reaches in over the board's edge and
    hides the light man on g3 (72 % of its centre) and the empty h4, and no light square is taken for covered.
    The square network says "covered" 0.96 on g3 and the patch reader 1.0; g3 is no edge square and touches no
    covered light square, so the colour model's veto stood and read the skin as the bare square. Where both
    readers see a hand it is one (``vision.patchnet.both_see_a_hand``; docs/vision.md, "A hand both readers
    see")."""
    from vision.bench import render_bench_scene

    sc = render_bench_scene(*get_bench_draw(6, 242))
    g3 = SQUARE_NAMES.index("g3")
    assert sc.board[g3] == "w" and sc.occluded[g3] == "1"

    no_hand_both_readers_see(monkeypatch)
    got = _read_calibrated(sc)
    assert got[g3] == ".", got  # the premise: the veto stands
    monkeypatch.undo()
    got = _read_calibrated(sc)
    assert got[g3] == "?", got
    assert all(g.lower() == t.lower() for g, t in zip(got, sc.board, strict=True) if g != "?"), (got, sc.board)


@pytest.mark.parametrize("seed, i, square", [(5, 220, "c3"), (3, 454, "a5")])
def test_a_fingertip_over_a_squares_edge_is_read_past(get_bench_draw, monkeypatch, seed, i, square):
    """Scenes 220 of `dama bench vision --seed 5` (a light man) and 454 of `--seed 3` (an empty square),
    calibrated: a finger covers 16 % of the square's centre, under the benchmark's 20 %, so the square is in
    view. The square network reads "covered" (0.94 and 0.55), the patch reader does not (0.90 and 0.23), and
    both see the same light man or bare square beneath: in one picture it is read
    (``vision.patchnet.seen_past_a_fingertip``; docs/vision.md, "A fingertip over a square's edge in one
    picture"). Before, it read `?`."""
    from vision.bench import render_bench_scene

    sc = render_bench_scene(*get_bench_draw(seed, i))
    k = SQUARE_NAMES.index(square)
    assert sc.occluded[k] == "0" and 0.1 < sc.hand_share[k] < 0.2 and sc.board[k] in ".w"

    no_fingertip_seen_past(monkeypatch)
    assert _read_calibrated(sc)[k] == "?"  # the premise
    monkeypatch.undo()
    got = _read_calibrated(sc)
    assert got[k] == sc.board[k], got
    assert all(g.lower() == t.lower() for g, t, o in zip(got, sc.board, sc.occluded, strict=True)
               if g != "?" or o == "0"), (got, sc.board)


def test_a_square_beside_the_hand_the_patch_reader_sees_no_hand_on_is_read(get_bench_draw, monkeypatch):
    """Scene 455 of `dama bench vision --seed 8`, calibrated: the light squares beside the empty g7 show the
    hand, so g7 was marked hidden, and the square network's reading of it (empty 0.78) was not sure enough to
    stand beside a hand (``SURE_BESIDE_HAND``). The patch reader sees no hand on it ("covered" 0.004) and the
    bare square too: in one picture it is read (``vision.patchnet.UNCOVER_BESIDE_HAND``)."""
    from vision.bench import render_bench_scene

    sc = render_bench_scene(*get_bench_draw(8, 455))
    g7 = SQUARE_NAMES.index("g7")
    assert sc.board[g7] == "." and sc.occluded[g7] == "0" and sc.hand_on_board

    no_fingertip_seen_past(monkeypatch)
    assert _read_calibrated(sc)[g7] == "?"  # the premise
    monkeypatch.undo()
    got = _read_calibrated(sc)
    assert got[g7] == ".", got
    assert all(g.lower() == t.lower() for g, t, o in zip(got, sc.board, sc.occluded, strict=True)
               if g != "?" or o == "0"), (got, sc.board)


@pytest.mark.parametrize("calibrated", [True, False])
def test_a_king_beside_the_hand_with_no_finger_on_it_stays_a_king(get_bench_draw, calibrated, monkeypatch):
    """Scene 397 of `dama bench vision --seed 2`: a light king on d6 beside squares the hand hides, itself
    in plain view. The network sees nothing of a finger on it (``FINGER_ON_KING``), so it stays a king
    where a man under a fingertip (scene 255 of seed 1, below) waits for the hand to leave."""
    import vision.pipeline as pipeline
    from vision.bench import render_bench_scene

    sc = render_bench_scene(*get_bench_draw(2, 397))
    d6 = SQUARE_NAMES.index("d6")
    assert sc.board[d6] == "W" and sc.occluded[d6] == "0" and sc.hand_on_board

    def read() -> str:
        vp = VisionPipeline() if calibrated else VisionPipeline(profile={"corners": {"a1": list(sc.corners["a1"])}})
        if calibrated:
            assert vp.learn_start_position(sc.start)["ok"]
            vp.reset_tracking()
        return vp.process(sc.image).board

    monkeypatch.setattr(pipeline, "FINGER_ON_KING", 0.0)  # the premise: every king beside the hand hidden
    assert read()[d6] == "?"
    monkeypatch.undo()
    got = read()
    assert got[d6] == "W", got
    assert "?" in got  # the hand still hides what it covers


def test_a_hand_the_colours_veto_beside_the_hand_is_no_king(get_bench_draw, monkeypatch, square_network_alone):
    """Scene 376 of `dama bench vision --seed 2`, calibrated: the hand over the empty g3, beside squares it
    hides. The network gives "covered" 0.56 there; the colour model's veto on "covered" left a dark king.
    A king beside the hand where the network saw a finger before the colours' veto is not sure either:
    g3 reads '?' and waits for the hand to leave. (The dark king on b8 is read as a man, as the benchmark's
    "kings as men" allows: the referee knows it.) The premise and the rule with the square network alone:
    with the patch reader's vote g3 reads empty, as it is."""
    import vision.pipeline as pipeline
    from vision.bench import render_bench_scene

    sc = render_bench_scene(*get_bench_draw(2, 376))
    g3 = SQUARE_NAMES.index("g3")
    assert sc.board[g3] == "." and sc.hand_on_board

    square_network_alone()
    rule = pipeline.FINGER_ON_KING
    monkeypatch.setattr(pipeline, "FINGER_ON_KING", 2.0)  # the premise: no king beside the hand doubted
    assert _read_calibrated(sc)[g3] == "B"
    monkeypatch.setattr(pipeline, "FINGER_ON_KING", rule)
    _assert_unknown_there_and_right_elsewhere(_read_calibrated(sc).lower(), sc.board.lower(), g3)
    monkeypatch.undo()  # with the patch reader the square reads right, and so does every square read
    got = _read_calibrated(sc).lower()
    assert got[g3] == "." and all(g == t for g, t in zip(got, sc.board.lower(), strict=True) if g != "?"), got


@pytest.mark.parametrize("calibrated", [True, False])
def test_a_man_under_a_fingertip_beside_the_hand_is_no_king(get_bench_draw, calibrated):
    """Scene 255 of `dama bench vision` (seed 1): a fingertip rests on the light man on d6, beside squares
    the hand hides. The finger is as tall as a king's second disc, and d6 read as a king; beside a square
    under the hand a king reading is not sure, so d6 reads '?' (it is under the hand), and no square the
    hand leaves alone reads '?' for it."""
    from vision.bench import render_bench_scene

    draw = get_bench_draw(1, 255)
    sc = render_bench_scene(*draw)
    vp = VisionPipeline() if calibrated else VisionPipeline(profile={"corners": {"a1": list(sc.corners["a1"])}})
    if calibrated:
        assert vp.learn_start_position(sc.start)["ok"]
        vp.reset_tracking()
    got = vp.process(sc.image).board
    d6 = SQUARE_NAMES.index("d6")
    assert sc.board[d6] == "w" and sc.occluded[d6] == "1"
    assert got[d6] == "?", got
    assert all(g == t for g, t, o in zip(got, sc.board, sc.occluded, strict=True) if o == "0"), (got, sc.board)


@pytest.fixture(scope="module")
def king_leaning_over_b1():
    """Scene 402 of ``dama bench vision --seed 2``: a steep camera, a king of tall discs on b2 whose top
    covers most of the light square b1 behind it, no hand anywhere; a1 as the watch loop knows it."""
    from itertools import islice

    from vision.bench import render_bench_scene, scene_draws

    draw = next(islice(scene_draws(403, (1280, 720), 2), 402, None))
    return draw, render_bench_scene(*draw)


def test_a_still_kings_top_over_a_light_square_lets_the_board_be_passed_on(king_leaning_over_b1, monkeypatch):
    """In one picture the square under the king's top departs too far for the static test to excuse (its
    colour is no hue of the piece's); in video, once it has stood unchanged for LEAN_STILL_FRAMES, it is
    the piece's top, and the stabilizer passes the board on. Before, it stayed a hand in every frame and
    nothing was passed on for as long as the king stood there."""
    import vision.occlusion as occlusion
    from vision.stabilizer import Stabilizer

    _, sc = king_leaning_over_b1

    def watch(frames: int) -> tuple[list[bool], list[str]]:
        vp = VisionPipeline(profile={"corners": {"a1": list(sc.corners["a1"])}})
        stab = Stabilizer()
        hands, emitted = [], []
        for k in range(frames):
            res = vp.process(sc.image, k / 25)
            hands.append(res.hand)
            out = stab.update(k / 25, res.board if res.found else None, res.hand)
            if out is not None:
                emitted.append(out)
        return hands, emitted

    n = occlusion.LEAN_STILL_FRAMES + 20  # then half a second of stillness for the stabilizer
    hands, emitted = watch(n)
    assert hands[0] and all(hands[:occlusion.LEAN_STILL_FRAMES - 1])  # one picture: the static test stands
    assert not any(hands[occlusion.LEAN_STILL_FRAMES + 1:])
    assert emitted == [sc.board]  # kings included: the camera is steep
    monkeypatch.setattr(occlusion, "LEAN_STILL_FRAMES", 10 ** 6)
    hands, emitted = watch(n)
    assert all(hands) and emitted == []


def test_a_hand_held_still_over_that_square_after_the_board_settled_stays_a_hand(king_leaning_over_b1):
    """The excuse is for what the settled board already showed: a hand that comes in later and holds
    perfectly still over the king and the square behind it is a change against the settled board, and
    stays a hand on every frame."""
    from vision.occlusion import LEAN_STILL_FRAMES
    from vision.render import HandPose, render_scene

    (_, params, board, _, _), sc = king_leaning_over_b1
    with_hand = render_scene(board, params, hand=HandPose(target_square="b2", height_mm=5.0), seed=402)
    assert with_hand.occluded != "0" * 32
    vp = VisionPipeline(profile={"corners": {"a1": list(sc.corners["a1"])}})
    t = 0.0
    for _ in range(LEAN_STILL_FRAMES + 5):
        res = vp.process(sc.image, t)
        t += 0.04
    assert not res.hand
    for _ in range(2 * LEAN_STILL_FRAMES):
        res = vp.process(with_hand.image, t)
        t += 0.04
        assert res.found and res.hand


def test_an_off_centre_piece_the_network_takes_for_covered_is_read_in_uncalibrated_video(get_bench_draw,
                                                                                           square_network_alone):
    """Scene 13 of ``dama bench vision --off-centre``: a king set down off its square's centre, no hand, the
    square network sure it is covered. In one picture of a board whose colours are not known it stays ``?``;
    in video the motion test would catch a hand, so a lone covered square is read as its likeliest piece, as
    on a calibrated board, and the stabilizer passes the board on (before, every board of the game stayed
    back). The square network alone: since the patch reader votes from 0.999 it reads this king in the
    first picture already, and the rule is for the pieces neither reader knows."""
    from vision.bench import render_bench_scene
    from vision.stabilizer import Stabilizer

    square_network_alone()

    sc = render_bench_scene(*get_bench_draw(1, 13, off_centre=True))
    assert not sc.hand_on_board
    vp = VisionPipeline(profile={"corners": {"a1": list(sc.corners["a1"])}})
    stab = Stabilizer(hold_seconds=0.5)
    first = vp.process(sc.image, 0.0)
    assert first.board.count("?") == 1 and first.hand
    emitted = []
    for k in range(1, 30):
        res = vp.process(sc.image, k / 25)
        out = stab.update(k / 25, res.board if res.found else None, res.hand)
        if out is not None:
            emitted.append(out)
    assert [b.lower() for b in emitted] == [sc.board.lower()]  # kings as men: a low camera here


@pytest.fixture(scope="module")
def deep_shadow_on_a_light_square():
    """Scene 216 of ``dama bench vision --seed 3``: no hand, but a light square at the board's edge darkened
    by a shadow from L* 72 to 39 with the wood's hue kept, too far for the static test to excuse in one
    picture; a1 as the watch loop knows it."""
    from vision.bench import render_bench_scene

    from .conftest import bench_draw

    draw = bench_draw(3, 216)
    return draw, render_bench_scene(*draw)


def _watch(image: np.ndarray, a1: tuple[float, float], frames: int) -> tuple[list[bool], list[str]]:
    """Hands seen and boards a stabilizer passes on over ``frames`` frames of one picture at 25 fps."""
    from vision.stabilizer import Stabilizer

    vp = VisionPipeline(profile={"corners": {"a1": list(a1)}})
    stab = Stabilizer()
    hands, emitted = [], []
    for k in range(frames):
        res = vp.process(image, k / 25)
        hands.append(res.hand)
        out = stab.update(k / 25, res.board if res.found else None, res.hand)
        if out is not None:
            emitted.append(out)
    return hands, emitted


def test_a_still_shadow_too_dark_for_one_picture_lets_the_board_be_passed_on(deep_shadow_on_a_light_square,
                                                                             monkeypatch):
    """One picture calls the shadowed square a hand (a departure of more than 2.5 tolerances stays one); in
    video, once it has stood unchanged for LEAN_STILL_FRAMES, it is a shadow, and the stabilizer passes the
    board on. Before, every frame was a hand and nothing was passed on while that position stood."""
    import vision.occlusion as occlusion
    import vision.pipeline as pipeline

    _, sc = deep_shadow_on_a_light_square
    assert not sc.hand_on_board
    n = occlusion.LEAN_STILL_FRAMES + 20  # then half a second of stillness for the stabilizer
    hands, emitted = _watch(sc.image, sc.corners["a1"], n)
    assert all(hands[:occlusion.LEAN_STILL_FRAMES - 1])  # one picture: the static test stands
    assert not any(hands[occlusion.LEAN_STILL_FRAMES + 1:])
    assert [b.lower() for b in emitted] == [sc.board.lower()]
    monkeypatch.setattr(pipeline, "shadow_candidates", lambda *a: np.zeros((8, 8), dtype=bool))
    hands, emitted = _watch(sc.image, sc.corners["a1"], n)
    assert all(hands) and emitted == []


def test_a_hand_held_still_after_the_board_settled_is_no_shadow(deep_shadow_on_a_light_square):
    """A hand that comes in after the board settled and holds perfectly still casts its own shadow on the
    light squares around it: those are changes against the settled board, never excused, and the hand stays
    a hand on every frame."""
    from vision.occlusion import LEAN_STILL_FRAMES
    from vision.render import HandPose, render_scene

    (_, params, board, _, mirrored), sc = deep_shadow_on_a_light_square
    assert not mirrored
    for target, height in (("e5", 40.0), ("c3", 15.0)):
        with_hand = render_scene(board, params, hand=HandPose(target_square=target, height_mm=height), seed=216)
        vp = VisionPipeline(profile={"corners": {"a1": list(sc.corners["a1"])}})
        t = 0.0
        for _ in range(LEAN_STILL_FRAMES + 5):
            res = vp.process(sc.image, t)
            t += 0.04
        for _ in range(2 * LEAN_STILL_FRAMES):
            res = vp.process(with_hand.image, t)
            t += 0.04
            assert res.found and res.hand, target


def _motion_views(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(Lab, BGR 0–1) motion top views of a rendered board (vision.occlusion.HandWatch._view)."""
    from vision.occlusion import HandWatch

    from .conftest import scene

    image = scene(seed).image
    return HandWatch()._view(image, VisionPipeline()._locate(image)[0].h)


@settings(max_examples=40, deadline=None)
@given(gains=st.tuples(*[st.floats(0.55, 1.2)] * 3),
       slope=st.tuples(st.floats(-0.03, 0.03), st.floats(-0.03, 0.03)), power=st.floats(0.8, 1.25),
       seed=st.sampled_from([1, 3, 5]), corner=st.tuples(st.integers(1, 5), st.integers(1, 5)))
def test_a_change_of_light_is_not_a_hand_and_a_hand_still_is(gains, slope, power, seed, corner):
    """The motion test compares each frame with the settled board. The room's light changing (each colour
    channel scaled, up to a third more on one side than the other, the tone curve bent) changes every
    square and is matched away (``HandWatch._in_light_of``); a hand of skin over four squares in the same
    changed light still stands out, and nothing else does. Within the camera's range: a light that pushes
    much of the picture past white leaves nothing to match (the camera's exposure would step in)."""
    from vision.occlusion import CHANGED, HandWatch, _cell_means

    lab, bgr = _motion_views(seed)
    n = bgr.shape[0]
    x = (np.arange(n) + 0.5) / n * 10 - 5
    plane = np.exp(slope[0] * x[None, :] + slope[1] * x[:, None])[..., None]

    def lit(view: np.ndarray) -> np.ndarray:
        return np.clip(view ** power * np.array(gains, np.float32) * plane, 0, 1).astype(np.float32)

    (r, c), cell = corner, n // 10
    hand = bgr.copy()
    hand[r * cell:(r + 2) * cell, c * cell:(c + 2) * cell] = np.array([0.42, 0.52, 0.72], np.float32)  # skin, BGR
    means = _cell_means(bgr)

    def changed(view: np.ndarray) -> np.ndarray:
        seen = cv2.cvtColor(view, cv2.COLOR_BGR2Lab)
        return HandWatch._changed(HandWatch._in_light_of(view, seen, means, lab), lab) > CHANGED

    # within the camera's range: a light that pushes part of the picture past white leaves nothing to match
    assume(max((lit(v).max(axis=2) >= 0.99).mean() for v in (bgr, hand)) < 0.01)
    assert not changed(lit(bgr)).any()
    shows = changed(hand)  # where the hand stands out in the settled light (not where it looks like the wood)
    assert shows.any() and not shows[:r].any() and not shows[r + 2:].any()
    again = changed(lit(hand))
    assert again[shows].all()  # it stands out there in the changed light too
    assert (again & ~shows).sum() <= 2  # and at most a rim beside it besides


@settings(max_examples=40, deadline=None)
@given(level=st.floats(0.35, 1.5), edge=st.floats(-3.0, 3.0), soft=st.floats(0.5, 1.5),
       seed=st.sampled_from([1, 3, 5]), corner=st.tuples(st.integers(0, 8), st.integers(0, 8)))
def test_a_square_only_relit_is_told_from_one_a_hand_covers(level, edge, soft, seed, corner):
    """A shadow or a lamp over part of the board (any level, an edge anywhere, soft over half a square or
    more: diffuse hall light) leaves every square relit (``relit_cells``); a hand of skin over a square never
    is. (A hard edge: the next test.)"""
    from vision.occlusion import relit_cells

    _, bgr = _motion_views(seed)
    n = bgr.shape[0]
    x = (np.arange(n) + 0.5) / n * 10 - 5
    gain = (level + (1 - level) / (1 + np.exp(-(x - edge) / soft))).astype(np.float32)
    shadowed = np.clip(bgr * gain[None, :, None], 0, 1)
    unclipped = (bgr * max(level, 1.0)).max(axis=2) < 0.99  # a lamp that clips leaves no grain to compare
    cells = unclipped.reshape(10, n // 10, 10, n // 10).all(axis=(1, 3))
    assert relit_cells(shadowed, bgr)[cells].all()
    (r, c), cell = corner, n // 10
    hand = shadowed.copy()
    hand[r * cell:(r + 2) * cell, c * cell:(c + 2) * cell] = np.array([0.42, 0.52, 0.72], np.float32) * gain[
        c * cell:(c + 2) * cell][None, :, None]
    assert not relit_cells(hand, bgr)[r:r + 2, c:c + 2].any()


@settings(max_examples=40, deadline=None)
@given(level=st.floats(0.45, 0.9), angle=st.floats(0.0, np.pi), edge=st.floats(-3.0, 3.0),
       seed=st.sampled_from([1, 3, 5]), corner=st.tuples(st.integers(0, 8), st.integers(0, 8)))
def test_a_hard_shadow_edge_leaves_squares_relit_and_a_hand_in_it_is_still_told(level, angle, edge, seed, corner):
    """A shadow with a hard straight edge (a single lamp's, as a lens renders it: blurred by half a pixel), at
    any angle and place, 10–55 % of the light taken: every square is relit, those the edge crosses too, each
    side in a light seen near it (``_relit_across_an_edge``; a session script found none missed in 1 500
    such shadows, a third of them along the rows, the files or the diagonals and through pixel borders). A
    hand of skin in that light never is."""
    from vision.occlusion import relit_cells

    _, bgr = _motion_views(seed)
    n, cell = bgr.shape[0], bgr.shape[0] // 10
    fine = 4  # the edge drawn four times finer, then averaged down as the top view's warp does
    yy, xx = (np.mgrid[0:n * fine, 0:n * fine] + 0.5) / (n * fine) * 10 - 5
    lit = xx * np.cos(angle) + yy * np.sin(angle) > edge
    gain = cv2.GaussianBlur(cv2.resize(np.where(lit, 1.0, level).astype(np.float32), (n, n),
                                       interpolation=cv2.INTER_AREA), (0, 0), 0.5)
    shadowed = np.clip(bgr * gain[..., None], 0, 1)
    unclipped = (bgr.max(axis=2) < 0.99).reshape(10, cell, 10, cell).all(axis=(1, 3))
    assert relit_cells(shadowed, bgr)[unclipped].all()
    (r, c) = corner
    hand = shadowed.copy()
    hand[r * cell:(r + 2) * cell, c * cell:(c + 2) * cell] = np.array([0.42, 0.52, 0.72], np.float32) * gain[
        r * cell:(r + 2) * cell, c * cell:(c + 2) * cell, None]
    assert not relit_cells(hand, bgr)[r:r + 2, c:c + 2].any()


@settings(max_examples=40, deadline=None)
@given(level=st.floats(0.45, 0.6), angle=st.floats(0.0, np.pi), edge=st.floats(-3.0, 3.0), hard=st.booleans(),
       seed=st.sampled_from([1, 3, 5]))
def test_a_shadow_lifting_leaves_every_square_relit(level, angle, edge, hard, seed):
    """A shadow standing when the view settled (there when the board was first seen) lifts: its squares grow
    up to 2.2 times as light, more than a square alone may (``RELIT_GAIN``), and each is relit because a
    square of another lightness near it rose alike, or it goes on from one (``_lifted_alike``; the frame
    beyond a soft edge, one wood, goes on from the squares beside it, its light still rising). Soft edges and
    hard ones (a hard one fitted backwards: ``_relit_across_an_edge``), as deep as the falling ones above."""
    from vision.occlusion import relit_cells

    _, bgr = _motion_views(seed)
    n = bgr.shape[0]
    fine = 4
    yy, xx = (np.mgrid[0:n * fine, 0:n * fine] + 0.5) / (n * fine) * 10 - 5
    across = xx * np.cos(angle) + yy * np.sin(angle) - edge
    lit = across > 0 if hard else 1.0 / (1.0 + np.exp(-across / 0.8))
    gain = cv2.GaussianBlur(cv2.resize((level + (1.0 - level) * lit).astype(np.float32), (n, n),
                                       interpolation=cv2.INTER_AREA), (0, 0), 0.5)
    settled = (np.round(bgr * gain[..., None] * 255) / 255).astype(np.float32)  # as the camera stored it
    assert relit_cells(bgr, settled).all()


@settings(max_examples=60, deadline=None)
@given(brighter=st.floats(1.7, 3.0), seed=st.sampled_from([1, 3, 5]),
       corner=st.tuples(st.integers(0, 8), st.integers(0, 8)))
def test_a_hand_the_hue_of_a_square_and_lighter_is_no_shadow_lifting(brighter, seed, corner):
    """A hand of skin the hue of the square it covers first and 1.7–3 times as light, over four squares of
    smooth wood (a plain frame, the rendered hand over a brown margin that first showed it): the squares it
    makes lighter than a square alone may be relit by (``RELIT_GAIN``) look lit up, but no square of another
    lightness near them rose alike (the hand makes each of its own colour), so none is taken as a shadow
    lifting. (Skin barely lighter than smooth wood of its hue is the limit of the test square by square.)"""
    from vision.occlusion import RELIT_GAIN, _cell_means, relit_cells

    _, bgr = _motion_views(seed)
    cell = bgr.shape[0] // 10
    (r, c) = corner
    block = (slice(r * cell, (r + 2) * cell), slice(c * cell, (c + 2) * cell))
    smooth = bgr.copy()
    for i in range(r, r + 2):  # each square of the block one smooth colour, its own mean
        for j in range(c, c + 2):
            sq = (slice(i * cell, (i + 1) * cell), slice(j * cell, (j + 1) * cell))
            smooth[sq] = bgr[sq].reshape(-1, 3).mean(axis=0)
    skin = np.clip(smooth[r * cell, c * cell] * brighter, 0, 1)
    hand = smooth.copy()
    hand[block] = skin
    assume(skin.max() < 0.99)
    lifted = (_cell_means(hand).sum(axis=1) > RELIT_GAIN[1] * _cell_means(smooth).sum(axis=1)).reshape(10, 10)
    assert lifted[r, c]
    assert not (relit_cells(hand, smooth) & lifted).any()


@pytest.mark.parametrize("seed", [1, 3, 5])
def test_the_light_of_a_shadow_standing_over_the_board_is_followed(seed):
    """A hard shadow falls over part of the board and stands: once the motion test has seen its squares only
    relit, it reports the light over the lattice (``HandReading.light``) as the shadow's level there and the
    light as it was elsewhere, for the square readers to read the board in the light it had. Dark squares,
    which the motion test calls unchanged (it halves lightness), are asked for their light too."""
    from vision.occlusion import MCELL, HandWatch

    from .conftest import scene

    image = scene(seed).image
    fit = VisionPipeline()._locate(image)[0]
    h, w = image.shape[:2]

    def shaded(u: np.ndarray, v: np.ndarray) -> np.ndarray:  # half the board, a hard edge across its middle
        return (u - 4.0) * 0.6 + (v - 4.0) * 0.8 < 0

    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    uv = cv2.perspectiveTransform(np.stack([xx, yy], axis=-1).reshape(-1, 1, 2), np.linalg.inv(fit.h))
    shadowed = shaded(uv[:, 0, 0], uv[:, 0, 1]).reshape(h, w)
    dark = np.clip(image * np.where(shadowed, 0.5, 1.0)[..., None], 0, 255).astype(np.uint8)
    watch, calm = HandWatch(), np.zeros((8, 8), dtype=bool)
    readings = [watch.check(frame, fit.h, fit.bright_parity, calm) for frame in [image] * 3 + [dark] * 30]
    assert all(r.light is None for r in readings[:3])  # the light as it was: nothing to report
    light = readings[-1].light
    assert light is not None and light.shape == (8 * MCELL, 8 * MCELL)
    u, v = np.meshgrid((np.arange(8 * MCELL) + 0.5) / MCELL, (np.arange(8 * MCELL) + 0.5) / MCELL)
    inside = shaded(u, v)
    edge = np.abs((u - 4.0) * 0.6 + (v - 4.0) * 0.8) < 2.0 / MCELL  # two pixels either side left out
    assert np.median(np.abs(light[inside & ~edge] - 0.5)) < 0.05
    assert np.median(np.abs(light[~inside & ~edge] - 1.0)) < 0.05
    assert np.quantile(np.abs(light[~edge] - np.where(inside, 0.5, 1.0)[~edge]), 0.9) < 0.15
