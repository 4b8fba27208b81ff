"""Procedural textures: wood with grain, printed colour, table cloth, table wood planks, clutter.

All functions take a ``numpy.random.Generator`` and return BGR uint8 images; the same generator state
gives the same texture. Sizes are in texture pixels, physical scales in mm via ``ppmm`` (px per mm).
"""

from __future__ import annotations

import cv2
import numpy as np


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[float, float]) -> np.ndarray:
    """Band-limited noise of roughly unit amplitude: ``cells`` (rows, cols) random values, cubic-upsampled."""
    h, w = shape
    cy, cx = max(2, int(round(cells[0]))), max(2, int(round(cells[1])))
    small = rng.standard_normal((cy + 2, cx + 2)).astype(np.float32)
    big = cv2.resize(small, (w + 2 * max(1, w // cx), h + 2 * max(1, h // cy)), interpolation=cv2.INTER_CUBIC)
    oy, ox = max(1, h // cy), max(1, w // cx)
    return big[oy : oy + h, ox : ox + w]


def wood(
    rng: np.random.Generator,
    shape: tuple[int, int],
    color_bgr: tuple[float, float, float],
    ppmm: float,
    ring_mm: float = 4.0,
    contrast: float = 0.25,
    figure: float = 1.0,
) -> np.ndarray:
    """Wood with the grain running along x (transpose for y): growth rings bent by low-frequency
    noise, dark latewood lines, fine fibre streaks and slow colour variation."""
    h, w = shape
    yy = (np.arange(h, dtype=np.float32) / ppmm)[:, None]
    xx = (np.arange(w, dtype=np.float32) / ppmm)[None, :]
    h_mm, w_mm = h / ppmm, w / ppmm
    # rings: the log is cut slightly off-axis and the stem wobbles, so ring lines meander along x
    warp = smooth_noise(rng, shape, (h_mm / 60 + 2, w_mm / 120 + 2)) * ring_mm * 3.0 * figure
    warp += smooth_noise(rng, shape, (h_mm / 15 + 2, w_mm / 60 + 2)) * ring_mm * 0.6
    slope = rng.uniform(-0.05, 0.05)
    phase = (yy + warp + slope * xx) / ring_mm
    # irregular ring spacing and strength, thin dark latewood lines rather than a regular zebra
    phase += smooth_noise(rng, shape, (h_mm / 6 + 2, w_mm / 40 + 2)) * 0.35
    strength = 0.55 + 0.45 * np.clip(smooth_noise(rng, shape, (h_mm / 20 + 2, w_mm / 80 + 2)), -1, 1)
    rings = (0.5 + 0.5 * np.sin(2 * np.pi * phase)).astype(np.float32) ** 5.0 * strength
    # fibres: noise stretched along the grain
    fib = smooth_noise(rng, shape, (h_mm * 1.2 + 2, w_mm / 25 + 2))
    fib2 = smooth_noise(rng, shape, (h_mm * 0.4 + 2, w_mm / 8 + 2))
    slow = smooth_noise(rng, shape, (h_mm / 80 + 2, w_mm / 80 + 2))
    v = 1.0 - contrast * (0.75 * rings + 0.12 * fib + 0.10 * fib2) + 0.05 * slow
    base = np.array(color_bgr, dtype=np.float32)
    # latewood is darker and more saturated (more red/brown): scale blue more than red
    sat = np.array([1.25, 1.1, 0.95], dtype=np.float32)
    dark = (1.0 - v)[..., None]
    img = base[None, None, :] * (1.0 - dark * sat[None, None, :])
    return np.clip(img, 0, 255).astype(np.uint8)


def printed(rng: np.random.Generator, shape: tuple[int, int], color_bgr, ppmm: float) -> np.ndarray:
    """A flat printed colour on card or vinyl: slow uneven inking and a faint fine mottle, no grain."""
    h, w = shape
    slow = smooth_noise(rng, shape, (h / ppmm / 60 + 2, w / ppmm / 60 + 2))
    fine = smooth_noise(rng, shape, (h / 3 + 2, w / 3 + 2)) if ppmm > 0.5 else 0
    v = 1.0 + 0.025 * slow + 0.015 * fine
    img = np.array(color_bgr, dtype=np.float32)[None, None, :] * v[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def cloth(rng: np.random.Generator, shape: tuple[int, int], color_bgr, ppmm: float) -> np.ndarray:
    """Woven table cloth: a fine weave, a few soft folds and slow fading."""
    h, w = shape
    pitch = rng.uniform(0.8, 2.0)
    sx = np.sin(2 * np.pi * np.arange(w, dtype=np.float32) / ppmm / pitch)[None, :]
    sy = np.sin(2 * np.pi * np.arange(h, dtype=np.float32) / ppmm / pitch)[:, None]
    weave = 0.5 + 0.25 * (sx * sy)
    weave_amp = min(1.0, ppmm * pitch / 3.0)  # invisible (and aliasing) when a thread is under a pixel
    folds = smooth_noise(rng, shape, (h / ppmm / 250 + 2, w / ppmm / 250 + 2))
    grain = smooth_noise(rng, shape, (h / 2 + 2, w / 2 + 2)) if ppmm > 0.5 else 0
    v = 1.0 + 0.05 * folds + 0.06 * weave_amp * (weave - 0.5) + 0.03 * grain
    img = np.array(color_bgr, dtype=np.float32)[None, None, :] * v[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def planks(rng: np.random.Generator, shape: tuple[int, int], color_bgr, ppmm: float) -> np.ndarray:
    """Wooden table top: planks along x of 90-200 mm, each its own tone, with dark joints."""
    h, w = shape
    out = np.empty((h, w, 3), dtype=np.uint8)
    y = 0
    base = np.array(color_bgr, dtype=np.float32)
    while y < h:
        ph = int(rng.uniform(90, 200) * ppmm)
        ph = min(max(2, ph), h - y)
        tone = base * rng.uniform(0.85, 1.12)
        out[y : y + ph] = wood(rng, (ph, w), tuple(tone), ppmm, ring_mm=rng.uniform(3, 9), contrast=0.3)
        joint = max(1, int(round(1.5 * ppmm)))
        out[y : y + joint] = (out[y : y + joint] * 0.45).astype(np.uint8)
        y += ph
    return out


def clutter(rng: np.random.Generator, shape: tuple[int, int], color_bgr, ppmm: float) -> np.ndarray:
    """Busy desk: a stained, worn surface plus scattered everyday things (papers, books, cups, a phone)."""
    h, w = shape
    base = np.array(color_bgr, dtype=np.float32)
    lum = (smooth_noise(rng, shape, (h / ppmm / 300 + 2, w / ppmm / 300 + 2)) * 0.10
           + smooth_noise(rng, shape, (h / ppmm / 40 + 2, w / ppmm / 40 + 2)) * 0.05)
    img = base[None, None, :] * (1 + lum[..., None])
    for c in range(3):  # a little chroma variation, much weaker than the luminance
        img[..., c] *= 1 + 0.025 * smooth_noise(rng, shape, (h / ppmm / 200 + 2, w / ppmm / 200 + 2))
    muted = ((225, 228, 230), (205, 215, 220), (60, 70, 120), (120, 90, 60), (50, 50, 55), (140, 150, 120),
             (90, 120, 150), (30, 30, 30))
    for _ in range(int(rng.integers(4, 10))):
        col = np.array(muted[int(rng.integers(len(muted)))], dtype=np.float32) * rng.uniform(0.85, 1.1)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        kind = rng.random()
        if kind < 0.6:  # paper, book, phone
            rw, rh = rng.uniform(60, 300) * ppmm, rng.uniform(60, 300) * ppmm
            box = cv2.boxPoints(((cx, cy), (rw, rh), rng.uniform(0, 180)))
            cv2.fillConvexPoly(img, np.round(box * 16).astype(np.int32), tuple(float(v) for v in col),
                               cv2.LINE_AA, 4)
        else:  # a cup or glass seen from above: rim, inside
            r = rng.uniform(35, 50) * ppmm
            c16 = (int(cx * 16), int(cy * 16))
            cv2.circle(img, c16, int(r * 16), tuple(float(v) for v in col), -1, cv2.LINE_AA, 4)
            cv2.circle(img, c16, int(r * 0.85 * 16), tuple(float(v) * 0.55 for v in col), -1, cv2.LINE_AA, 4)
    img = cv2.GaussianBlur(img, (0, 0), max(0.5, 0.6 * ppmm))
    return np.clip(img, 0, 255).astype(np.uint8)


TABLE_KINDS = ("cloth", "planks", "clutter")


def table(rng: np.random.Generator, kind: str, shape: tuple[int, int], color_bgr, ppmm: float) -> np.ndarray:
    if kind == "cloth":
        return cloth(rng, shape, color_bgr, ppmm)
    if kind == "planks":
        return planks(rng, shape, color_bgr, ppmm)
    if kind == "clutter":
        return clutter(rng, shape, color_bgr, ppmm)
    raise ValueError(f"unknown table kind {kind!r} (one of {', '.join(TABLE_KINDS)})")
