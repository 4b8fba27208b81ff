"""The static layer of a scene: table, board box (sides and wooden top), glare and lighting.

Built once per :class:`~vision.render.params.SceneParams` on the ideal canvas and cached by the
scene renderer; pieces and hands are drawn on copies of it.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.render import textures
from vision.render.params import SceneParams
from vision.render.view import View

MAX_TEXTURE = 2048
TABLE_TEXTURE = 1024


def _ppmm(view: View, pts3: np.ndarray, extent_mm: float) -> float:
    """Texture resolution matching the largest on-screen scale of a plane, capped by texture size."""
    depth = np.maximum(view.depth(pts3).min(), 1.0)
    return float(np.clip(view.f / depth * 1.1, 0.2, MAX_TEXTURE / extent_mm))


def _veneer_edges(img: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """The texel a square's edge cuts shows both squares by their share of it.

    The veneer blocks are cut on whole texels; without this the light/dark step lies up to half a texel
    from the ground-truth edge ``exact`` (texel-boundary units), which biased the calibration's corners
    by up to 1 px (docs/calibration.md).
    """
    out = img.astype(np.float32)
    n = img.shape[0]
    for axis in (0, 1):
        src = out.copy()
        for e in exact:
            i = int(np.floor(e))
            c = float(e - i)  # share of texel i on the lower side of the edge
            if c == 0.0 or not 1 <= i < n - 1:
                continue
            mine = int(np.round(e)) > i  # texel i was filled by the lower square
            lower = np.take(src, i if mine else i - 1, axis)
            upper = np.take(src, i + 1 if mine else i, axis)
            idx: list = [slice(None), slice(None)]
            idx[axis] = i
            out[tuple(idx)] = c * lower + (1 - c) * upper
    return np.clip(np.round(out), 0, 255).astype(np.uint8)


def board_texture(params: SceneParams, rng: np.random.Generator, ppmm: float) -> np.ndarray:
    """Top face of the board (frame included) in board mm: veneer squares, frame strips, border lines."""
    g = params.geometry
    x0, y0, x1, y1 = g.outer_rect()
    n = int(np.ceil((x1 - x0) * ppmm))
    sq = g.square_mm * ppmm
    big = int(np.ceil(sq * 3)) + 2
    printed = params.board_finish == "printed"
    if printed:  # flat inks on card or vinyl: no grain, no veneer joints
        light = textures.printed(rng, (big, big), params.light_wood, ppmm)
        dark = textures.printed(rng, (big, big), params.dark_wood, ppmm)
        frame_tex = textures.printed(rng, (n, n), params.frame_wood, ppmm)
    else:
        ring_l, ring_d = rng.uniform(2.5, 6), rng.uniform(2.5, 7)
        light = textures.wood(rng, (big, big), params.light_wood, ppmm, ring_mm=ring_l,
                              contrast=rng.uniform(0.1, 0.24))
        dark = textures.wood(rng, (big, big), params.dark_wood, ppmm, ring_mm=ring_d,
                             contrast=rng.uniform(0.15, 0.35))
        frame_tex = textures.wood(rng, (n, n), params.frame_wood, ppmm, ring_mm=rng.uniform(3, 8), contrast=0.3)
    img = np.empty((n, n, 3), dtype=np.uint8)
    # frame: strips along x at the White/Black edges, along y at the sides, mitred at the corners
    uu, vv = np.meshgrid(np.arange(n), np.arange(n))
    d_tb = np.minimum(vv, n - 1 - vv)
    d_lr = np.minimum(uu, n - 1 - uu)
    along_y = d_lr < d_tb
    img[:] = frame_tex
    img[along_y] = frame_tex.transpose(1, 0, 2)[along_y]
    off = g.frame_mm * ppmm
    # playing squares (the texture's row 0 is y = y0, i.e. White's edge; flipped later by the homography)
    exact = off + np.arange(9) * sq  # square edges in texel-boundary units (texel u spans [u, u + 1))
    edges = np.round(exact).astype(int)  # the veneer blocks end on whole texels (then blended: _veneer_edges)
    at = np.round((exact - 0.5) * 16).astype(int)  # lines drawn at the true edges (texel centres, 1/16 texel)
    for r in range(8):
        for f in range(8):
            src = dark if (f + r) % 2 == 0 else light
            a0, a1 = edges[r], edges[r + 1]
            b0, b1 = edges[f], edges[f + 1]
            oy, ox = rng.integers(0, big - (a1 - a0) + 1), rng.integers(0, big - (b1 - b0) + 1)
            block = src[oy : oy + (a1 - a0), ox : ox + (b1 - b0)]
            if params.grain_alternate and (f + r) % 2 == 1 and not printed:
                m = min(a1 - a0, b1 - b0)
                block = src[oy : oy + m, ox : ox + m].transpose(1, 0, 2)
                block = cv2.resize(block, (b1 - b0, a1 - a0))
            tone = rng.uniform(0.94, 1.06)
            if printed:  # one ink for all squares of a colour
                tone = 1.0 + 0.25 * (tone - 1.0)
            img[a0:a1, b0:b1] = np.clip(block * tone, 0, 255).astype(np.uint8)
    img = _veneer_edges(img, exact)
    line = (25, 30, 35)
    lw = max(1, int(round(0.7 * ppmm)))
    if not printed:  # veneer joints: every square edge shows as a faint dark seam, even without inlaid lines
        seams = img.copy()
        sw = max(1, int(round(0.35 * ppmm)))
        for e in at:
            cv2.line(seams, (int(at[0]), int(e)), (int(at[-1]), int(e)), line, sw, cv2.LINE_AA, 4)
            cv2.line(seams, (int(e), int(at[0])), (int(e), int(at[-1])), line, sw, cv2.LINE_AA, 4)
        img = cv2.addWeighted(img, 0.7, seams, 0.3, 0)
    if params.border_lines:
        for e in at:
            cv2.line(img, (int(at[0]), int(e)), (int(at[-1]), int(e)), line, lw, cv2.LINE_AA, 4)
            cv2.line(img, (int(e), int(at[0])), (int(e), int(at[-1])), line, lw, cv2.LINE_AA, 4)
    if g.frame_mm > 0:  # the joint between frame and playing area
        cv2.rectangle(img, (int(at[0]), int(at[0])), (int(at[-1]), int(at[-1])), line, lw, cv2.LINE_AA, 4)
        cv2.rectangle(img, (0, 0), (n - 1, n - 1), (20, 25, 30), lw, cv2.LINE_AA)
    return cv2.GaussianBlur(img, (0, 0), 0.5)


def _draw_table(params: SceneParams, view: View, rng: np.random.Generator) -> np.ndarray:
    """Table plane at the underside of the board, fading into a dim room beyond ~1.5 m."""
    g = params.geometry
    w, h = view.size
    z = -g.thickness_mm
    step = 4  # the fade and the visible extent are smooth: a coarse grid of rays is enough
    rays = view.rays(step)
    cam = view.centre
    dz = rays[..., 2]
    hits = dz < -1e-6
    tparam = np.where(hits, (z - cam[2]) / np.where(hits, dz, -1.0), 0.0)
    px = cam[0] + tparam * rays[..., 0]
    py = cam[1] + tparam * rays[..., 1]
    cx, cy = g.center_mm
    reach = 1600.0
    r = np.hypot(px - cx, py - cy)
    vis = hits & (r < reach)
    if vis.any():
        xs, ys = px[vis], py[vis]
        pad = 5 + step * view.depth(np.array([[cx, cy, z]]))[0] / view.f * 2  # the grid's gaps
        x0, x1, y0, y1 = xs.min() - pad, xs.max() + pad, ys.min() - pad, ys.max() + pad
    else:
        x0, x1, y0, y1 = cx - 100, cx + 100, cy - 100, cy + 100
    extent = max(x1 - x0, y1 - y0)
    ppmm = _ppmm(view, np.array([[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z], [cx, cy, z]]), extent)
    # the background never needs more, and big textures are slow (it is out of focus anyway)
    ppmm = min(ppmm, 1.2, TABLE_TEXTURE / extent)
    tw, th = max(2, int((x1 - x0) * ppmm)), max(2, int((y1 - y0) * ppmm))
    tex = textures.table(rng, params.table_kind, (th, tw), params.table_color, ppmm)
    T = np.array([[1 / ppmm, 0, x0], [0, 1 / ppmm, y0], [0, 0, 1]])
    H = view.plane_homography(z, T)
    img = cv2.warpPerspective(tex, H, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    # far away: the room, dim and blurred; beyond the horizon a wall
    far = np.array(params.table_color, dtype=np.float32) * 0.35 + 20
    fade = np.clip((r - reach * 0.7) / (reach * 0.3), 0, 1)
    fade = cv2.resize(np.where(hits, fade, 1.0).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    fade = fade[..., None]
    out = img.astype(np.float32) * (1 - fade) + far[None, None, :] * fade
    return out.astype(np.uint8)


def _draw_box_sides(canvas: np.ndarray, params: SceneParams, view: View) -> None:
    """The visible side faces of the board box (edge grain, darker than the top)."""
    g = params.geometry
    top = g.outer_corners3d(0.0)
    bot = g.outer_corners3d(-g.thickness_mm)
    normals = np.array([[0, -1, 0], [1, 0, 0], [0, 1, 0], [-1, 0, 0]], dtype=np.float64)
    col = np.array(params.frame_wood if g.frame_mm > 0 else params.dark_wood) * 0.7
    for i in range(4):
        j = (i + 1) % 4
        mid = (top[i] + top[j] + bot[i] + bot[j]) / 4
        if np.dot(view.centre - mid, normals[i]) <= 0:
            continue
        quad = view.project(np.array([top[i], top[j], bot[j], bot[i]]))
        cv2.fillConvexPoly(canvas, np.round(quad * 16).astype(np.int32), tuple(float(c) for c in col),
                           cv2.LINE_AA, 4)


def _board_shadow(canvas: np.ndarray, params: SceneParams, view: View) -> None:
    """The board's soft shadow on the table (the board stands ``thickness`` above it)."""
    from vision.render.pieces import light_vector
    from vision.render.scene import apply_shadow

    g = params.geometry
    L = light_vector(params.light_azimuth_deg, params.light_elevation_deg)
    lz = max(L[2], 0.2)
    top = g.outer_corners3d(0.0)
    drop = top - np.array([L[0] / lz, L[1] / lz, 1.0]) * g.thickness_mm
    drop[:, 2] = -g.thickness_mm
    bottom = g.outer_corners3d(-g.thickness_mm)
    w, h = view.size
    q = 4
    mask = np.zeros((h // q + 1, w // q + 1), dtype=np.float32)
    pts = view.project(np.vstack([drop, bottom])) / q
    cv2.fillConvexPoly(mask, cv2.convexHull(np.round(pts * 16).astype(np.int32)), 1.0, cv2.LINE_AA, 4)
    scale = view.f / max(view.depth(np.array([[*g.center_mm, 0.0]]))[0], 1.0)
    apply_shadow(canvas, cv2.GaussianBlur(mask, (0, 0), max(0.7, (3 + 0.5 * g.thickness_mm) * scale / q)), q,
                 params.shadow_strength * 0.8)


def illumination(params: SceneParams, view: View) -> np.ndarray:
    """Per-pixel BGR gain (H, W, 3) float32: brightness gradient, vignetting and colour temperature."""
    W, H = view.size
    q = 4  # the field is smooth: computed on a coarse grid, then upsampled
    w, h = W // q + 1, H // q + 1
    x = (np.arange(w, dtype=np.float32) * q / W - 0.5)[None, :]
    y = (np.arange(h, dtype=np.float32) * q / H - 0.5)[:, None]
    gx, gy = params.gradient
    level = 0.55 + 0.45 * (params.ambient + (1 - params.ambient) * np.sin(np.radians(params.light_elevation_deg)))
    field = level * (1.0 + gx * x + gy * y) * (1.0 - params.vignette * (x * x + y * y) * 2.0)
    if params.cast_shadows:  # soft shadows of things outside the picture: a player, a lamp arm
        mask = np.zeros((h, w), dtype=np.float32)
        for cx, cy, rx, ry, ang, strength in params.cast_shadows:
            one = np.zeros_like(mask)
            t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
            a = np.radians(ang)
            ex, ey = rx * np.cos(t), ry * np.sin(t)
            pts = np.stack([cx + ex * np.cos(a) - ey * np.sin(a), cy + ex * np.sin(a) + ey * np.cos(a), 0 * t], 1)
            if np.any(view.depth(pts) <= 1.0):
                continue
            cv2.fillPoly(one, [np.round(view.project(pts) / q * 16).astype(np.int32)], float(strength), cv2.LINE_AA, 4)
            soft = 0.35 * min(rx, ry) * view.f / max(view.depth(np.array([[cx, cy, 0.0]]))[0], 1.0) / q
            mask = np.maximum(mask, cv2.GaussianBlur(one, (0, 0), max(1.0, soft)))
        field = field * (1.0 - mask)
    tint = np.array(params.tint, dtype=np.float32)
    small = np.clip(field[..., None] * tint[None, None, :], 0.05, 2.0).astype(np.float32)
    # cv2.resize maps pixel centres; this grid sits at multiples of q, so remap explicitly
    mx = (np.arange(W, dtype=np.float32) / q)[None, :].repeat(H, 0)
    my = (np.arange(H, dtype=np.float32) / q)[:, None].repeat(W, 1)
    return cv2.remap(small, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def static_layer(params: SceneParams, view: View) -> tuple[np.ndarray, np.ndarray]:
    """(canvas uint8, illumination float32) of table + board, lit, before pieces and hands."""
    rng = np.random.default_rng(params.texture_seed)
    g = params.geometry
    canvas = _draw_table(params, view, rng)
    _board_shadow(canvas, params, view)
    _draw_box_sides(canvas, params, view)
    x0, y0, x1, y1 = g.outer_rect()
    corners3 = g.outer_corners3d(0.0)
    ppmm = _ppmm(view, corners3, x1 - x0)
    tex = board_texture(params, rng, ppmm)
    # texel (u, v) is the area [u, u + 1) × [v, v + 1): its centre, the point warpPerspective samples, lies
    # half a texel in
    T = np.array([[1 / ppmm, 0, x0 + 0.5 / ppmm], [0, 1 / ppmm, y0 + 0.5 / ppmm], [0, 0, 1]])
    H = view.plane_homography(0.0, T)
    w, h = view.size
    warped = cv2.warpPerspective(tex, H, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    alpha = np.zeros((h, w), dtype=np.uint8)
    quad = np.round(view.project(corners3) * 16).astype(np.int32)
    cv2.fillConvexPoly(alpha, quad, 255, cv2.LINE_AA, 4)
    a = (alpha.astype(np.float32) / 255.0)[..., None]
    canvas = (canvas * (1 - a) + warped * a).astype(np.float32)
    illum = illumination(params, view)
    canvas *= illum
    # glare: soft specular spots of the varnished board, clipped to its surface
    if params.glare:
        q = 4
        spots = np.zeros((h // q + 1, w // q + 1), dtype=np.float32)
        for gx, gy, rad, strength in params.glare:
            p3 = np.array([[gx, gy, 0.0]])
            c = view.project(p3)[0] / q
            rpx = max(1.0, rad * view.f / max(view.depth(p3)[0], 1.0) / q)
            if -3 * rpx < c[0] < w / q + 3 * rpx and -3 * rpx < c[1] < h / q + 3 * rpx:
                one = np.zeros_like(spots)
                cv2.circle(one, (int(c[0] * 16), int(c[1] * 16)), int(rpx * 0.6 * 16), float(strength), -1,
                           cv2.LINE_AA, 4)
                spots += cv2.GaussianBlur(one, (0, 0), max(0.8, rpx * 0.4))
        spots = cv2.resize(spots, (w, h), interpolation=cv2.INTER_LINEAR)
        canvas += (spots * a[..., 0] * 255.0)[..., None]
    return np.clip(canvas, 0, 255).astype(np.uint8), illum
