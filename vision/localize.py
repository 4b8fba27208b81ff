"""Stage 1, localization: find the 8×8 playing area in a frame, without markers.

Pipeline: quads of both polarities (``vision.quads``) → the lattice hypothesis explaining most of them
(``vision.lattice``) → the 8×8 window of that lattice (the light squares are always empty, so the
checker alternation marks the playing area even where a frame or the table continues outside it) →
sub-pixel refinement of the 7×7 inner corners (``cv2.cornerSubPix``) and a robust homography over the
corners that still look like checker X-corners (pieces and hands hide some). The outer corners are
extrapolated from that homography.

``check_fit`` is the cheap test of tracking mode: do the inner corners of a previous fit still look like
X-corners in the new frame?
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.lattice import grow, grow_centres, lattices, square_lattices
from vision.orientation import LATTICE_CORNERS
from vision.quads import WINDOWS, find_quads, side_contrast
from vision.views import LIGHTNESS, SATURATION, colour_views, negated, view_of, view_values

WORK_SIZE = 800  # longest side of the image the coarse search runs on
MIN_CELLS = 10
MIN_CONTRAST = 20.0  # grey levels between light and dark squares
DEBUG = False
OUTER_PENALTY = 2.0  # X-corners on a window's outer lines (the board's edges carry none) count against it
OFF_IMAGE = -1.0e4  # grey level given to cells outside the frame


@dataclass
class BoardFit:
    """Lattice of the playing area: ``h`` maps board units (u, v) in [0, 8]² to full-image pixels.

    ``bright_parity``: cell (i, j) is a light square iff (i + j) % 2 == bright_parity. ``view``: the grey
    view of the frame the board was found in (:mod:`vision.views`), which tracking keeps looking at.
    """

    h: np.ndarray
    bright_parity: int
    inliers: int  # inner corners confirmed as X-corners (of 49)
    contrast: float  # light minus dark square grey level
    view: str = LIGHTNESS


class NotFound(Exception):
    """Localization failed; the message is the reason shown to users."""


class NoLattice(NotFound):
    """Too little of a checkerboard lattice was found (not: a board half out of view, or unconfirmed)."""


class InvertedParity(NotFound):
    """A lattice hypothesis whose window's squares alternate clearly, the other way round from the colour
    parity the lattice was given: its cells (a few, among pieces and glare at a steep view) told their
    colour wrongly. Tried again with the parity turned round when nothing else finds a board (scene 525
    of ``dama bench vision --seed 2``, a large board at 45°, was not found)."""


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    ph = pts @ h[:, :2].T + h[:, 2]
    return ph[:, :2] / ph[:, 2:3]


def to_gray(frame: np.ndarray, view: str = LIGHTNESS) -> np.ndarray:
    """The grey ``view`` (:mod:`vision.views`) of a BGR frame; a grey frame as it is."""
    return view_of(frame, view)


def localize_frame(frame: np.ndarray, steep_start: bool = False) -> BoardFit:
    """Full detection on a BGR frame: in its lightness, else in its colour-opponent views, else in its
    saturation (where shadows of tall pieces fade; :mod:`vision.views`), else from lattices seeded in its
    lightness by the squares' contrast with their neighbours (:func:`_seeded_by_contrast`), else from the
    lattice of its light squares' centres (:func:`_seeded_by_centres`).

    A board printed in two colours of about equal lightness (red and green) shows no squares in
    lightness; its fit is found in the view where its colours differ (:mod:`vision.views`). Which of the
    two colours is the playing one cannot come from lightness there: the pieces tell, since the light
    squares are always empty (:func:`playing_parity`). Raises the lightness search's :class:`NotFound`
    when no view shows a board (its reason is the one users understand).

    ``steep_start``: the frame shows a start position (calibration, which reads it back to check): a window
    of the last attempt's lattices that only a steep view of one explains, its far rows' corners hidden by
    the men, is taken when nothing else is found. Elsewhere such a window is half a board as often.
    """
    gray = to_gray(frame)
    found_quads: dict = {}  # the lightness search's quads, for the last attempt
    try:
        return _light_squares_beside(frame, _pieces_on_the_lighter_colour(frame, localize(gray, quads=found_quads)))
    except NotFound as exc:
        failed = exc
    for view in (*colour_views(frame), *((SATURATION,) if frame.ndim == 3 else ())):
        try:
            fit = localize(to_gray(frame, view), coarse_only=view == SATURATION)
        except NotFound:
            continue
        if view == SATURATION and fit.inliers < SATURATION_MIN_INLIERS:
            continue
        fit = replace(fit, view=view)
        return _light_squares_beside(frame, with_parity(fit, playing_parity(frame, fit)))
    seeded = _contrast_seeds(gray, found_quads)
    if seeded is None:
        raise failed
    steep: list[BoardFit] = []  # windows of the contrast seeds that only a steep view of a start position explains
    try:
        return _light_squares_beside(frame, _seeded_by_contrast(gray, *seeded, steep))
    except NotFound:
        pass
    try:
        return _light_squares_beside(frame, _seeded_by_centres(gray, *seeded))
    except NotFound:
        pass
    if steep and steep_start:
        return _light_squares_beside(frame, steep[0])
    raise failed


# A board found elsewhere is covered this far beyond its outer corners (in squares) when another board
# is looked for beside it: its frame and the shadows along its edges go too.
COVER_BEYOND = 0.75


def localize_beside(frame: np.ndarray, taken: list[BoardFit]) -> BoardFit:
    """Full detection of another board than those ``taken``: each is covered with the picture's median
    colour (its playing area and :data:`COVER_BEYOND` of a square round it) and the rest searched as
    :func:`localize_frame` searches a frame; :class:`NotFound` if no other board is in view.

    A camera over a board in a hall of boards may see part of the next one, and the localizer takes
    whichever board's lattice it confirms best, not always the one the camera is for. Calibration looks
    for the board that shows the start position among them, and play for the board where the calibrated
    or last one stood (:class:`vision.pipeline.VisionPipeline`)."""
    covered = frame.copy()
    fill = np.median(frame.reshape(-1, frame.shape[-1] if frame.ndim == 3 else 1), axis=0)
    grow_by = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64) * COVER_BEYOND
    for fit in taken:
        quad = _apply(fit.h, LATTICE_CORNERS + grow_by)
        cv2.fillConvexPoly(covered, np.round(quad).astype(np.int32), fill.tolist())
    return localize_frame(covered)


# The last attempt, when no view shows a board: lattices grown loosely (vision.lattice.grow) from the
# full-resolution quads that stand out most from the cells beside them (vision.quads.side_contrast), at
# most this many seeds, and only those standing out by MIN_CONTRAST. A small board at a steep angle (squares
# of 9 × 18 px) has its squares merged at the corners into irregular quads with few neighbours of their
# size, so the usual seeds, the quads with most such neighbours, all lie on a cloth's weave (docs/vision.md,
# "A small board seeded by its squares' contrast"). 48, not 24: two boards of tall pieces were found from
# the 31st and 32nd seeds; a frame with no board pays about 5 % more either way.
CONTRAST_SEEDS = 48


def _contrast_seeds(gray: np.ndarray, found_quads: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(quads, polarities, seeds) of the last attempts: the full-resolution quads of the lightness search
    (``found_quads``, by scale and windows) and the indices of the ``CONTRAST_SEEDS`` that stand out most
    from the cells beside them, by ``MIN_CONTRAST`` at least; None if that search kept no full-resolution
    quads."""
    key = next((k for k in ((1.0, FINE_WINDOWS), (1.0, WINDOWS)) if k in found_quads), None)
    if key is None:
        return None
    quads, pols = found_quads[key][:2]
    score = side_contrast(gray, quads, pols)
    seeds = np.argsort(-score, kind="stable")[:CONTRAST_SEEDS]
    return quads, pols, seeds[score[seeds] >= MIN_CONTRAST]


def _seeded_by_contrast(gray: np.ndarray, quads: np.ndarray, pols: np.ndarray, seeds: np.ndarray,
                        steep: list[BoardFit] | None = None) -> BoardFit:
    """The board of a lattice grown loosely from each of ``seeds`` (:func:`_contrast_seeds`); raises
    :class:`NotFound`. Every seed grows its own lattice: on such a board one seed's lattice covers another's
    cell and still grows less."""
    grown = (grow(quads, pols, int(k), loose=True) for k in seeds)
    fits = sorted((f for f in grown if f is not None and len(f.cells) >= MIN_CELLS), key=lambda f: -len(f.cells))
    for fit in fits[:3]:
        try:
            return _board_from_lattice(gray, gray, 1.0, fit, steep)
        except NotFound:
            continue
    raise NoLattice("no checkerboard found")


# The very last attempt: the light squares' own lattice, grown from the centres of the quads of strongest
# contrast (vision.lattice.grow_centres), when it holds at least this many of them.
MIN_CENTRES = 8


def _seeded_by_centres(gray: np.ndarray, quads: np.ndarray, pols: np.ndarray, seeds: np.ndarray) -> BoardFit:
    """The board of the square lattice that holds the lattice of light squares' centres grown from one of
    ``seeds`` (:func:`_contrast_seeds`); raises :class:`NotFound`. A small steep board's blurred squares give
    quads whose centres are right and whose corners are not (vision.lattice, "The lattice of the light
    squares' centres"). Of the three square lattices that hold one light lattice the one with most confirmed
    inner corners wins; the first light lattice that gives a board at all decides."""
    explained = np.zeros(len(quads), dtype=bool)
    for seed in seeds:
        if explained[seed]:
            continue
        centres = grow_centres(quads, pols, int(seed))
        if centres is None:
            continue
        explained[centres.quads] = True
        if len(centres.points) < MIN_CENTRES:
            continue
        boards = []
        for fit in square_lattices(centres, pols):
            try:
                board = _board_from_lattice(gray, gray, 1.0, fit)
            except NotFound:
                continue
            if _light_cells_light(gray, board) >= CENTRE_LIGHT_CELLS:
                boards.append(board)
        if boards:
            return max(boards, key=lambda b: b.inliers)
    raise NoLattice("no checkerboard found")


# ... and a board so found must show most of its light squares light (they are always empty): half a board
# with the rest blacked out passed every other test, its confirmed inner corners along the black edge, and
# its windows showed 50–72 % of their light cells light; seed 9 scene 105 and its start position 100 %.
CENTRE_LIGHT_CELLS = 0.85


def _light_cells_light(gray: np.ndarray, board: BoardFit) -> float:
    """The share of ``board``'s 32 light cells whose middle (median of nine points) is nearer the light
    cells' median than the dark cells'."""
    uv = np.array([[i + 0.5, j + 0.5] for j in range(8) for i in range(8)])
    offs = np.array([[dx, dy] for dx in (-0.2, 0.0, 0.2) for dy in (-0.2, 0.0, 0.2)])
    xy = _apply(board.h, (uv[:, None, :] + offs[None]).reshape(-1, 2)).astype(np.float32)
    vals = cv2.remap(gray, xy[:, 0:1], xy[:, 1:2], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    cells = np.median(vals.reshape(64, len(offs)).astype(np.float32), axis=1)
    light = cells[board.bright_parity == CELL_PARITY]
    middle = (np.median(light) + np.median(cells[board.bright_parity != CELL_PARITY])) / 2
    return float((light > middle).mean())


# Saturation, the last view, is searched at the working size only: the full-resolution passes cost 0.3–1.3 s
# on a frame with no board, which the watch loop pays on every frame while the board is out of view; the
# coarse pass costs 51 ms median there (87 ms at most). Light pieces are about as pale as light squares in
# it, so a fit there needs more confirmed inner corners than elsewhere: on `dama bench vision
# --thick-pieces` (2026-12-02) the two right fits had 25 and 20, a wrong one (36 px squares at 42°, its
# corners 12 px off) 12.
SATURATION_MIN_INLIERS = 16


# A window a square beside the found one nearly ties on X-corners when it lacks at most this many inner ones
# (and has as many on its outer lines); then the colour of the light cells each has and the other lacks
# decides, if they differ from the common light squares by this much more (Lab units) in the found window.
TIE_INNER = 2
LIGHT_CELL_MARGIN = 20.0
LIGHT_CELL_SPREADS = 4.0  # ... or this many times the common light squares' own spread, if more
# ... or, whatever the spread, this many times as far as the other's row and this much further (Lab units):
# a lamp's sheen across the light squares raises their spread, and the frame's strip, far off, did not pass
# (docs/vision.md, "A window onto the frame told by how many times further its light cells are")
LIGHT_CELL_TIMES = 3.0
LIGHT_CELL_TIMES_MARGIN = 15.0


def _light_squares_beside(frame: np.ndarray, board: BoardFit) -> BoardFit:
    """``board``, or the window one square beside it if their X-corners nearly tie and only the other's
    extra row of light cells looks like the board's light squares.

    On a start position the rows of men along two edges hide the X-corners of the lines beside them, so
    the window evidence (:func:`window_evidence`) of the true window and of one shifted onto the frame can
    tie or even favour the shifted one (5 of 3200 rendered pictures: seed 1's 1000 scenes and seed 2's
    600, start position and mid-game each). The light squares are always empty (čl. 2.4), so the light
    cells of the row only one window has are the board's light squares in the right window and a strip
    of frame or table in the wrong one. Medians of 25 points over each cell's middle, in Lab: a tall
    piece's top leaning over a light square does not move them. On those pictures the extra row of the
    wrong window lay 59–105 from the common light squares, the right one's 4–12; where the found window
    was right and a neighbour nearly tied, the neighbour's row lay 31–170 off and the found one's 3–70.
    """
    if frame.ndim == 2:
        return board
    gray = to_gray(frame, board.view)
    outer, inner = window_evidence(gray, board)
    back = np.linalg.inv(board.h)

    def light(du: int = 0, dv: int = 0) -> set[tuple[int, int]]:
        """The light cells of the window (du, dv) squares from ``board``, in ``board``'s lattice."""
        return {(i, j) for i in range(du, du + 8) for j in range(dv, dv + 8) if (i + j) % 2 == board.bright_parity}

    ours = light()
    for moved in windows_beside(gray, board):
        o, n = window_evidence(gray, moved)
        if o != outer or n < inner - TIE_INNER:
            continue
        du, dv = np.round(_apply(back, _apply(moved.h, np.zeros((1, 2))))[0]).astype(int)
        theirs = light(du, dv)
        common, only_ours, only_theirs = sorted(ours & theirs), sorted(ours - theirs), sorted(theirs - ours)
        if not only_ours or not only_theirs:
            continue
        lab = _median_cell_colours(frame, board.h, common + only_ours + only_theirs)
        groups = np.split(lab, [len(common), len(common) + len(only_ours)])
        ref = np.median(groups[0], axis=0)
        spread, off_ours, off_theirs = (float(np.median(np.linalg.norm(g - ref, axis=1))) for g in groups)
        if off_ours > off_theirs + max(LIGHT_CELL_MARGIN, LIGHT_CELL_SPREADS * spread) or off_ours > max(
                off_theirs + LIGHT_CELL_TIMES_MARGIN, LIGHT_CELL_TIMES * off_theirs):
            return moved
    return board


_CELL_POINTS = np.array([[a, b] for b in (np.arange(5) + 0.5) / 5 * 0.6 + 0.2
                         for a in (np.arange(5) + 0.5) / 5 * 0.6 + 0.2])  # 5 × 5 over a cell's middle


def _median_cell_colours(frame: np.ndarray, h: np.ndarray, cells: list[tuple[int, int]]) -> np.ndarray:
    """(len(cells), 3) median Lab colour of 25 points over the middle of each lattice cell (i, j)."""
    uv = (np.asarray(cells, dtype=np.float64)[:, None, :] + _CELL_POINTS[None]).reshape(-1, 2)
    xy = _apply(h, uv).astype(np.float32)
    vals = cv2.remap(frame, xy[:, 0:1], xy[:, 1:2], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lab = cv2.cvtColor(vals.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(len(cells), len(_CELL_POINTS), 3)
    return np.median(lab.astype(np.float32), axis=1)


def fit_on_corners(frame: np.ndarray, h: np.ndarray) -> BoardFit:
    """The board under fixed corners (``h`` maps the lattice to the frame), refined without moving it.

    Its light class and view are the ones in which its squares differ most: lightness for almost every
    board, a colour view for a board printed in colours of equal lightness (then the pieces say which
    colour plays, as in :func:`localize_frame`). The contrast is 0 when no view shows squares there."""
    best: BoardFit | None = None
    for view in (LIGHTNESS, *colour_views(frame)):
        fit = _held_fit(frame, h, view)
        if view != LIGHTNESS:
            fit = with_parity(fit, playing_parity(frame, fit))
        if best is None or fit.contrast > best.contrast:
            best = fit
        if view == LIGHTNESS and fit.contrast >= MIN_CONTRAST and fit.inliers >= 6:
            break
    assert best is not None
    return best


def _held_fit(frame: np.ndarray, h: np.ndarray, view: str) -> BoardFit:
    """The board under ``h`` in ``view``, refined for its contrast and inliers without moving: its light
    class is the one brighter in that view."""
    first = refine(to_gray(frame, view), BoardFit(h=h, bright_parity=1, inliers=0, contrast=0.0, view=view))
    return replace(first, h=h, bright_parity=1 if first.contrast >= 0 else 0, contrast=abs(first.contrast))


def with_parity(fit: BoardFit, dark: int) -> BoardFit:
    """``fit`` whose dark (playing) squares are the cells with (i + j) % 2 == ``dark``.

    In a colour view the order of the two colours' grey levels is arbitrary: turning the classes round
    negates the view too, so that the light squares stay the brighter ones (the contrast keeps its size
    and sign, and tracking's polarity test holds)."""
    if (1 - dark) == fit.bright_parity:
        return fit
    return replace(fit, bright_parity=1 - dark, view=negated(fit.view))


# The class whose 32 cells differ more among themselves holds the pieces when its spread is this many times
# the other's; else (an empty board, or one with a piece or two) the darker class is the playing one. On the
# four red/green photos the ratio is 1.4 to 3.7; tall pieces leaning over the light squares behind them
# raise the light class's spread too.
PIECE_SPREAD_RATIO = 1.25

CELL_PARITY = (np.arange(64) % 8 + np.arange(64) // 8) % 2  # (i + j) % 2 of the cells in lattice order


def _pieces_on_the_lighter_colour(frame: np.ndarray, fit: BoardFit) -> BoardFit:
    """A board found in lightness whose two colours differ more in hue than in lightness (a printed
    purple/green board, say) may have its pieces on the lighter colour; then they say which colour plays
    (:func:`playing_parity`) and the fit moves to the colour view that separates the colours, turned so
    that the light squares are the brighter ones there, as tracking's polarity test expects. A wooden
    board's colours differ in lightness far more than in hue, and it is returned as it is."""
    if frame.ndim == 2:
        return fit
    lab = _cell_colours(frame, fit)
    light = np.median(lab[fit.bright_parity == CELL_PARITY], axis=0)
    dark = np.median(lab[fit.bright_parity != CELL_PARITY], axis=0)
    diff = light - dark
    if np.hypot(diff[1], diff[2]) <= abs(diff[0]):
        return fit
    playing = _playing_parity_of(lab)
    if playing != fit.bright_parity:
        return fit
    view = "a" if abs(diff[1]) >= abs(diff[2]) else "b"
    return with_parity(_held_fit(frame, fit.h, view), playing)


def _cell_colours(frame: np.ndarray, fit: BoardFit) -> np.ndarray:
    """(64, 3) mean Lab colour of each cell's middle (nine samples), cells in lattice order (i + 8 j)."""
    uv = np.array([[i + 0.5, j + 0.5] for j in range(8) for i in range(8)])
    offs = np.array([[dx, dy] for dx in (-0.2, 0.0, 0.2) for dy in (-0.2, 0.0, 0.2)])
    xy = _apply(fit.h, (uv[:, None, :] + offs[None]).reshape(-1, 2)).astype(np.float32)
    vals = cv2.remap(frame, xy[:, 0:1], xy[:, 1:2], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lab = cv2.cvtColor(vals.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(64, len(offs), 3).astype(np.float32)
    return lab.mean(axis=1)


def playing_parity(frame: np.ndarray, fit: BoardFit) -> int:
    """Parity (i + j) % 2 of the playing squares, for a board found in a colour view (or in lightness but
    with colours that differ more in hue than in lightness).

    The light squares are always empty (čl. 2.4: the pieces stand on the dark squares), so their 32
    cells look alike, while the playing squares hold light pieces, dark pieces and bare squares. The
    spread of a class is the mean distance of its cells' mean Lab colours from the class's median: a few
    pieces already raise it well above the bare squares' noise.
    When the spreads do not tell, the class darker in lightness plays, as on every other board."""
    return _playing_parity_of(_cell_colours(frame, fit))


def _playing_parity_of(colour: np.ndarray) -> int:
    """:func:`playing_parity` from the cells' mean Lab colours (``_cell_colours``)."""
    spread, lightness = [], []
    for p in (0, 1):
        c = colour[p == CELL_PARITY]
        spread.append(float(np.mean(np.linalg.norm(c - np.median(c, axis=0), axis=1))) + 1.0)
        lightness.append(float(np.median(c[:, 0])))
    if max(spread) >= PIECE_SPREAD_RATIO * min(spread):
        return int(np.argmax(spread))
    return int(np.argmin(lightness))


def localize(gray: np.ndarray, coarse_only: bool = False, quads: dict | None = None) -> BoardFit:
    """Full detection on a grayscale frame; raises :class:`NotFound` with a reason. ``coarse_only``: the
    search at the working size alone (no full-resolution, steep, loose or turned-parity retries).
    ``quads``: filled with the quads of each pass, by (scale, windows), for the caller to reuse."""
    if float(gray.std()) < 4.0:
        raise NotFound("blank frame (no contrast)")
    scale = min(1.0, WORK_SIZE / max(gray.shape))
    steep: list[BoardFit] = []  # windows only a steep camera's view of the start position explains
    quads = {} if quads is None else quads  # the quads of each pass, for the last attempts to reuse
    inverted: list = []  # hypotheses whose squares alternate the other way round (InvertedParity)
    try:
        return _localize_at(gray, scale, steep=steep, quads=quads, inverted=inverted)
    except NotFound as exc:
        if coarse_only:
            raise
        failed = exc
    if scale < 1.0:
        # A small, steep board may have squares too small to find at the working size: full resolution,
        # with a threshold window as small as two or three of its squares too (blurred small squares merge
        # in a wider one).
        try:
            return _localize_at(gray, 1.0, FINE_WINDOWS, steep=steep, quads=quads, inverted=inverted)
        except NotFound as exc:
            failed = exc
    if steep:
        return steep[0]
    fine = quads.get((1.0, FINE_WINDOWS))
    if isinstance(failed, NoLattice) and (fine is None or fine[2] >= LOOSE_FROM):
        # Last, the loose lattice growth (vision.lattice.grow) on the full-resolution quads: a small board
        # at a grazing angle, whose squares the pieces in front partly hide. Tried first it also grows
        # wrong lattices on boards the strict growth finds, so only frames nothing else explains get it.
        try:
            return _localize_at(gray, 1.0, FINE_WINDOWS, loose=True, quads=quads)
        except NotFound:
            pass
    # Last of all, the hypotheses whose parity was read the wrong way round, turned round: tried earlier
    # (before the full-resolution pass), one let a window a row off through on a steep start position.
    # Such a window must also have no X-corners on its outer lines (the board's edges carry none): on half
    # a board, the rest blacked out, a turned hypothesis gave a window inside the board with three there.
    for small, at_scale, fit in inverted:
        try:
            board = _board_from_lattice(gray, small, at_scale, fit, flip=True)
        except NotFound:
            continue
        if window_evidence(gray, board)[0] == 0:
            return board
    raise failed


# WINDOWS (vision.quads): the adaptive-threshold windows of the search at the working size
FINE_WINDOWS = (0.03, 0.05, 0.12)  # adaptive-threshold windows of the full-resolution retry
# Inner corners (of 49) that must confirm a refined window. A lattice found on a dozen cells near one
# corner can extrapolate to a skewed window that a few corners still confirm (10 on a benchmark scene,
# 22 px off); right fits had at least 14 on the benchmark's first 1000 scenes and 24 on the real photos.
MIN_INLIERS = 12


# The loose growth is tried only where the strict one found a strip of at least this many cells at full
# resolution (5 on the grazing board it finds; 1 on a table's wood grain, where it would cost 160 ms).
LOOSE_FROM = 4


def _localize_at(gray: np.ndarray, scale: float, windows: tuple[float, ...] = WINDOWS,
                 steep: list[BoardFit] | None = None, loose: bool = False, quads: dict | None = None,
                 inverted: list | None = None) -> BoardFit:
    """Localization with the coarse search at ``scale`` of the frame; windows that pass only the steep
    in-view rule are appended to ``steep`` instead of returned. ``loose``: the lattice grows loosely
    (:func:`vision.lattice.grow`). ``quads``: (quads, polarities, the most cells of a strict
    lattice) found earlier in this frame, by scale and windows (found ones are added). ``inverted``
    collects (small image, scale, hypothesis) of the hypotheses that raised :class:`InvertedParity`."""
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else gray
    key = (scale, windows)
    known = quads is not None and key in quads
    found = quads[key][:2] if known else find_quads(small, windows=windows)
    hypotheses = lattices(*found, loose=loose)
    if quads is not None and not known:
        quads[key] = (*found, max((len(f.cells) for f in hypotheses), default=0))
    fits = [f for f in hypotheses if len(f.cells) >= MIN_CELLS][:3]
    if not fits:
        raise NoLattice("no checkerboard found")
    first: NotFound | None = None
    for fit in fits:
        try:
            return _board_from_lattice(gray, small, scale, fit, steep)
        except InvertedParity as exc:
            first = first or exc
            if inverted is not None:
                inverted.append((small, scale, fit))
        except NotFound as exc:
            first = first or exc
    assert first is not None
    raise first


def _board_from_lattice(gray: np.ndarray, small: np.ndarray, scale: float, fit,
                        steep: list[BoardFit] | None = None, flip: bool = False) -> BoardFit:
    """Playing window, in-view check, refinement and validation of one lattice hypothesis; ``flip`` turns
    its colour parity round (see :class:`InvertedParity`)."""
    h_small = fit.h
    i0, j0 = _window(small, h_small, fit)
    shift = np.array([[1, 0, i0], [0, 1, j0], [0, 0, 1]], dtype=np.float64)
    scale_m = np.diag([1 / scale, 1 / scale, 1.0])
    h = scale_m @ h_small @ shift
    parity = (fit.parity + i0 + j0) % 2
    if not _in_view(gray, h):
        raise NotFound("board not fully in view")
    if flip:
        parity = 1 - parity
    board = refine(gray, BoardFit(h=h, bright_parity=parity, inliers=0, contrast=0.0))
    if board.contrast <= -MIN_CONTRAST:
        raise InvertedParity("no checkerboard found (no light/dark squares)")
    if board.contrast < MIN_CONTRAST:
        raise NotFound("no checkerboard found (no light/dark squares)")
    board = _refined_further(gray, board)
    if board.contrast < MIN_CONTRAST:  # measured again where a further pass moved the fit
        raise NotFound("no checkerboard found (no light/dark squares)")
    if board.inliers < MIN_INLIERS:
        raise NotFound("checkerboard corners not confirmed")
    # The confirmed inner corners must spread over the whole window: a window hanging over the
    # frame edge (half a board in view, the rest covered or outside) has none on its far side.
    u, v = _confirmed_corners(gray, board)
    if len(u) < 6 or not _spread_over_window(u, v):
        aside = _window_aside(gray, board)
        if aside is not None:
            return _best_beside(gray, aside)
        if steep is not None and len(u) >= 6 and _spread_over_window(u, v, steep=True):
            steep.append(board)
        # Also what a very steep camera can see of the start position: the far rows of men hide the
        # corners between them (docs/vision.md, "What is missing or weak").
        raise NotFound("board not fully in view, or its far side hidden (a steep camera: raise it higher "
                       "over the board)")
    return _best_beside(gray, board)


def _in_view(gray: np.ndarray, h: np.ndarray) -> bool:
    """Does the window of homography ``h`` lie in the picture (to within 1 % of its larger side)?"""
    corners = _apply(h, LATTICE_CORNERS)
    hh, ww = gray.shape
    margin = 0.01 * max(hh, ww)
    return not ((corners < -margin).any() or (corners[:, 0] > ww + margin).any()
                or (corners[:, 1] > hh + margin).any())


def _confirmed_corners(gray: np.ndarray, board: BoardFit) -> tuple[np.ndarray, np.ndarray]:
    """Lattice (u, v) of ``board``'s inner corners that look like X-corners at its contrast."""
    ok = _xcorner_scores(gray, board.h, INNER_UV) > 0.25 * board.contrast
    return INNER_UV[ok, 0], INNER_UV[ok, 1]


def _confirmed_over_window(gray: np.ndarray, board: BoardFit) -> bool:
    """Do ``board``'s confirmed inner corners reach both sides of its window (:func:`_spread_over_window`)?"""
    u, v = _confirmed_corners(gray, board)
    return len(u) >= 6 and _spread_over_window(u, v)


ASIDE = tuple((d, 0) for d in (1, -1, 2, -2)) + tuple((0, d) for d in (1, -1, 2, -2))


def _window_aside(gray: np.ndarray, board: BoardFit) -> BoardFit | None:
    """The window one or two squares beside ``board`` along a lattice axis that passes where ``board``
    failed: in view, a checkerboard, enough confirmed corners, and those reaching both sides of it.

    :func:`_window` places the 8×8 window at the working size from whole lines of cells. Under a steep
    camera the near rows' squares are long and clear and the far ones short, and the rows of men of a
    start position break the alternation along them: on a scene of seed 4 (47.8° of tilt) the window
    landed two rows beyond the far edge, the board's near rows left out, and no corner confirmed the
    window's far side. The windows beside it are refined and the one with the most
    :func:`window_evidence` is taken (the board's own window, its outer lines bare and inner ones
    checkered, outscores a window a square in), if it also outscores ``board``: moved onto the board, a
    window gains the corners the search's window left out, while moved off half a board (the rest covered
    or outside the picture), it can only lose them. Only a window that would otherwise fail pays for this."""
    best, score = None, window_evidence(gray, board)
    for du, dv in ASIDE:
        moved = shifted(board, du, dv)
        if not _in_view(gray, moved.h):
            continue
        moved = refine(gray, moved)
        if moved.contrast < MIN_CONTRAST or moved.inliers < MIN_INLIERS or not _confirmed_over_window(gray, moved):
            continue
        evidence = window_evidence(gray, moved)
        if evidence > score:
            best, score = moved, evidence
    return best


REFINE_AGAIN = 3  # at most this many further refinement passes for a fit with too few confirmed corners


def _refined_further(gray: np.ndarray, board: BoardFit) -> BoardFit:
    """``board`` refined again, when it has fewer than ``MIN_INLIERS`` confirmed corners, for as long as
    each pass confirms more (at most ``REFINE_AGAIN`` passes).

    :func:`refine` tests the X-corners where the fit it starts from puts them. A lattice extrapolated
    from the squares the coarse search saw (a hand or the rows of men hide the rest) can be half a
    square off at the far corner, where no corner is found near the prediction; the first pass fits
    the corners it does confirm and lands closer, so the next pass from there finds more (a start
    position with a hand over one corner: 11 confirmed corners after one pass, 18 and 19 after the next
    two, its corners 18 px off, then 6, then 2). A fit that has enough after one pass is left as it is:
    the frames found before are found with the same fit, and only a failing one pays for more passes.
    """
    if board.inliers >= MIN_INLIERS:
        return board
    for _ in range(REFINE_AGAIN):
        again = refine(gray, board)
        if again.inliers <= board.inliers:
            break
        board = again
    return board


def _best_beside(gray: np.ndarray, board: BoardFit) -> BoardFit:
    """``board``, or the window one square beside it that looks more like the playing area.

    The window search runs at the working size and weighs whole lines of cells; rows of men along the
    board's edges (the start position) hide X-corners and break the alternation there, and can pull it a
    square aside. At full resolution :func:`window_evidence` compares the found window with its four
    neighbours (checker X-corners on the outer lines count against a window, on the inner lines for it;
    the found one wins a tie). On the 998 start positions of ``dama bench vision --n 1000`` that are
    found, the windows a square off went from 7 to 1; on the real photos from 4 of 29 to 2; the 1000
    mid-game scenes kept their windows. About 2 ms per full detection.
    """
    best, score = board, window_evidence(gray, board)
    for moved in windows_beside(gray, board):
        evidence = window_evidence(gray, moved)
        if evidence > score:
            best, score = moved, evidence
    return best


def shifted(board: BoardFit, du: float, dv: float) -> BoardFit:
    """The window ``(du, dv)`` squares from ``board`` on the same lattice (light parity follows), unrefined."""
    h = board.h @ np.array([[1.0, 0.0, du], [0.0, 1.0, dv], [0.0, 0.0, 1.0]])
    parity = board.bright_parity if (du + dv) % 2 == 0 else 1 - board.bright_parity
    return replace(board, h=h, bright_parity=parity, inliers=0, contrast=0.0)


def windows_beside(gray: np.ndarray, board: BoardFit) -> list[BoardFit]:
    """The refined 8×8 windows one square beside ``board`` that lie in the picture and look like a
    checkerboard (contrast, confirmed inner corners)."""
    hh, ww = gray.shape
    out = []
    for du, dv in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        moved = shifted(board, du, dv)
        c = _apply(moved.h, LATTICE_CORNERS)
        if (c < 0).any() or (c[:, 0] > ww - 1).any() or (c[:, 1] > hh - 1).any():
            continue
        moved = refine(gray, moved)
        if moved.contrast >= MIN_CONTRAST and moved.inliers >= 6:
            out.append(moved)
    return out


def _spread_over_window(u: np.ndarray, v: np.ndarray, steep: bool = False) -> bool:
    """Do the confirmed inner corners (lattice u, v in 1..7) reach both sides of the window?

    Both ways to within two lines of each edge. With ``steep``, also: one way all seven lines, the other
    to within three lines of one edge. That is what a steep camera sees of the start position: the two
    far rows of men hide the corners between them. It is also what a window two rows off the board
    shows, so the localizer takes such a window only when no other passes (1000 rendered start
    positions: two found at 47-48° of tilt, none lost).
    """
    def reach(w: np.ndarray, slack: int) -> bool:
        return bool(w.min() <= 1 + slack and w.max() >= 7 - slack)

    if reach(u, 1) and reach(v, 1):
        return True
    if not steep:
        return False
    return (reach(u, 0) and (v.min() <= 2 and v.max() >= 5 or v.min() <= 3 and v.max() >= 6)) or (
        reach(v, 0) and (u.min() <= 2 and u.max() >= 5 or u.min() <= 3 and u.max() >= 6))


def _window(small: np.ndarray, h: np.ndarray, fit) -> tuple[int, int]:
    """Offset (i0, j0) of the 8×8 playing window in lattice cells.

    The detected cells may stop short of the board edge (squares hidden by pieces) or run past it
    (a frame or markers that happen to fit the lattice). Every 8-wide window that overlaps the
    detection is scored by how checker-like its cells are: light cells light, dark cells dark.
    """
    cells = fit.cells
    for ax in (0, 1):
        # Stray cells far from the board (clutter that fits the lattice): keep the densest 10-wide band.
        c = cells[:, ax]
        if c.max() - c.min() + 1 > 10:
            starts = np.arange(c.min(), c.max() - 8)
            counts = [((c >= s) & (c < s + 10)).sum() for s in starts]
            s0 = starts[int(np.argmax(counts))]
            cells = cells[(c >= s0) & (c < s0 + 10)]
    lo = cells.min(axis=0)
    hi = cells.max(axis=0)
    span = hi - lo + 1
    if (span < 4).any():
        raise NoLattice("too little of a checkerboard in view")
    pad = np.maximum(8 - span, 0) + 2
    u0, v0 = lo - pad
    nu, nv = span + 2 * pad
    px = 12
    t = np.array([[px, 0, -u0 * px], [0, px, -v0 * px], [0, 0, 1]], dtype=np.float64)
    warp = cv2.warpPerspective(small.astype(np.float32), t @ np.linalg.inv(h), (int(nu * px), int(nv * px)),
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=OFF_IMAGE)
    inner = warp.reshape(nv, px, nu, px)[:, 3:-3, :, 3:-3]
    # Medians: a cell half hidden by a tall piece still shows its own colour. Off-image: OFF_IMAGE.
    means = np.median(inner.transpose(0, 2, 1, 3).reshape(nv, nu, -1), axis=2)  # (nv, nu)
    ii, jj = np.meshgrid(np.arange(nu) + u0, np.arange(nv) + v0)
    bright_cell = ((ii + jj) % 2) == fit.parity
    core = np.zeros_like(bright_cell)
    core[pad[1]: pad[1] + span[1], pad[0]: pad[0] + span[0]] = True
    seen = means > OFF_IMAGE / 2
    light = float(np.median(means[core & bright_cell & seen]))
    dark = float(np.median(means[core & ~bright_cell & seen]))
    contrast = max(light - dark, 1.0)
    # In the playing area each light cell is brighter than its neighbours along a line of the board
    # and each dark cell darker (light squares are always empty; pieces spoil a few dark ones). A
    # frame or the table does not alternate along its own length, so when choosing columns each cell
    # is compared with its neighbours above and below, and when choosing rows with those beside it.
    # The test is local, so lighting gradients and glare do not matter.
    m = np.where(seen, means, np.nan)
    pad_m = np.pad(m, 1, constant_values=np.nan)
    q10, q90 = np.percentile(inner.transpose(0, 2, 1, 3).reshape(nv, nu, -1), [10, 90], axis=2)
    # Light cells also look like the light squares the quads found (a row of light men beside them
    # spoils the local test); a dark-parity cell that looks like them counts against the window.
    like_light = (np.abs(means - light) < 0.3 * contrast) & (q90 - q10 < 0.5 * contrast)
    by_axis: list[np.ndarray] = []
    for a_, b_ in ((pad_m[:-2, 1:-1], pad_m[2:, 1:-1]), (pad_m[1:-1, :-2], pad_m[1:-1, 2:])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            local = np.nanmean(np.stack([a_, b_]), axis=0)
        diff = np.nan_to_num(np.where(bright_cell, m - local, local - m), nan=0.0)
        local_ok = diff > 0.3 * contrast
        by_axis.append(np.where(bright_cell, (local_ok | like_light).astype(np.float64),
                               local_ok.astype(np.float64) - like_light.astype(np.float64)))
    # Choose columns using all detected rows, then rows using the chosen columns, then columns again.
    # Strongest cue: the seven inner lines of the board carry checker X-corners (square corners stay
    # visible beside round pieces); the board's edges and anything outside carry none.
    gu, gv = np.meshgrid(np.arange(nu + 1) + u0, np.arange(nv + 1) + v0)
    pts = np.stack([gu.ravel(), gv.ravel()], axis=1).astype(np.float64)
    xc = (_xcorner_scores(small, h, pts) > 0.25 * contrast).reshape(nv + 1, nu + 1).astype(np.float64)
    rng = [(pad[0], pad[0] + span[0]), (pad[1], pad[1] + span[1])]  # index ranges into the grid
    best = [int(lo[0]), int(lo[1])]
    for ax in (0, 1, 0):
        o_lo, o_hi = rng[1 - ax]
        line = by_axis[0][o_lo:o_hi, :].sum(axis=0) if ax == 0 else by_axis[1][:, o_lo:o_hi].sum(axis=1)
        xline = xc[o_lo + 1:o_hi, :].sum(axis=0) if ax == 0 else xc[:, o_lo + 1:o_hi].sum(axis=1)
        origin = (u0, v0)[ax]
        starts = np.arange(min(lo[ax], hi[ax] - 7), max(lo[ax], hi[ax] - 7) + 1)
        edge = np.pad(xline, 1)  # X-corners on the window's two outer lines: edge[k + 1] is line k
        scores = [xline[s - origin + 1: s - origin + 8].sum() + 0.25 * line[s - origin: s - origin + 8].sum()
                  - OUTER_PENALTY * (edge[s - origin + 1] + edge[s - origin + 9]) for s in starts]
        if DEBUG:
            print(ax, list(starts), np.round(line, 2), xline, np.round(scores, 2))  # noqa: T201
        best[ax] = int(starts[int(np.argmax(scores))])
        rng[ax] = (best[ax] - origin, best[ax] - origin + 8)
    return best[0], best[1]


def _xcorner_scores(gray: np.ndarray, h: np.ndarray, pts_uv: np.ndarray, off: float = 0.14,
                    bright_parity: int | None = None, view: str = LIGHTNESS) -> np.ndarray:
    """Checker X-corner evidence at lattice points: opposite quadrants alike, neighbours different.

    The quadrants are sampled close to the corner (``off`` squares along each axis) where a round
    piece in the middle of its square does not reach. With ``bright_parity`` the polarity must match
    too (the cell right-below a lattice point is light iff (u + v) % 2 == bright_parity). A colour frame
    is sampled directly and the samples turned into its grey ``view`` (:func:`vision.views.view_values`).
    """
    offs = np.array([[off, off], [-off, -off], [off, -off], [-off, off]])
    samples = (pts_uv[:, None, :] + offs[None]).reshape(-1, 2)
    xy = _apply(h, samples).astype(np.float32)
    vals = cv2.remap(gray, xy[:, 0:1], xy[:, 1:2], cv2.INTER_LINEAR, borderValue=0).astype(np.float32)
    if vals.ndim == 3:  # a colour frame (tracking samples it directly, without a grey copy)
        vals = view_values(vals, view)
    vals = vals.reshape(-1, 4)
    a, b, c, d = vals.T
    diff = (a + b) - (c + d)
    if bright_parity is None:
        diff = np.abs(diff)
    else:
        uv = np.round(pts_uv).astype(np.int64)
        diff = diff * np.where((uv[:, 0] + uv[:, 1]) % 2 == bright_parity, 1.0, -1.0)
    return diff / 2 - np.abs(a - b) - np.abs(c - d)


INNER_UV = np.array([[i, j] for j in range(1, 8) for i in range(1, 8)], dtype=np.float64)


OUTER_UV = np.array([[i, j] for j in range(9) for i in range(9) if i in (0, 8) or j in (0, 8)], dtype=np.float64)


def window_evidence(gray: np.ndarray, fit: BoardFit) -> tuple[int, int]:
    """(−X-corners on the window's outer lines, X-corners on its inner lines), polarity checked: larger is
    more like the playing area. Its outer lines are the board's edges, with none; a window a square off
    has an inner line of the board among them. On the 7 of 1000 rendered start positions whose localizer
    window is a square off, the calibrated window had 0 outer corners, the localizer's 0-3 and fewer inner
    ones (a tie once); on 381 mid-game boards seen with the calibrated window moved a square, the right
    window had 0 and the old one 3-7."""
    thr = 0.25 * max(fit.contrast, MIN_CONTRAST)
    outer = int((_xcorner_scores(gray, fit.h, OUTER_UV, bright_parity=fit.bright_parity) > thr).sum())
    inner = int((_xcorner_scores(gray, fit.h, INNER_UV, bright_parity=fit.bright_parity) > thr).sum())
    return -outer, inner


def refine(gray: np.ndarray, board: BoardFit) -> BoardFit:
    """Sub-pixel inner corners and a robust homography over the ones that look like X-corners."""
    h = board.h
    # Contrast of the board: light minus dark squares, sampled next to the inner corners where pieces
    # (round, in the middle of their squares) rarely reach.
    offs = np.array([[0.2, 0.2], [-0.2, -0.2], [0.2, -0.2], [-0.2, 0.2]])
    samples = (INNER_UV[:, None, :] + offs[None]).reshape(-1, 2)
    xy = _apply(h, samples).astype(np.float32)
    vals = cv2.remap(gray, xy[:, 0:1], xy[:, 1:2], cv2.INTER_LINEAR).ravel().astype(np.float32)
    cell_ij = np.floor(samples).astype(int)
    is_light = ((cell_ij[:, 0] + cell_ij[:, 1]) % 2) == board.bright_parity
    contrast = float(np.median(vals[is_light]) - np.median(vals[~is_light]))
    pts = _apply(h, INNER_UV)
    # Search window: a fifth of the local square size.
    step = np.linalg.norm(_apply(h, INNER_UV + [1, 0]) - pts, axis=1)
    step = np.minimum(step, np.linalg.norm(_apply(h, INNER_UV + [0, 1]) - pts, axis=1))
    win = int(np.clip(np.median(step) * 0.22, 2, 12))
    refined = pts.astype(np.float32).reshape(-1, 1, 2).copy()
    hh, ww = gray.shape
    inside = (pts[:, 0] > win + 1) & (pts[:, 0] < ww - win - 2) & (pts[:, 1] > win + 1) & (pts[:, 1] < hh - win - 2)
    if inside.sum() >= 4:
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.03)
        sub = refined[inside].copy()
        cv2.cornerSubPix(gray, sub, (win, win), (-1, -1), crit)
        refined[inside] = sub
    refined = refined.reshape(-1, 2).astype(np.float64)
    moved = np.linalg.norm(refined - pts, axis=1)
    score = _xcorner_scores(gray, h, INNER_UV)
    good = inside & (moved < win * 0.9) & (score > 0.25 * max(contrast, MIN_CONTRAST))
    if good.sum() >= 6:
        h_new, inl = _robust_homography(INNER_UV[good], refined[good], tol=max(1.0, 0.08 * float(np.median(step))))
        if h_new is not None and inl >= 6:
            return replace(board, h=h_new, inliers=inl, contrast=contrast)
    return replace(board, h=h, inliers=int(good.sum()), contrast=contrast)


def _robust_homography(src: np.ndarray, dst: np.ndarray, tol: float) -> tuple[np.ndarray | None, int]:
    """Least squares with iterative rejection of points off the fit (deterministic, unlike RANSAC).

    Most refined corners are right; a few snapped to a piece's edge. Refit without the worst until
    every point left lies within ``tol`` pixels (or too few remain).
    """
    keep = np.ones(len(src), dtype=bool)
    h = None
    for _ in range(8):
        if keep.sum() < 6:
            return None, 0
        h, _ = cv2.findHomography(src[keep], dst[keep], 0)
        if h is None:
            return None, 0
        err = np.linalg.norm(_apply(h, src) - dst, axis=1)
        worst = np.argmax(np.where(keep, err, -1.0))
        if err[worst] <= tol:
            break
        # drop everything far off at once, else only the worst point
        far = keep & (err > max(3.0 * tol, 3.0 * float(np.median(err[keep]))))
        if far.any():
            keep &= ~far
        else:
            keep[worst] = False
    return h, int(keep.sum())


def check_fit(frame: np.ndarray, board: BoardFit, min_fraction: float = 0.5) -> bool:
    """Tracking test: do enough of the previous inner corners still look like X-corners here?

    Pieces and a hand hide some corners, so the test asks for a fraction of those confirmed at
    localization time, with the same polarity as before (a moved board breaks the polarity pattern).
    """
    score = _xcorner_scores(frame, board.h, INNER_UV, bright_parity=board.bright_parity, view=board.view)
    thr = 0.25 * max(board.contrast, MIN_CONTRAST)
    return int((score > thr).sum()) >= max(6, int(min_fraction * board.inliers))
