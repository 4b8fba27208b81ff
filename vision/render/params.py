"""Scene parameters: every random choice of a scene lives here, so a scene is reproducible.

:func:`random_scene_params` draws a varied scene (board woods, pieces, camera pose, table, light,
sensor) from a ``numpy.random.Generator``; textures are derived from ``texture_seed``.
"""

from __future__ import annotations

import colorsys
from dataclasses import dataclass, field, replace

import numpy as np

from vision.render.camera import Camera, intrinsics, orbit_pose
from vision.render.geometry import BoardGeometry
from vision.render.textures import TABLE_KINDS

BGR = tuple[float, float, float]

LIGHT_WOODS: tuple[BGR, ...] = ((160, 200, 226), (178, 208, 230), (140, 180, 210), (118, 165, 204), (150, 194, 222))
DARK_WOODS: tuple[BGR, ...] = ((42, 66, 102), (40, 58, 118), (52, 86, 128), (32, 42, 58), (60, 95, 140))
FRAME_WOODS: tuple[BGR, ...] = ((40, 62, 100), (60, 100, 150), (45, 70, 125), (90, 140, 190), (30, 40, 60))
LIGHT_PIECES: tuple[BGR, ...] = ((205, 228, 242), (232, 238, 240), (160, 198, 225), (140, 190, 228), (190, 215, 230))
DARK_PIECES: tuple[BGR, ...] = ((32, 32, 36), (28, 45, 72), (32, 48, 112), (38, 56, 82), (22, 24, 30))
# table colours per kind: cloths of any colour, woods in wood tones, clutter on grey/brown desks
TABLE_COLORS: dict[str, tuple[BGR, ...]] = {
    "cloth": ((140, 150, 150), (60, 80, 50), (120, 60, 40), (200, 205, 210), (45, 45, 50), (60, 60, 130)),
    "planks": ((90, 150, 200), (70, 120, 170), (60, 95, 135), (110, 170, 215), (50, 75, 105)),
    "clutter": ((120, 125, 130), (80, 110, 140), (170, 175, 175), (60, 70, 80)),
}
SKINS: tuple[BGR, ...] = (
    (150, 180, 225), (120, 160, 210), (95, 130, 185), (60, 90, 140), (45, 65, 100), (165, 195, 235),
)
SLEEVES: tuple[BGR, ...] = ((40, 40, 40), (140, 80, 40), (60, 60, 140), (190, 190, 190), (70, 110, 60), (30, 30, 90))


@dataclass(frozen=True)
class HandPose:
    """A hand reaching for a square: fingertips above ``target_square`` at ``height_mm``.

    ``holding`` is the piece in the hand (``"w"``, ``"b"``, ``"W"``, ``"B"`` or None). ``side`` is the
    board edge the arm comes from: ``"white"`` (a1-h1), ``"black"``, ``"left"`` (a-file),
    ``"right"`` (h-file) or ``"auto"`` (the holder's side, else the nearest edge). ``xy_mm`` overrides
    the target position with any point of the board plane (used by the video animation).
    """

    target_square: str = "d4"
    height_mm: float = 40.0
    holding: str | None = None
    side: str = "auto"
    xy_mm: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if self.holding not in (None, "w", "b", "W", "B"):
            raise ValueError(f"holding must be None, 'w', 'b', 'W' or 'B', got {self.holding!r}")
        if self.side not in ("auto", "white", "black", "left", "right"):
            raise ValueError(f"side must be auto, white, black, left or right, got {self.side!r}")
        if not np.isfinite(self.height_mm) or self.height_mm < 0:
            raise ValueError(f"height_mm must be a non-negative number, got {self.height_mm!r}")


@dataclass(frozen=True)
class SceneParams:
    """Everything that defines one scene except the pieces and the hand. See module docstring."""

    camera: Camera
    geometry: BoardGeometry = field(default_factory=BoardGeometry)
    # pose summary (the camera is authoritative; these are what it was built from)
    tilt_deg: float = 0.0
    white_edge_rotation: float = 0.0  # azimuth of the camera around the board; 0 = behind White
    roll_deg: float = 0.0
    # board
    light_wood: BGR = LIGHT_WOODS[0]
    dark_wood: BGR = DARK_WOODS[0]
    frame_wood: BGR = FRAME_WOODS[0]
    grain_alternate: bool = True  # squares' grain turned 90° on alternate squares
    board_finish: str = "wood"  # "wood" (veneer with grain) or "printed" (flat colours: card, vinyl)
    border_lines: bool = False
    # pieces
    light_piece: BGR = LIGHT_PIECES[0]
    dark_piece: BGR = DARK_PIECES[0]
    piece_diameter: float = 0.8  # fraction of a square
    piece_height: float = 0.25  # fraction of a square, one disc
    piece_grooves: int = 2  # concentric rings turned into the top face
    seamless_kings: bool = False  # a king drawn as one tall disc, no bevel where its two discs meet
    piece_sheen: float = 120.0  # strength of the glint on each disc's bevelled rim (0: matte wood, no glint)
    piece_offsets: tuple[tuple[float, float], ...] = tuple((0.0, 0.0) for _ in range(32))  # mm, per dark square
    # table
    table_kind: str = "cloth"
    table_color: BGR = TABLE_COLORS["cloth"][0]
    # light
    light_azimuth_deg: float = 30.0
    light_elevation_deg: float = 60.0
    ambient: float = 0.45
    gradient: tuple[float, float] = (0.0, 0.0)  # relative brightness change across the image (x, y)
    vignette: float = 0.2
    tint: BGR = (1.0, 1.0, 1.0)  # colour temperature as B, G, R gains
    glare: tuple[tuple[float, float, float, float], ...] = ()  # (x_mm, y_mm, radius_mm, strength)
    shadow_strength: float = 0.45
    # shadows of things outside the picture (a player leaning over, a lamp): ellipses on the board plane
    cast_shadows: tuple[tuple[float, float, float, float, float, float], ...] = ()  # x, y, rx, ry mm, deg, strength
    # sensor
    noise_sigma: float = 2.0
    blur_sigma: float = 0.6
    jpeg_quality: int = 90
    # hand
    skin: BGR = SKINS[0]
    sleeve: BGR = SLEEVES[0]
    arm_radius_mm: float = 32.0
    texture_seed: int = 0

    def __post_init__(self) -> None:
        if self.board_finish not in ("wood", "printed"):
            raise ValueError(f"board_finish must be 'wood' or 'printed', got {self.board_finish!r}")

    @property
    def size(self) -> tuple[int, int]:
        return self.camera.size


def _pick(rng: np.random.Generator, options: tuple) -> tuple:
    """One of ``options`` with a common brightness change and a slight hue jitter (never a new hue)."""
    base = options[int(rng.integers(len(options)))]
    gain = rng.uniform(0.9, 1.1)
    return tuple(float(np.clip(c * gain * rng.uniform(0.975, 1.025), 0, 255)) for c in base)


def fit_camera(
    rng: np.random.Generator, K: np.ndarray, dist: np.ndarray, size: tuple[int, int], corners: np.ndarray,
    tilt: float, azimuth: float, roll: float, fill: float,
) -> Camera:
    """Pose a camera (intrinsics ``K``, ``dist``) at ``tilt``/``azimuth``/``roll`` so that the planar
    polygon ``corners`` (N, 3, z = 0) spans ``fill`` of the frame (its larger relative extent) and
    sits at a random place in the frame with every corner inside it."""
    w, h = size
    target = np.r_[np.asarray(corners, dtype=np.float64)[:, :2].mean(0), 0.0]
    extent = float(np.max(np.ptp(np.asarray(corners)[:, :2], axis=0)))
    d = extent * K[0, 0] / (fill * min(w, h))
    for _ in range(6):
        rvec, tvec = orbit_pose(target, d, tilt, azimuth, roll)
        p = Camera(K, np.zeros(5), rvec, tvec, size).project(corners)
        span = max(np.ptp(p[:, 0]) / w, np.ptp(p[:, 1]) / h)
        d *= span / fill
    # random placement: move the look-at point in the board plane so that the corners' bounding box
    # lands at a random place where it fits, through the numerical Jacobian of its centre
    size_a = np.array(size, dtype=np.float64)
    margin = 0.015 * size_a
    u = rng.uniform(0, 1, 2)
    offset = np.zeros(2)

    def make(off: np.ndarray) -> Camera:
        return Camera(K, dist, *orbit_pose(target + np.r_[off, 0], d, tilt, azimuth, roll), size)

    for attempt in range(40):
        cam = make(offset)
        for _ in range(12):
            pix = cam.project(corners)
            lo, hi = pix.min(0), pix.max(0)
            room_lo = margin + (hi - lo) / 2
            room_hi = size_a - margin - (hi - lo) / 2
            goal = np.where(room_hi > room_lo, room_lo + u * (room_hi - room_lo), size_a / 2)
            now = (lo + hi) / 2
            if np.hypot(*(goal - now)) < 0.3:
                break
            J = np.zeros((2, 2))
            for k in range(2):
                p2 = make(offset + np.eye(2)[k]).project(corners)
                J[:, k] = (p2.min(0) + p2.max(0)) / 2 - now
            step = np.linalg.lstsq(J, goal - now, rcond=None)[0]
            # the Jacobian is local: a full step can overshoot into the far-away solution (the look-at
            # point metres off, the board a speck at the frame's edge), so steps are at most half a board
            length = float(np.hypot(*step))
            if length > 0.5 * extent:
                step *= 0.5 * extent / length
            offset = offset + step
            cam = make(offset)
        pix = cam.project(corners)
        span = max(np.ptp(pix[:, 0]) / w, np.ptp(pix[:, 1]) / h)
        inside = bool(np.isfinite(pix).all() and pix.min() >= 0 and np.all(pix.max(0) <= size_a - 1))
        # after ten tries the span need not match ``fill`` exactly, but the board must be inside (a wide lens
        # at a steep tilt could end the search with two corners out of the frame: a scene of
        # ``dama bench vision --seed 2`` showed only part of its board)
        if inside and (abs(span / fill - 1) < 0.01 or attempt >= 9):
            break
        # shifting changes the perspective and so the span: rescale, and step back if it did not fit
        d *= span / fill * (1.0 if inside else 1.03)
    return cam


def random_scene_params(
    rng: np.random.Generator,
    size: tuple[int, int] = (1280, 720),
    tilt_max: float = 50.0,
    fill: tuple[float, float] = (0.33, 1.0),
    distortion: bool = False,
) -> SceneParams:
    """A random, fully specified scene: ``size`` (w, h) px, camera tilt in [0, ``tilt_max``] degrees,
    playing area spanning a fraction in ``fill`` of the frame (its larger relative extent), any
    rotation of the board in the image, and OpenCV lens distortion when ``distortion`` is true."""
    size = (int(size[0]), int(size[1]))
    if size[0] < 16 or size[1] < 16:
        raise ValueError(f"image size {size} is too small")
    square = float(rng.uniform(38, 52))
    has_frame = rng.random() < 0.75
    geom = BoardGeometry(
        square_mm=square,
        frame_mm=float(rng.uniform(12, 45)) if has_frame else 0.0,
        thickness_mm=float(rng.uniform(8, 25)),
    )
    tilt = float(rng.uniform(0, tilt_max))
    azimuth = float(rng.uniform(0, 360))
    roll = float(rng.uniform(-180, 180)) if rng.random() < 0.5 else float(rng.normal(0, 8))
    f = float(rng.uniform(*fill)) * 0.97
    # a wide lens sees over the horizon at high tilt; keep tilt + half-diagonal FOV under ~82°
    diag = np.hypot(*size) / size[0]
    max_half = np.radians(max(20.0, 82.0 - tilt))
    hfov_max = min(70.0, 2 * np.degrees(np.arctan(np.tan(max_half) / diag)))
    hfov = float(rng.uniform(min(45.0, hfov_max), hfov_max))
    dist = np.zeros(5)
    if distortion:
        dist = np.array([rng.uniform(-0.35, 0.12), rng.uniform(-0.05, 0.12), rng.uniform(-0.002, 0.002),
                         rng.uniform(-0.002, 0.002), 0.0])
    K = intrinsics(size, hfov, tuple(rng.uniform(-0.02, 0.02, 2) * np.array(size)))
    camera = fit_camera(rng, K, dist, size, geom.playing_corners3d(), tilt, azimuth, roll, f)
    half = square * 0.08
    offsets = tuple((float(a), float(b)) for a, b in rng.uniform(-half, half, (32, 2)))
    glare = tuple(
        (float(rng.uniform(0, 8 * square)), float(rng.uniform(0, 8 * square)), float(rng.uniform(15, 70)),
         float(rng.uniform(0.1, 0.4)))
        for _ in range(int(rng.integers(0, 3)))
    )
    if rng.random() < 0.5:  # a broad, faint sheen of the varnish towards a window or lamp
        glare += ((float(rng.uniform(0, 8 * square)), float(rng.uniform(0, 8 * square)),
                   float(rng.uniform(120, 260)), float(rng.uniform(0.04, 0.12))),)
    cast_shadows = tuple(
        (float(rng.uniform(-100, 9 * square)), float(rng.uniform(-100, 9 * square)), float(rng.uniform(120, 350)),
         float(rng.uniform(80, 220)), float(rng.uniform(0, 180)), float(rng.uniform(0.2, 0.5)))
        for _ in range(int(rng.integers(1, 3)) if rng.random() < 0.35 else 0)
    )
    table_kind = str(TABLE_KINDS[int(rng.integers(len(TABLE_KINDS)))])
    temp = rng.uniform(-1, 1)  # -1 warm tungsten .. +1 cool daylight/shade
    tint = (1.0 + 0.07 * temp, 1.0, 1.0 - 0.06 * temp)
    return SceneParams(
        camera=camera,
        geometry=geom,
        tilt_deg=tilt,
        white_edge_rotation=azimuth,
        roll_deg=roll,
        light_wood=_pick(rng, LIGHT_WOODS),
        dark_wood=_pick(rng, DARK_WOODS),
        frame_wood=_pick(rng, FRAME_WOODS),
        grain_alternate=bool(rng.random() < 0.6),
        border_lines=bool(rng.random() < 0.3),
        light_piece=_pick(rng, LIGHT_PIECES),
        dark_piece=_pick(rng, DARK_PIECES),
        piece_diameter=float(rng.uniform(0.74, 0.86)),
        piece_height=float(rng.uniform(0.18, 0.3)),
        piece_grooves=int(rng.integers(0, 4)),
        piece_offsets=offsets,
        table_kind=table_kind,
        table_color=_pick(rng, TABLE_COLORS[table_kind]),
        light_azimuth_deg=float(rng.uniform(0, 360)),
        light_elevation_deg=float(rng.uniform(35, 85)),
        ambient=float(rng.uniform(0.35, 0.6)),
        gradient=(float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.3, 0.3))),
        vignette=float(rng.uniform(0.0, 0.35)),
        tint=tint,
        glare=glare,
        shadow_strength=float(rng.uniform(0.25, 0.6)),
        cast_shadows=cast_shadows,
        noise_sigma=float(rng.uniform(0.8, 4.0)),
        blur_sigma=float(rng.uniform(0.0, 1.1)),
        jpeg_quality=int(rng.integers(60, 96)),
        skin=_pick(rng, SKINS),
        sleeve=_pick(rng, SLEEVES),
        arm_radius_mm=float(rng.uniform(27, 36)),
        texture_seed=int(rng.integers(2**31)),
    )


# Thick pieces: one disc this tall and wide, in fractions of a square. random_scene_params draws discs
# 0.18–0.3 of a square tall and 0.74–0.86 wide, as tournament sets; some sets are thicker and wider (the
# wooden discs of the fhgr photos in ../shared/photos: about 0.4 tall, as wide as a square). Used for
# training sets (vision/train_squares.py --tall-rate) and ``dama bench vision --thick-pieces``.
THICK_PIECE_HEIGHT = (0.3, 0.48)
THICK_PIECE_DIAMETER = (0.8, 0.96)


def with_thick_pieces(params: SceneParams, rng: np.random.Generator,
                      height: tuple[float, float] = THICK_PIECE_HEIGHT) -> SceneParams:
    """``params`` with thick pieces (``height`` in squares, ``THICK_PIECE_DIAMETER``)."""
    return replace(params, piece_height=float(rng.uniform(*height)),
                   piece_diameter=float(rng.uniform(*THICK_PIECE_DIAMETER)))


# Seamless kings: random_scene_params stacks a king's two discs each with its bevelled rim, so a seam shows
# halfway up its side, which is what the crown reader was trained on. Discs turned to sit flush show none:
# the fhgr photos' kings in ../shared/photos look like one tall piece. Used for
# ``dama bench vision --seamless-kings``.
def with_seamless_kings(params: SceneParams) -> SceneParams:
    """``params`` with every king drawn as one disc twice a man's height, no seam between its discs."""
    return replace(params, seamless_kings=True)


# Matte pieces: random_scene_params gives every disc's bevelled rim a glint where it mirrors the light
# (PIECE_SHEEN), and a king shows two such arcs, a man one. Real discs of oiled or worn wood hardly shine, and
# a crown reader that learned the arcs misses kings that show none (docs/vision.md, "Kings without a glint").
MATTE_SHEEN = (0.0, 30.0)


def with_matte_pieces(params: SceneParams, rng: np.random.Generator) -> SceneParams:
    """``params`` with pieces whose rims glint little or not at all (``MATTE_SHEEN``)."""
    return replace(params, piece_sheen=float(rng.uniform(*MATTE_SHEEN)))


# Dark pieces stained like the dark squares. random_scene_params draws the dark pieces and the dark wood from
# palettes of their own, so most scenes show a piece that stands out from its square in hue or lightness; some
# real sets are stained with the board's own dark stain, and a dark man on a dark square then shows only
# its rim and its shading. Used for ``dama bench vision --dark-like-squares`` and training sets
# (vision/train_squares.py --dark-like-rate).
DARK_LIKE_GAIN = (0.8, 1.08)  # the piece's colour over the dark wood's, one gain for all three channels
DARK_LIKE_JITTER = 0.03  # and each channel by up to this much more or less (never a new hue)


def with_dark_pieces_like_squares(params: SceneParams, rng: np.random.Generator) -> SceneParams:
    """``params`` with dark pieces of the dark squares' own colour, a little lighter or darker
    (``DARK_LIKE_GAIN``, ``DARK_LIKE_JITTER``)."""
    gain = rng.uniform(*DARK_LIKE_GAIN)
    jitter = rng.uniform(1 - DARK_LIKE_JITTER, 1 + DARK_LIKE_JITTER, 3)
    colour = tuple(float(np.clip(c * gain * j, 0, 255)) for c, j in zip(params.dark_wood, jitter, strict=True))
    return replace(params, dark_piece=colour)


# Pieces set down off their squares' centres. random_scene_params puts each piece within 0.08 of a square of
# its centre, as a careful player does; in a quick game a piece lands wherever the hand lets go, and on
# the fhgr photos in ../shared/photos some stand a quarter of a square off, their edge over the light
# square beside them. Used for ``dama bench vision --off-centre`` and training sets
# (vision/train_squares.py --off-centre-rate).
OFF_CENTRE_MOST = 0.22  # fraction of a square, along each side


def with_pieces_off_centre(params: SceneParams, rng: np.random.Generator, most: float = OFF_CENTRE_MOST) -> SceneParams:
    """``params`` with every piece up to ``most`` of a square off its square's centre along each side."""
    half = most * params.geometry.square_mm
    offsets = tuple((float(a), float(b)) for a, b in rng.uniform(-half, half, (32, 2)))
    return replace(params, piece_offsets=offsets)


# Printed boards: flat colours on card, vinyl or cloth, no grain and no veneer joints: roll-up tournament
# boards, printed sets, the fhgr photos' red/green and blue/green boards in ../shared/photos. Their
# colours are unlike any wood: the playing colour may be any hue, and the other colour may be as light as
# it (the red/green board), so lightness alone does not tell them apart. Used for training sets
# (vision/train_squares.py --printed-rate) and ``dama bench vision --printed-boards``.
def _hsv_bgr(h: float, s: float, v: float) -> BGR:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, s, v)
    return (255.0 * b, 255.0 * g, 255.0 * r)


def _luma(bgr: BGR) -> float:
    return 0.114 * bgr[0] + 0.587 * bgr[1] + 0.299 * bgr[2]


def printed_palette(rng: np.random.Generator) -> tuple[BGR, BGR, BGR]:
    """(light, dark, frame) colours of a random printed board.

    The playing ("dark") colour is any hue, from greyish to saturated. The other is, half the time, a
    pale paper or cream; otherwise a second hue at least a fifth of the colour wheel away, no darker than
    0.8 of the playing colour's lightness (so some boards are nearly equal in lightness). The border is
    the light colour, white, or the playing colour.
    """
    hue = float(rng.uniform(0, 1))
    dark = _hsv_bgr(hue, float(rng.uniform(0.3, 0.95)), float(rng.uniform(0.3, 0.75)))
    if rng.random() < 0.5:
        light = _hsv_bgr(float(rng.uniform(0, 1)), float(rng.uniform(0.0, 0.3)), float(rng.uniform(0.75, 0.95)))
    else:
        while True:
            light = _hsv_bgr(hue + float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.3, 0.9)),
                             float(rng.uniform(0.4, 0.95)))
            if _luma(light) >= 0.8 * _luma(dark):
                break
    kind = rng.random()
    frame = light if kind < 0.4 else _hsv_bgr(0.0, 0.0, float(rng.uniform(0.85, 0.97))) if kind < 0.7 else dark
    return light, dark, frame


def with_printed_board(params: SceneParams, rng: np.random.Generator) -> SceneParams:
    """``params`` with a printed board (:func:`printed_palette`) instead of a wooden one."""
    light, dark, frame = printed_palette(rng)
    return replace(params, board_finish="printed", light_wood=light, dark_wood=dark, frame_wood=frame)


def parse_size(text: str) -> tuple[int, int]:
    """'1280x720' → (1280, 720) for a ``--size`` option (``dama render``, ``dama bench vision``); ValueError
    with the reason otherwise, a side outside 16..8192 px included."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size must look like 1280x720, got {text!r}") from None
    if not (16 <= w <= 8192 and 16 <= h <= 8192):
        raise ValueError(f"--size {w}x{h} is out of range (16..8192 per side)")
    return w, h
