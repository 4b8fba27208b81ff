"""Grey views of a colour frame for the localizer: lightness first, then two colour-opponent channels.

A wooden board's squares differ in lightness, and so do most printed ones. A board printed in two
colours of about equal lightness (red and green, as on the fhgr photos of ``../shared/photos``) is a
flat grey field in lightness: its squares differ only in hue. The localizer therefore looks at the
frame's CIE Lab lightness first and, only when no board is found there, at the red–green (a*) and
blue–yellow (b*) channels, amplified about their neutral grey so that a printed board's squares are as
far apart as a wooden board's are in lightness. The view a board was found in stays with its fit
(:class:`vision.localize.BoardFit`), so tracking and refinement look at the same view.

Last comes saturation (HSV S, ``"s"``): the ratio of a pixel's colour spread to its brightest channel,
which a shadow leaves nearly unchanged since it dims all three channels alike. Tall pieces under a low
light throw long shadows across a wooden board's squares and cut them into shapes no quad search takes
for squares; in saturation the shadows fade and the squares stay (a light wood is paler than a dark
one). Noisy in dark regions, it is tried only when no other view shows a board.

A colour view's name may end in ``-``: the view negated, so that the board's light (never occupied)
squares are the brighter ones in it, as the localizer's polarity tests expect.
"""

from __future__ import annotations

import cv2
import numpy as np

LIGHTNESS = "L"
SATURATION = "s"
VIEWS = (LIGHTNESS, "a", "b")
CHROMA_GAIN = 2.0  # Lab a*/b* (8-bit, 128 neutral) spread about neutral grey: red vs green ≈ 80 → 160 levels
# A colour view is tried only when its channel varies this much somewhere in the frame (8-bit Lab units:
# the 99th percentile of the standard deviation in 9×9 windows of a 160×90 copy, a window being about a
# square of a board a third of the frame wide): a near-grey picture has nothing to find there. Measured
# over the whole frame instead, a small printed board on a large dark or wooden table did not count
# (two of the first 100 printed boards of `dama bench vision --printed-boards`, 2026-11-30). For scale, on
# the benchmark's renders: wooden scenes 3–25 (median a* 7, b* 9), printed boards 7–34 (median 19).
MIN_CHROMA_SPREAD = 6.0
CHROMA_WINDOW = 9
_CHANNEL = {"a": 1, "b": 2}
GREY_WEIGHTS = np.array([0.114, 0.587, 0.299], dtype=np.float32)  # B, G, R (cv2.COLOR_BGR2GRAY)


def view_of(frame: np.ndarray, view: str = LIGHTNESS) -> np.ndarray:
    """The 8-bit grey image ``view`` of a BGR (or already grey) frame."""
    if frame.ndim == 2:
        return frame
    if view == LIGHTNESS:
        return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    if view[0] == SATURATION:
        sat = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)[..., 1]
        return 255 - sat if view.endswith("-") else sat
    channel = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)[..., _CHANNEL[view[0]]]
    return _amplified(channel, view.endswith("-"))


def view_values(bgr: np.ndarray, view: str = LIGHTNESS) -> np.ndarray:
    """``view`` of sampled BGR values (N, 3) as floats, for tests that sample a few points only."""
    bgr = np.asarray(bgr, dtype=np.float32).reshape(-1, 3)
    if view == LIGHTNESS:
        # OpenCV's grey weights, as in view_of: a plain mean of B, G and R makes a blue square as light as
        # a green one (on the blue/green photos tracking then saw no board)
        return bgr @ GREY_WEIGHTS
    if view[0] == SATURATION:
        top = bgr.max(axis=1)
        sat = np.where(top > 0, 255.0 * (top - bgr.min(axis=1)) / np.maximum(top, 1e-6), 0.0)
        return (255.0 - sat if view.endswith("-") else sat).astype(np.float32)
    pixels = np.clip(bgr, 0, 255).astype(np.uint8).reshape(-1, 1, 3)
    channel = cv2.cvtColor(pixels, cv2.COLOR_BGR2LAB)[:, 0, _CHANNEL[view[0]]]
    return _amplified(channel, view.endswith("-")).astype(np.float32)


def colour_views(frame: np.ndarray) -> list[str]:
    """The colour views worth a search in ``frame``: those whose channel varies somewhere in it."""
    if frame.ndim == 2:
        return []
    small = cv2.resize(frame, (160, 90), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    return [v for v in VIEWS[1:] if local_spread(lab[..., _CHANNEL[v]]) >= MIN_CHROMA_SPREAD]


def local_spread(channel: np.ndarray) -> float:
    """The 99th percentile of ``channel``'s standard deviation in ``CHROMA_WINDOW``-px square windows."""
    k = (CHROMA_WINDOW, CHROMA_WINDOW)
    mean = cv2.blur(channel, k)
    var = cv2.blur(channel * channel, k) - mean * mean
    return float(np.percentile(np.sqrt(np.maximum(var, 0.0)), 99))


def negated(view: str) -> str:
    """The colour view with its grey levels turned round."""
    return view[:-1] if view.endswith("-") else view + "-"


def _amplified(channel: np.ndarray, negate: bool = False) -> np.ndarray:
    out = (channel.astype(np.float32) - 128.0) * (-CHROMA_GAIN if negate else CHROMA_GAIN) + 128.0
    return np.clip(out, 0, 255).astype(np.uint8)
