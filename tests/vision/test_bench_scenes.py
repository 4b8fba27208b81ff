"""The benchmark's scene draws (vision/bench.py): its variants change only what they name."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

from vision.bench import scene_draws
from vision.pipeline import VisionPipeline

BOARD_COLOURS = {"board_finish", "light_wood", "dark_wood", "frame_wood"}
PIECE_SIZE = {"piece_height", "piece_diameter"}
PLACEMENT = {"piece_offsets"}


def _same(a, b) -> bool:
    if hasattr(a, "__dataclass_fields__"):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    return np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b


def _changed(p, q) -> set[str]:
    """Names of the scene parameters that differ between ``p`` and ``q``."""
    return {f.name for f in fields(p) if not _same(getattr(p, f.name), getattr(q, f.name))}


def _with_and_without(seed: int, variant: dict, **common):
    """(plain, variant) scene parameters of the first 12 scenes of ``seed``, each pair checked to share its
    index, board, hand and mirroring."""
    plain = scene_draws(12, (640, 360), seed, **common)
    other = scene_draws(12, (640, 360), seed, **common, **variant)
    for (i, p, *rest), (j, q, *rest2) in zip(plain, other, strict=True):
        assert (i, rest) == (j, rest2)
        yield p, q


@pytest.mark.parametrize(("thick", "printed", "off_centre"),
                         [(True, False, False), (False, True, False), (True, True, False), (False, False, True),
                          (True, True, True)])
def test_a_variant_keeps_the_scenes_cameras_positions_and_hands(thick, printed, off_centre):
    plain = list(scene_draws(12, (640, 360), 1))
    variant = list(scene_draws(12, (640, 360), 1, thick=thick, printed=printed, off_centre=off_centre))
    for (i, p, board, hand, mirrored), (j, q, board2, hand2, mirrored2) in zip(plain, variant, strict=True):
        assert (i, board, hand, mirrored) == (j, board2, hand2, mirrored2)
        assert _changed(p, q) == ((BOARD_COLOURS if printed else set()) | (PIECE_SIZE if thick else set())
                                  | (PLACEMENT if off_centre else set()))
        assert q.board_finish == ("printed" if printed else "wood")


def test_seamless_kings_change_nothing_but_how_kings_are_drawn():
    for p, q in _with_and_without(1, {"seamless": True}, thick=True):
        assert _changed(p, q) == {"seamless_kings"}
        assert q.seamless_kings and not p.seamless_kings


def test_matte_pieces_change_nothing_but_how_the_rims_glint():
    for p, q in _with_and_without(1, {"matte": True}, off_centre=True):
        assert _changed(p, q) == {"piece_sheen"}
        assert q.piece_sheen < p.piece_sheen


def test_dark_pieces_like_squares_take_the_dark_woods_hue_and_change_nothing_else():
    """`--dark-like-squares`: the dark pieces take the dark squares' colour, a little lighter or darker, on
    wooden and printed boards alike; every other choice of the scene stays as drawn."""
    import colorsys

    from vision.render.params import DARK_LIKE_GAIN, DARK_LIKE_JITTER

    for printed in (False, True):
        for p, q in _with_and_without(2, {"dark_like": True}, printed=printed):
            assert _changed(p, q) == {"dark_piece"}
            ratio = np.divide(q.dark_piece, q.dark_wood)
            assert (ratio >= DARK_LIKE_GAIN[0] * (1 - DARK_LIKE_JITTER) - 1e-9).all()
            assert (ratio <= DARK_LIKE_GAIN[1] * (1 + DARK_LIKE_JITTER) + 1e-9).all()
            hue = [colorsys.rgb_to_hsv(*np.divide(c[::-1], 255))[0] for c in (q.dark_piece, q.dark_wood)]
            assert min(abs(hue[0] - hue[1]), 1 - abs(hue[0] - hue[1])) < 0.03


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


def test_a_cached_scene_reads_back_exactly_as_rendered_and_a_damaged_one_is_rendered_again(tmp_path):
    """`dama bench vision --cache DIR`: the second run reads the scenes the first rendered, pixel for pixel
    (PNG is lossless), with their truth; a file cut short is rendered afresh; another seed, size or variant
    is another scene."""
    from vision.bench import RenderCache, render_bench_scene

    i, *draw = next(iter(scene_draws(1, (320, 180), 1)))
    fresh = render_bench_scene(i, *draw)
    cache = RenderCache(tmp_path, 1, (320, 180), "")
    first, again = cache.get(i, draw), cache.get(i, draw)
    for got in (first, again):
        assert np.array_equal(got.image, fresh.image) and np.array_equal(got.start, fresh.start)
        assert (got.board, got.occluded, got.hand_on_board) == (fresh.board, fresh.occluded, fresh.hand_on_board)
        assert all(np.allclose(got.corners[k], fresh.corners[k]) for k in fresh.corners)
    path = cache.path(i)
    path.write_bytes(path.read_bytes()[:100])
    assert np.array_equal(cache.get(i, draw).image, fresh.image)
    assert path.stat().st_size > 1000  # stored whole again
    others = {RenderCache(tmp_path, 2, (320, 180), "").path(i), RenderCache(tmp_path, 1, (640, 360), "").path(i),
              RenderCache(tmp_path, 1, (320, 180), "thick").path(i)}
    assert path not in others and len(others) == 3


def test_boards_read_wrong_are_listed_by_square_where_a_kings_height_shows():
    """`--wrong`: each board wrong is named with its squares; a king read as a man where its height cannot
    be seen (its top under 3 px beyond a man's) is not an error, and a hidden square may read `?`."""
    from vision.bench import Tally
    from vision.geometry import START_BOARD

    t = Tally()
    t.add_board(START_BOARD, START_BOARD, "0" * 32, scene=3)
    got = "." + START_BOARD[1:]
    t.add_board(got, START_BOARD, "0" * 32, scene=7, hand=True)
    king = "W" + START_BOARD[1:]
    crown = np.full(32, 5.0)
    t.add_board(START_BOARD, king, "0" * 32, crown=crown, scene=8)  # shows: a king read as a man is wrong
    t.add_board(START_BOARD, king, "0" * 32, crown=np.full(32, 1.0), scene=9)  # does not show: right
    t.add_board("?" + START_BOARD[1:], START_BOARD, "1" + "0" * 31, scene=10)  # hidden, read "?": right
    t.add_board("b" + START_BOARD[1:], START_BOARD, "1" + "0" * 31, scene=11)  # hidden, read as a piece: wrong
    assert t.wrong == ["scene 7 (hand over the board): a1 w read .", "scene 8: a1 W read w",
                       "scene 11: a1 w read b (hidden)"]


def test_kings_are_also_scored_where_the_pipeline_itself_says_their_height_shows():
    """The "where dama says so" line: a king read as a man counts wrong only where the pipeline's own estimate
    (``said``, FrameResult.crown_px) says its height shows, whatever the scene's truth; a man crowned is wrong
    anywhere; a board not found (no estimate) is wrong throughout."""
    from vision.bench import Tally
    from vision.crown_view import KING_SHOWN_PX
    from vision.geometry import START_BOARD

    t = Tally()
    king = "W" + START_BOARD[1:]
    shows, flat = np.full(32, KING_SHOWN_PX), np.full(32, KING_SHOWN_PX - 0.5)
    t.add_board(king, king, "0" * 32, crown=np.full(32, 9.0), said=shows)  # found where it says so: right
    t.add_board(START_BOARD, king, "0" * 32, crown=np.full(32, 9.0), said=flat)  # missed where it says not: right
    t.add_board(START_BOARD, king, "0" * 32, crown=np.full(32, 1.0), said=shows)  # missed where it says so: wrong
    t.add_board("W" + START_BOARD[1:], START_BOARD, "0" * 32, crown=np.full(32, 1.0), said=flat)  # a man crowned
    t.add_board("?" * 32, king, "0" * 32, crown=np.full(32, 9.0))  # not found
    t.scenes = 5
    assert t.boards_right_said == 2 and t.kings_said_shown == [3, 1]
    assert t.squares_seen == 4 * 32 and t.squares_said == 2 * 32
    line = next(x for x in t.lines("rendered") if "where dama says so" in x)
    assert "boards 40.00 %" in line and "kings there 1/3" in line and "on 50 % of the squares" in line


def test_a_square_a_hand_partly_covers_is_named_with_its_share_and_the_figures_stay():
    """A square in view (under a fifth of its centre under the hand) that reads `?` stays wrong, but
    `--wrong` says how much of it the hand covers, and a board wrong only by such squares is counted apart;
    a board with any other error is not."""
    from vision.bench import Tally
    from vision.geometry import START_BOARD

    share = np.zeros(32)
    share[:2] = (0.16, 1.0)
    t = Tally()
    t.scenes += 3
    t.add_board("??" + START_BOARD[2:], START_BOARD, "01" + "0" * 30, scene=4, hand=True, share=share)
    t.add_board("??" + START_BOARD[2:-1] + ".", START_BOARD, "01" + "0" * 30, scene=5, hand=True, share=share)
    t.add_board("?" + START_BOARD[1:], START_BOARD, "0" * 32, scene=6, hand=True)  # no hand share: not a finger
    assert t.wrong[0] == "scene 4 (hand over the board): a1 w read ? (hand over 16 % of it)"
    assert t.boards_right_colour == 0 and t.squares_right_colour == 3 * 32 - 4
    assert t.partly_covered_only == 1
    assert any("1 only by '?' on squares in view that a hand partly covers" in s for s in t.lines("x"))
    assert not any("partly covers" in s for s in Tally().lines("x"))


def test_pictures_with_no_hand_over_the_board_are_also_scored_alone():
    """The record is made only of pictures with no hand over the board: they get their own line (kings as
    men), and a hand scene read wrong does not lower it."""
    from vision.bench import Tally
    from vision.geometry import START_BOARD

    t = Tally()
    for scene, (got, hand) in enumerate([(START_BOARD, False), ("W" + START_BOARD[1:], False),
                                         ("." + START_BOARD[1:], True), ("." + START_BOARD[1:], False)]):
        t.scenes += 1
        t.add_board(got, START_BOARD, "0" * 32, scene=scene, hand=hand)
    line = next(s for s in t.lines("x") if "no hand over the board" in s)
    assert "boards 66.67 % of 3" in line and f"per square {100 * 95 / 96:.3f} %" in line
    assert t.handless_right == 2  # a king read for a man counts right, kings as men
    every = Tally()
    every.scenes += 1
    every.add_board(START_BOARD, START_BOARD, "0" * 32, hand=False)
    assert not any("no hand over the board" in s for s in every.lines("x"))  # no hand anywhere: the line adds nothing


def test_a_hands_skin_falls_in_the_band_of_its_drawn_lightness():
    """``skin_band``: the renderer's lightest and darkest tones fall in the light and dark bands however they are
    jittered, and the bands follow the drawn colour's lightness."""
    from vision.bench import SKIN_BANDS, skin_band
    from vision.render.params import SKINS, _pick

    rng = np.random.default_rng(0)
    lightest, darkest = max(SKINS, key=sum), min(SKINS, key=sum)
    for _ in range(50):
        assert skin_band(_pick(rng, (lightest,))) == 0
        assert skin_band(_pick(rng, (darkest,))) == len(SKIN_BANDS) - 1
    grey = [skin_band((v, v, v)) for v in range(0, 256, 5)]
    assert grey == sorted(grey, reverse=True) and set(grey) == set(range(len(SKIN_BANDS)))


def test_pictures_with_a_hand_are_also_scored_by_the_hands_skin_tone():
    """Every picture of a scene with a hand counts once under its hand's skin band, and the lines name each
    band's boards right and hands detected."""
    from vision.bench import run_synthetic, scene_draws, skin_band

    n = 26  # scenes 3, 22 and 25 of seed 1 at this size have a hand
    draws = {i: p for i, p, _, h, _ in scene_draws(n, (640, 360), 1) if h is not None}
    calibrated, default = run_synthetic(n, (640, 360), 1)
    for tally in (calibrated, default):
        assert sum(v[0] for v in tally.by_skin.values()) == len(draws) == 3
        assert set(tally.by_skin) == {skin_band(p.skin) for p in draws.values()}
        assert all(0 <= right <= pictures and 0 <= seen <= on <= pictures
                   for pictures, right, on, seen in tally.by_skin.values())
        lines = tally.lines("rendered")
        skin_line = next(x for x in lines if "hands by skin" in x)
        assert skin_line.count(" % of ") == len(tally.by_skin)
        assert any("hands over the board detected" in x for x in lines)


def test_how_far_a_kings_top_lands_comes_from_the_scenes_own_camera():
    """`crown_px`: nothing straight below the camera, more the farther a square lies from its foot, twice a
    man's own top shift (a king is two men)."""
    from dataclasses import replace

    from vision.bench import crown_px
    from vision.render import random_scene_params
    from vision.render.view import View

    params = random_scene_params(np.random.default_rng(11), size=(1280, 720), tilt_max=30.0)
    px = crown_px(params)
    centres = params.geometry.square_centers() + np.asarray(params.piece_offsets)
    foot = View(params.camera).centre[:2]
    far = np.linalg.norm(centres - foot, axis=1)
    assert np.corrcoef(far, px)[0, 1] > 0.9
    lifted = params.camera.project(np.c_[centres, np.full(32, params.piece_height * params.geometry.square_mm)])
    on_board = params.camera.project(np.c_[centres, np.zeros(32)])
    man = np.linalg.norm(lifted.reshape(-1, 2) - on_board.reshape(-1, 2), axis=1)
    assert np.allclose(px, man, rtol=0.25)  # the second disc moves the top about as far as the first
    taller = crown_px(replace(params, piece_height=2 * params.piece_height))
    assert (taller > 1.8 * px).all()


def test_the_lens_figure_measures_the_shift_against_the_scenes_camera():
    """`shift_error`: none with the scene's own lens on its true lattice; a lens guessed 30 % long makes
    the shift about 30 % short."""
    import cv2

    from vision.bench import shift_error
    from vision.render import random_scene_params

    params = random_scene_params(np.random.default_rng(4), size=(1280, 720), tilt_max=40.0)
    corners = params.camera.project(params.geometry.playing_corners3d()[:4]).astype(np.float32)
    h = cv2.getPerspectiveTransform(np.array([[0, 0], [8, 0], [8, 8], [0, 8]], dtype=np.float32), corners)
    assert shift_error(h, params, False, params.camera.K) < 0.01
    long = params.camera.K.copy()
    long[0, 0] *= 1.3
    long[1, 1] *= 1.3
    assert abs(shift_error(h, params, False, long) - np.log(1.3)) < 0.1


def test_the_table_beside_a_board_is_searched_in_full_and_never_taken_for_a_board():
    """`dama bench vision`'s frames with no board in view: the table beside a small board, stretched to the
    frame's size, and noise. Neither is read as a board; the board's own frame is (the count is real)."""
    from vision.bench import NoBoard, run_no_board, table_beside
    from vision.geometry import START_BOARD
    from vision.render import random_scene_params, render_scene

    params = random_scene_params(np.random.default_rng(3), size=(640, 360), fill=(0.3, 0.35))
    shot = render_scene(START_BOARD, params)
    table = table_beside(shot.image, shot.corners, least=100)
    assert table is not None and table.shape == shot.image.shape
    none = run_no_board([table], (640, 360), seed=1)
    assert (none.frames, none.found, len(none.ms)) == (2, 0, 2)
    assert "boards found           0 (there is none)" in "\n".join(none.lines())
    with_board = NoBoard()
    with_board.read(shot.image)
    assert with_board.found == 1


def test_no_table_is_cut_beside_a_board_that_spans_the_frame():
    from vision.bench import NoBoard, table_beside

    corners = {"a1": (5.0, 350.0), "h1": (635.0, 350.0), "h8": (600.0, 10.0), "a8": (40.0, 10.0)}
    assert table_beside(np.zeros((360, 640, 3), np.uint8), corners) is None
    assert "no scene left room" in NoBoard().lines()[0]


def test_the_machine_speed_is_timed_by_library_calls_alone():
    """The benchmark's reference workload: this machine's speed at the moment, to compare runs by."""
    from vision.bench import reference_line, reference_ms

    ms = reference_ms(reps=3)
    assert np.isfinite(ms) and ms > 0.0
    assert "reference workload 1.00 ms before the run, 1.25 ms after" in reference_line(1.0, 1.25)


def test_photos_only_without_the_photos_says_so_and_still_times_the_machine(tmp_path, monkeypatch, capsys):
    """`dama bench vision --photos-only` where the photos are not (a folder without them): said in one line,
    no figures of nothing, no OpenCV warnings per missing file."""
    import cv2

    import vision.bench as bench

    monkeypatch.setattr(bench, "PHOTO_ROOT", tmp_path)
    threads = cv2.getNumThreads()
    try:
        assert bench.main(["--photos-only"]) == 0
    finally:
        cv2.setNumThreads(threads)
    out = capsys.readouterr().out
    assert "real photos: no labels or photos found" in out
    assert "board found" not in out
    assert "machine speed: reference workload" in out


def test_still_frames_are_timed_after_the_tracking_one_and_the_reading_stands_on_some():
    """After each scene's tracking frame the benchmark shows the same picture for one cycle of the still
    reading (vision.bench.STILL_FRAMES): the motion test settles and the last reading stands on at most all
    but one of them (VisionPipeline._still_reading); the line says on how many it did."""
    from vision.bench import STILL_FRAMES, run_synthetic

    calibrated, default = run_synthetic(3, (640, 360), 1)
    for tally in (calibrated, default):
        assert len(tally.ms_still) == STILL_FRAMES * tally.found and tally.found >= 2
        assert 0 < tally.still_reused <= (STILL_FRAMES - 1) * tally.found
        line = next(x for x in tally.lines("rendered") if x.strip().startswith("ms per still frame"))
        assert f"{100 * tally.still_reused / len(tally.ms_still):.0f} %" in line


def test_a_board_without_a_hand_read_as_one_is_held_still_to_see_whether_it_is_passed_on(get_bench_draw,
                                                                                         monkeypatch):
    """The benchmark counts the pictures without a hand read as one that a stabilizer never passes on while
    held still: scene 402 of seed 2 (a tall king's top over a light square, a steep camera) is passed on
    once the square has stood still (vision.occlusion.LEAN_STILL_FRAMES), and was not before."""
    import vision.occlusion as occlusion
    from vision.bench import HELD_FRAMES, Tally, passed_on_held_still, render_bench_scene

    sc = render_bench_scene(*get_bench_draw(2, 402))
    assert not sc.hand_on_board

    def fresh() -> VisionPipeline:
        return VisionPipeline(profile={"corners": {"a1": list(sc.corners["a1"])}})

    vp = fresh()
    assert vp.process(sc.image, 0.0).hand  # one picture: read as a hand
    assert passed_on_held_still(vp, sc.image, 0.04)
    monkeypatch.setattr(occlusion, "LEAN_STILL_FRAMES", 10 ** 6)
    assert not passed_on_held_still(fresh(), sc.image, 0.0)
    tally = Tally(hands=1, false_hands=3, false_hands_held=1)
    line = next(x for x in tally.lines("rendered") if "hands over the board" in x)
    assert f"3 frames without one flagged as a hand, 1 of them still a hand or '?' over {HELD_FRAMES} frames" in line


@pytest.mark.parametrize("args", [["--seed", "-1"], ["--n", "0"], ["--n", "-3"], ["--size", "5x5"], ["--size", "big"]])
def test_bad_benchmark_options_are_refused_before_any_work(capsys, args):
    """A negative seed used to end in numpy's traceback after the header; no scene is rendered now."""
    from vision.bench import main

    assert main(["--no-photos", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "dama bench vision: --" in captured.err
