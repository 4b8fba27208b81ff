"""Compose a frame: cached static layer → piece shadows and pieces (cached per position) → hand and
its shadow → lens distortion → blur, sensor noise, JPEG. Also the ground truth of the frame."""

from __future__ import annotations

import hashlib
import pickle
from collections import OrderedDict
from dataclasses import dataclass

import cv2
import numpy as np

from vision.render.board import static_layer
from vision.render.camera import Camera
from vision.render.geometry import CORNER_NAMES, parse_board
from vision.render.params import HandPose, SceneParams
from vision.render.pieces import PieceDrawer, light_vector
from vision.render.view import View

OCCLUSION_FRACTION = 0.2
"""A dark square is occluded when at least this share of its central region is under the hand."""


def occluded_string(share: np.ndarray) -> str:
    """32 chars of '0'/'1': which squares have at least ``OCCLUSION_FRACTION`` of their centre under a hand."""
    return "".join("1" if f >= OCCLUSION_FRACTION else "0" for f in share)


@dataclass
class Rendered:
    """One rendered frame and its ground truth (all positions in output pixels, distortion included).

    ``image`` BGR uint8; ``corners`` outer corners of the 64-square area keyed a1, h1, h8, a8;
    ``square_centers`` (32, 2) dark-square centres on the board plane in observation order;
    ``hand_mask`` bool (H, W) pixels covered by hand or arm; ``occluded`` 32 chars of '0'/'1' (a
    square's central region, ±30% of a square around its centre on the board plane, at least
    ``OCCLUSION_FRACTION`` under the hand); ``camera`` the camera used; ``hand_share`` (32,) the share of
    each square's central region under the hand, of which ``occluded`` is the threshold (the benchmark
    names the squares a finger partly covers).
    """

    image: np.ndarray
    corners: dict[str, tuple[float, float]]
    square_centers: np.ndarray
    hand_mask: np.ndarray
    camera: Camera
    hand_share: np.ndarray

    @property
    def occluded(self) -> str:
        return occluded_string(self.hand_share)


def params_key(params: SceneParams) -> str:
    return hashlib.sha1(pickle.dumps(params)).hexdigest()


class SceneRenderer:
    """Renders frames of one scene; keeps the static layer and recent piece layers cached."""

    def __init__(self, params: SceneParams) -> None:
        self.params = params
        self.camera = params.camera
        self.view = View(params.camera)
        self.static, self.illum = static_layer(params, self.view)
        g = params.geometry
        self.light = light_vector(params.light_azimuth_deg, params.light_elevation_deg)
        self.pieces = PieceDrawer(self.view, self.light, params.ambient, g.square_mm * params.piece_diameter / 2,
                                  g.square_mm * params.piece_height, params.piece_grooves,
                                  params.seamless_kings, params.piece_sheen)
        self._layers: OrderedDict[str, np.ndarray] = OrderedDict()
        cam = params.camera
        centres = g.square_centers()
        # occlusion sample grid: 5×5 points over the central ±30% of every dark square
        s = np.linspace(-0.3, 0.3, 5) * g.square_mm
        grid = np.array([(a, b) for a in s for b in s])
        pts = (centres[:, None, :] + grid[None, :, :]).reshape(-1, 2)
        self._truth_pts = np.vstack([
            g.playing_corners3d(),
            np.column_stack([centres, np.zeros(32)]),
            np.column_stack([pts, np.zeros(len(pts))]),
        ])
        self.corners, self.square_centers, self._occ_px = self._truth(cam)
        w, h = cam.size
        noise_rng = np.random.default_rng([params.texture_seed, 1])
        pad = 64
        noise = noise_rng.standard_normal((h + pad, w + pad, 3), dtype=np.float32)
        noise *= params.noise_sigma
        # luminance-correlated part, as real sensors have, plus the per-channel chroma noise above
        noise += noise_rng.standard_normal((h + pad, w + pad, 1), dtype=np.float32) * (params.noise_sigma * 0.7)
        self._noise_pos = cv2.convertScaleAbs(cv2.max(noise, 0.0))  # rounded, saturated to uint8
        self._noise_neg = cv2.convertScaleAbs(cv2.min(noise, 0.0))

    # -- pieces -----------------------------------------------------------------------------------
    def piece_color(self, piece: str, x: float, y: float, z: float = 0.0) -> np.ndarray:
        """The BGR colour of a piece's top face at (x, y, z), lit by the scene illumination."""
        base = np.array(self.params.light_piece if piece.lower() == "w" else self.params.dark_piece)
        c = self.view.project(np.array([[x, y, z]]))[0]
        w, h = self.view.size
        gain = self.illum[int(np.clip(c[1], 0, h - 1)), int(np.clip(c[0], 0, w - 1))]
        return base * gain

    def piece_layer(self, board: str) -> np.ndarray:
        """Static layer with the pieces of ``board`` and their shadows (cached per board string)."""
        if board in self._layers:
            self._layers.move_to_end(board)
            return self._layers[board]
        p, g = self.params, self.params.geometry
        canvas = self.static.copy()
        items = []
        for i, ch in enumerate(board):
            if ch == ".":
                continue
            cx, cy = g.square_center(i)
            dx, dy = p.piece_offsets[i]
            items.append((cx + dx, cy + dy, ch))
        if items:
            self._shadows(canvas, [(x, y, 0.0, 2 if ch.isupper() else 1) for x, y, ch in items])
            depth = self.view.depth(np.array([[x, y, self.pieces.h] for x, y, _ in items]))
            for k in np.argsort(-depth):
                x, y, ch = items[k]
                # pieces of one set still differ a little in tone (wood, dye, wear)
                tone = 1.0 + 0.035 * np.random.default_rng([p.texture_seed, int(x * 8), int(y * 8)]).standard_normal()
                color = self.piece_color(ch, x, y) * tone
                self.pieces.draw(canvas, x, y, 0.0, 2 if ch.isupper() else 1, color)
        self._layers[board] = canvas
        while len(self._layers) > 6:
            self._layers.popitem(last=False)
        return canvas

    def _shadows(self, canvas: np.ndarray, stacks: list[tuple[float, float, float, int]]) -> None:
        """Soft drop shadows, drawn at quarter resolution and blurred (contact darkening included)."""
        w, h = self.view.size
        q = 4
        mask = np.zeros((h // q + 1, w // q + 1), dtype=np.float32)
        for x, y, z0, discs in stacks:
            self.pieces.shadow(mask, x, y, z0, discs * self.pieces.h, scale=1.0 / q)
        sigma = max(0.6, 0.12 * self.pieces.r * self.view.f / max(self.view.depth(
            np.array([[*self.params.geometry.center_mm, 0.0]]))[0], 1.0) / q)
        apply_shadow(canvas, cv2.GaussianBlur(mask, (0, 0), sigma), q, self.params.shadow_strength)

    # -- frame ------------------------------------------------------------------------------------
    def frame(self, board: str, hand: HandPose | None = None, seed: int = 0,
              camera_rotation: tuple[float, float, float] | None = None) -> Rendered:
        """Render ``board`` (observation string) with an optional hand; ``seed`` varies the sensor noise.

        ``camera_rotation`` (degrees about the camera's x, y, z axes) turns the camera about its own
        centre, e.g. a shaking hand or a bump: exact, since a pure rotation maps the ideal image by the
        homography K·R·K⁻¹, and the ground truth comes from the turned camera.
        """
        board = parse_board(board)
        canvas = self.piece_layer(board)
        w, h = self.camera.size
        mask_c = None
        if hand is not None:
            from vision.render.hand import draw_hand

            canvas = canvas.copy()
            mask_c = np.zeros(canvas.shape[:2], dtype=np.uint8)
            draw_hand(self, canvas, mask_c, hand)
        cam, corners, centres, occ_px = self.camera, self.corners, self.square_centers, self._occ_px
        if camera_rotation is not None and any(camera_rotation):
            Rx = cv2.Rodrigues(np.radians(np.asarray(camera_rotation, dtype=np.float64)))[0]
            H = self.view.K @ Rx @ np.linalg.inv(self.view.K)
            cw, ch = self.view.size
            canvas = cv2.warpPerspective(canvas, H, (cw, ch), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
            if mask_c is not None:
                mask_c = cv2.warpPerspective(mask_c, H, (cw, ch), flags=cv2.INTER_NEAREST)
            R2 = Rx @ cam.R
            cam = Camera(cam.K, cam.dist, cv2.Rodrigues(R2)[0].ravel(), Rx @ cam.tvec, cam.size)
            corners, centres, occ_px = self._truth(cam)
        mask = self.view.finish(mask_c, nearest=True) > 127 if mask_c is not None else np.zeros((h, w), dtype=bool)
        img = self._sensor(self.view.finish(canvas), seed)
        return Rendered(
            image=img,
            corners=dict(corners),
            square_centers=centres.copy(),
            hand_mask=mask,
            camera=cam,
            hand_share=self.hand_shares(mask, occ_px),
        )

    def _truth(self, cam: Camera) -> tuple[dict[str, tuple[float, float]], np.ndarray, np.ndarray]:
        """Corners, square centres and occlusion sample pixels as seen by ``cam``."""
        p = cam.project(self._truth_pts)
        corners = {n: (float(x), float(y)) for n, (x, y) in zip(CORNER_NAMES, p[:4], strict=True)}
        return corners, p[4:36], p[36:].reshape(32, -1, 2)

    def hand_shares(self, mask: np.ndarray, occ_px: np.ndarray | None = None) -> np.ndarray:
        """(32,) the share of each dark square's central region that ``mask`` covers, observation order."""
        h, w = mask.shape
        px = np.round(self._occ_px if occ_px is None else occ_px).astype(int)
        inside = (px[..., 0] >= 0) & (px[..., 0] < w) & (px[..., 1] >= 0) & (px[..., 1] < h)
        hit = np.zeros(px.shape[:2], dtype=bool)
        hit[inside] = mask[px[..., 1][inside], px[..., 0][inside]]
        return hit.mean(1)

    def _sensor(self, img: np.ndarray, seed: int) -> np.ndarray:
        """Optics and sensor: blur, noise (a seeded window of a per-scene noise field), JPEG."""
        p = self.params
        if p.blur_sigma > 0.05:
            img = cv2.GaussianBlur(img, (0, 0), p.blur_sigma)
        h, w = img.shape[:2]
        rng = np.random.default_rng([p.texture_seed, int(seed) & 0xFFFFFFFF, 2])
        oy, ox = (int(v) for v in rng.integers(0, 64, 2))
        img = cv2.add(img, self._noise_pos[oy : oy + h, ox : ox + w])
        img = cv2.subtract(img, self._noise_neg[oy : oy + h, ox : ox + w])
        if p.jpeg_quality < 100:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(p.jpeg_quality)])
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return img


def apply_shadow(canvas: np.ndarray, mask_q: np.ndarray, q: int, strength: float) -> None:
    """Darken ``canvas`` by a blurred shadow mask drawn at 1/q resolution, touching only its bounding box."""
    bx, by, bw, bh = cv2.boundingRect((mask_q > 1e-3).astype(np.uint8))
    if bw == 0 or bh == 0:
        return
    h, w = canvas.shape[:2]
    x0, y0 = max(0, bx - 1), max(0, by - 1)
    x1, y1 = min(mask_q.shape[1], bx + bw + 1), min(mask_q.shape[0], by + bh + 1)
    X0, Y0, X1, Y1 = x0 * q, y0 * q, min(w, x1 * q), min(h, y1 * q)
    if X1 <= X0 or Y1 <= Y0:
        return
    # full-resolution pixel centres mapped into the quarter grid, as cv2.resize would do
    mx = ((np.arange(X0, X1, dtype=np.float32) + 0.5) / q - 0.5)[None, :].repeat(Y1 - Y0, 0)
    my = ((np.arange(Y0, Y1, dtype=np.float32) + 0.5) / q - 0.5)[:, None].repeat(X1 - X0, 1)
    up = cv2.remap(mask_q, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    gain = 1.0 - strength * np.clip(up, 0, 1)
    roi = canvas[Y0:Y1, X0:X1]
    roi[:] = np.clip(roi * gain[..., None], 0, 255).astype(np.uint8)


_RENDERERS: OrderedDict[str, SceneRenderer] = OrderedDict()


def renderer_for(params: SceneParams) -> SceneRenderer:
    """The cached :class:`SceneRenderer` of ``params`` (a few scenes are kept)."""
    key = params_key(params)
    if key in _RENDERERS:
        _RENDERERS.move_to_end(key)
        return _RENDERERS[key]
    r = SceneRenderer(params)
    _RENDERERS[key] = r
    while len(_RENDERERS) > 3:
        _RENDERERS.popitem(last=False)
    return r


def render_scene(board: str, params: SceneParams, hand: HandPose | None = None, seed: int = 0,
                 camera_rotation: tuple[float, float, float] | None = None) -> Rendered:
    """Render one frame of ``board`` (32 chars of ``.wbWB``; W/B drawn as two stacked discs) in the scene
    ``params``, with an optional hand; ``seed`` picks the sensor noise of this frame. Same inputs →
    identical bytes. Raises ValueError on a bad board. ``camera_rotation`` (degrees, optional) turns the
    camera about its own centre (a bump or shake); ``Rendered.camera`` is then the turned camera."""
    return renderer_for(params).frame(board, hand, seed, camera_rotation)
