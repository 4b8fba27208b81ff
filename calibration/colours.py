"""The colour checks of calibration, over the vision pipeline's own colour model (one model, not two).

The recognizer learns its colour model (:class:`vision.classify.ColourModel`: per-class Gaussians over
cell features measured against the neighbouring light squares) from the start position, where all 32
labels are known, and moves it slowly with the light during a game. Calibration keeps no model of its
own; it adds what a user needs around that one: which squares read wrong *and why* in words a player
can act on (:func:`check_start`), whether the light is good enough (:func:`lighting`: glare, darkness,
unevenness, and squares the model reads with too little margin), and drift learning from positions the
referee trusts (:func:`adapt`).

Messages also use plain Lab samples of the square centres (:func:`dark_square_samples`): lightness
says "glare" or "too dark" better than a feature vector does.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.board import TOP_SQUARE, top_view
from vision import orientation as orient
from vision.cells import features, warp_lattice
from vision.classify import ColourModel, cell_vectors, dark_cells

START = "wwwwwwwwwwww........bbbbbbbbbbbb"
CLASSES = (".", "w", "b")
CLASS_WORDS = {".": "empty", "w": "a light piece", "b": "a dark piece", "W": "a light king",
               "B": "a dark king", "?": "hidden"}
DARK_SQUARES = tuple(f"{'abcdefgh'[f]}{r + 1}" for r in range(8) for f in range(8) if (f + r) % 2 == 0)
MIN_MARGIN = 0.2  # vision's confidence (log-likelihood gap / 10) below this on a right square: a warning


def dark_square_samples(frame: np.ndarray, corners: dict[str, tuple[float, float]],
                        inset: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """(32, 3) Lab means of the dark squares in observation order, (32, 3) of the light squares."""
    top = top_view(frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR), corners)
    lab = cv2.cvtColor(top, cv2.COLOR_BGR2Lab).astype(np.float64)
    pad = int(TOP_SQUARE * inset)
    dark, light = [], []
    for r in range(8):
        for f in range(8):
            y, x = (7 - r) * TOP_SQUARE, f * TOP_SQUARE
            patch = lab[y + pad:y + TOP_SQUARE - pad, x + pad:x + TOP_SQUARE - pad].reshape(-1, 3)
            (dark if (f + r) % 2 == 0 else light).append(patch.mean(axis=0))
    return np.array(dark), np.array(light)


def _observation_order() -> np.ndarray:
    """Index into vision's dark-cell order of each observation square, for the lattice of :func:`square_vectors`."""
    index = {(int(i), int(j)): n for n, (i, j) in enumerate(dark_cells(1))}
    return np.array([index[(int(i), int(j))] for i, j in orient.square_cells(0, True)])


def square_vectors(frame: np.ndarray, corners: dict[str, tuple[float, float]]) -> np.ndarray:
    """(32, N) the recognizer's colour features of the dark squares (observation order) at these corners.

    The lattice is vision's rotation 0 (a1 at lattice (0, 0), h1 at (0, 8)); with a1 dark the light
    cells are those with odd i + j (bright parity 1).
    """
    src = orient.rotation_corners(0).astype(np.float32)
    dst = np.array([corners[n] for n in ("a1", "h1", "h8", "a8")], np.float32)
    h = cv2.getPerspectiveTransform(src, dst)
    image = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    vec = cell_vectors(features(warp_lattice(image, h), 1), 1)
    return vec[_observation_order()]


def classify(model: ColourModel, vec: np.ndarray) -> tuple[str, np.ndarray]:
    """The model's reading (32 chars of ``.wb``, observation order) and its confidence per square."""
    labels, conf = model.classify(vec)
    return "".join(CLASSES[int(k)] for k in labels), conf


def learn(vec: np.ndarray, labels: str = START) -> ColourModel:
    """Vision's colour model learned on squares whose labels are known (normally the start position)."""
    return ColourModel.learn(vec, np.array([CLASSES.index(c) for c in labels.lower()]))


def adapt(model: ColourModel, vec: np.ndarray, observation: str, rate: float = 0.02) -> bool:
    """Follow slow light drift with a *trusted* observation (the referee's position, not the raw reading).

    Moves each class mean ``rate`` of the way toward the squares that hold it, skipping squares that fit
    no class (a hand, a shadow or a misplaced piece is not drift) and kings (not part of the model).
    False when nothing could be learned (unseen squares, a silly rate).
    """
    if not 0.0 < rate <= 0.5:
        raise ValueError(f"drift rate {rate} must be in (0, 0.5]")
    if len(observation) != 32 or any(c not in ".wbWB" for c in observation):
        return False
    labels = np.array([CLASSES.index(c) if c in CLASSES else -1 for c in observation])
    z = (vec - model.mean[np.maximum(labels, 0)]) / model.std[np.maximum(labels, 0)]
    near = np.sqrt((z ** 2).mean(axis=1)) < 3.0
    trusted = (labels >= 0) & near
    if not trusted.any():
        return False
    saved = model.rate
    model.rate = rate
    try:
        model.update(vec, np.where(trusted, labels, -1), trusted.astype(np.float64))
    finally:
        model.rate = saved
    return True


@dataclass
class SquareProblem:
    """One dark square read wrong on the start position, with the likely cause and the fix."""

    square: str
    expected: str
    read: str
    message: str


def _cause(expected: str, read: str, sample: np.ndarray) -> str:
    lightness = sample[0] * 100 / 255
    if lightness > 92:
        return "glare? move the lamp or tilt it away from the board"
    if lightness < 12:
        return "too dark there: add light or remove the shadow"
    if {expected, read} == {".", "b"}:
        return "dark pieces look like the dark squares here: more light, or a lamp from the side"
    if {expected, read} == {".", "w"} and read == ".":
        return "is the piece on the square, centred? if so, glare may be washing it out: move the lamp"
    if expected == "." and read != ".":
        return "something lies on the square? clear it, or check the corners"
    return "check the piece is the right colour and centred on its square"


def check_start(reading: str, dark: np.ndarray | None = None, expected: str = START) -> list[SquareProblem]:
    """Compare a reading of the start position with the truth; one problem per wrong square.

    ``reading`` is what the recognizer saw; the Lab samples (:func:`dark_square_samples`), when given,
    let the message name the likely cause.
    """
    problems = []
    for i, (want, got) in enumerate(zip(expected, reading, strict=True)):
        if want.lower() == got.lower():
            continue
        name = DARK_SQUARES[i]
        if got == "?":
            text = f"{name} is hidden: take hands and objects off the board"
        else:
            cause = _cause(want.lower(), got.lower(), dark[i]) if dark is not None else \
                "check the lighting and the corners"
            text = f"{name} reads {CLASS_WORDS[got]} but should hold {CLASS_WORDS[want]}: {cause}"
            if want == ".":
                text = f"{name} reads {CLASS_WORDS[got]} but should be empty: {cause}"
        problems.append(SquareProblem(square=name, expected=want, read=got, message=text))
    return problems


@dataclass
class LightingReport:
    """Lighting judged on the start position: ``ok`` and what is wrong, if anything."""

    ok: bool
    problems: list[str]
    brightness: float  # mean lightness of the board, 0–100
    unevenness: float  # spread of the light squares' lightness, 0–100 scale
    glare: float  # fraction of board pixels that are blown out

    def message(self) -> str:
        return "even light, no glare, every square read with a clear margin" if self.ok else "; ".join(self.problems)


def worst_margin(model: ColourModel, vec: np.ndarray, labels: str = START) -> tuple[float, str]:
    """The closest call: the lowest confidence of the model on a square it reads right (0 if one is wrong).

    Confidence is vision's margin between the two likeliest classes (0–1); near 0 a little light drift
    will misread the square. Returns the margin and the square's name.
    """
    reading, conf = classify(model, vec)
    worst, where = 1.0, ""
    for i, (want, got) in enumerate(zip(labels.lower(), reading, strict=True)):
        margin = float(conf[i]) if want == got else 0.0
        if margin < worst:
            worst, where = margin, DARK_SQUARES[i]
    return worst, where


def lighting(frame: np.ndarray, corners: dict[str, tuple[float, float]], model: ColourModel | None,
             light: np.ndarray | None = None, dark: np.ndarray | None = None,
             vec: np.ndarray | None = None) -> LightingReport:
    """Too dark, glare on the wood, uneven, or squares close to misreading: each named with its fix.

    Glare is measured on the light squares (always empty wood): highlights on the pieces' tops are
    normal, a lamp reflected in the board is not.
    """
    top = top_view(frame, corners)
    grey = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY) if top.ndim == 3 else top
    brightness = float(grey.mean() * 100 / 255)
    light_mask = np.zeros(grey.shape, bool)
    for r in range(8):
        for f in range(8):
            if (f + r) % 2:
                light_mask[(7 - r) * TOP_SQUARE:(8 - r) * TOP_SQUARE, f * TOP_SQUARE:(f + 1) * TOP_SQUARE] = True
    glare = float((grey[light_mask] >= 250).mean())
    if light is None or dark is None:
        dark, light = dark_square_samples(frame, corners)
    unevenness = float(np.std(light[:, 0]) * 100 / 255)
    problems = []
    if brightness < 20:
        problems.append("the board is dark: add light")
    if glare > 0.02:
        problems.append(f"{glare:.0%} of the light squares are blown out by glare: move the lamp or dim it")
    if unevenness > 12:
        problems.append("the light is uneven across the board: light it from above or from both sides")
    if model is not None:
        margin, square = worst_margin(model, square_vectors(frame, corners) if vec is None else vec)
        if margin < MIN_MARGIN:
            problems.append(f"{square} is close to being misread (contrast too low): more or whiter light helps")
    return LightingReport(ok=not problems, problems=problems, brightness=brightness,
                          unevenness=unevenness, glare=glare)
