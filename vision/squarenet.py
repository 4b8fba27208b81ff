"""A learned square classifier: empty / light man / dark man / light king / dark king / covered per dark square.

Input is the lattice top view the pipeline already computes (``vision.cells.warp_lattice``, ``CELL`` px
per square). For every dark square we cut a patch a little larger than the square (``MARGIN`` px on each
side, so a piece's rim and, under a tilted camera, a stacked king's displaced top are inside it): its
lightness at full resolution (shape: rims, a side wall, a second disc) and its colour at half
resolution, every pixel in Lab *relative to this board in this frame*: minus the colour
of the square's light neighbours (light squares are always empty) and divided by the board's own
light-minus-dark lightness contrast. Wood tone, light colour and exposure are thereby factored out; the
network sees only how the square departs from its own board. Fourteen numbers complete the input: the
pipeline's eight cell features (``vision.classify.cell_vectors``) in the same units, and four
board-level ones (the bare dark square's colour relative to the light squares, the contrast), which
tell it what "empty" looks like here; two more give the top view's shift per unit height at the square
(``vision.viewpoint``: where the camera stands, from the homography). :func:`describe` turns each patch
into turn-invariant ring profiles (a round piece is a radial profile) and two lightness profiles along
and across the direction away from the camera (a crowned king, twice a man's height, stretches twice as
far that way). The square's height strip (``vision.heights``: 10 × 77 lightness samples of the original
frame, already turned to the direction away from the camera and reaching past where a king's top can
land) shows the same stretch at the picture's own resolution, with the seam between a king's two discs.
489 numbers in all.

The sixth class, covered, is a square a hand or arm hides (the renderer's ground truth: a fifth of the
square's middle under the hand); it is reported ``?``.

A small multilayer perceptron in plain numpy (→ 128 → 64 → 6, softmax), trained offline by
``vision/train_squares.py`` on rendered scenes: the square network (``vision/models/squarenet.npz``)
reads the 99 numbers without the height strip and decides empty / light / dark / covered. Man or king
is the crown reader's call (``vision.crowns``, a small convolutional network over the strip), merged by
:func:`with_crowns`. A forward pass for 32 squares is a few small matrix products (well under a
millisecond). Where it is torn between bare wood and a dark piece, a second network of the same shape,
trained with dark men stained like the dark squares (``vision/models/squarenet_dark.npz``), has a vote
(:func:`with_dark_opinion`); where it is not sure at all, so has a convolutional network over the patch
itself, which sees a fingertip's shape where the rings see only a disc (``vision.patchnet``).

Kings are reported only when the crown reader is fairly sure (``KING_THRESHOLD``; with no hand in the picture
the pipeline crowns from lower bars, :func:`crowned_from`: beside the men seen at calibration and, lower than
here, against the board's own pieces); the referee tracks kings from the moves anyway.
"""

from __future__ import annotations

import zipfile
from contextlib import nullcontext
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from threadpoolctl import ThreadpoolController

from vision.cells import CELL, CellFeatures
from vision.classify import bare_dark_colour, cell_vectors, dark_cells
from vision.heights import N_STRIP

CLASSES = ".wbWB?"  # class index -> observation character; "?" a square hidden by a hand or arm
COVERED = 5
MARGIN = 5  # top-view px added around a square (a quarter square at CELL = 20)
SIDE = CELL + 2 * MARGIN  # lightness patch side (full resolution)
PATCH = SIDE // 2  # colour patch side (half resolution)
N_SCALARS = 14  # 8 cell features, 3 bare-square colour, 1 contrast, 2 the top view's shift per unit height
AB_END = SIDE * SIDE + PATCH * PATCH * 2  # the inputs: lightness patch, colour patch, height strips, scalars
N_INPUT = AB_END + N_STRIP + N_SCALARS
CONTRAST_UNIT = 30.0  # board_inputs stores the board's contrast as log(contrast / CONTRAST_UNIT)
KING_THRESHOLD = 0.95  # share of a piece's probability a king needs to be reported as one (docs/vision.md)
MODEL_PATH = Path(__file__).resolve().parent / "models" / "squarenet.npz"
# The second opinion on squares the network is torn on between bare wood and a dark piece: a network trained
# as the first plus dark men stained like the dark squares and more hands (vision/train_squares.py)
DARK_MODEL_PATH = Path(__file__).resolve().parent / "models" / "squarenet_dark.npz"
TORN = 0.15  # the share both "empty" and "dark piece" reach for the second network to split them
TORN_NOT_HAND = 0.1  # ... while "covered" stays under this (a hand is the first network's call)
DARK_OR_BARE = np.array([0, 2, 4])  # the classes with_dark_opinion splits: empty, dark man, dark king
COLOUR_OF = np.array([0, 1, 2, 1, 2, 0])  # class -> colour class of vision.classify (empty, light, dark); covered
# squares are hidden by the caller, their colour class never read
COLOUR_FEATURES = 6  # of vision.classify.cell_vectors: centre − light reference (3), centre − corners (3)
KING_KEPT = 0.9  # the network's king probability above which with_colour_model keeps its reading (docs/vision.md)
COLOUR_VOTE_MOST = 3.0  # on a board the network reads, the colour model shifts odds by at most e³ (docs/vision.md)
# A colour model that puts a square the network is this sure of (its colour class) in another class by odds
# of more than e⁸ does not describe this picture: on such a board it gets no vote (colours_contradict_network)
SURE_OF_COLOUR = 0.99
COLOUR_CONTRADICTS = 8.0
HAND_NOT_KING = 0.5  # the network's "covered" from which a king made by the colour model's veto stays covered
COVERED_FIT = 5.0  # rms z-score of a square's colours to its best colour class beyond which a hand is likely
COVERED_THRESHOLD = 0.95  # probability of "covered" above which a square is reported "?" (tall kings at the
# board's edge under a steep camera can look half like an arm; measured on the benchmark scenes, docs/vision.md)
COVERED_WITH_HAND = 0.8  # the same where a hand is already seen over the board (light squares covered, or a
# square surely covered): the fingertips' squares beside it, which the network is less sure of


@lru_cache(maxsize=2)
def _dark_index(bright_parity: int) -> tuple[np.ndarray, np.ndarray]:
    """Lattice rows and columns (32,) of the dark cells, for picking patches out of a cell-grid view."""
    cells = dark_cells(bright_parity)
    return cells[:, 1].copy(), cells[:, 0].copy()


def _cell_patches(img: np.ndarray, step: int, side: int) -> np.ndarray:
    """(8, 8, side, side, …) view of ``img``: the patch of cell (j, i) starts at (j·step, i·step)."""
    st = img.strides
    shape = (8, 8, side, side, *img.shape[2:])
    return np.lib.stride_tricks.as_strided(img, shape, (step * st[0], step * st[1], *st), writeable=False)


@lru_cache(maxsize=2)
def _patch_picks(bright_parity: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat indices into the bordered Lab top view and its half-resolution copy (both C-contiguous, as
    :func:`board_inputs` makes them) that pick each dark cell's lightness patch and colour patch, their
    margins beyond the board's edge already mirrored (:func:`mirror_edges`): one ``take`` then does what
    cutting the patches out of strided views and mirroring them did, and a frame's inputs cost a quarter less."""
    jj, ii = _dark_index(bright_parity)
    full = np.arange((8 * CELL + 2 * MARGIN) ** 2 * 3).reshape(8 * CELL + 2 * MARGIN, -1, 3)
    half = np.arange((4 * CELL + MARGIN) ** 2 * 3).reshape(4 * CELL + MARGIN, -1, 3)
    picks = np.empty((32, AB_END), dtype=np.float64)  # indices below 2^53: exact through mirror_edges
    picks[:, :SIDE * SIDE] = _cell_patches(full[..., 0], CELL, SIDE)[jj, ii].reshape(32, -1)
    picks[:, SIDE * SIDE:] = _cell_patches(half[..., 1:], CELL // 2, PATCH)[jj, ii].reshape(32, -1)
    wide = np.zeros((32, N_INPUT))
    wide[:, :AB_END] = picks
    mirror_edges(wide, jj, ii)
    lum_at, ab_at = (np.ascontiguousarray(a.astype(np.intp)) for a in np.hsplit(wide[:, :AB_END], [SIDE * SIDE]))
    lum_at.flags.writeable = ab_at.flags.writeable = False
    return lum_at, ab_at


def board_inputs(top_bgr: np.ndarray, feat: CellFeatures, bright_parity: int,
                 light_ok: np.ndarray | None = None, vec: np.ndarray | None = None,
                 bare: np.ndarray | None = None, shift: np.ndarray | None = None,
                 strips: np.ndarray | None = None) -> np.ndarray:
    """(32, N_INPUT) float32 network inputs for the dark cells in lattice order (see module docstring).

    ``light_ok`` (8, 8) bool marks light cells not covered by a hand; covered ones are left out of the
    light references. ``vec`` (``cell_vectors``) and ``bare`` (``bare_dark_colour``) may be passed in
    when the caller has them already (the pipeline does), with the same ``light_ok``. ``shift`` (32, 2) is
    how far, in squares, a point one square above each dark cell's centre lands in the top view
    (``vision.viewpoint``); None means a camera straight above the board. ``strips`` (32, N_STRIP) is the
    lightness of each dark cell's height strip (``vision.heights``); None reads as a bare square.
    ``feat`` must be :func:`vision.cells.features` of ``top_bgr``: its Lab view is used, not converted again.
    """
    if not isinstance(top_bgr, np.ndarray) or top_bgr.shape != (8 * CELL, 8 * CELL, 3):
        raise ValueError(f"top view must be {8 * CELL}x{8 * CELL} BGR, got {getattr(top_bgr, 'shape', None)}")
    lab = cv2.copyMakeBorder(feat.lab, MARGIN, MARGIN, MARGIN, MARGIN, cv2.BORDER_REPLICATE)
    half = cv2.resize(lab, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)  # 2×2 means, cell-aligned
    jj, ii = _dark_index(bright_parity)
    if bare is None:
        bare = bare_dark_colour(feat, bright_parity, light_ok)  # (3,) empty dark square minus light
    if vec is None:
        vec = cell_vectors(feat, bright_parity, light_ok)
    # the empty light square's colour at each dark cell: cell_vectors starts with centre − that reference
    ref = (feat.centre[jj, ii] - vec[:, :3]).astype(np.float32)
    scale = max(-float(bare[0]), 8.0)  # the board's light-minus-dark lightness contrast
    inv = np.float32(1.0 / scale)
    lum_at, ab_at = _patch_picks(bright_parity)
    out = np.empty((32, N_INPUT), dtype=np.float32)
    out[:, :SIDE * SIDE] = (lab.take(lum_at) - ref[:, :1]) * inv
    out[:, SIDE * SIDE:AB_END] = (half.take(ab_at) - np.tile(ref[:, 1:], PATCH * PATCH)) * inv
    out[:, AB_END:-N_SCALARS] = 0.0 if strips is None else (strips - ref[:, :1]) * inv
    out[:, -N_SCALARS:-6] = vec / scale
    out[:, -6:-3] = bare / scale
    out[:, -3] = np.log(scale / CONTRAST_UNIT)
    out[:, -2:] = 0.0 if shift is None else shift
    return out


def contrast_of(row: np.ndarray) -> float:
    """The board's light-minus-dark contrast a :func:`board_inputs` row was scaled by (its last scalars
    but two hold its logarithm), for code that cuts more patches the same way (``vision.second_look``)."""
    return CONTRAST_UNIT * float(np.exp(row[-3]))


EDGE_HALF_PX = MARGIN // 2  # colour-patch pixels wholly off the board at an edge (the next one straddles it)


def mirror_edges(x: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Rows of :func:`board_inputs` (N, N_INPUT) with the margin beyond the board's edge mirrored, in place.

    A patch reaches ``MARGIN`` px past its square, and at the board's edge that is off the board: the
    frame, the table, or (as the top view is cut) the edge's own pixels repeated. None of it says
    anything about the square, and it differs from one board to the next, so an edge square looked
    unlike an inner one: most of the colour errors left on scenes without a hand were on the edge and
    corner squares (docs/vision.md). Mirrored about the square's centre, the margin becomes the strip
    of the neighbour on the far side, which is what an inner square's margin shows (an empty light
    square across a side, a dark square's corner across a corner), whatever surrounds the board.
    ``rows``/``cols`` (N,) are the squares' lattice row and column (0 and 7 are edges). The full-resolution
    lightness patch is mirrored exactly; of the half-resolution colour patch the pixels wholly off the
    board (``EDGE_HALF_PX``). Mirroring twice changes nothing, so rows already mirrored may pass again.
    """
    n = len(x)
    lum = x[:, :SIDE * SIDE].reshape(n, SIDE, SIDE)  # views: splitting an axis never copies
    ab = x[:, SIDE * SIDE:AB_END].reshape(n, PATCH, PATCH, 2)
    for patch, k in ((lum, MARGIN), (ab, EDGE_HALF_PX)):
        for view, line in ((patch, cols), (patch.swapaxes(1, 2), rows)):  # columns first, then rows
            first, last = np.flatnonzero(line == 0), np.flatnonzero(line == 7)
            view[first, :, :k] = view[first, :, -k:][:, :, ::-1]
            view[last, :, -k:] = view[last, :, :k][:, :, ::-1]
    return x


N_RINGS = 11  # rings of RING_PX around the patch centre (the last takes everything farther out)
RING_PX = 1.5
N_PROFILE = 10  # bins of the lightness profiles along and across the direction away from the camera
PROFILE_PX = SIDE / N_PROFILE
STRIP_PX = 5.0  # half width of the strip a profile is taken in
N_DESC = 4 * N_RINGS + 2 * N_RINGS + 2 * N_PROFILE + N_STRIP + 1 + N_SCALARS - 2
STRIP_IN_DESC = slice(6 * N_RINGS + 2 * N_PROFILE, 6 * N_RINGS + 2 * N_PROFILE + N_STRIP)  # the strip in describe()


@lru_cache(maxsize=4)
def _rings(side: int, px: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pixel order sorting a side×side patch by ring, ring starts, 1/ring sizes, and e^{iθ}, e^{2iθ} per pixel.

    Ring sums are then ``np.add.reduceat`` over sorted pixels: no matrix product, so no BLAS threads
    (which on a busy two-core machine cost far more than the arithmetic).
    """
    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) * px - SIDE / 2
    r = np.hypot(xx, yy).ravel()
    ring = np.minimum((r / RING_PX).astype(int), N_RINGS - 1)
    order = np.argsort(ring, kind="stable")
    counts = np.bincount(ring, minlength=N_RINGS)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    th = np.arctan2(yy, xx).ravel()[order]
    waves = np.stack([np.cos(th), np.sin(th), np.cos(2 * th), np.sin(2 * th)]).astype(np.float32)
    return order, starts, (1.0 / counts).astype(np.float32), waves


def describe(x: np.ndarray) -> np.ndarray:
    """(N, N_DESC) turn-invariant description of :func:`board_inputs` rows: ring profiles around the centre.

    For the lightness patch: per ring the mean, the spread and the strength of the first and second
    angular harmonics (a disc's top pushed to one side by a second disc under a tilted camera, a glare
    spot off the centre); for a and b the ring means; the height profiles; the height strip as it is
    (already turned to the direction away from the camera); then the scalar features. A round piece is
    a radial profile, so the network needs no examples of every turn of the board.
    """
    x = np.asarray(x, dtype=np.float32)
    n = len(x)
    order, starts, inv, waves = _rings(SIDE, 1.0)
    lum = x[:, :SIDE * SIDE][:, order]
    mean = np.add.reduceat(lum, starts, axis=1) * inv
    spread = np.sqrt(np.maximum(np.add.reduceat(lum * lum, starts, axis=1) * inv - mean * mean, 0.0))
    harm = np.add.reduceat(lum[:, None, :] * waves[None], starts, axis=2) * inv  # (n, 4, rings)
    h1 = np.hypot(harm[:, 0], harm[:, 1])
    h2 = np.hypot(harm[:, 2], harm[:, 3])
    order_ab, starts_ab, inv_ab, _ = _rings(PATCH, 2.0)
    ab = x[:, SIDE * SIDE:AB_END].reshape(n, PATCH * PATCH, 2)[:, order_ab]
    ring_ab = (np.add.reduceat(ab, starts_ab, axis=1) * inv_ab[:, None]).transpose(0, 2, 1).reshape(n, -1)
    shift = x[:, -2:]
    along, across = _height_profiles(x[:, :SIDE * SIDE], shift)
    return np.concatenate([mean, spread, h1, h2, ring_ab, along, across, x[:, AB_END:-N_SCALARS],
                           np.linalg.norm(shift, axis=1, keepdims=True), x[:, -N_SCALARS:-2]], axis=1)


N_DIRECTIONS = 16  # the direction away from the camera, rounded to 22.5° (profiles are precomputed per step)


@lru_cache(maxsize=1)
def _profile_weights() -> np.ndarray:
    """(N_DIRECTIONS, SIDE², 2·N_PROFILE) float32: pixel weights of the along and across profile bins."""
    yy, xx = np.mgrid[0:SIDE, 0:SIDE] + 0.5 - SIDE / 2
    xx, yy = xx.ravel(), yy.ravel()
    out = np.zeros((N_DIRECTIONS, SIDE * SIDE, 2 * N_PROFILE), dtype=np.float32)
    for k in range(N_DIRECTIONS):
        ex, ey = np.cos(2 * np.pi * k / N_DIRECTIONS), np.sin(2 * np.pi * k / N_DIRECTIONS)
        along, across = ex * xx + ey * yy, -ey * xx + ex * yy
        for j, (pos, other) in enumerate(((along, across), (across, along))):
            bins = np.clip(((pos + SIDE / 2) / PROFILE_PX).astype(np.int64), 0, N_PROFILE - 1)
            inside = np.abs(other) < STRIP_PX
            for q in range(N_PROFILE):
                m = inside & (bins == q)
                if m.any():
                    out[k, m, j * N_PROFILE + q] = 1.0 / m.sum()
    out.flags.writeable = False
    return out


def _height_profiles(lum: np.ndarray, shift: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(N, N_PROFILE) × 2: mean lightness in bins along the direction away from the camera and across it.

    Height shows in the top view as a stretch away from the camera: a king's top lands twice as far
    out as a man's. The two profiles, with the expected shift per unit height beside them, let the
    network compare a piece's length along that direction with its width. The direction is rounded to
    one of ``N_DIRECTIONS``, whose bin weights are precomputed: one small product per direction in view.
    """
    weights = _profile_weights()
    angle = np.arctan2(shift[:, 1], shift[:, 0])
    k = np.round(angle / (2 * np.pi / N_DIRECTIONS)).astype(np.int64) % N_DIRECTIONS
    k[np.hypot(shift[:, 0], shift[:, 1]) < 1e-3] = 0
    out = np.empty((len(lum), 2 * N_PROFILE), dtype=np.float32)
    for d in np.unique(k):
        sel = k == d
        out[sel] = lum[sel] @ weights[d]
    return out[:, :N_PROFILE], out[:, N_PROFILE:]


def flush_subnormals(a: np.ndarray) -> np.ndarray:
    """``a`` with its subnormal numbers (below the smallest normal float of its type) made zero.

    Weight decay leaves weights of unused connections at 1e-40 and the like. Products with such numbers
    take the processor's slow path: the square network's first layer, 32 × 99 by 99 × 128, cost 0.86 ms
    with them against 0.01 ms without. Their values change no output a float32 can show.
    """
    if not np.issubdtype(a.dtype, np.floating):
        return a
    return np.where(np.abs(a) < np.finfo(a.dtype).tiny, np.zeros((), a.dtype), a)


def read_weights(path: Path | str, what: str) -> dict[str, np.ndarray]:
    """Every array of a saved ``.npz`` of weights (subnormals flushed to zero: :func:`flush_subnormals`);
    ValueError naming ``what`` and the reason if unreadable."""
    try:
        with np.load(path) as data:
            return {k: flush_subnormals(data[k]) for k in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"cannot read {what} {path}: {exc}") from None


class SquareNet:
    """A trained network: ``forward(describe(x))`` (N, 6) for inputs ``x`` from :func:`board_inputs`.

    Layers: :func:`describe` (N_DESC numbers, or those without the height strip for a network trained
    before it) → 128 → 64 → 6, ReLU, softmax; inputs standardised by the training set's mean and
    spread (``mu``, ``sd``).
    """

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        try:
            self.mu = np.asarray(weights["mu"], dtype=np.float32)
            self.sd = np.asarray(weights["sd"], dtype=np.float32)
            self.layers = [(np.asarray(weights[f"w{k}"], dtype=np.float32),
                            np.asarray(weights[f"b{k}"], dtype=np.float32)) for k in range(3)]
        except KeyError as exc:
            raise ValueError(f"square model lacks array {exc}") from None
        width = self.mu.shape[0] if self.mu.ndim == 1 else -1
        self.strip = width == N_DESC  # reads the height strip (else its columns are left out)
        shapes_ok = width in (N_DESC, N_DESC - N_STRIP) and self.layers[0][0].shape[0] == width
        if not shapes_ok or self.layers[-1][0].shape[1] != len(CLASSES):
            raise ValueError("square model does not match this version's inputs (retrain it)")

    @classmethod
    def load(cls, path: Path | str = MODEL_PATH) -> SquareNet:
        """Load weights saved by ``vision/train_squares.py``; ValueError with the reason if unusable."""
        return cls(read_weights(path, "square model"))

    def forward(self, d: np.ndarray) -> np.ndarray:
        """(N, 6) class probabilities for rows of :func:`describe` (small products: one BLAS thread).

        OpenBLAS splits a 32×489 by 489×128 product over threads; on a busy two-core machine waiting
        for them cost 20 ms a frame against 0.05 ms on one thread, so the products run on one.
        """
        d = np.asarray(d, dtype=np.float32)
        if not self.strip:
            d = without_strip(d)
        with _blas().limit(limits=1, user_api="blas") if self.strip else nullcontext():
            return dense_softmax((d - self.mu) / self.sd, self.layers)


def without_strip(d: np.ndarray) -> np.ndarray:
    """Rows of :func:`describe` without the height strip's columns (what the square network reads)."""
    return np.concatenate([d[:, :STRIP_IN_DESC.start], d[:, STRIP_IN_DESC.stop:]], axis=1)


def dense_softmax(h: np.ndarray, layers: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Softmax of the fully connected ``layers`` ((in, out) weights, bias) over ``h``, ReLU between them."""
    for k, (w, b) in enumerate(layers):
        h = h @ w + b
        if k < len(layers) - 1:
            np.maximum(h, 0.0, out=h)
    h -= h.max(axis=1, keepdims=True)
    e = np.exp(h)
    return e / e.sum(axis=1, keepdims=True)


def colour_shares(prob: np.ndarray) -> np.ndarray:
    """(N, 3) probabilities (N, 6) summed by colour class: empty, light man or king, dark man or king."""
    return np.stack([prob[:, 0], prob[:, 1] + prob[:, 3], prob[:, 2] + prob[:, 4]], axis=1)


def decide(prob: np.ndarray, king_threshold: float = KING_THRESHOLD,
           covered_threshold: float = COVERED_THRESHOLD) -> tuple[np.ndarray, np.ndarray]:
    """Classes (N,) in 0..5 and confidences from probabilities: a king only when it is very likely.

    Below ``king_threshold`` a king's probability counts for the man of its colour, so an uncertain
    crown never makes a piece disappear or change colour. A square is ``COVERED`` when that is more
    likely than ``covered_threshold``; otherwise the best of the other classes is read, its probability
    (kings and men of a colour together) the confidence.
    """
    p = np.asarray(prob, dtype=np.float64)
    merged = colour_shares(p)
    colour = np.argmax(merged, axis=1)
    labels = colour.copy()
    king = np.where(colour == 1, p[:, 3], np.where(colour == 2, p[:, 4], 0.0))
    rows = np.arange(len(p))
    crowned = king >= king_threshold * merged[rows, colour]
    labels[crowned & (colour > 0)] += 2
    conf = merged[rows, colour]
    if p.shape[1] > COVERED:
        hidden = p[:, COVERED] > covered_threshold
        labels[hidden] = COVERED
        conf = np.where(hidden, p[:, COVERED], conf)
    return labels, conf


def crowned_from(prob: np.ndarray, labels: np.ndarray, king_threshold: float) -> np.ndarray:
    """``labels`` (N,) of :func:`decide` with every man whose king share in ``prob`` reaches ``king_threshold``
    crowned. Only men change, and only to a king of their colour: a bar other than decide's never moves
    a square to another colour or out of "covered"."""
    labels = np.asarray(labels)
    # "covered" was decided with the caller's bar (or a rule read the piece under it), so it is not decided
    # again here: a man whose "covered" lies between the two bars is crowned as any other
    more = decide(prob, king_threshold=king_threshold, covered_threshold=np.inf)[0]
    return np.where(((labels == 1) | (labels == 2)) & (more == labels + 2), more, labels)


def colour_loglik(model, vec: np.ndarray) -> np.ndarray:
    """(N, 3) log-likelihood (up to a constant) of each square's ``vec`` under the learned
    ``vision.classify.ColourModel``'s empty, light and dark classes: its Gaussians, untempered."""
    z = (vec[:, None, :] - model.mean[None]) / model.std[None]
    return -(0.5 * (z ** 2).sum(axis=2) + np.log(model.std).sum(axis=1)[None])


def colours_contradict_network(prob: np.ndarray, model, vec: np.ndarray, sure: float = SURE_OF_COLOUR,
                               gap: float = COLOUR_CONTRADICTS) -> bool:
    """Does the colour model put a square whose colour class the network is at least ``sure`` of
    (empty; light man or king; dark man or king) in another class, by odds of more than ``exp(gap)``?

    Then the model does not describe this picture, the squares it is surest to be wrong about being
    the network's surest: black men on White's half of a near-black board, where the start position
    showed black men only on Black's half, lit otherwise (scene 33 of ``dama bench vision --seed 2``).
    There its other votes are no better, and a network 63–90 % sure of other black men there lost them
    to "empty" even at the bounded vote (``COLOUR_VOTE_MOST``; docs/vision.md, "When the colours
    contradict the network").
    """
    colour = colour_shares(prob)
    sure_sq = colour.max(axis=1) >= sure
    if not sure_sq.any():
        return False
    a = colour_loglik(model, vec[sure_sq])
    own = a[np.arange(len(a)), colour[sure_sq].argmax(axis=1)]
    return bool((a.max(axis=1) - own > gap).any())


def with_colour_model(prob: np.ndarray, model, vec: np.ndarray, temper: float = 0.5,
                      keep_kings: float | None = None, most: float | np.ndarray | None = None,
                      reachable: np.ndarray | None = None, hand_seen: np.ndarray | None = None,
                      hand_bar: float | np.ndarray | None = None) -> np.ndarray:
    """Network probabilities (N, 6) times those of a learned ``vision.classify.ColourModel`` on ``vec``.

    The colour model was learned from this board's start position, so it knows this board's woods and
    pieces; the network knows shapes and kings, and only boards like those it was trained on. ``temper``
    weighs the colour model's vote: 1 leans on it fully, which a shadow or lighting the start position
    did not have misleads (its Gaussians are narrow); 0.5 keeps its accuracy on woods and pieces the
    network never saw and lets the network carry shadows (docs/vision.md).

    ``keep_kings``: squares the network (with the crown reader) takes for a king with at least this
    probability keep the network's reading. The colour model knows men only (the start position has no
    kings), and under a slanted camera a king's second disc shows its side where a man shows its top, so
    the model takes a light king for a dark piece, a dark king for an empty square, or any king for a hand.
    Only for boards the network is known to read (the pipeline passes it after calibration found so).

    ``most``: the colour model's vote shifts the odds between two classes by at most ``exp(most)``. Its
    Gaussians are narrow, so a square a few spreads from every class (black men on near-black squares, lit
    unlike any square of the start position) could otherwise outvote a network sure of the piece's shape
    (docs/vision.md, "How far the colours may outvote the network"). Like ``keep_kings``, only for boards
    the network is known to read. An (N, 1) array bounds each square alone: while a hand is in the picture
    the pipeline gives the colours no vote against the network's reading on the squares a fingertip can
    reach (``vision.pipeline.HAND_COLOUR_VOTE``).

    ``reachable`` (N, bool): the squares a fingertip can be on (None: any). A hand reaches the board from
    outside it, so a fingertip is on an edge square or beside a light square the hand covers; elsewhere a
    square the network takes for a hand but the colours take for a king is a tall piece the network does
    not know (the fhgr photos' thick discs), not a finger.

    ``hand_seen`` (N, bool): squares a hand may be over (the pipeline, in one picture: wherever a fingertip
    can reach, and a square in from an arm seen in the margin). There a network's "covered" of at least
    ``COVERED_WITH_HAND`` keeps its reading, whatever the colours make of it: the veto on "covered" is there
    for pieces the network does not know, and a fingertip's skin fits a light man's colours. Like
    ``keep_kings``, only for boards the network is known to read (docs/vision.md, "A fingertip on a board
    the network knows", "A fingertip wherever one can reach").
    ``hand_bar`` (a number or (N,)): that bar, square by square, where it is not ``COVERED_WITH_HAND``.
    """
    z = (vec[:, None, :] - model.mean[None]) / model.std[None]
    a = temper * colour_loglik(model, vec)
    a -= a.max(axis=1, keepdims=True)
    if most is not None:
        a = np.maximum(a, -most)
    like = np.exp(a)[:, COLOUR_OF]
    # "Covered" stays as the network says unless the square's colours (centre and corners against its
    # light neighbours) fit one of this board's own classes: then the network, on woods or pieces it never
    # saw, has taken a piece for a hand. Kings differ from men in shape, not colour, so only colours count.
    fit = np.sqrt((z[:, :, :COLOUR_FEATURES] ** 2).mean(axis=2)).min(axis=1)  # rms z to the nearest class
    like[:, COVERED] = 1.0 / (1.0 + np.exp(-2.0 * (fit - COVERED_FIT)))
    out = prob * like
    out /= out.sum(axis=1, keepdims=True)
    # A fingertip on a square: the network says "covered", the colours fit one of the board's classes and the
    # crown reader takes the finger's height for a second disc. A king that exists only because the veto
    # removed the hand is the hand (docs/vision.md, "A fingertip is not a king").
    fingertip = (prob[:, COVERED] >= HAND_NOT_KING) & np.isin(out.argmax(axis=1), (3, 4))
    if reachable is not None:
        fingertip &= np.asarray(reachable, dtype=bool)
    if hand_seen is not None:
        bar = COVERED_WITH_HAND if hand_bar is None else hand_bar
        fingertip |= (prob[:, COVERED] >= bar) & np.asarray(hand_seen, dtype=bool)
    out[fingertip] = prob[fingertip]
    if keep_kings is not None:
        king = prob[:, 3] + prob[:, 4] >= keep_kings
        out[king] = prob[king]
    return out


@lru_cache(maxsize=1)
def _blas() -> ThreadpoolController:
    """The process's BLAS libraries (found once: looking them up costs milliseconds)."""
    return ThreadpoolController()


def with_crowns(prob: np.ndarray, king_share: np.ndarray) -> np.ndarray:
    """(N, 6) the square network's probabilities with each piece split between man and king by
    ``king_share`` (N,), the crown reader's probability that a piece there is a king (``vision.crowns``).

    Two readers, each for what it was shown to do best: the square network (trained on the top view
    alone) reads empty / light / dark / covered, steady on small, compressed video; the crown reader
    (the height strips, ``vision.heights``) tells a king from a man. A network that read the strips for
    everything read kings well, but on a 480×270 test video it took a dark man for an empty square for
    seconds, where the square network never did.
    """
    p = np.asarray(prob, dtype=np.float64)
    share = np.clip(np.asarray(king_share, dtype=np.float64).reshape(-1), 0.0, 1.0)
    out = p.copy()
    for man, king in ((1, 3), (2, 4)):
        piece = p[:, man] + p[:, king]
        out[:, man] = piece * (1.0 - share)
        out[:, king] = piece * share
    return out


@lru_cache(maxsize=1)
def default_net() -> SquareNet:
    """The committed square network (loaded once)."""
    return SquareNet.load(MODEL_PATH)


@lru_cache(maxsize=1)
def dark_net() -> SquareNet:
    """The committed second opinion on dark pieces against bare dark wood (loaded once)."""
    return SquareNet.load(DARK_MODEL_PATH)


def with_dark_opinion(prob: np.ndarray, d: np.ndarray, second: SquareNet) -> np.ndarray:
    """``prob`` (N, 6) of :class:`SquareNet` on rows ``d`` of :func:`describe`, where it is torn between an empty
    square and a dark piece (each at least ``TORN``, "covered" under ``TORN_NOT_HAND``), split between those
    by the geometric mean of both networks' odds (the ``second`` one's as a second vote, not a replacement: a
    dark man the first reads at 0.7 stays one where the second leans 0.6 the other way; and not a product,
    which would make the two, trained alike and erring alike, surer together than either is, past where the
    board's colour model can still correct them); the rest as it was.

    A dark man stained like the dark squares shows only its rim, side and shadow, and the square network
    (trained on few such men) leaves many of them at 0.6 / 0.4; a network trained with them too reads them
    better but errs elsewhere: pieces set down off centre and fingertips read differently from the network
    the pipeline's rules were measured with (docs/vision.md, "A second opinion on dark men"). So the second
    network decides only what the first leaves open, and only between bare wood and a dark man or king:
    the share the first gives the three together stays theirs, and the crown reader still tells man from king.
    """
    torn = (prob[:, 0] >= TORN) & (prob[:, 2] + prob[:, 4] >= TORN) & (prob[:, COVERED] < TORN_NOT_HAND)
    if not torn.any():
        return prob
    first = prob[torn][:, DARK_OR_BARE]
    pooled = np.sqrt(first * second.forward(d[torn])[:, DARK_OR_BARE]) + 1e-12
    out = prob.copy()
    out[np.flatnonzero(torn)[:, None], DARK_OR_BARE] = first.sum(axis=1, keepdims=True) * pooled / pooled.sum(
        axis=1, keepdims=True)
    return out


__all__ = ["CLASSES", "COLOUR_CONTRADICTS", "COLOUR_FEATURES", "COLOUR_OF", "COLOUR_VOTE_MOST", "COVERED",
           "COVERED_THRESHOLD", "COVERED_WITH_HAND", "DARK_MODEL_PATH", "HAND_NOT_KING", "KING_KEPT", "KING_THRESHOLD",
           "MODEL_PATH", "N_DESC", "N_INPUT", "STRIP_IN_DESC", "SURE_OF_COLOUR", "TORN", "TORN_NOT_HAND", "SquareNet",
           "board_inputs", "colour_loglik", "colour_shares", "colours_contradict_network", "crowned_from", "dark_net",
           "decide", "read_weights", "default_net", "dense_softmax", "describe", "with_colour_model", "with_crowns",
           "with_dark_opinion", "without_strip"]
