"""Stage 3 alone: the 32 dark squares, with the colour model learned from the start position."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.classify import ColourModel
from vision.geometry import START_BOARD
from vision.pipeline import VisionPipeline


class Unacquainted:
    """A square network nearly blind to dark men, as on woods and pieces it never saw: all but a thousandth
    of their probability goes to the empty square."""

    def __init__(self, real) -> None:
        self.real = real

    def forward(self, d):
        p = self.real.forward(d).copy()
        p[:, 0] += 0.999 * (p[:, 2] + p[:, 4])
        p[:, 2] *= 0.001
        p[:, 4] *= 0.001
        return p


def _men(board: str) -> str:
    return board.lower()  # crowned pieces are read as men where the camera shows no height


# Scenes with the camera tilted up to ~40°; steeper views are measured by `dama bench vision`.
@pytest.mark.parametrize("seed", [2, 3, 4, 5, 7, 8])
def test_learned_model_reads_every_square(get_scene, seed):
    sc = get_scene(seed)
    vp = VisionPipeline()
    report = vp.learn_start_position(sc.start_image)
    assert report["ok"] and report["orientation_ok"] is True
    vp.reset_tracking()
    res = vp.process(sc.image)
    assert _men(res.board) == _men(sc.board), (seed, res.board, sc.board)


def test_start_position_by_default_model(get_scene):
    # No profile: light men by lightness, dark men by their departure from the bare dark-square colour.
    sc = get_scene(3)
    res = VisionPipeline().process(sc.start_image)
    assert res.board == START_BOARD


def test_profile_round_trip(get_scene):
    import json

    sc = get_scene(4)
    vp = VisionPipeline()
    vp.learn_start_position(sc.start_image)
    prof = json.loads(json.dumps(vp.profile()))
    vp2 = VisionPipeline(profile=prof)
    res = vp2.process(sc.image)
    assert res.orientation_ok is True
    assert _men(res.board) == _men(sc.board)


def test_colour_model_rejects_bad_data():
    with pytest.raises(ValueError):
        ColourModel.from_json({"mean": [[0.0]], "std": [[1.0]]})
    vec = np.zeros((32, 8))
    with pytest.raises(ValueError):
        ColourModel.learn(vec, np.zeros(32, dtype=np.int64))  # no light or dark examples


@pytest.mark.parametrize("seed", [3, 5])
def test_calibration_recovers_a_window_one_square_off(get_scene, monkeypatch, seed):
    """The start position's men can pull the localizer's window one square aside. Off by a rank, the
    window reads back too little of the start position (its rows of men fall on the wrong ranks), and
    the windows beside it are tried: the right one reads back nearly all of it."""
    import vision.pipeline as pipeline
    from vision import orientation as orient
    from vision.localize import BoardFit, localize, to_gray

    sc = get_scene(seed)
    right = localize(to_gray(sc.start_image))
    hh, ww = sc.start_image.shape[:2]
    off = None
    for du, dv in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        h = right.h @ np.array([[1.0, 0.0, du], [0.0, 1.0, dv], [0.0, 0.0, 1.0]])
        c = orient._img(h, orient.LATTICE_CORNERS)
        if (c >= 0).all() and (c[:, 0] < ww - 1).all() and (c[:, 1] < hh - 1).all():
            fit = BoardFit(h=h, bright_parity=1 - right.bright_parity, inliers=right.inliers, contrast=right.contrast)
            if VisionPipeline()._learn_on(sc.start_image, fit, START_BOARD)[0] < pipeline.MIN_START_AGREEMENT:
                off = fit  # off by a rank (off by a file can read back 28 of 32: docs/vision.md)
                break
    assert off is not None, "no window a rank off lies in this picture"
    monkeypatch.setattr(pipeline, "localize_frame", lambda frame: off)
    report = VisionPipeline().learn_start_position(sc.start_image)
    assert report["ok"] and report["agreement"] >= 0.9
    side = np.linalg.norm(np.subtract(sc.corners["a1"], sc.corners["h1"])) / 8
    for name, xy in report["corners"].items():
        assert np.linalg.norm(np.subtract(xy, sc.corners[name])) < 0.25 * side, name


def _shifted(fit, du: float, dv: float):
    from vision.localize import BoardFit

    h = fit.h @ np.array([[1.0, 0.0, du], [0.0, 1.0, dv], [0.0, 0.0, 1.0]])
    parity = fit.bright_parity if (du + dv) % 2 == 0 else 1 - fit.bright_parity
    return BoardFit(h=h, bright_parity=parity, inliers=fit.inliers, contrast=fit.contrast)


def _in_picture(fit, image) -> bool:
    from vision import orientation as orient

    c = orient._img(fit.h, orient.LATTICE_CORNERS)
    hh, ww = image.shape[:2]
    return bool((c >= 0).all() and (c[:, 0] < ww - 1).all() and (c[:, 1] < hh - 1).all())


@pytest.mark.parametrize("seed", [3, 5])
def test_play_holds_to_the_calibrated_window(get_scene, monkeypatch, seed):
    """Calibration reads the start position back, so its window is right; a later localization that picks
    the window one square beside it (the same grid lines) is taken back to the calibrated one."""
    import json

    import vision.pipeline as pipeline
    from vision.localize import localize, to_gray

    sc = get_scene(seed)
    vp = VisionPipeline()
    assert vp.learn_start_position(sc.start_image)["ok"]
    profile = json.loads(json.dumps(vp.profile()))
    right = localize(to_gray(sc.image))
    offs = [f for f in (_shifted(right, du, dv) for du, dv in ((1, 0), (-1, 0), (0, 1), (0, -1)))
            if _in_picture(f, sc.image)]
    assert offs, "no window one square off lies in this picture"
    side = np.linalg.norm(np.subtract(sc.corners["a1"], sc.corners["h1"])) / 8
    for off in offs:
        monkeypatch.setattr(pipeline, "localize_frame", lambda frame, off=off: off)
        res = VisionPipeline(profile=profile).process(sc.image)
        assert _men(res.board) == _men(sc.board)
        for name, xy in res.corners.items():
            assert np.linalg.norm(np.subtract(xy, sc.corners[name])) < 0.25 * side, name


@pytest.mark.parametrize("seed", [3, 5])
def test_uncalibrated_play_holds_to_the_window_where_the_board_last_stood(get_scene, monkeypatch, seed):
    """Uncalibrated, the board is found; then an arm hides it for a frame, and the localizer finds it again a
    square off on the same grid lines (a board of 11 px squares: `dama render --seed 5` at 640×360, 22.5 s,
    two false alarms). The window where it last stood is taken back, as a calibrated window is; a board
    pushed by half a square leaves the grid lines and its own fit is kept."""
    import vision.pipeline as pipeline
    from vision.localize import localize, to_gray

    sc = get_scene(seed)
    right = localize(to_gray(sc.image))
    side = np.linalg.norm(np.subtract(sc.corners["a1"], sc.corners["h1"])) / 8
    offs = [f for f in (_shifted(right, du, dv) for du, dv in ((1, 0), (-1, 0), (0, 1), (0, -1)))
            if _in_picture(f, sc.image)]
    assert offs, "no window one square off lies in this picture"
    for found_again, kept in [(off, True) for off in offs] + [(_shifted(right, 0.5, 0.0), False)]:
        vp = VisionPipeline()
        assert vp.process(sc.image).found
        assert not vp.process(np.zeros_like(sc.image)).found  # the arm: no board in this frame
        monkeypatch.setattr(pipeline, "localize_frame", lambda frame, f=found_again: f)
        res = vp.process(sc.image)
        monkeypatch.undo()
        moved = [np.linalg.norm(np.subtract(xy, sc.corners[n])) for n, xy in res.corners.items()]
        if kept:
            assert max(moved) < 0.25 * side and _men(res.board) == _men(sc.board)
        else:
            assert min(moved) > 0.3 * side


def test_play_holds_to_the_calibrated_window_when_pieces_hide_the_far_row(monkeypatch, get_bench_draw):
    """Scene 167 of `dama bench vision --seed 2` (a start position at 42°, a plain light frame): a window a
    row nearer the camera ties with the board on the X-corners of its outer lines (its near outer line lies
    on the frame joint and its far one on the row the far men hide), and on some machines' floating point
    it counted one inner X-corner more, so the localizer chose it. Handed that window in play, the pipeline
    calibrated on the board keeps the calibrated window, since the found one has no fewer X-corners on its
    outer lines. (The light cells decide this tie in the localizer too, ``vision.localize._light_squares_beside``;
    here the localizer is made to return the wrong window, as for a board where they cannot.)"""
    import vision.localize as loc
    import vision.pipeline as pipeline
    from vision.render import render_scene

    i, params, board, hand, mirrored = get_bench_draw(2, 167)
    assert board == START_BOARD and hand is None and not mirrored
    image = render_scene(board, params, seed=i)
    start = render_scene(START_BOARD, params, seed=10_000 + i)
    side = np.linalg.norm(np.subtract(image.corners["a1"], image.corners["h1"])) / 8
    vp = VisionPipeline()
    assert vp.learn_start_position(start.image)["ok"]
    vp.reset_tracking()
    found = loc.localize_frame(image.image)
    gray = loc.to_gray(image.image, found.view)
    ties = [w for w in loc.windows_beside(gray, found)
            if loc.window_evidence(gray, w)[0] == loc.window_evidence(gray, found)[0]]
    assert ties  # the premise: a window a row off that ties on its outer lines
    for wrong in ties:
        uv = np.array([[0, 0, 1], [8, 0, 1], [8, 8, 1], [0, 8, 1]], float) @ wrong.h.T
        off = np.linalg.norm(uv[:, :2] / uv[:, 2:] - np.array(list(image.corners.values()))[:, None], axis=2)
        assert off.min(1).max() > 0.5 * side
        monkeypatch.setattr(pipeline, "localize_frame", lambda frame, w=wrong: w)
        vp.reset_tracking()
        res = vp.process(image.image)
        assert res.board == START_BOARD
        for name, xy in res.corners.items():
            assert np.linalg.norm(np.subtract(xy, image.corners[name])) < 0.25 * side, name


def test_black_men_on_near_black_squares_stay_men_where_the_network_is_sure(monkeypatch, get_bench_draw,
                                                                           square_network_alone):
    """Scene 33 of `dama bench vision --seed 2`: a small frameless board of near-black squares with black men,
    soft shadows across it. The colour model learned from the start position has seen black men only on
    Black's half; on White's half, lit otherwise, its narrow Gaussians put them nearer the empty squares and
    outvoted a network that read them right. Its vote is bounded (``COLOUR_VOTE_MOST``), and where it
    misreads black men the network is sure of, it gets no vote on that picture (``colours_contradict_network``):
    bounded, it still emptied three men the network read 63–90 % sure. (Shown with the square network alone:
    the patch reader's vote keeps two more of them.)"""
    import vision.pipeline as pipeline
    import vision.squarenet as squarenet
    from vision.render import render_scene

    i, params, board, hand, mirrored = get_bench_draw(2, 33)
    assert hand is None and not mirrored
    image = render_scene(board, params, seed=i).image
    start = render_scene(START_BOARD, params, seed=10_000 + i).image

    def dark_read_empty() -> int:
        vp = VisionPipeline()
        assert vp.learn_start_position(start)["ok"] and vp.familiar
        vp.reset_tracking()
        got = vp.process(image).board
        return sum(t in "bB" and g == "." for t, g in zip(board, got, strict=True))

    square_network_alone()
    monkeypatch.setattr(pipeline, "colours_contradict_network", lambda *args, **kwargs: False)
    monkeypatch.setattr(pipeline, "COLOUR_VOTE_MOST", None)
    assert dark_read_empty() >= 6  # the premise: unbounded, the colours empty most of White's half
    monkeypatch.setattr(pipeline, "COLOUR_VOTE_MOST", squarenet.COLOUR_VOTE_MOST)
    assert 1 <= dark_read_empty() <= 3  # bounded, some men the network was less sure of still go
    monkeypatch.undo()
    assert dark_read_empty() == 0


def test_a_board_pushed_off_the_calibrated_grid_keeps_its_own_fit(get_scene, monkeypatch):
    """A board pushed by part of a square leaves the calibrated grid lines: the localizer's fit stands."""
    import json

    import vision.pipeline as pipeline
    from vision.localize import localize, to_gray

    sc = get_scene(3)
    vp = VisionPipeline()
    assert vp.learn_start_position(sc.start_image)["ok"]
    profile = json.loads(json.dumps(vp.profile()))
    pushed = _shifted(localize(to_gray(sc.image)), 0.5, 0.0)
    monkeypatch.setattr(pipeline, "localize_frame", lambda frame: pushed)
    res = VisionPipeline(profile=profile).process(sc.image)
    side = np.linalg.norm(np.subtract(sc.corners["a1"], sc.corners["h1"])) / 8
    moved = [np.linalg.norm(np.subtract(xy, sc.corners[n])) for n, xy in res.corners.items()]
    assert min(moved) > 0.3 * side


@pytest.mark.parametrize("seed", [2, 8])
def test_calibration_leans_on_the_colour_model_where_the_network_misreads_the_board(get_scene, monkeypatch, seed,
                                                                                     square_network_alone):
    """A network that has never seen these pieces reads the start position's dark men as empty squares. The
    colour model learned on the board then outvotes it (docs/vision.md, "Does it transfer?"); on a board
    the network reads, its usual weight stays. The weight travels in the profile. (Scenes with a dozen dark
    men in play, all lost at the usual weight; scene 4, used until 2026-12-01, has two, and one of them
    read empty on this machine's floating point.)"""
    import json

    import vision.pipeline as pipeline

    sc = get_scene(seed)
    vp = VisionPipeline()
    assert vp.learn_start_position(sc.start_image)["ok"]
    assert vp.colour_weight == pipeline.COLOUR_WEIGHT

    unacquainted = Unacquainted(pipeline.default_net())  # at the usual weight the colour model loses some
    monkeypatch.setattr(pipeline, "default_net", lambda: unacquainted)  # of the dark men in play
    square_network_alone()  # a patch reader that never saw these pieces would not see them either
    vp = VisionPipeline()
    assert vp.learn_start_position(sc.start_image)["ok"]
    assert vp.colour_weight == pipeline.COLOUR_WEIGHT_UNFAMILIAR
    profile = json.loads(json.dumps(vp.profile()))
    again = VisionPipeline(profile=profile)
    assert again.colour_weight == pipeline.COLOUR_WEIGHT_UNFAMILIAR
    assert _men(again.process(sc.image).board) == _men(sc.board)
    usual = VisionPipeline(profile={**profile, "colour_weight": pipeline.COLOUR_WEIGHT}).process(sc.image).board
    lost = sum(g.lower() != t.lower() for g, t in zip(usual, sc.board, strict=True))
    assert lost >= sc.board.lower().count("b") // 2  # the premise: at the usual weight the dark men are lost
    with pytest.raises(ValueError):
        VisionPipeline(profile={**profile, "colour_weight": "heavy"})


@pytest.mark.parametrize("seed", [2, 5])
def test_colours_learned_from_any_known_position(get_scene, seed):
    """A game set up from a FEN or resumed knows its position as well as the start position is known: the
    colours learned from one picture of it read another picture of the same board (other noise)."""
    from vision.render import render_scene

    sc = get_scene(seed)
    vp = VisionPipeline()
    report = vp.learn_position(sc.image, sc.board)
    assert report["ok"] and report["agreement"] >= 0.9, report
    again = render_scene(sc.board, sc.params, seed=seed + 500).image
    vp.reset_tracking()
    assert _men(vp.process(again).board) == _men(sc.board)


def test_learning_a_position_checks_it(get_scene):
    sc = get_scene(2)
    with pytest.raises(ValueError, match="too few light pieces"):
        VisionPipeline().learn_position(sc.image, "b" * 12 + "." * 20)
    with pytest.raises(ValueError, match="32 characters"):
        VisionPipeline().learn_position(sc.image, "w" * 31)
    # The start position's picture does not show a mid-game board: the classes do not read it back.
    board = "".join("." if c != "." else ("w" if n < 16 else "b") for n, c in enumerate(START_BOARD))
    report = VisionPipeline().learn_position(sc.start_image, board)
    assert not report["ok"] and "expected position" in report["reason"]


@pytest.mark.parametrize("seed", [3, 5])
def test_a_camera_moved_by_a_square_since_calibration_keeps_the_board_found_now(get_scene, seed):
    """The saved corners a whole square off the board (camera or board moved since calibration) lie on the
    board's grid lines too; the window with checker corners on its outer lines is the wrong one."""
    import json

    import cv2

    sc = get_scene(seed)
    vp = VisionPipeline()
    assert vp.learn_start_position(sc.start_image)["ok"]
    profile = json.loads(json.dumps(vp.profile()))
    names = ("a1", "h1", "h8", "a8")
    lattice = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], np.float32)
    to_image = cv2.getPerspectiveTransform(lattice, np.array([profile["corners"][n] for n in names], np.float32))
    side = np.linalg.norm(np.subtract(sc.corners["a1"], sc.corners["h1"])) / 8
    hh, ww = sc.image.shape[:2]
    tried = 0
    for du, dv in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        moved = cv2.perspectiveTransform((lattice + [du, dv]).reshape(-1, 1, 2), to_image).reshape(-1, 2)
        if (moved < 0).any() or (moved[:, 0] > ww - 1).any() or (moved[:, 1] > hh - 1).any():
            continue
        tried += 1
        corners = dict(zip(names, moved.tolist(), strict=True))
        res = VisionPipeline(profile={**profile, "corners": corners}).process(sc.image)
        got = np.array([res.corners[n] for n in names])
        for xy in sc.corners.values():  # the same four corners (their names follow the saved a1)
            assert np.linalg.norm(got - xy, axis=1).min() < 0.25 * side, (du, dv)
    assert tried


@pytest.mark.parametrize("seed", [2, 5])
def test_one_picture_of_a_board_the_network_misreads_is_read_by_its_own_colours(get_scene, monkeypatch, seed,
                                                                                 square_network_alone):
    """Uncalibrated, a network nearly blind to these dark men (as on woods and pieces it never saw) takes them
    for empty squares. Its reading then explains the squares' features far worse than the default colour
    model's, and colours learned from this picture alone repair it; without that step the blind network's
    reading stands."""
    import vision.pipeline as pipeline

    sc = get_scene(seed)
    assert sc.board.count("b") + sc.board.count("B") >= 2
    unacquainted = Unacquainted(pipeline.default_net())
    monkeypatch.setattr(pipeline, "default_net", lambda: unacquainted)
    square_network_alone()  # a patch reader that never saw these pieces would not see them either
    profile = {"corners": {"a1": list(sc.corners["a1"])}}
    assert _men(VisionPipeline(profile=profile).process(sc.image).board) == _men(sc.board)
    monkeypatch.setattr(pipeline, "explains_worse", lambda *a, **k: False)
    blind = VisionPipeline(profile=profile).process(sc.image).board
    assert _men(blind) != _men(sc.board) and "b" not in blind.lower()


@pytest.mark.parametrize("seed", [2, 5, 7])
def test_a_board_the_network_reads_keeps_the_networks_reading(get_scene, monkeypatch, seed):
    """On a board like the training renders the network's reading explains the squares at least as well as
    the default colour model's, so the picture's own colours are not consulted."""
    import vision.pipeline as pipeline

    verdicts = []

    def spy(*args, **kwargs):
        verdicts.append(pipeline.explains_worse.__wrapped__(*args, **kwargs))
        return verdicts[-1]

    from vision.classify import explains_worse

    spy.__wrapped__ = explains_worse
    monkeypatch.setattr(pipeline, "explains_worse", spy)
    sc = get_scene(seed)
    vp = VisionPipeline(profile={"corners": {"a1": list(sc.corners["a1"])}})
    res = vp.process(sc.image)
    assert True not in verdicts
    assert vp._own_colours is not None and vp._own_colours[1] is None  # asked about, no colours learned
    assert _men(res.board) == _men(sc.board)


@pytest.mark.parametrize("i", [84, 133])
def test_dark_men_stained_like_their_squares_stay_in_one_uncalibrated_picture(get_bench_draw, monkeypatch, i):
    """Dark men stained like the dark squares (`dama bench vision --dark-like-squares`) look like bare squares
    to the colours; the network sees them by their rims. The default colour model's reading lumps them with
    the bare squares and scatters less in colour than the network's; colours learned from it took every dark
    man away. A reading blind to the network's dark men is not learned from."""
    import vision.pipeline as pipeline
    from vision.bench import render_bench_scene

    sc = render_bench_scene(*get_bench_draw(1, i, dark_like=True))
    assert not sc.hand_on_board and sc.board.count("b") + sc.board.count("B") >= 6
    profile = {"corners": {"a1": list(sc.corners["a1"])}}
    assert _men(VisionPipeline(profile=profile).process(sc.image).board) == _men(sc.board)
    monkeypatch.setattr(pipeline, "blind_to_dark_men", lambda *a: False)
    erased = VisionPipeline(profile=profile).process(sc.image).board
    assert sum(c in "bB" for c in erased) < sum(c in "bB" for c in sc.board) - 3


def test_an_endgames_few_dark_men_stained_like_their_squares_stay_in_one_uncalibrated_picture(get_bench_draw,
                                                                                              monkeypatch):
    """The same with two dark men left: the default colour model lumps both with the bare squares. Two are
    fewer than the three that made a reading blind before, and colours learned from it took both away."""
    import vision.pipeline as pipeline
    from vision.bench import render_bench_scene

    i, params, _, _, _ = get_bench_draw(1, 12, dark_like=True)
    board = "..w....w...b.w.......w..b......."
    sc = render_bench_scene(i, params, board, None, False)
    profile = {"corners": {"a1": list(sc.corners["a1"])}}
    assert _men(VisionPipeline(profile=profile).process(sc.image).board) == board
    rule = pipeline.blind_to_dark_men
    monkeypatch.setattr(pipeline, "blind_to_dark_men", lambda labels, net, least=3: (net == 2).sum() >= least and rule(
        labels, net, least))  # the rule as it was: blind only with three or more
    erased = _men(VisionPipeline(profile=profile).process(sc.image).board)
    assert erased[11] == erased[24] == "."  # both dark men gone (the colours saw one elsewhere)


@given(st.integers(0, 12), st.integers(0, 12), st.integers(0, 8), st.integers(0, 2**32 - 1))
@settings(max_examples=80, deadline=None)
def test_a_colour_reading_is_blind_to_dark_men_only_when_it_lumps_most_of_them(dark, lumped, other, seed):
    """Blind: at least three of the network's dark men, and at least half of them, read as bare squares; where
    the network sees fewer than three, every one of them, and the colours see no more dark men elsewhere.
    Squares read otherwise (light men, dark men the network did not see) count only there."""
    from vision.pipeline import blind_to_dark_men

    rng = np.random.default_rng(seed)
    lumped = min(lumped, dark)
    net = np.zeros(32, dtype=np.int64)
    net[:dark] = 2
    net[dark:dark + other] = 1
    colours = net.copy()
    colours[:lumped] = 0
    colours[dark + other:] = rng.integers(0, 3, 32 - dark - other)  # the network's bare squares: anything
    order = rng.permutation(32)
    if dark >= 3:
        blind = lumped >= 3 and 2 * lumped >= dark
    else:  # an endgame's few dark men: all of them lumped, and no more dark men found by the colours
        blind = 0 < lumped == dark and int((colours == 2).sum()) <= dark
    assert blind_to_dark_men(colours[order], net[order]) == blind


@given(st.lists(st.integers(0, 2), min_size=32, max_size=32), st.lists(st.integers(0, 2), min_size=32, max_size=32),
       st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_a_labelling_never_explains_worse_than_itself_nor_both_ways(a, b, seed):
    """The comparison is a strict one: never true of a labelling against itself, never true both ways."""
    from vision.classify import N_FEAT, explains_worse

    vec = np.random.default_rng(seed).normal(0, 10, (32, N_FEAT))
    a, b = np.array(a), np.array(b)
    assert not explains_worse(vec, a, a)
    assert not (explains_worse(vec, a, b) and explains_worse(vec, b, a))


def test_lumping_two_colour_groups_explains_worse():
    """Three tight groups of cells: a labelling that puts one group in another's class scatters far more."""
    from vision.classify import N_FEAT, explains_worse

    rng = np.random.default_rng(0)
    truth = np.repeat([0, 1, 2], [12, 10, 10])
    centres = np.array([[-20.0] * N_FEAT, [30.0] * N_FEAT, [-5.0] * N_FEAT])
    vec = centres[truth] + rng.normal(0, 2, (32, N_FEAT))
    lumped = np.where(truth == 2, 0, truth)
    assert explains_worse(vec, lumped, truth)
    assert not explains_worse(vec, truth, lumped)


def test_in_video_a_still_board_keeps_the_verdict_on_its_own_colours(get_scene, monkeypatch):
    """The comparison runs again only when a square changes: on a still board (tracking, nothing moved) the
    last frame's verdict and colour model stand, and the reading is the same."""
    import vision.pipeline as pipeline

    calls = []
    real = pipeline.default_classify  # the default colour model's reading, which the comparison starts from

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "default_classify", counted)
    sc = get_scene(5)
    vp = VisionPipeline(profile={"corners": {"a1": list(sc.corners["a1"])}})
    first = vp.process(sc.image, 0.0).board
    assert vp.process(sc.image, 0.04).board == first
    assert vp.process(sc.image, 0.08).board == first
    assert len(calls) == 1
    vp.reset_tracking()
    vp.process(sc.image, 1.0)
    assert len(calls) == 2
