"""Colour profile of one set under one light: learned from the start position, checked, kept up to date.

The start position gives 32 labelled samples for free (12 light pieces, 12 dark pieces, 8 empty dark
squares), plus the 32 light squares which are always empty. From them :class:`ColourModel` keeps one
mean Lab colour per class and a typical spread; that is enough to (1) say which squares read wrong
*and why* in words a player can act on, (2) judge the lighting, and (3) follow slow light drift during a
game by moving each class mean a little toward squares the game says hold that class.

Samples are the mean Lab colour of the centre of each dark square in the rectified top view; the
centre is used because a piece's top face covers it from any reasonable camera angle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.board import TOP_SQUARE, top_view

START = "wwwwwwwwwwww........bbbbbbbbbbbb"
CLASSES = (".", "w", "b")
CLASS_WORDS = {".": "empty", "w": "a light piece", "b": "a dark piece", "W": "a light king",
               "B": "a dark king", "?": "hidden"}
DARK_SQUARES = tuple(f"{'abcdefgh'[f]}{r + 1}" for r in range(8) for f in range(8) if (f + r) % 2 == 0)
MAX_MARGIN_RATIO = 0.85  # a square this close to another class (own / other distance) is a warning


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


@dataclass
class ColourModel:
    """One mean Lab colour per class (``.`` empty dark square, ``w``, ``b``, ``light`` square)."""

    means: dict[str, list[float]]
    spreads: dict[str, float]  # RMS distance of a class's samples to its mean (Lab units)
    updates: int = 0

    @classmethod
    def learn(cls, dark: np.ndarray, light: np.ndarray, labels: str = START) -> ColourModel:
        """Fit the class means on a position whose labels are known (normally the start position)."""
        labels = labels.lower()
        means: dict[str, list[float]] = {}
        spreads: dict[str, float] = {}
        for c in CLASSES:
            idx = [i for i, ch in enumerate(labels) if ch == c]
            if not idx:
                raise ValueError(f"the labelled position has no {CLASS_WORDS[c]} to learn from")
            m = dark[idx].mean(axis=0)
            means[c] = m.tolist()
            spreads[c] = float(max(1.0, np.sqrt(np.mean(np.sum((dark[idx] - m) ** 2, axis=1)))))
        means["light"] = light.mean(axis=0).tolist()
        spreads["light"] = float(max(1.0, np.sqrt(np.mean(np.sum((light - light.mean(axis=0)) ** 2, axis=1)))))
        return cls(means=means, spreads=spreads)

    def to_json(self) -> dict[str, Any]:
        return {"means": self.means, "spreads": self.spreads, "updates": self.updates}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ColourModel:
        keys = (*CLASSES, "light")
        return cls(means={k: [float(v) for v in data["means"][k]] for k in keys},
                   spreads={k: float(data["spreads"][k]) for k in keys}, updates=int(data.get("updates", 0)))

    def _array(self) -> np.ndarray:
        return np.array([self.means[c] for c in CLASSES])

    def classify(self, dark: np.ndarray) -> str:
        """Nearest class mean for each dark square (an observation string without kings or ``?``)."""
        d = np.linalg.norm(dark[:, None, :] - self._array()[None, :, :], axis=2)
        return "".join(CLASSES[i] for i in d.argmin(axis=1))

    def separation(self) -> dict[str, float]:
        """Distance between two class means over the sum of their spreads (below 1 the classes overlap)."""
        m, s = self.means, self.spreads
        pairs = {"empty squares and light pieces": (".", "w"), "empty squares and dark pieces": (".", "b"),
                 "light and dark pieces": ("w", "b")}
        return {name: float(np.linalg.norm(np.subtract(m[a], m[b])) / (s[a] + s[b]))
                for name, (a, b) in pairs.items()}

    def update(self, dark: np.ndarray, observation: str, rate: float = 0.02) -> None:
        """Follow slow light drift: move each class mean a step toward the squares that hold it.

        Call with a *stable, trusted* observation (the referee's position, not the raw reading) so that
        a misread square never teaches the model its own mistake. Squares farther than 3 spreads (plus
        a small allowance) from their class are skipped: a hand, a shadow or a misplaced piece is not drift.
        """
        if not 0.0 < rate <= 0.5:
            raise ValueError(f"drift rate {rate} must be in (0, 0.5]")
        for c in CLASSES:
            idx = [i for i, ch in enumerate(observation.lower()) if ch == c]
            if not idx:
                continue
            mean = np.array(self.means[c])
            near = [i for i in idx if np.linalg.norm(dark[i] - mean) < 3 * self.spreads[c] + 3.0]
            if near:
                self.means[c] = (mean + rate * (dark[near].mean(axis=0) - mean)).tolist()
        self.updates += 1


@dataclass
class SquareProblem:
    """One dark square read wrong on the start position, with the likely cause and the fix."""

    square: str
    expected: str
    read: str
    message: str


def _cause(expected: str, read: str, sample: np.ndarray, model: ColourModel) -> str:
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


def check_start(reading: str, dark: np.ndarray | None = None, model: ColourModel | None = None,
                expected: str = START) -> list[SquareProblem]:
    """Compare a reading of the start position with the truth; one problem per wrong square.

    ``reading`` is what the recognizer saw (the vision pipeline's reading, or ``model.classify``);
    the samples and model, when given, let the message name the likely cause.
    """
    problems = []
    for i, (want, got) in enumerate(zip(expected, reading, strict=True)):
        if want.lower() == got.lower():
            continue
        name = DARK_SQUARES[i]
        if got == "?":
            text = f"{name} is hidden: take hands and objects off the board"
        else:
            cause = _cause(want.lower(), got.lower(), dark[i], model) if dark is not None and model else \
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


def worst_margin(model: ColourModel, dark: np.ndarray, labels: str = START) -> tuple[float, str]:
    """How close the closest call is: max over squares of (distance to own class / to nearest other).

    Below 1 every square is read right; near 1 a little more light drift will misread it. Returns
    the ratio and the square's name.
    """
    means = model._array()
    worst, where = 0.0, ""
    for i, ch in enumerate(labels.lower()):
        if ch not in CLASSES:
            continue
        d = np.linalg.norm(means - dark[i], axis=1)
        own = d[CLASSES.index(ch)]
        other = min(v for j, v in enumerate(d) if CLASSES[j] != ch)
        ratio = float(own / max(other, 1e-9))
        if ratio > worst:
            worst, where = ratio, DARK_SQUARES[i]
    return worst, where


def lighting(frame: np.ndarray, corners: dict[str, tuple[float, float]], model: ColourModel | None,
             light: np.ndarray | None = None, dark: np.ndarray | None = None) -> LightingReport:
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
        ratio, square = worst_margin(model, dark)
        if ratio > MAX_MARGIN_RATIO:
            problems.append(f"{square} is close to being misread (contrast too low): more or whiter light helps")
    return LightingReport(ok=not problems, problems=problems, brightness=brightness,
                          unevenness=unevenness, glare=glare)
