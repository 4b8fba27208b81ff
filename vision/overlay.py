"""Overlay for the dashboard: the playing grid, a mark per piece, highlighted squares."""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import SQUARE_NAMES

COLOURS = {"w": (240, 240, 240), "b": (40, 40, 40), "W": (240, 240, 240), "B": (40, 40, 40), "?": (0, 200, 255)}


MASKED = (160, 160, 160)  # squares read from the game instead of the camera (dama.masking): a grey cross
FLAT = (200, 120, 60)  # squares where a king's height does not show (vision.crown_view): a corner triangle


def draw_overlay(frame: np.ndarray, res, highlight=(), masked=(), flat_crowns: bool = False) -> np.ndarray:
    """A copy of ``frame`` with the 8×8 grid, piece marks (kings ringed twice), highlighted squares and a
    grey cross on each ``masked`` square (read from the game, not the camera). With ``flat_crowns``, a blue
    triangle in the corner towards a1 of each dark square where the camera does not show a king's height
    (``res.crown_px`` under ``vision.crown_view.KING_SHOWN_PX``): a king there may read as a man.

    ``res`` is a :class:`vision.pipeline.FrameResult`; nothing is drawn but a note when it has no board.
    """
    out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if not res.found or res.homography is None:
        cv2.putText(out, f"no board: {res.reason}", (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 255), 2)
        return out
    inv = np.linalg.inv(res.homography)
    size = 256.0
    cell = size / 8

    def img(pts: np.ndarray) -> np.ndarray:
        ph = np.asarray(pts, dtype=np.float64) @ inv[:, :2].T + inv[:, 2]
        return ph[:, :2] / ph[:, 2:3]

    scale = max(1, round(max(out.shape[:2]) / 640))
    grid = (0, 255, 0) if res.orientation_ok is not False else (0, 0, 255)
    for k in range(9):
        for a, b in (((k * cell, 0), (k * cell, size)), ((0, k * cell), (size, k * cell))):
            p = img(np.array([a, b])).round().astype(np.int32)
            cv2.line(out, tuple(p[0]), tuple(p[1]), grid, scale, cv2.LINE_AA)
    hl, muted = set(highlight), set(masked)
    flat: set[str] = set()
    if flat_crowns and res.crown_px is not None:
        from vision.crown_view import KING_SHOWN_PX

        flat = {name for name, px in zip(SQUARE_NAMES, res.crown_px, strict=True) if px < KING_SHOWN_PX}
    for n, name in enumerate(SQUARE_NAMES):
        f, r = "abcdefgh".index(name[0]), int(name[1]) - 1
        c = img(np.array([[(f + 0.5) * cell, (7 - r + 0.5) * cell]]))[0]
        rad = max(3, int(0.25 * np.linalg.norm(img(np.array([[0, 0], [cell, 0]]))[1] - img(np.array([[0, 0]]))[0])))
        centre = tuple(int(v) for v in c.round())
        ch = res.board[n]
        if ch in COLOURS:
            cv2.circle(out, centre, rad, COLOURS[ch], -1 if ch != "?" else scale, cv2.LINE_AA)
            cv2.circle(out, centre, rad, (0, 0, 255) if ch in "wbWB" else COLOURS[ch], scale, cv2.LINE_AA)
            if ch in "WB":
                cv2.circle(out, centre, rad + 3 * scale, (0, 215, 255), scale, cv2.LINE_AA)
        if name not in muted and name not in hl and name not in flat:
            continue
        quad = img(np.array([[f * cell, (7 - r) * cell], [(f + 1) * cell, (7 - r) * cell],
                             [(f + 1) * cell, (8 - r) * cell], [f * cell, (8 - r) * cell]])).round().astype(np.int32)
        if name in flat:  # the corner at the square's a1 side: quad[3]
            tri = img(np.array([[f * cell, (8 - r) * cell], [(f + 0.3) * cell, (8 - r) * cell],
                                [f * cell, (7.7 - r) * cell]])).round().astype(np.int32)
            cv2.fillConvexPoly(out, tri, FLAT, cv2.LINE_AA)
        if name in muted:
            for a, b in ((0, 2), (1, 3)):
                cv2.line(out, tuple(quad[a]), tuple(quad[b]), MASKED, 2 * scale, cv2.LINE_AA)
        if name in hl:
            cv2.polylines(out, [quad], True, (255, 0, 255), 3 * scale, cv2.LINE_AA)
    if res.corners:
        a1 = tuple(int(v) for v in np.round(res.corners["a1"]))
        cv2.putText(out, "a1", a1, cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, (0, 255, 255), scale)
    return out
