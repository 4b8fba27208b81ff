"""The men of this set, seen on this board: the crown reader's yardstick from a known position.

The crown reader (``vision.crowns``) sees one square, so a piece's absolute height decides, and how
high a man looks depends on the square (the camera's slant there), the set (thick or thin discs) and
the light. A position the pipeline learns its colours from (the start position at calibration, a
``--fen`` set-up, a resumed game) also tells it which squares hold men. Their king logits, taken where
they stand in the picture, say how king-like *this* set's men look under *this* camera on each square.
A piece later read on the same spot is weighed against that man: on the first 1000 scenes of
``dama bench vision --seed 2`` the logit of a man differs from the logit of the calibration man on its
square by 1.2 (standard deviation), while a king whose top lands 3–6 px beyond a man's stands 15 above
it (median), against 1.9 above zero without the yardstick (its tenth percentile). Where no man of the
piece's colour stood, a smooth surface over all the men's logits (quadratic in the board's
coordinates) stands in for it, with less weight (docs/vision.md, "The men seen at calibration").

The men are kept by their picture position, not by square name: how a man looks depends on where in
the picture it stands. A board or camera moved so that fewer than ``MIN_MEN`` of them land within
``ON_SQUARE`` of a dark square's centre leaves them unused (:meth:`MenSeen.yardstick` returns None and
the pipeline weighs each piece against its board's other pieces alone, ``vision.crowns.on_this_board``).
The logits belong to one crown model (its ``digest``); another model's profile is ignored, and they
belong to the light they were seen in (docs/vision.md, "The men seen at calibration").

Each man's crown inputs (his folded height strip and shape features, ``vision.crowns.flat_inputs``) are
kept too: the pair reader reads a piece beside the man seen on its square or near it
(:meth:`MenSeen.beside`; docs/vision.md, "Beside a man of this set").
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

import numpy as np

from vision.crowns import N_CROWN_INPUTS, NEAR_SQUARES, board_median, board_terms
from vision.geometry import project

# Weights fitted on 1000 scenes of `dama bench vision --seed 2` (a scene family the benchmark's figures do
# not come from) and checked on seed 1, pieces off centre, thick pieces and printed boards (docs/vision.md).
SAME_WEIGHT = 0.5  # share of the logit of the man of the piece's colour seen on its square taken off
SURFACE_WEIGHT = 0.3  # share of the men's surface taken off where no man of the piece's colour stood
BOARD_PULL = 0.3  # share of the median logit of the board's pieces taken off as well (vision.crowns)
KING_FROM = 3.5  # adjusted logit from which a piece is a king (the pipeline's bar is KING_THRESHOLD's)
ON_SQUARE = 0.25  # squares: how near a seen man's spot must land to a dark square's centre to be its man
MIN_MEN = 12  # men that must land on squares for the yardstick to count (the board has not moved)


@dataclass(frozen=True)
class MenSeen:
    """Men seen on a known position: where (image px), which colour (1 light, 2 dark), their king logits."""

    points: np.ndarray  # (M, 2) image pixels of the square centres
    colours: np.ndarray  # (M,) 1 or 2
    logits: np.ndarray  # (M,) the crown reader's raw king logits there
    model: str  # digest of the crown model that read them
    # (M, K) each man's crown inputs (vision.crowns.crown_inputs, strip and shape flattened side by side),
    # what a pair reader sees beside a piece; None in profiles written before them
    inputs: np.ndarray | None = None

    @classmethod
    def seen(cls, h_lattice: np.ndarray, centres: np.ndarray, colours: np.ndarray, logits: np.ndarray,
             kings: np.ndarray | None, model: str, least: int = MIN_MEN,
             inputs: np.ndarray | None = None) -> MenSeen | None:
        """From one reading of a known position: ``centres`` (32, 2) lattice, ``colours`` (32,) 0/1/2 the
        position's colour classes, ``logits`` (32,) raw king logits (NaN where not read), ``kings`` (32,)
        the position's kings (not men: left out), ``inputs`` (32, K) the crown inputs read (NaN where not).
        None if fewer than ``least`` men were read."""
        colours = np.asarray(colours)
        logits = np.asarray(logits, dtype=np.float64)
        men = (colours > 0) & np.isfinite(logits)
        if inputs is not None:
            men &= np.isfinite(inputs).all(axis=1)
        if kings is not None:
            men &= ~np.asarray(kings, dtype=bool)
        if men.sum() < max(least, 1):
            return None
        pts = project(np.asarray(h_lattice, dtype=np.float64), np.asarray(centres, dtype=np.float64)[men])
        return cls(pts, colours[men].astype(np.int64), logits[men], model,
                   None if inputs is None else np.asarray(inputs, dtype=np.float32)[men])

    def _on_squares(self, h_lattice: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each man's spot in this fit's lattice (M, 2), nearest of ``centres`` (M,) and whether he stands on it."""
        at = project(np.linalg.inv(np.asarray(h_lattice, dtype=np.float64)), self.points)
        dist = np.linalg.norm(at[:, None, :] - np.asarray(centres, dtype=np.float64)[None, :, :], axis=2)
        cell = dist.argmin(axis=1)
        return at, cell, dist[np.arange(len(at)), cell] <= ON_SQUARE

    def beside(self, h_lattice: np.ndarray, centres: np.ndarray, colours: np.ndarray) -> np.ndarray | None:
        """(N,) the man (row of :attr:`inputs`) a pair reader weighs the piece of ``colours`` (N,) 1/2 on each
        of ``centres`` against, -1 where none: the man seen on its square, of its colour if both were; else
        the nearest within ``vision.crowns.NEAR_SQUARES``, of its colour at equal distance. None without
        inputs or when too few men land on this fit's squares (the board or camera moved)."""
        if self.inputs is None:
            return None
        at, _, on = self._on_squares(h_lattice, centres)
        if on.sum() < MIN_MEN:
            return None
        centres = np.asarray(centres, dtype=np.float64)
        dist = np.linalg.norm(centres[:, None, :] - at[None, :, :], axis=2)  # (N, M)
        other = np.asarray(colours)[:, None] != self.colours[None, :]
        cost = np.where(dist <= ON_SQUARE, 0.0, np.round(dist, 1)) + 0.01 * other + np.where(on, 0.0, np.inf)[None]
        best = cost.argmin(axis=1)
        ok = np.isfinite(cost[np.arange(len(centres)), best]) & (dist[np.arange(len(centres)), best] <= NEAR_SQUARES)
        return np.where(ok, best, -1)

    def yardstick(self, h_lattice: np.ndarray, centres: np.ndarray, colours: np.ndarray) -> np.ndarray | None:
        """(N,) what to take off each square's king logit for the piece of ``colours`` (N,) 1/2 on it,
        under the fit ``h_lattice`` (lattice → image) with dark-cell ``centres`` (N, 2); None when too few
        of the men land on this fit's squares (the board or camera moved)."""
        _, cell, near = self._on_squares(h_lattice, centres)
        centres = np.asarray(centres, dtype=np.float64)
        if near.sum() < MIN_MEN:
            return None
        surface = _surface(centres[cell[near]], self.logits[near], centres)
        same = np.full(len(centres), np.nan)
        for c, colour, logit in zip(cell[near], self.colours[near], self.logits[near], strict=True):
            if colour == colours[c]:
                same[c] = logit
        return np.where(np.isfinite(same), SAME_WEIGHT * same, SURFACE_WEIGHT * surface)

    def seen_again(self, newer: MenSeen, h_lattice: np.ndarray) -> MenSeen:
        """These men with ``newer`` ones (a later position, read later) in their place: an older man within
        half a square of a newer one (under the fit ``h_lattice``) gives way to it, the rest are kept. Men
        of another crown model give way altogether, and so do men kept without their inputs to newer ones with."""
        if newer.model != self.model or (self.inputs is None and newer.inputs is not None):
            return newer  # another model's logits; men kept before their inputs were
        inv = np.linalg.inv(np.asarray(h_lattice, dtype=np.float64))
        old_at, new_at = project(inv, self.points), project(inv, newer.points)
        kept = np.linalg.norm(old_at[:, None, :] - new_at[None, :, :], axis=2).min(axis=1) > 0.5
        inputs = None if self.inputs is None or newer.inputs is None else np.vstack([self.inputs[kept], newer.inputs])
        return MenSeen(np.vstack([self.points[kept], newer.points]),
                       np.concatenate([self.colours[kept], newer.colours]),
                       np.concatenate([self.logits[kept], newer.logits]), self.model, inputs)

    def to_json(self) -> dict:
        out: dict = {"model": self.model,
                     "men": [[round(float(x), 2), round(float(y), 2), int(c), round(float(v), 3)]
                             for (x, y), c, v in zip(self.points, self.colours, self.logits, strict=True)]}
        if self.inputs is not None:  # half floats, base64: 24 men's strips in about 26 kB of text
            out["inputs"] = {"shape": list(self.inputs.shape),
                             "float16": base64.b64encode(self.inputs.astype("<f2").tobytes()).decode("ascii")}
        return out

    @classmethod
    def from_json(cls, data: object) -> MenSeen:
        """ValueError with the reason if ``data`` is not what :meth:`to_json` gives."""
        try:
            men = np.asarray(data["men"], dtype=np.float64)  # type: ignore[index]
            model = str(data["model"])  # type: ignore[index]
        except (KeyError, TypeError, ValueError):
            raise ValueError("profile men_seen needs 'model' and 'men' as [x, y, colour, logit] rows") from None
        if men.ndim != 2 or men.shape[1] != 4 or not np.isfinite(men).all() or not np.isin(men[:, 2], (1, 2)).all():
            raise ValueError("profile men_seen rows must be [x, y, colour 1 or 2, logit], finite numbers")
        inputs = None
        if data.get("inputs") is not None:  # type: ignore[union-attr]
            try:
                shape = tuple(int(n) for n in data["inputs"]["shape"])  # type: ignore[index]
                raw = base64.b64decode(data["inputs"]["float16"], validate=True)  # type: ignore[index]
                inputs = np.frombuffer(raw, dtype="<f2").reshape(shape).astype(np.float32)
            except (KeyError, TypeError, ValueError):
                raise ValueError("profile men_seen 'inputs' needs 'shape' and base64 'float16' of one row a man") \
                    from None
            if inputs.ndim != 2 or inputs.shape != (len(men), N_CROWN_INPUTS) or not np.isfinite(inputs).all():
                raise ValueError("profile men_seen 'inputs' must hold one row of finite numbers a man")
        return cls(men[:, :2].copy(), men[:, 2].astype(np.int64), men[:, 3].copy(), model, inputs)


def _surface(at: np.ndarray, logits: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """(N,) the least-squares quadratic in board coordinates through the men's logits, at ``centres``."""
    coef, *_ = np.linalg.lstsq(board_terms(at), logits, rcond=None)
    return board_terms(centres) @ coef


def against_men_seen(logits: np.ndarray, pieces: np.ndarray, yardstick: np.ndarray,
                     king_logit: float) -> np.ndarray:
    """King logits of the pieces, less their ``yardstick`` (:meth:`MenSeen.yardstick`, same squares) and a
    share of the median logit of the squares ``pieces`` marks, moved so that ``KING_FROM`` lands on the
    pipeline's bar ``king_logit``."""
    logits = np.asarray(logits, dtype=np.float64)
    return (logits - np.asarray(yardstick, dtype=np.float64) - BOARD_PULL * board_median(logits, pieces)
            - (KING_FROM - king_logit))


__all__ = ["KING_FROM", "MenSeen", "against_men_seen"]
