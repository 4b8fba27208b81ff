"""A hand with its arm reaching over the board: skin-toned capsules with cylindrical shading, a
sleeve, fingers pinching at the target, an optional held piece, and a soft shadow on the board."""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.render.geometry import square_index
from vision.render.params import HandPose

if TYPE_CHECKING:
    from vision.render.scene import SceneRenderer

SIDES = {"white": (0.0, -1.0), "black": (0.0, 1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}
SHIFT = 4


def _side(hand: HandPose, x: float, y: float, half: float) -> np.ndarray:
    """Outward unit vector of the board edge the arm comes from."""
    side = hand.side
    if side == "auto":
        if hand.holding:
            side = "white" if hand.holding.lower() == "w" else "black"
        else:  # nearest edge
            dists = {"white": y, "black": 2 * half - y, "left": x, "right": 2 * half - x}
            side = min(dists, key=dists.get)
    if side not in SIDES:
        raise ValueError(f"hand side must be one of auto, {', '.join(SIDES)}; got {side!r}")
    return np.array(SIDES[side])


def target_xy(hand: HandPose, renderer: SceneRenderer) -> tuple[float, float]:
    if hand.xy_mm is not None:
        return float(hand.xy_mm[0]), float(hand.xy_mm[1])
    return renderer.params.geometry.square_center(square_index(hand.target_square))


def arm_parts(hand: HandPose, renderer: SceneRenderer) -> list[tuple[np.ndarray, np.ndarray, float, float, str]]:
    """3D capsules (a, b, radius_a, radius_b, material) of arm and hand in board mm; material is
    ``"skin"`` or ``"sleeve"``. Fingertips meet at the target point ``height_mm`` above the board."""
    g = renderer.params.geometry
    half = g.playing_mm / 2
    tx, ty = target_xy(hand, renderer)
    out = _side(hand, tx, ty, half)
    z = max(float(hand.height_mm), 2.0)
    # the shoulder: beyond the chosen edge, in front of the player's body, partly following the target
    along = np.array([-out[1], out[0]])
    centre = np.array(g.center_mm)
    rel = np.array([tx, ty]) - centre
    shoulder_xy = centre + out * (half + g.frame_mm + 420) + along * (0.55 * rel @ along + 140)
    shoulder = np.array([*shoulder_xy, z + 330])
    tip = np.array([tx, ty, z])
    u = shoulder_xy - tip[:2]
    u /= max(np.linalg.norm(u), 1e-6)
    p = np.array([-u[1], u[0]])  # across the hand
    knuckle = np.array([*(tip[:2] + u * 65), z + 22])
    wrist = np.array([*(tip[:2] + u * 150), z + 38])
    elbow = wrist + (shoulder - wrist) * 0.45
    r0 = renderer.params.arm_radius_mm
    parts = [
        (shoulder, elbow, r0 * 1.45, r0 * 1.3, "sleeve"),
        (elbow, wrist + (elbow - wrist) * 0.35, r0 * 1.3, r0 * 1.15, "sleeve"),
        (elbow, wrist, r0 * 1.05, r0 * 0.85, "skin"),
        (wrist, knuckle, r0 * 0.95, r0 * 1.15, "skin"),  # back of the hand, widening
    ]
    # index finger and thumb pinch at the target; the other fingers curl progressively under the hand
    curl = ((0.0, 0.0), (16.0, 6.0), (30.0, 12.0), (42.0, 18.0))  # (back towards the wrist, up) in mm
    for k, off in enumerate((-28.0, -9.0, 10.0, 27.0)):
        base = knuckle + np.r_[p * off, -4.0]
        if k == 0:
            end = np.array([*(tip[:2] + p * 6.0), z])
        else:
            back, up = curl[k]
            end = np.array([*(tip[:2] + u * back + p * off * 0.7), z + up])
        mid = (base + end) / 2 + np.r_[u * 6.0, 10.0]  # the middle joint stands up a little
        rf = (8.5, 9.0, 8.5, 7.5)[k]
        parts += [(base, mid, rf, rf * 0.95, "skin"), (mid, end, rf * 0.95, rf * 0.85, "skin")]
    thumb0 = wrist + np.r_[-p * 34, -8.0]
    thumb_mid = np.array([*(tip[:2] - p * 36 + u * 40), z + 16])
    thumb1 = np.array([*(tip[:2] - p * 8.0), z + 2])
    parts += [(thumb0, thumb_mid, 12.0, 10.0, "skin"), (thumb_mid, thumb1, 10.0, 8.5, "skin")]
    return parts


NEAR_MM = 40.0


def _clip(view, a: np.ndarray, b: np.ndarray, ra: float, rb: float):
    """Clip a capsule's axis to the part at least NEAR_MM in front of the camera (None if nothing is)."""
    da, db = view.depth(np.array([a, b]))
    if da < NEAR_MM and db < NEAR_MM:
        return None
    if da < NEAR_MM:
        s = (NEAR_MM - da) / (db - da)
        a, ra = a + (b - a) * s, ra + (rb - ra) * s
    elif db < NEAR_MM:
        s = (NEAR_MM - db) / (da - db)
        b, rb = b + (a - b) * s, rb + (ra - rb) * s
    return a, b, ra, rb


def hand_in_view(renderer: SceneRenderer, hand: HandPose) -> bool:
    """True when any part of the hand or arm would be drawn inside the picture."""
    view = renderer.view
    w, h = view.size
    for a0, b0, ra0, rb0, _ in arm_parts(hand, renderer):
        clipped = _clip(view, a0, b0, ra0, rb0)
        if clipped is None:
            continue
        a, b, ra, rb = clipped
        pa, pb = view.project(np.array([a, b]))
        r = max(ra * view.f / max(view.depth(a[None])[0], 1), rb * view.f / max(view.depth(b[None])[0], 1))
        lo, hi = np.minimum(pa, pb) - r, np.maximum(pa, pb) + r
        if hi[0] >= 0 and hi[1] >= 0 and lo[0] < w and lo[1] < h:
            return True
    return False


def _capsule(canvas, a2, b2, ra, rb, color, mask=None) -> None:
    d = b2 - a2
    n = np.linalg.norm(d)
    col = tuple(float(c) for c in color)
    if n > 1e-3:
        nrm = np.array([-d[1], d[0]]) / n
        quad = np.array([a2 + nrm * ra, b2 + nrm * rb, b2 - nrm * rb, a2 - nrm * ra])
        q = np.round(quad * (1 << SHIFT)).astype(np.int32)
        cv2.fillConvexPoly(canvas, q, col, cv2.LINE_AA, SHIFT)
        if mask is not None:
            cv2.fillConvexPoly(mask, q, 255, cv2.LINE_8, SHIFT)
    for c, r in ((a2, ra), (b2, rb)):
        ci = tuple(int(v) for v in np.round(c * (1 << SHIFT)))
        ri = int(round(r * (1 << SHIFT)))
        cv2.circle(canvas, ci, ri, col, -1, cv2.LINE_AA, SHIFT)
        if mask is not None:
            cv2.circle(mask, ci, ri, 255, -1, cv2.LINE_8, SHIFT)


def draw_hand(renderer: SceneRenderer, canvas: np.ndarray, mask: np.ndarray, hand: HandPose) -> None:
    """Draw shadow, held piece and hand/arm of ``hand`` on the ideal ``canvas``; mark hand pixels in ``mask``."""
    from vision.render.scene import apply_shadow

    view, params = renderer.view, renderer.params
    parts = arm_parts(hand, renderer)
    L = renderer.light
    lz = max(L[2], 0.25)

    def ground(p3: np.ndarray) -> np.ndarray:
        return np.array([p3[0] - p3[2] * L[0] / lz, p3[1] - p3[2] * L[1] / lz, 0.0])

    tx, ty = target_xy(hand, renderer)
    z = float(hand.height_mm)
    # shadow: the capsules projected along the light onto the board plane, blurred with height
    w, h = view.size
    q = 4
    sh = np.zeros((h // q + 1, w // q + 1), dtype=np.float32)
    for a, b, ra, rb, _ in parts:
        ga, gb = ground(a), ground(b)
        clipped = _clip(view, ga, gb, ra, rb)
        if clipped is None:
            continue
        ga, gb, ra, rb = clipped
        pa, pb = view.project(np.array([ga, gb])) / q
        sa = ra * view.f / max(view.depth(ga[None])[0], 1) / q
        sb = rb * view.f / max(view.depth(gb[None])[0], 1) / q
        _capsule(sh, pa, pb, sa, sb, (1.0,))
    scale = view.f / max(view.depth(np.array([[tx, ty, 0.0]]))[0], 1.0)
    sigma = max(0.8, (4.0 + 0.12 * z) * scale / q)
    apply_shadow(canvas, cv2.GaussianBlur(sh, (0, 0), sigma), q, 0.55)
    # the held piece hangs between the fingertips
    if hand.holding:
        drawer = renderer.pieces
        discs = 2 if hand.holding.isupper() else 1
        z0 = max(0.0, z - discs * drawer.h * 0.6)
        col = renderer.piece_color(hand.holding, tx, ty, z0)
        drawer.draw(canvas, tx, ty, z0, discs, col, mask)
    # arm and hand, far parts first, flat colours into a layer; then rounded shading from the distance
    # to the silhouette (a cylinder is dark at its rim), a light-facing gradient and soft edges
    gain_px = renderer.piece_color("w", tx, ty, z) / np.array(params.light_piece)
    layer = np.zeros_like(canvas)
    own = np.zeros(canvas.shape[:2], dtype=np.uint8)
    order = sorted(parts, key=lambda pr: -float(view.depth(((pr[0] + pr[1]) / 2)[None])[0]))
    for a0, b0, ra0, rb0, mat in order:
        clipped = _clip(view, a0, b0, ra0, rb0)
        if clipped is None:
            continue
        a, b, ra, rb = clipped
        base = np.array(params.skin if mat == "skin" else params.sleeve) * gain_px
        pa, pb = view.project(np.array([a, b]))
        sa = ra * view.f / max(view.depth(a[None])[0], 1)
        sb = rb * view.f / max(view.depth(b[None])[0], 1)
        _capsule(layer, pa, pb, sa, sb, np.clip(base, 0, 255), own)
        if mat == "skin" and ra < 12:  # a finger: a faint crease where it overlaps its neighbour
            _capsule_outline(layer, pa, pb, sa, sb, np.clip(base * 0.8, 0, 255))
    bx, by, bw, bh = cv2.boundingRect(own)
    if bw == 0 or bh == 0:
        return
    pad = 4
    x0, x1 = max(0, bx - pad), min(w, bx + bw + pad)
    y0, y1 = max(0, by - pad), min(h, by + bh + pad)
    m = own[y0:y1, x0:x1]
    dist = cv2.distanceTransform(m, cv2.DIST_L2, 3)
    k = int(max(3, min(61, 0.6 * r_px(renderer, tx, ty, z))) // 2 * 2 + 1)
    local = cv2.dilate(dist, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    rnd = np.sqrt(np.clip(dist / np.maximum(local, 1e-3), 0, 1))
    # light from one side: brighter where the silhouette faces the light in the image
    lp = view.project(np.array([[tx, ty, z], [tx + L[0] * 50, ty + L[1] * 50, z + L[2] * 50]]))
    ld = lp[1] - lp[0]
    ld = ld / max(np.linalg.norm(ld), 1e-6)
    gy, gx = np.gradient(cv2.GaussianBlur(dist, (0, 0), 1.0))
    facing = np.clip((gx * -ld[0] + gy * -ld[1]) * 0.5, -0.15, 0.15)
    shade = (0.62 + 0.45 * rnd + facing * (1 - rnd))[..., None]
    roi = layer[y0:y1, x0:x1].astype(np.float32) * shade
    roi = cv2.GaussianBlur(roi, (0, 0), 0.7)
    alpha = cv2.GaussianBlur(m.astype(np.float32) / 255.0, (0, 0), 0.6)[..., None]
    dst = canvas[y0:y1, x0:x1].astype(np.float32)
    canvas[y0:y1, x0:x1] = np.clip(dst * (1 - alpha) + roi * alpha, 0, 255).astype(np.uint8)
    mask[y0:y1, x0:x1] = np.maximum(mask[y0:y1, x0:x1], m)


def r_px(renderer: SceneRenderer, x: float, y: float, z: float) -> float:
    """The arm's radius in pixels near (x, y, z)."""
    view = renderer.view
    return renderer.params.arm_radius_mm * view.f / max(view.depth(np.array([[x, y, z]]))[0], 1.0)


def _capsule_outline(canvas, a2, b2, ra, rb, color) -> None:
    d = b2 - a2
    n = np.linalg.norm(d)
    if n < 1e-3:
        return
    nrm = np.array([-d[1], d[0]]) / n
    col = tuple(float(c) for c in color)
    for sgn in (1, -1):
        seg = np.array([a2 + sgn * nrm * ra, b2 + sgn * nrm * rb])
        cv2.polylines(canvas, [np.round(seg * (1 << SHIFT)).astype(np.int32)], False, col, 1, cv2.LINE_AA, SHIFT)
