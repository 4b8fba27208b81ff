"""Height strips: each dark square's lightness along the direction away from the camera, at full resolution.

A crowned king is two men stacked (čl. 3.6 of the rules: the dáma is marked by a second piece on the first).
Seen under a tilted camera, anything above the board plane lands in the board's top view shifted away
from the camera's foot by its height times the local shift per unit height (``vision.viewpoint``): a
man's top rim by its height, a king's by twice that, with a seam between its two discs halfway up its
side wall. At ordinary tilts the difference is a few image pixels, so the 20-px-per-square top view the
other features use blurs it and its patch around a square cuts off a tall king's displaced top.

So for every dark square we sample a strip of the *original frame* through the square's centre, aligned
with that square's direction away from the camera: ``ALONG`` from behind the piece's near rim to well past
where a king's top can land, ``ACROSS`` over the piece's width. Each sample is the mean lightness of
``SUB_LINES`` points spread across the direction over ``ACROSS``'s spacing (``SUB_OFFSETS``), never along
it, where the arcs of a king lie: a dark king on a dark square differs from a man by a faint edge that
sensor noise hides in a single line of pixels (2026-12-06: with three lines, the calibrated benchmark's
boards wrong where a king's height shows fell by 11 on seeds 1–5 and the three variants, 15 gained
against 4 lost; docs/vision.md, "Strips averaged across"). The sample points are computed once per board
fit (the homography maps board points to the picture; :func:`strip_maps`), so a frame costs one small
``cv2.remap`` and a colour conversion of 32 × 10 × 3 × 77 pixels (:func:`height_strips`).

A sample every 0.025 square along: 0.75–2.3 picture pixels on a board from a third to all of a 720-px
frame's height. With half as many, kings whose top lands 3–6 px beyond a man's were found on the
benchmark 77 % of the time where a sample spanned 2–3 px, against 99 % where it spanned under 2 px
(docs/vision.md).
"""

from __future__ import annotations

import cv2
import numpy as np

ALONG = np.linspace(-0.6, 1.3, 77)  # squares from the square's centre, positive away from the camera
ACROSS = np.linspace(-0.45, 0.45, 10)  # squares across that direction
N_STRIP = len(ALONG) * len(ACROSS)
SUB_LINES = 3  # points averaged into each sample, across the direction (a band as wide as ACROSS's spacing)
SUB_OFFSETS = (np.arange(SUB_LINES) - (SUB_LINES - 1) / 2) * ((ACROSS[1] - ACROSS[0]) / SUB_LINES)


def _directions(shift: np.ndarray) -> np.ndarray:
    """(N, 2) unit directions away from the camera; a square straight below it gets an arbitrary one."""
    s = np.asarray(shift, dtype=np.float64).reshape(-1, 2)
    n = np.hypot(s[:, 0], s[:, 1])
    e = np.tile([1.0, 0.0], (len(s), 1))
    ok = n > 1e-6
    e[ok] = s[ok] / n[ok, None]
    return e


def strip_maps(h_lattice: np.ndarray, centres: np.ndarray, shift: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.remap`` maps (fixed-point, N·len(ACROSS)·SUB_LINES × len(ALONG)) of the strips through lattice
    ``centres`` (N, 2).

    ``h_lattice`` maps lattice (u, v), one unit per square, to image pixels; ``shift`` (N, 2) is the top
    view's shift per unit height at each centre, whose direction the strips follow.
    """
    c = np.asarray(centres, dtype=np.float64).reshape(-1, 2)
    e = _directions(shift)
    perp = np.stack([-e[:, 1], e[:, 0]], axis=1)
    across = (ACROSS[:, None] + SUB_OFFSETS[None, :]).reshape(-1)  # each sample's sub-lines side by side
    pts = (c[:, None, None, :] + across[None, :, None, None] * perp[:, None, None, :]
           + ALONG[None, None, :, None] * e[:, None, None, :])  # (N, across · sub-lines, along, 2) lattice
    flat = pts.reshape(-1, 1, 2)
    img = cv2.perspectiveTransform(flat, np.asarray(h_lattice, dtype=np.float64)).reshape(pts.shape)
    rows = len(c) * len(across)
    # fixed-point maps (1/32 px): a quarter faster to apply than float ones, far finer than a sample step
    return cv2.convertMaps(img[..., 0].reshape(rows, len(ALONG)).astype(np.float32),
                           img[..., 1].reshape(rows, len(ALONG)).astype(np.float32), cv2.CV_16SC2)


def height_strips(frame: np.ndarray, maps: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """(N, N_STRIP) float32 Lab lightness (0–100) of the strips of :func:`strip_maps` in ``frame`` (BGR), each
    sample the mean of its ``SUB_LINES`` points."""
    samples = cv2.remap(frame, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if samples.ndim == 2:
        samples = cv2.cvtColor(samples, cv2.COLOR_GRAY2BGR)
    lum = cv2.cvtColor(samples, cv2.COLOR_BGR2Lab)[..., 0]  # the same 8-bit L as the top view's patches
    lum = lum.reshape(-1, len(ACROSS), SUB_LINES, len(ALONG)).mean(axis=2, dtype=np.float32)
    return (lum * np.float32(100.0 / 255.0)).reshape(-1, N_STRIP)


__all__ = ["ACROSS", "ALONG", "N_STRIP", "SUB_LINES", "SUB_OFFSETS", "height_strips", "strip_maps"]
