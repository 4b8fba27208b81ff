"""Stage 1's first two steps alone: candidate squares (vision.quads) and the lattice through them
(vision.lattice), on a checkerboard drawn with a known homography, and the seed ranking's shortcut
against its all-pairs definition."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.geometry import project
from vision.lattice import _neighbour_density, _reduced, best_lattice, grow_centres, square_lattices
from vision.quads import find_quads, side_contrast

# lattice (u, v) in squares -> image pixels: a 10 × 10 checkerboard seen in perspective and turned
BOARD_H = cv2.getPerspectiveTransform(np.float32([[0, 0], [10, 0], [10, 10], [0, 10]]),
                                      np.float32([[212, 95], [598, 140], [640, 520], [150, 470]])).astype(np.float64)
BOARD_H_INV = np.linalg.inv(BOARD_H)


def _square(i: int, j: int) -> np.ndarray:
    """Image corners of the board's square (i, j), clockwise."""
    return project(BOARD_H, np.array([[i, j], [i + 1, j], [i + 1, j + 1], [i, j + 1]], dtype=np.float64))


def _checkerboard() -> np.ndarray:
    """Gray 800 × 600 picture of the 10 × 10 board (bright where (i + j) is even) on a mid-gray table."""
    img = np.full((600, 800), 128, np.uint8)
    for i in range(10):
        for j in range(10):
            cv2.fillConvexPoly(img, np.round(_square(i, j) * 16).astype(np.int32), 200 if (i + j) % 2 == 0 else 60,
                               lineType=cv2.LINE_AA, shift=4)
    return cv2.GaussianBlur(img, (3, 3), 0)


def test_quads_sit_on_the_squares_corners():
    """Every inner square is found, of its own polarity, each vertex within a tenth of a square of the
    square's true corner and a couple of pixels typically (the blobs are eroded apart, approximated by
    four vertices and grown back; the lattice's fit through many of them is what must be sub-pixel).
    Bits of the table between the board's edge squares may make quads of their own or join an edge
    square's: the lattice leaves them out."""
    quads, pols = find_quads(_checkerboard())
    assert len(quads) > 0
    found = set()
    errors = []
    for q, pol in zip(quads, pols, strict=True):
        i, j = (int(c) for c in np.floor(project(BOARD_H_INV, q.mean(axis=0))[0]))
        if not (1 <= i < 9 and 1 <= j < 9):  # the edge squares' blobs may take in some of the table
            continue
        true = _square(i, j)
        # the quad's vertices, clockwise, match the square's corners in some rotation
        err = min(np.abs(np.roll(true, -r, axis=0) - q).max() for r in range(4))
        side = np.linalg.norm(true[1] - true[0])
        assert err < 0.1 * side, (i, j, err, side)
        errors.append(err)
        assert pol == int((i + j) % 2 == 0)
        found.add((i, j))
    inner = {(i, j) for i in range(1, 9) for j in range(1, 9)}
    assert inner <= found
    assert np.median(errors) < 2.5
    uv = project(BOARD_H_INV, quads.mean(axis=1))
    assert np.mean((uv >= 0) & (uv < 10)) > 0.9


def test_the_lattice_through_the_quads_is_the_boards():
    """The best lattice explains the board's squares and maps its cells' corners onto the true ones to
    well under a pixel, whichever square seeded it (its cells are numbered from the seed)."""
    fit = best_lattice(*find_quads(_checkerboard()))
    assert fit is not None and len(fit.cells) >= 64
    seen = project(fit.h, fit.cells.astype(np.float64))
    # the same points in the board's own numbering: the lattices differ by a whole-square shift and a
    # quarter turn, which the corners' positions pin down
    back = project(BOARD_H_INV, seen)
    assert np.abs(back - np.round(back)).max() < 0.05
    assert np.ptp(np.round(back), axis=0).min() >= 7  # the lattice spans the board, not a corner of it
    assert _handedness(fit.h) > 0  # a cell's corners (0, 0), (1, 0), (1, 1), (0, 1) run clockwise on screen


def _handedness(h: np.ndarray) -> float:
    """The sign of the lattice map's Jacobian at the cell (0, 0) (image y runs down)."""
    corners = project(h, np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    du, dv = corners[1] - corners[0], corners[2] - corners[0]
    return float(np.sign(du[0] * dv[1] - du[1] * dv[0]))


def _density_all_pairs(quads: np.ndarray) -> np.ndarray:
    """The seed ranking as first written: every pair of quads compared."""
    areas = np.array([cv2.contourArea(q.astype(np.float32)) for q in quads])
    centres = quads.mean(axis=1)
    side = np.sqrt(np.maximum(areas, 1.0))
    dist = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    ratio = areas[:, None] / np.maximum(areas[None], 1.0)
    near = (dist < 1.7 * side[:, None]) & (dist > 0.5 * side[:, None]) & (ratio > 0.5) & (ratio < 2.0)
    return near.sum(axis=1) + 0.01 * side / side.max()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 400), st.integers(0, 2**31 - 1), st.floats(2.0, 60.0))
def test_neighbour_density_counts_as_all_pairs_do(n, seed, size):
    """Comparing only pairs within reach along x counts the same neighbours as comparing all pairs."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 600, (n, 2))
    # squares of varied size and turn, a few with the same centre (the same square found twice)
    centres[rng.random(n) < 0.2] = centres[0]
    half = size * rng.uniform(0.3, 1.5, n)
    turn = rng.uniform(0, np.pi / 2, n)
    offsets = np.stack([np.cos(turn + k * np.pi / 2) for k in range(4)], axis=1)[..., None] * [1, 0] \
        + np.stack([np.sin(turn + k * np.pi / 2) for k in range(4)], axis=1)[..., None] * [0, 1]
    quads = centres[:, None, :] + offsets * half[:, None, None] * np.sqrt(2)
    assert np.array_equal(_neighbour_density(quads), _density_all_pairs(quads))


@settings(max_examples=15, deadline=None)
@given(st.integers(90, 230), st.integers(30, 120))
def test_side_contrast_of_a_square_is_its_contrast_with_the_squares_beside_it(light, step):
    """On a checkerboard each square's four side neighbours are of the other colour: a square's quad stands
    out from them by the drawn difference of the two colours (less a little blur), brighter for a light
    square and darker for a dark one (the score is signed by the quad's polarity)."""
    dark = max(light - step, 0)
    img = np.full((600, 800), 128, np.uint8)
    for i in range(10):
        for j in range(10):
            cv2.fillConvexPoly(img, np.round(_square(i, j) * 16).astype(np.int32), light if (i + j) % 2 == 0 else dark,
                               lineType=cv2.LINE_AA, shift=4)
    gray = cv2.GaussianBlur(img, (3, 3), 0)
    quads, pols = find_quads(gray)
    inner = []  # the quads that are squares with four squares beside them
    for k, q in enumerate(quads):
        i, j = (int(c) for c in np.floor(project(BOARD_H_INV, q.mean(axis=0))[0]))
        true = _square(i, j)
        if 1 <= i < 9 and 1 <= j < 9 and min(np.abs(np.roll(true, -r, axis=0) - q).max() for r in range(4)) < 3:
            inner.append(k)
    assert len(inner) >= 40
    score = side_contrast(gray, quads[inner], pols[inner])
    assert np.all(score > 0.8 * (light - dark)) and np.all(score < 1.05 * (light - dark))


def test_side_contrast_of_a_cloths_weave_is_small():
    """A blurred noise texture, like a cloth's weave or a table's grain, gives thousands of quads but none
    that stands out from the cells beside it on all sides as a board's squares do."""
    rng = np.random.default_rng(5)
    gray = cv2.GaussianBlur(rng.normal(110, 12, (720, 1280)).clip(0, 255).astype(np.uint8), (0, 0), 2.0)
    quads, pols = find_quads(gray, windows=(0.03, 0.05, 0.12))
    assert len(quads) > 500
    assert np.percentile(side_contrast(gray, quads, pols), 99) < 10


# A small steep board: a 10 × 10 lattice whose squares are 3.5 times as long one way as the other, seen turned
STEEP_H = cv2.getPerspectiveTransform(np.float32([[0, 0], [10, 0], [10, 10], [0, 10]]),
                                      np.float32([[400, 100], [470, 380], [560, 350], [480, 80]])).astype(np.float64)


def _blurred_light_squares(rng: np.random.Generator, clutter: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(quads, polarities, light cells (i, j)) of the light squares of ``STEEP_H`` as a blurred small board
    gives them: each a diamond through the midpoints of its square's sides, its centre a few hundredths of
    a square off and its corners half a square off; with ``clutter`` random quads of both polarities
    around (a table's grain)."""
    cells = np.array([(i, j) for i in range(10) for j in range(10) if (i + j) % 2 == 0])
    mids = np.array([[0.5, 0.0], [1.0, 0.5], [0.5, 1.0], [0.0, 0.5]])
    jitter = rng.uniform(-0.04, 0.04, (len(cells), 1, 2))
    quads = project(STEEP_H, (cells[:, None, :] + mids + jitter).reshape(-1, 2)).reshape(-1, 4, 2)
    centres = rng.uniform([350, 40], [610, 430], (clutter, 2))
    sizes = rng.uniform(3, 15, (clutter, 1, 1))
    spread = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * rng.uniform(0.5, 1, (clutter, 4, 2))
    noise = centres[:, None, :] + sizes * spread
    pols = np.concatenate([np.ones(len(cells), np.int64), rng.integers(0, 2, clutter)])
    return np.concatenate([quads, noise]), pols, cells


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(0, 120), st.integers(2, 7), st.integers(2, 7))
def test_the_light_squares_centres_give_the_square_lattice(seed, clutter, i, j):
    """Grown from the blob of any light square away from the edge, the light squares' lattice finds the
    light squares by their centres alone, though the blobs' corners are half a square off and clutter (up
    to one quad per 850 px², a table's grain) lies all around and over the board, and one of the three
    square lattices that hold it is the board's, square for square (vision.lattice, "The lattice of the
    light squares' centres"). The other two put dark squares where the board has none."""
    rng = np.random.default_rng(seed)
    quads, pols, cells = _blurred_light_squares(rng, clutter)
    j += (i + j) % 2
    centres = grow_centres(quads, pols, int(np.flatnonzero((cells == (i, j)).all(axis=1))[0]))
    assert centres is not None
    light = centres.quads < len(cells)  # the rest: clutter on lattice points, mostly beyond the board
    assert light.sum() >= 45  # of 50
    back = project(np.linalg.inv(STEEP_H), project(centres.h, centres.points[light].astype(np.float64)))
    assert np.abs(back - cells[centres.quads[light]] - 0.5).max() < 0.1
    boards = 0
    for fit in square_lattices(centres, pols):
        assert fit.parity == 0 and np.all((fit.cells.sum(axis=1) % 2) == 0)
        assert _handedness(fit.h) > 0  # as the lattices grown from quads' corners: the orientation relies on it
        # the light squares found and the four cells beside each, in the board's numbering
        grid = np.concatenate([fit.cells[light] + step for step in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1))])
        true = project(np.linalg.inv(STEEP_H), project(fit.h, grid + 0.5)) - 0.5
        on_cells = np.abs(true - np.round(true)).max() < 0.15
        same_colour = np.all((np.round(true).sum(axis=1) - grid.sum(axis=1)) % 2 == 0)
        boards += bool(on_cells and same_colour)
    assert boards == 1


@settings(max_examples=200, deadline=None)
@given(st.tuples(*[st.integers(-40, 40)] * 4), st.floats(0.5, 30.0), st.floats(0, 2 * np.pi))
def test_a_reduced_basis_spans_the_same_lattice_with_its_shortest_steps(coefficients, scale, turn):
    """Whatever two independent steps the seed saw first, the reduced basis spans the same lattice (the
    integer change of basis has determinant ±1) and its steps are the lattice's shortest: no integer
    combination of them is shorter than the first, and adding any multiple of the first does not shorten
    the second."""
    a, b, c, d = coefficients
    if a * d - b * c == 0:
        return
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    e = scale * rot @ np.array([[1.0, 0.3], [0.0, 0.6]])  # the lattice's own basis, as columns
    p, q = _reduced(e @ [a, b], e @ [c, d])
    change = np.linalg.solve(e, np.stack([p, q], axis=1))
    assert np.allclose(change, np.round(change), atol=1e-6)
    assert abs(abs(np.linalg.det(np.round(change))) - abs(a * d - b * c)) < 1e-6
    steps = [m * p + n * q for m in range(-3, 4) for n in range(-3, 4) if (m, n) != (0, 0)]
    assert min(np.linalg.norm(s) for s in steps) >= np.linalg.norm(p) - 1e-9
    assert all(np.linalg.norm(q + k * p) >= np.linalg.norm(q) - 1e-9 for k in range(-3, 4))
