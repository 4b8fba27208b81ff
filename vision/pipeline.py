"""Frame → observation: the vision stages composed, with tracking, learning and a profile.

    vp = VisionPipeline(profile=None, white_at=None)
    res = vp.process(frame_bgr, t)        # FrameResult
    vp.learn_start_position(frame_bgr)    # colour models from the start position
    vp.profile()                          # plain JSON-able data for calibration

Each stage lives in its own module and is measured on its own: ``localize`` (board → homography),
``orientation`` (čl. 2.4), ``classify`` (32 dark squares), ``occlusion`` (hands, ``?``); the
stabilizer (``vision.stabilizer``) is applied by the caller.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from vision import orientation as orient
from vision.cells import CELL, features, warp_lattice
from vision.classify import (
    ColourModel,
    bare_dark_colour,
    cell_vectors,
    dark_cells,
    default_classify,
    explains_worse,
    light_reference,
)
from vision.crown_view import crown_px
from vision.crowns import (
    KING_LOGIT,
    N_CROWN_INPUTS,
    crown_inputs,
    default_crown_reader,
    default_pair_reader,
    flat_inputs,
    least_king_like_near,
    on_this_board,
    share_of,
    split_inputs,
)
from vision.frames import as_bgr8
from vision.geometry import CORNER_NAMES, START_BOARD, image_to_topview
from vision.heights import height_strips, strip_maps
from vision.king_tops import with_king_tops
from vision.localize import (
    MIN_CONTRAST,
    BoardFit,
    NotFound,
    check_fit,
    fit_on_corners,
    localize_beside,
    localize_frame,
    refine,
    shifted,
    to_gray,
    window_evidence,
    windows_beside,
)
from vision.men_seen import MIN_MEN as MIN_MEN_SEEN
from vision.men_seen import MenSeen, against_men_seen
from vision.occlusion import (
    HandReading,
    HandWatch,
    arm_beside,
    covered_neighbours,
    diagonal_neighbours,
    hand_nearby,
    hidden_dark_cells,
    lean_candidates,
    leaned_over,
    light_cover,
    light_departure,
    same_place,
    shadow_candidates,
)
from vision.patchnet import (
    UNCOVER_BELOW,
    UNCOVER_BESIDE_HAND,
    both_see_a_hand,
    patch_net,
    seen_past_a_fingertip,
    with_patch_opinion,
)
from vision.second_look import second_look
from vision.squarenet import (
    CLASSES,
    COLOUR_OF,
    COLOUR_VOTE_MOST,
    COVERED,
    COVERED_THRESHOLD,
    COVERED_WITH_HAND,
    KING_KEPT,
    board_inputs,
    colour_loglik,
    colour_shares,
    colours_contradict_network,
    crowned_from,
    dark_net,
    decide,
    default_net,
    describe,
    with_colour_model,
    with_crowns,
    with_dark_opinion,
)
from vision.viewpoint import viewpoint

PROFILE_VERSION = 1
TOPVIEW_SIZE = 256
MIN_START_AGREEMENT = 0.75  # share of squares a start-position frame must read back after learning from it
OTHER_BOARDS = 2  # other boards in view tried when the one found does not read back as the position to learn
ELSEWHERE = 0.75  # a board found this many of the known board's sides from it is another board (_far_from)
# (rendered start positions read back 25–32 of 32 on the right window, 20–23 on a window one square off; a
# board with its pieces on the light squares 9)
# How far the learned colour model outvotes the square network (vision.squarenet.with_colour_model's
# temper): on boards like the training renders the network carries shadows the start position did not
# have; on a board whose start position the network alone misreads (woods or pieces it never saw) the
# colour model, learned on that very board, is the better judge (docs/vision.md, "Does it transfer?").
COLOUR_WEIGHT = 0.5
COLOUR_WEIGHT_UNFAMILIAR = 1.0
# On a familiar board with a hand in the picture, the colour model's vote (log odds, vision.squarenet.
# with_colour_model's ``most``) against the network's likeliest colour class on the squares a fingertip can
# reach: none (docs/vision.md, "No colour vote against the network beside a hand")
HAND_COLOUR_VOTE = 0.0
MIN_EACH_TO_LEARN = 2  # empty squares, light and dark pieces a position must show to learn the colours from
# share of the known position (start or other) the network alone must read for a familiar board: all of it.
# At 31/32 a board whose dark men the network missed once was familiar, and the bounded colour model could
# not correct that square in play (docs/vision.md, "Learning a known position").
FAMILIAR_START = 1.0
# how far (squares, or picture pixels on a small board) the known window's corners may lie off the new fit's
# lattice points and it still counts as on the same grid lines (_on_known_window): a board of 11 px squares,
# lost under an arm and found again a square off, lay 0.28 of a square off (`dama render --seed 5` at 640×360,
# 22.5 s: two false alarms)
ON_KNOWN_GRID = 0.25
ON_KNOWN_GRID_PX = 4.0
LIGHT_SAME_READ = 0.05  # log: a light this close to the last frame's reads the squares alike (_same_light)
LIGHT_LUM_FLOOR = 8.0  # added to a top-view pixel's B+G+R before the light is measured as a ratio (_light_over)
COVERED_IN_PICTURE = 0.5  # "covered" bar in one picture of a familiar board with no hand seen elsewhere
# confidence with which a man or empty square beside a hand in one picture keeps its reading; 0.98 until
# 2026-12-07, when visible squares read 0.957-0.969 sure were `?` on four uncalibrated boards of seeds 1-9 and
# 0.95 (or 0.9) fixed them, breaking none of the 810 pictures with a hand (docs/vision.md, "Squares beside a
# hand in one picture")
SURE_BESIDE_HAND = 0.95
# the network's "covered" on a king read beside a square under the hand from which it is a finger on a man:
# 0.03 under the fingertip of scene 255 of seed 1, at most 0.004 on the real kings beside a hand of seed 2,
# thick pieces and printed boards (docs/vision.md, "A fingertip resting on a man")
FINGER_ON_KING = 0.01
SMOOTHING = 0.5  # weight of the newest frame in a still square's running average of probabilities
# The pair reader's logit (vision/crowns.py, "Beside a man of this set") is added to the lone reader's
# weighed one as PAIR_WEIGHT · (logit − PAIR_KING_FROM), beside a man seen in a known position or beside the
# least king-like piece near it on this board. Fitted on seed 2 of `dama bench vision` (docs/vision.md).
PAIR_WEIGHT = 1.5
PAIR_KING_FROM = 2.0
# Weighed against the men seen at calibration (vision.men_seen) and with no hand in the picture, a man is
# crowned from this king share rather than from KING_THRESHOLD: beside the men seen the shares are better
# founded, and on seeds 2-5 of `dama bench vision` (2400 pictures) bars of 0.5-0.8 left 79-82 kings missed
# or men crowned where 0.95 left 104. Uncalibrated, the board's own pieces are a poorer yardstick: there a
# bar this low crowned thick men and lost seed 1 four boards (its own bar: KING_ON_ITS_BOARD). A hand keeps
# the bar high: a king read beside a fingertip is hidden (FINGER_ON_KING), and one read more readily hid men
# there (docs/vision.md, "A lower bar beside the men seen").
KING_BESIDE_MEN_SEEN = 0.8
# Weighed against the board's own pieces alone (no men seen: uncalibrated), with no hand in the picture, a man
# is crowned from this share. On seeds 1-5 of `dama bench vision` and its thick pieces (2 800 uncalibrated
# pictures, those with no hand), kings missed where the height shows plus men crowned summed 189 at 0.95,
# 172 at 0.9 and 172 at 0.8, which crowned 49 men against 0.9's 30 and 0.95's 18 (seed 1 lost boards at 0.8).
# At 0.9 the boards exact where a king's height shows rose on seeds 2-5 and held on seed 1; thick pieces lost
# one, a man crowned (docs/vision.md, "A lower bar on the board's own pieces").
KING_ON_ITS_BOARD = 0.9
NOT_EMPTY_FOR_CROWN = 0.01  # the crown reader (0.8 ms per network for 32 squares) skips squares surely empty
CHARS = np.array(list(CLASSES))  # . w b W B ?
# A still board's reading is reused (vision.pipeline.VisionPipeline._still_reading) when every square was
# read at least this sure, for this many frames before the squares are read again.
REUSE_CONFIDENCE = 0.9
REUSE_FRAMES = 4


@dataclass
class FrameResult:
    """What one frame shows. ``board`` is the observation string (DESIGN.md) when ``found``."""

    found: bool
    reason: str | None = None
    corners: dict[str, tuple[float, float]] | None = None
    orientation_ok: bool | None = None
    board: str = "?" * 32
    hand: bool = False
    tracking: bool = False
    ms: float = 0.0
    homography: np.ndarray | None = None  # image -> canonical top view (TOPVIEW_SIZE px, White below)
    confidence: np.ndarray = field(default_factory=lambda: np.zeros(32))
    # picture pixels between where a king's top and a man's land on each square, observation order
    # (vision.crown_view; a man MAN_HEIGHT of a square thick): under KING_SHOWN_PX a king may pass for a man
    crown_px: np.ndarray | None = None

    def to_json(self) -> dict:
        """The ``dama recognize --json`` shape."""
        if not self.found:
            return {"found": False, "reason": self.reason or "board not found"}
        assert self.corners is not None
        return {
            "found": True,
            "corners": {k: [round(float(x), 1), round(float(y), 1)] for k, (x, y) in self.corners.items()},
            "orientation_ok": self.orientation_ok,
            "board": self.board,
            "ms": round(self.ms, 1),
        }


def blind_to_dark_men(labels: np.ndarray, net_labels: np.ndarray, least: int = 3) -> bool:
    """Does the colour reading ``labels`` take the network's dark men (``net_labels``; colour classes 0 empty,
    1 light, 2 dark) for bare squares wholesale: at least ``least`` of them, and at least half? On a board
    where the network sees fewer than ``least`` dark men (an endgame), wholesale is every one of them, the
    colours finding no more dark men elsewhere than the network does (a network that misses dark men it never
    saw, the case the picture's own colours are for, finds fewer than the colours).

    Dark men stained like the dark squares look like bare squares to the colours; the network sees them by
    their rims. A colour model learned from such a reading would take them all away, so
    :meth:`VisionPipeline._colours_of_this_picture` does not learn one (docs/vision.md, "Dark men stained
    like their squares"). A reading that differs on a square or two of many (a piece the network imagines on
    a hand's shadow) is not blind: there the picture's own colours still have their say."""
    dark = net_labels == 2
    seen = int(np.count_nonzero(dark))
    lumped = int(np.count_nonzero(dark & (labels == 0)))
    if seen >= least:
        return lumped >= least and 2 * lumped >= seen
    return 0 < lumped == seen and int(np.count_nonzero(labels == 2)) <= seen


class VisionPipeline:
    """Stateful recognizer for one camera: keeps the board fit (tracking), White's side, colour model."""

    def __init__(self, profile: dict | None = None, white_at: str | None = None, squares: str = "net") -> None:
        """``squares``: ``"net"`` (the learned square network, kings included, sharpened by a learned colour
        model when there is one) or ``"colour"`` (the colour models alone, no kings; for comparison)."""
        if white_at is not None and white_at not in orient.SIDES:
            raise ValueError(f"white_at must be one of {', '.join(orient.SIDES)}, not {white_at!r}")
        if squares not in ("net", "colour"):
            raise ValueError(f"squares must be 'net' or 'colour', not {squares!r}")
        self.squares = squares
        self.white_at = white_at
        self.model: ColourModel | None = None
        self._fit: BoardFit | None = None
        self._rotation: int | None = None  # decided rotation, kept while tracking
        self._a1_xy: tuple[float, float] | None = None  # where a1 was last decided (image px)
        self._hands = HandWatch()  # frame differencing against the last settled board (moving video)
        self._prob: np.ndarray | None = None  # per-square probabilities averaged over still frames
        # (fit, king shares, raw king logits, crown inputs, weighed against the men seen?) while nothing moves
        self._crown: tuple | None = None
        self.men_seen: MenSeen | None = None  # the men of a known position, the crown reader's yardstick
        self._own_colours: tuple | None = None  # (fit, colour model or None) of _colours_of_this_picture
        self._view_for: tuple | None = None  # (fit, frame size, shift, strip maps, crown px) of _viewpoint
        self._camera: tuple[np.ndarray, tuple[int, int]] | None = None  # (K, its picture size) from a calibrated lens
        self._fixed_h: np.ndarray | None = None  # lattice -> image from corners the user set (profile)
        self._fixed: BoardFit | None = None  # that fit, measured on the first frame (parity, contrast)
        self._window: np.ndarray | None = None  # image corners of the window calibration read back (4×2)
        self._place: np.ndarray | None = None  # image corners of the last board found (4×2): where to look first
        # the picture size (w, h) the pixel positions above belong to (a1, window, fixed corners, men seen);
        # a camera that changes resolution has them scaled (_follow_size)
        self._image_size: tuple[int, int] | None = None
        self.colour_weight = COLOUR_WEIGHT  # the learned colour model's vote against the network's
        self._net_prob: np.ndarray | None = None  # the network's own probabilities of the last frame (lattice)
        self._last: list | None = None  # [fit, FrameResult, frames reused] of the last full reading
        # (the lattice top view, its light) at the last settled view (_light_over)
        self._light_top: tuple[np.ndarray, np.ndarray | None] | None = None
        # (lattice homography, light over its top view) of the last frame (_light_over)
        self._light: tuple[np.ndarray, np.ndarray] | None = None
        if profile:
            self._load_profile(profile)
        # OpenCV builds its Lab tables on the first float conversion (~0.3 s): pay that here, not on
        # the first frame.
        cv2.cvtColor(np.zeros((1, 1, 3), np.float32), cv2.COLOR_BGR2Lab)

    # -- profile ----------------------------------------------------------------------------------
    def _load_profile(self, profile: dict) -> None:
        if not isinstance(profile, dict):
            raise ValueError("profile must be a JSON object")
        model = profile.get("colour_model")
        if model is not None:
            self.model = ColourModel.from_json(model)
        weight = profile.get("colour_weight", COLOUR_WEIGHT)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0.0 <= weight <= 2.0:
            raise ValueError(f"profile colour_weight must be a number from 0 to 2, not {weight!r}")
        self.colour_weight = float(weight)
        if profile.get("white_at") and self.white_at is None:
            if profile["white_at"] not in orient.SIDES:
                raise ValueError(f"profile white_at {profile['white_at']!r} is not one of {orient.SIDES}")
            self.white_at = profile["white_at"]
        if profile.get("men_seen") is not None:
            men = MenSeen.from_json(profile["men_seen"])
            self.men_seen = men if men.model == default_crown_reader().digest else None  # another model's logits
        if profile.get("camera") is not None:
            self._camera = _camera_of(profile["camera"])
        size = profile.get("image_size")
        if size is not None:
            try:
                w, h = (int(v) for v in size)
            except (TypeError, ValueError):
                raise ValueError(f"profile image_size must be [width, height], not {size!r}") from None
            if w <= 0 or h <= 0:
                raise ValueError(f"profile image_size must be positive, not {size!r}")
            self._image_size = (w, h)
        corners = profile.get("corners")
        if corners and "a1" in corners:
            self._a1_xy = (float(corners["a1"][0]), float(corners["a1"][1]))
            try:
                self._window = np.array([[float(v) for v in corners[n]] for n in CORNER_NAMES], dtype=np.float64)
            except (KeyError, TypeError, ValueError, IndexError):
                self._window = None  # a1 alone (the caller's White side): no window to hold on to
        if profile.get("fixed_corners"):
            # Corners set or confirmed by the user: they are the board fit (lattice a1 (0,0), h1 (0,8),
            # h8 (8,8), a8 (8,0), i.e. rotation 0), not a hint; White's side follows from them.
            try:
                pts = np.array([[float(v) for v in corners[n]] for n in CORNER_NAMES], dtype=np.float64)
            except (KeyError, TypeError, ValueError, IndexError):
                raise ValueError("profile fixed_corners needs corners a1, h1, h8 and a8 as [x, y]") from None
            lattice = orient.rotation_corners(0)
            self._fixed_h = cv2.getPerspectiveTransform(lattice.astype(np.float32), pts.astype(np.float32))
            self.white_at = self.white_at or _side_of({n: tuple(p) for n, p in zip(CORNER_NAMES, pts, strict=True)})

    def profile(self) -> dict:
        """Plain data for calibration to save: colour model, caller's White side, last corners (a1 first)."""
        corners = None
        if self._fit is not None and self._rotation is not None:
            pts = orient._img(self._fit.h, orient.rotation_corners(self._rotation))
            corners = {n: [round(float(x), 2), round(float(y), 2)] for n, (x, y) in zip(CORNER_NAMES, pts, strict=True)}
        return {
            "vision_version": PROFILE_VERSION,
            "colour_model": self.model.to_json() if self.model is not None else None,
            "white_at": self.white_at,
            "corners": corners,
            "fixed_corners": self._fixed_h is not None,
            "colour_weight": self.colour_weight,
            "men_seen": self.men_seen.to_json() if self.men_seen is not None else None,
            "image_size": list(self._image_size) if self._image_size is not None else None,
        }

    @property
    def familiar(self) -> bool:
        """Is this a board the network reads alone (calibration, or colours learned in play, found so)?"""
        return self.colour_weight <= COLOUR_WEIGHT

    # -- per frame --------------------------------------------------------------------------------
    def reset_tracking(self) -> None:
        """Forget the board fit and the settled view: the next frame is a new moment (not video)."""
        self._fit = None
        self._forget_settled_view()
        self._prob = None
        self._crown = None
        self._own_colours = None
        self._last = None

    def _forget_settled_view(self) -> None:
        """Start the motion test afresh, and with it the light remembered against its settled view."""
        self._hands.reset()
        self._light_top, self._light = None, None

    def _follow_size(self, size: tuple[int, int]) -> None:
        """Keep the remembered pixel positions on the board when the pictures change size.

        White's side is kept as the picture position of a1 (from the profile or an earlier frame), the
        calibrated window and the user's fixed corners as picture corners, the men seen as picture
        points. A camera that comes back from a reconnection at another resolution, or a stream switched
        to another quality, shows the same view scaled: every position is scaled with it. Unscaled, a1's
        old position landed near another corner of the board, and the game's next position was read
        turned round, a false "illegal move". The tracked fit and the settled view belong to the old
        pictures and are dropped.
        """
        if self._image_size is None:
            self._image_size = size
            return
        if size == self._image_size:
            return
        sx, sy = size[0] / self._image_size[0], size[1] / self._image_size[1]
        if self._a1_xy is not None:
            self._a1_xy = (self._a1_xy[0] * sx, self._a1_xy[1] * sy)
        if self._window is not None:
            self._window = self._window * np.array([sx, sy])
        if self._place is not None:
            self._place = self._place * np.array([sx, sy])
        if self._fixed_h is not None:
            self._fixed_h = np.diag([sx, sy, 1.0]) @ self._fixed_h
            self._fixed = None  # measured again on the next frame
        if self.men_seen is not None:
            self.men_seen = replace(self.men_seen, points=self.men_seen.points * np.array([sx, sy]))
        self._image_size = size
        self.reset_tracking()
        self._rotation = None

    def _locate(self, frame: np.ndarray) -> tuple[BoardFit, bool]:
        if self._fixed_h is not None:
            # Fixed corners: never another grid than the user's. Each frame checks the board is still
            # under them; when the X-corners do not confirm it (a hand over it, or a bump), a full
            # localization tells the two apart: a board on the same grid lines (any window of them) is a
            # covered board, a board elsewhere has moved.
            if self._fixed is None:
                fixed = fit_on_corners(frame, self._fixed_h)
                if fixed.contrast < 20.0 or fixed.inliers < 6:
                    raise NotFound("no board under the saved corners: the board or camera moved, or the "
                                   "corners are wrong; set them again (dama calibrate or the calibration page)")
                self._fixed = fixed
            self._fit, self._rotation = self._fixed, 0
            if check_fit(frame, self._fixed):
                return self._fixed, True
            found = orient._img(np.linalg.inv(self._fixed_h), orient._img(localize_frame(frame).h,
                                                                            orient.LATTICE_CORNERS))
            if np.abs(found - np.round(found)).max() > 0.25:
                raise NotFound("the board or camera moved: the saved corners no longer fit; set them again "
                               "(dama calibrate or the calibration page)")
            return self._fixed, True
        if self._fit is not None and check_fit(frame, self._fit):
            return self._fit, True
        fit = localize_frame(frame)
        place = self._window if self._window is not None else self._place
        if place is not None and _far_from(fit, place):
            # Another board in view (a hall of boards): the one where the calibrated or last board stood is
            # looked for beside it; a board that really moved that far is found again as before.
            try:
                other = localize_beside(frame, [fit])
            except NotFound:
                other = None
            if other is not None and not _far_from(other, place):
                fit = other
        fit = self._on_known_window(to_gray(frame, fit.view), fit)
        self._place = orient._img(fit.h, orient.LATTICE_CORNERS)
        # A new fit numbers its lattice afresh: the rotation is found again (from the remembered a1
        # corner if the board is still about where it was, else from the pieces).
        self._rotation = None
        self._fit = fit
        return fit, False

    def _on_known_window(self, gray: np.ndarray, fit: BoardFit) -> BoardFit:
        """The calibrated window (uncalibrated, the one where the board was last found) when ``fit`` lies on the
        same grid lines a whole number of squares from it.

        The localizer can pick a window one square off the board (men on the edge squares hide the corners
        and break the light/dark alternation there); calibration catches that by reading the start position
        back (learn_start_position), but every later localization would pick the same wrong window again.
        A board that has not moved keeps its grid lines, so a fit on them is the calibrated board seen
        through a shifted window. A board pushed by a fraction of a square leaves the grid: its own fit is
        kept. A camera or board moved by about a whole square since calibration puts the board on the same
        grid lines too, with the calibrated window now a square off. The two windows are then told apart by
        the checker X-corners on their outer lines (:func:`vision.localize.window_evidence`): a window a
        square off has an inner line of the board among them, with X-corners on it unless pieces hide them;
        the calibrated window wins a tie. The inner lines' X-corners are not compared: pieces on the far
        row of a steep view hide that row's corners, and a window a row nearer, its near outer line on a
        plain frame, then counted one inner X-corner more than the calibrated window (one of 600 start
        positions of ``dama bench vision --seed 2``).
        """
        # uncalibrated: where the board last stood (a fit taken from it stays on the board's own grid lines:
        # refine() follows the picture)
        known = self._window if self._window is not None else self._place
        if known is None:
            return fit
        lattice = orient._img(np.linalg.inv(fit.h), known)  # the known corners in fit's lattice
        whole = np.round(lattice)
        square_px = float(np.linalg.norm(np.diff(known, axis=0, append=known[:1]), axis=1).mean()) / 8.0
        off_grid = max(ON_KNOWN_GRID, ON_KNOWN_GRID_PX / max(square_px, 1.0))
        if np.abs(lattice - whole).max() > off_grid or not np.array_equal(np.ptp(whole, axis=0), [8.0, 8.0]):
            return fit
        du, dv = whole.min(axis=0)
        if (du, dv) == (0.0, 0.0) or max(abs(du), abs(dv)) > 2:
            return fit
        moved = refine(gray, shifted(fit, du, dv))
        if moved.contrast < MIN_CONTRAST or moved.inliers < 6:
            return fit
        return moved if window_evidence(gray, moved)[0] >= window_evidence(gray, fit)[0] else fit

    def process(self, frame: np.ndarray, t: float = 0.0) -> FrameResult:
        """Recognize one frame taken at time ``t`` (seconds): 8-bit BGR, or grey, BGRA, 16-bit or float, read
        as 8-bit BGR (:func:`vision.frames.as_bgr8`; anything else is not found, with the reason)."""
        t0 = time.perf_counter()
        frame = as_bgr8(frame)  # grey, BGRA, 16-bit and float pictures too (vision.frames)
        if isinstance(frame, str):
            return FrameResult(found=False, reason=frame)
        self._follow_size((frame.shape[1], frame.shape[0]))
        try:
            fit, tracking = self._locate(frame)
        except NotFound as exc:
            self._fit = None
            return FrameResult(found=False, reason=str(exc), ms=(time.perf_counter() - t0) * 1000)
        res = self._read(frame, fit)
        res.tracking = tracking
        res.ms = (time.perf_counter() - t0) * 1000
        return res

    def _read(self, frame: np.ndarray, fit: BoardFit, bound_votes: bool = True) -> FrameResult:
        """The board under ``fit``; ``bound_votes=False`` lifts the bound on the colour model's vote
        (``COLOUR_VOTE_MOST``), for the frame the colours are being learned from (:meth:`_learn_on`)."""
        raw = warp_lattice(frame, fit.h)
        # a shadow standing over part of the board: the squares are read in the light they had (_light_over;
        # the last frame's light until this frame's is known, so that the light squares' test sees it too)
        if self._light is not None and not same_place(self._light[0], fit.h):
            self._light = None  # another numbering of the lattice (the motion test starts afresh too)
        top = raw if self._light is None else _in_light(raw, self._light[1])
        feat = features(top, fit.bright_parity)
        # where pieces lean (vision.viewpoint): a tall piece's top over the light square behind it is no hand
        shift, maps, crowns = self._viewpoint(fit, (frame.shape[1], frame.shape[0]))
        covered, strong = light_cover(feat, fit.bright_parity, fit.contrast)
        leaned = covered & leaned_over(feat, fit.bright_parity, shift, strong) if covered.any() else covered
        covered, strong = covered & ~leaned, strong & ~leaned
        # what standing still may excuse in video: a tall piece's top, a shadow too dark for one picture
        candidates = covered & (lean_candidates(feat, fit.bright_parity, shift)
                                | shadow_candidates(feat, fit.bright_parity, fit.contrast)) if covered.any() else None
        seen_hand = self._hands.check(frame, fit.h, fit.bright_parity, covered, shift, candidates)
        excused = seen_hand.still_excused
        if excused is not None and excused.any():  # a still piece's top or shadow (vision.occlusion)
            leaned = leaned | excused
            covered, strong = covered & ~excused, strong & ~excused
        covered = covered | seen_hand.foreign
        hand_seen = bool(covered.sum() >= 2 or strong.any() or seen_hand.hand)  # besides hidden dark squares
        light = self._light_over(raw, seen_hand)
        last, self._light = self._light, None if light is None else (fit.h, light)
        still = self._still_reading(fit, seen_hand, covered | strong)
        if still is not None:
            return still
        if not _same_light(None if last is None else last[1], light):
            top = raw if light is None else _in_light(raw, light)
            feat = features(top, fit.bright_parity)
        light_ok = ~(covered | leaned)  # light squares that show the empty light colour
        ref = light_reference(feat, fit.bright_parity, light_ok)
        vec = cell_vectors(feat, fit.bright_parity, light_ok, ref)
        # The learned square network (vision/squarenet.py) reads every square, kings included; a colour
        # model learned from this board's start position, when there is one, sharpens its colours.
        bare = bare_dark_colour(feat, fit.bright_parity, light_ok, ref)
        if self.squares == "net":
            # The crown reader (vision/crowns.py, over the height strips) reads again only when something moved
            # and no hand is over the board: a king is crowned or a piece changes only under a hand, and no
            # observation is passed on while one is there. The first frame after it leaves differs from the
            # one before, so the crowns are read then.
            again = self._crown is None or self._crown[0] is not fit or (not seen_hand.hand and (
                seen_hand.still is None or not seen_hand.still.all()))
            strips = height_strips(frame, maps) if again else None
            x = board_inputs(top, feat, fit.bright_parity, light_ok, vec, bare, shift, strips)
            d = describe(x)
            square = default_net().forward(d)  # the square network's own reading, before any second opinion
            prob = read_squares(x, d, hand_seen, square)
            # One picture (in video the motion test tells hands): a hand both readers see is one, whatever the
            # light squares, the margin and the colours make of it (vision.patchnet.both_see_a_hand)
            both_see = (np.zeros(32, dtype=bool) if seen_hand.compared
                        else both_see_a_hand(x, d, square[:, COVERED], patch_net()))
            if not hand_seen:  # a piece set down off its square's centre is not a hand (vision.second_look)
                bp = fit.bright_parity
                prob = second_look(read_squares, x, prob, feat, bp,
                                   lambda: np.where(covered, np.inf, light_departure(feat, bp, fit.contrast)),
                                   lambda: arm_beside(seen_hand.odd_margin_cells(), bp),
                                   lambda rows: patch_net().forward(rows, describe(rows))[:, COVERED])
            if again:  # only squares not surely empty (a piece, or a hand that may be leaving one)
                self._crown = (fit, *self._read_crowns(fit, d, prob))
            prob = with_crowns(prob, self._crown[1])
            # a king whose own square leaves its colour torn is read from its upper disc (vision.king_tops)
            prob = with_king_tops(prob, x, feat, fit.bright_parity, shift, read_squares)
            net_saw_hand = prob[:, COVERED].copy()  # before the colours, whose veto can remove the finger
        if self.model is None:
            if self.squares == "net":
                read = decide(prob)[0]
                labels = COLOUR_OF[read]
            else:
                labels, conf = default_classify(vec, bare, fit.contrast)
            # Worth testing for the start position only when about twelve light men are seen.
            if not covered.any() and 10 <= int((labels == 1).sum()) <= 14:
                self._auto_learn(fit, vec, labels)
            if self.model is None and self.squares == "net":
                still = seen_hand.still is not None and bool(seen_hand.still.all())
                prob = self._colours_of_this_picture(prob, vec, bare, fit, labels, read != COVERED, still,
                                                     _fingertip_reach(fit.bright_parity, covered))
        if self.model is not None:
            if self.squares == "net":
                net_covered = prob[:, COVERED].copy()
                self._net_prob = prob  # before the colour model: what calibration compares (no copy made)
                # on a board the network read alone at calibration, a king it is sure of stays a king, and the
                # colour model's vote is bounded, except on the very frame it is learned from (_learn_on)
                kings, most, hand_at, hand_bar = (None, None, None, None)
                reach = _fingertip_reach(fit.bright_parity, covered)
                if self.familiar:
                    kings, most = KING_KEPT, COLOUR_VOTE_MOST if bound_votes else None
                    colours_say = colour_loglik(self.model, vec).argmax(axis=1)  # empty, light, dark
                    # One picture (in video the motion test tells hands from pieces): wherever a fingertip can
                    # be, the network's "covered" of at least COVERED_WITH_HAND stands against the colours'
                    # veto, which is there for pieces the network does not know: on a board it reads, a
                    # fingertip's skin fits a light man's colours, and the arm need not show in the margin
                    # (docs/vision.md, "A fingertip wherever one can reach"). Only where it can reach: a real
                    # piece the network takes for a hand stands in the middle of a real photo too.
                    # ... and from 0.5 where the colours see the bare square: no piece looks like the empty
                    # square; a hand's skin over a dark wood does. There "covered" as the likelier reading
                    # stands, as it does in one picture with no hand seen (docs/vision.md, "A hand the
                    # colours take for the bare square")
                    if not seen_hand.compared:
                        bare_here = (colours_say == 0) & reach
                        hand_bar = np.where(bare_here, COVERED_IN_PICTURE, COVERED_WITH_HAND)
                        hand_at = reach
                        # where the margin shows an arm, its fingertip can also be a square further in than
                        # the edge square beside it (asked only when needed: the margin test costs 0.2 ms)
                        if (prob[~reach, COVERED] >= COVERED_WITH_HAND).any():
                            arm = arm_beside(seen_hand.odd_margin_cells(), fit.bright_parity)
                            hand_at = reach | arm | diagonal_neighbours(arm, fit.bright_parity)
                    if most is not None and colours_contradict_network(prob, self.model, vec):
                        most = 0.0  # colours that misread the network's surest squares get no vote here
                    if most is not None and (hand_seen or (net_covered >= COVERED_WITH_HAND).any()):
                        # A hand in the picture shades the squares around it, and in its skin and shadow the start
                        # position's colours see a piece or bare wood; the network was trained with hands. Where
                        # a fingertip can reach, the colours may confirm the network's likeliest colour class but
                        # not overturn it (their veto on "covered" stays) (docs/vision.md, "No colour vote
                        # against the network beside a hand")
                        overturn = colours_say != colour_shares(prob).argmax(axis=1)
                        most = np.where(reach & overturn, HAND_COLOUR_VOTE, most)[:, None]
                prob = with_colour_model(prob, self.model, vec, temper=self.colour_weight, keep_kings=kings,
                                         most=most, reachable=reach, hand_seen=hand_at, hand_bar=hand_bar)
            else:
                labels, conf = self.model.classify(vec)
            hidden = hidden_dark_cells(covered, fit.bright_parity, self.model.outliers(vec))
        else:
            hidden = hidden_dark_cells(covered, fit.bright_parity)
        if self.squares == "net":
            prob = self._smooth(prob, seen_hand.still)
            # A lone "covered" is guessed to be a piece the network does not know only where that is likely: on
            # a board the network could not read alone at calibration, or in video, where the motion test
            # catches a real hand. In a single picture of a board the network knows, it is a fingertip
            # reaching an edge square from outside the board (docs/vision.md).
            picture_of_known_board = self.model is not None and self.familiar and not seen_hand.compared
            if hand_seen or hidden.any() or (prob[:, COVERED] > COVERED_THRESHOLD).any():
                # A hand is over the board: "covered" needs less certainty where one is known to be, and the
                # colour model's veto (vision.squarenet.with_colour_model) is lifted, since a fingertip's skin
                # can fit a light piece's colours.
                pieces, conf = decide(prob, covered_threshold=COVERED_WITH_HAND)  # 0..5: . w b W B ?
                if self.model is not None:
                    lifted = net_covered > COVERED_WITH_HAND
                    pieces[lifted], conf[lifted] = COVERED, net_covered[lifted]
            elif picture_of_known_board:
                # One picture of a board the network knows, no hand seen elsewhere: "covered" as the likelier
                # reading is a fingertip too; reading the rest would name a piece on a few per cent.
                pieces, conf = decide(prob, covered_threshold=COVERED_IN_PICTURE)
                _hand_spreads(pieces, conf, net_covered, fit.bright_parity)
            else:
                pieces, conf = decide(prob)
            # Uncalibrated, a picture whose colours the network's reading explains as well as the hand-made
            # model's (_colours_of_this_picture learned none of its own) is of a board it reads, too.
            picture_it_reads = picture_of_known_board or (
                self.model is None and not seen_hand.compared and self._own_colours is not None
                and self._own_colours[1] is None)
            if picture_it_reads:
                # A square beside a hand (hidden_dark_cells) that reads surely as empty or a man is seen past
                # the hand. Not a king: the crown reader can take a hand's height for a second disc. In video
                # the motion test decides what is hidden (below).
                hand_seen = hand_seen or bool(hidden.any())
                hidden &= ~((pieces <= 2) & (conf >= SURE_BESIDE_HAND))
            elif (self.model is not None or seen_hand.compared) and (pieces == COVERED).any():
                # with the board's colours learned, or in video uncalibrated too (a position set up by hand,
                # never a start position): there the motion test catches a real hand, and a piece set down
                # off its square's centre that the network takes for covered held every board back
                arm = arm_beside(seen_hand.odd_margin_cells(), fit.bright_parity)
                self._unknown_pieces_uncovered(prob, pieces, conf, covered, fit.bright_parity, arm)
            if not seen_hand.compared:
                # One picture: a "covered" nothing else shows, or a square beside a hand the light squares show,
                # where the patch reader sees no hand, is a fingertip over the square's edge or a square seen
                # past the hand; the piece beneath is read (vision.patchnet.seen_past_a_fingertip)
                bars = np.where(hidden, UNCOVER_BESIDE_HAND, UNCOVER_BELOW)
                past = seen_past_a_fingertip(x, d, prob, ((pieces == COVERED) | hidden) & ~both_see, patch_net(), bars)
                free = past >= 0
                pieces[free], conf[free] = past[free], prob[free, past[free]]
                hidden &= ~free
            if both_see.any():  # after every rule that may read a square under a hand as a piece after all
                pieces[both_see], conf[both_see] = COVERED, prob[both_see, COVERED]
            hidden |= pieces == COVERED  # the network sees a hand or arm over the square
            labels = COLOUR_OF[pieces]
        else:
            pieces = labels
        if seen_hand.compared or self.squares != "net":
            # Next to a hand seen by motion a square may be hidden whatever it looks like. With no settled
            # view to compare (a single picture) the static test's neighbours are left to
            # hidden_dark_cells and the network's covered class, which look at the square itself.
            hidden |= seen_hand.hidden
        hand = hand_seen or bool(hidden.any())
        if not hand and self.squares == "net":
            pieces = crowned_from(prob, pieces, KING_BESIDE_MEN_SEEN if self._crown[4] else KING_ON_ITS_BOARD)
        if hidden.any() and self.squares == "net":
            # A fingertip resting on a man is as tall as a king's second disc (čl. 3.6): a king read beside
            # a square under the hand, where the network sees a little of the finger too (before the colours'
            # veto on "covered", which can turn the finger itself into the king), is not sure. Hidden,
            # it waits for the hand to leave, as that square does. (Beside a light square taken for covered
            # alone it stands: tall kings leaning over one did; and so does a king the network sees no finger on.)
            king = (CHARS[pieces] == "W") | (CHARS[pieces] == "B")
            fingered = np.maximum(prob[:, COVERED], net_saw_hand) >= FINGER_ON_KING
            hidden |= king & fingered & diagonal_neighbours(hidden, fit.bright_parity)
        cells = dark_cells(fit.bright_parity)
        seen = np.where(hidden, 0, labels)  # pieces under a hand do not vote for White's side
        k, known = self._decide_rotation(fit, cells, seen, hand)
        ok = orient.a1_is_dark(k, fit.bright_parity)
        order = _observation_order(fit.bright_parity, k, ok)
        chars = CHARS[pieces[order]]
        chars[hidden[order]] = "?"
        if self.model is not None and not hand:
            self.model.update(vec, labels, conf)
        pts = orient._img(fit.h, orient.rotation_corners(k))
        corners = {n: (float(x), float(y)) for n, (x, y) in zip(CORNER_NAMES, pts, strict=True)}
        res = FrameResult(
            found=True,
            corners=corners,
            orientation_ok=ok if known else None,
            board="".join(chars),
            hand=hand,
            homography=image_to_topview(corners, TOPVIEW_SIZE),
            confidence=np.where(hidden[order], 0.0, conf[order]),
            crown_px=crowns[order],
        )
        self._last = [fit, res, 0]
        return res

    def _light_over(self, raw: np.ndarray, seen_hand: HandReading) -> np.ndarray | None:
        """(8·CELL)² lightness gain over lattice top view ``raw`` relative to the first settled view's light
        (None: the same), for the squares to be read in that light; remembered with each settled view.

        In a shadow taking half the light a dark man on a dark square differs from the bare wood by a few
        levels of 255: the square readers, trained on boards in one light, and the colours learned at the
        start took it for bare wood, and the light squares it is read against were as dark. The motion test
        knows the light at six pixels a square (``seen_hand.light``); brought to the top view as it is, its
        blurred step along a hard shadow's edge left a bright seam that read as a piece's rim (a phantom man).
        So on squares only relit since the settled view the light is measured pixel by pixel against that
        view's picture (no piece can have moved there), where neither light nor content changed it is the
        settled view's, and only elsewhere (a piece moved, a hand) the motion test's is taken (docs/vision.md,
        "A shadow's hard edge, and squares read in the light they had")."""
        light = None
        if seen_hand.light is not None:
            size = raw.shape[0]
            light = cv2.resize(seen_hand.light, (size, size), interpolation=cv2.INTER_LINEAR)
            if self._light_top is not None:
                was, was_light = self._light_top
                was_light = np.ones(light.shape, np.float32) if was_light is None else was_light
                how = np.kron(seen_hand.light_known, np.ones((CELL, CELL), dtype=np.int64))
                ratio = (raw.sum(axis=2, dtype=np.float32) + LIGHT_LUM_FLOOR) / (
                    was.sum(axis=2, dtype=np.float32) + LIGHT_LUM_FLOOR)
                measured = was_light * cv2.medianBlur(ratio, 5)
                light = np.where(how == 2, measured, np.where(how == 1, was_light, light)).astype(np.float32)
        if seen_hand.settled:
            self._light_top = (raw.copy(), light)
        return light

    def _still_reading(self, fit: BoardFit, seen_hand: HandReading,
                       light_flagged: np.ndarray) -> FrameResult | None:
        """The last reading again, when nothing on the board can have changed since it; else None.

        In a game the board stands still most of the time, and reading 32 squares costs about a third of a
        tracking frame. The motion test (vision.occlusion.HandWatch) compares every square with the frame
        before: a piece moved, a hand or a shadow passing changes a square. So while the fit is the same,
        a settled view is there to compare with, nothing moved or looks foreign, and the last reading was
        sure of every square (``REUSE_CONFIDENCE``: a hard square keeps being averaged over frames until it
        is), that reading stands. Every ``REUSE_FRAMES`` + 1-th frame is read anyway, so slow changes (the
        light drifting, which the colour model follows) are still seen.
        """
        last = self._last
        if (last is None or last[0] is not fit or self._prob is None or not seen_hand.compared
                or seen_hand.hand or seen_hand.moving or seen_hand.still is None or not seen_hand.still.all()
                or light_flagged.any() or last[2] >= REUSE_FRAMES):
            return None
        res = last[1]
        if res.hand or "?" in res.board or float(np.min(res.confidence)) < REUSE_CONFIDENCE:
            return None
        last[2] += 1
        return replace(res, confidence=res.confidence.copy())

    @staticmethod
    def _unknown_pieces_uncovered(prob: np.ndarray, pieces: np.ndarray, conf: np.ndarray, covered_light: np.ndarray,
                                  bright_parity: int, arm: np.ndarray | None = None) -> None:
        """Read lone "covered" squares as the likeliest other class (in place), with the colours learned or in video.

        A hand is wider than a square: "covered" with no covered light square beside it and no other
        covered square next to it is a piece the network does not know (a board unlike its training). A
        '?' there would hold every observation back; a real hand over one square in video is caught by
        the motion test. The caller asks only on such boards, or in video. ``arm`` (32,) marks squares at the
        board's edge with an arm seen in the margin beside them (``vision.occlusion.arm_beside``): a hand
        reaching a square from outside covers that square alone, and stays ``?``.
        """
        net_covered = pieces == COVERED
        lone = net_covered & ~hand_nearby(net_covered, covered_light, bright_parity)
        if arm is not None:
            lone &= ~arm
        if lone.any():
            uncovered = prob.copy()
            uncovered[:, COVERED] = 0.0
            pieces[lone], conf[lone] = (v[lone] for v in decide(uncovered))

    def _colours_of_this_picture(self, prob: np.ndarray, vec: np.ndarray, bare: np.ndarray, fit: BoardFit,
                                 net_labels: np.ndarray, seen: np.ndarray, still: bool,
                                 reachable: np.ndarray | None = None) -> np.ndarray:
        """Uncalibrated: ``prob`` sharpened by colours learned from this picture alone, on a board the network
        does not know.

        The network reads woods and pieces like its training renders nearly perfectly and others badly (it
        takes dark men it never saw for empty squares); the default colour model, made by hand, reads any
        board fairly well. Where the network's reading (``net_labels``, colour classes of the squares it
        sees, ``seen``) explains the squares' own features far worse than the default model's
        (:func:`vision.classify.explains_worse`), the board is unlike the training renders: a colour model
        learned from the default model's reading of this picture then gets the say a calibrated board's
        model has. On 150 rendered scenes of held-out woods, pieces and light that took the uncalibrated
        network from 80.3 % of squares to 98.4 %; on 1000 regular scenes it ran on four boards and changed
        two readings, both to the truth (docs/vision.md, "One picture of an unfamiliar board"). Not where the
        default model takes the network's dark men for bare squares wholesale (:func:`blind_to_dark_men`). In
        video, while no square changes (``still``) on the same board fit, the last frame's verdict and model
        stand.
        """
        if still and self._own_colours is not None and self._own_colours[0] is fit:
            model = self._own_colours[1]
        else:
            model = None
            guess, _ = default_classify(vec, bare, fit.contrast)
            net, other = net_labels[seen], guess[seen]
            if not blind_to_dark_men(other, net) and explains_worse(vec[seen], net, other):
                try:
                    model = ColourModel.learn(vec, guess)
                except ValueError:  # a class the default model did not see at all: nothing to learn it from
                    model = None
            self._own_colours = (fit, model)
        if model is None:
            return prob
        # The network's sure kings stay kings: the colour model knows no kings, and a slanted king's second
        # disc shows its side where a man shows its top (one light king read dark on 1000 regular scenes).
        return with_colour_model(prob, model, vec, temper=COLOUR_WEIGHT, keep_kings=KING_KEPT, reachable=reachable)

    def _viewpoint(self, fit: BoardFit, size: tuple[int, int]
                   ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray], np.ndarray]:
        """The dark cells' top-view shift per unit height (32, 2) (vision.viewpoint), their height strips'
        sample maps (vision.heights) and how far a king's top lands beyond a man's on each (32,)
        (vision.crown_view), in lattice order, computed once per board fit and kept while tracking."""
        if self._view_for is None or self._view_for[0] is not fit or self._view_for[1] != size:
            centres = dark_cells(fit.bright_parity) + 0.5
            view = viewpoint(fit.h, size, self._camera_matrix(size))
            shift = view.shift(centres)
            self._view_for = (fit, size, shift, strip_maps(fit.h, centres, shift), crown_px(view, fit.h, centres))
        return self._view_for[2], self._view_for[3], self._view_for[4]

    def _camera_matrix(self, size: tuple[int, int]) -> np.ndarray | None:
        """The calibrated camera matrix for pictures of ``size`` (scaled from the calibration's), or None."""
        if self._camera is None:
            return None
        k, (w, h) = self._camera
        return k * np.array([[size[0] / w], [size[1] / h], [1.0]])

    def _read_crowns(self, fit: BoardFit, d: np.ndarray,
                     prob: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """(king shares, raw king logits, crown inputs, whether they were weighed against the men seen) of the
        32 squares (vision.crowns) from their rows of ``describe`` and the square network's ``prob``; only
        squares not surely empty are read.

        The lone reader's logit is weighed against the men seen in a known position (vision.men_seen) or
        against the board's other pieces (:func:`vision.crowns.on_this_board`), and the pair reader's
        (vision/crowns.py, "Beside a man of this set") is added to it: each piece beside the man seen on
        its square or near it, else beside this board's least king-like piece near it (``PAIR_WEIGHT``
        times the pair's logit less ``PAIR_KING_FROM``). A piece with no man near it has the lone
        reader's alone."""
        share, raw = np.zeros(len(d)), np.full(len(d), np.nan)
        inputs = np.full((len(d), N_CROWN_INPUTS), np.nan, dtype=np.float32)
        piece = prob[:, 0] < 1.0 - NOT_EMPTY_FOR_CROWN
        if not piece.any():
            return share, raw, inputs, False
        read = crown_inputs(d[piece])
        inputs[piece] = flat_inputs(*read)
        raw[piece] = default_crown_reader().logits_of(read)
        likely = prob[:, 1:5].sum(axis=1) > 0.5  # a piece more likely than not
        centres = dark_cells(fit.bright_parity) + 0.5
        colours = self._colours(prob)
        yard = self._yardstick(fit, colours)
        weighed = np.zeros(len(d))  # the lone reader's logits on the pipeline's scale (its bar KING_LOGIT)
        if yard is None:
            weighed[piece] = on_this_board(raw[piece], likely[piece], centres[piece], KING_LOGIT)
        else:
            weighed[piece] = against_men_seen(raw[piece], likely[piece], yard[piece], KING_LOGIT)
        beside = None if self.men_seen is None else self.men_seen.beside(fit.h, centres, colours)
        if beside is not None:
            man_inputs, man = self.men_seen.inputs, beside
        else:
            man_inputs, man = inputs, least_king_like_near(raw, piece & likely, centres)
        use = piece & (man >= 0)
        if use.any():
            z = default_pair_reader().pair_logits_of(split_inputs(inputs[use]), split_inputs(man_inputs[man[use]]))
            weighed[use] += PAIR_WEIGHT * (z - PAIR_KING_FROM)
        share[piece] = share_of(weighed[piece])
        return share, raw, inputs, yard is not None

    @staticmethod
    def _colours(prob: np.ndarray) -> np.ndarray:
        """(32,) 1 light or 2 dark: the colour the square network reads on each square."""
        return np.where(prob[:, 1] + prob[:, 3] >= prob[:, 2] + prob[:, 4], 1, 2)

    def _yardstick(self, fit: BoardFit, colours: np.ndarray) -> np.ndarray | None:
        """(32,) what the men seen in a known position take off each square's king logit (vision.men_seen),
        for the piece of ``colours`` (32,) 1 light / 2 dark on each square; None without such men or when
        they no longer land on this fit's squares."""
        if self.men_seen is None:
            return None
        return self.men_seen.yardstick(fit.h, dark_cells(fit.bright_parity) + 0.5, colours)

    def _men_of(self, fit: BoardFit, k: int, board: str, least: int = MIN_MEN_SEEN) -> MenSeen | None:
        """The men of the known position ``board`` (observation order, kings upper case) as the crown reader
        read them last under ``fit`` and rotation ``k`` (vision.men_seen); None without such a reading or
        with fewer than ``least`` men."""
        if self.squares != "net" or self._crown is None or self._crown[0] is not fit:
            return None
        kings = _position_labels(fit.bright_parity, k, "".join("w" if c in "WB" else "." for c in board)) == 1
        return MenSeen.seen(fit.h, dark_cells(fit.bright_parity) + 0.5,
                            _position_labels(fit.bright_parity, k, board.lower()), self._crown[2], kings,
                            default_crown_reader().digest, least, self._crown[3])

    def _see_men(self, fit: BoardFit, k: int, board: str) -> None:
        """Keep the men of the known position ``board`` as the crown reader's yardstick (:meth:`_men_of`)."""
        if self.squares == "net" and self._crown is not None and self._crown[0] is fit:
            self.men_seen = self._men_of(fit, k, board)

    def see_position(self, board: str) -> bool:
        """The position on the board is ``board`` (observation order, kings upper case: the referee's, after
        a move it accepted). Its men, as the last reading saw them, take the place of the men seen before
        on their spots (vision.men_seen): the crown reader's yardstick then follows the light through the
        game and reaches squares the start position's men never stood on. Only when the last reading shows
        that position square for square (colours; no ``?``); True if it was used."""
        if self._fit is None or self._last is None or self._last[0] is not self._fit or self._rotation is None:
            return False
        seen = self._last[1].board
        if not isinstance(board, str) or len(board) != 32 or set(board) - set(".wbWB") or seen is None or any(
                g == "?" or g.lower() != t.lower() for g, t in zip(seen, board, strict=True)):
            return False
        newer = self._men_of(self._fit, self._rotation, board, least=1)
        if newer is None:
            return False
        if self.men_seen is not None:
            newer = self.men_seen.seen_again(newer, self._fit.h)
        self.men_seen = newer if len(newer.logits) >= MIN_MEN_SEEN else self.men_seen
        return self.men_seen is newer

    def _smooth(self, prob: np.ndarray, still: np.ndarray | None) -> np.ndarray:
        """Average each square's probabilities over the frames in which its view has not changed.

        Sensor noise makes a hard square (a dark man on a dark square in a small picture) flicker from
        frame to frame, and a flickering board never holds still long enough for the stabilizer. A
        square whose pixels change (a hand, a piece moved) starts afresh, so a move is not delayed.
        """
        if still is None or self._prob is None or self._prob.shape != prob.shape:
            self._prob = prob
            return prob
        # a frame sure of another class than the average (a change too soft for the motion test, such as
        # a shadow lifting) is taken as it is
        sure = (prob.max(axis=1) >= 0.9) & (prob.argmax(axis=1) != self._prob.argmax(axis=1))
        keep = still & ~sure
        self._prob = np.where(keep[:, None], (1.0 - SMOOTHING) * self._prob + SMOOTHING * prob, prob)
        return self._prob

    def _decide_rotation(self, fit: BoardFit, cells: np.ndarray, labels: np.ndarray, hand: bool) -> tuple[int, bool]:
        """(rotation, known): caller's side, else pieces, else remembered a1, else a default guess."""
        if self.white_at is not None:
            k = orient.from_image_side(fit.h, self.white_at)
            self._remember(fit, k)
            return k, True
        if self._rotation is not None:
            return self._rotation, True
        k = None
        if self._a1_xy is not None:
            # The board is where it was when White's side was last decided (profile or earlier frame).
            p = orient._img(fit.h, np.array([[0.0, 0.0], [1.0, 0.0]]))
            k = orient.from_a1_point(fit.h, self._a1_xy, max_dist=2.0 * float(np.linalg.norm(p[1] - p[0])))
        if k is None:
            k = orient.from_pieces(cells, labels)
        if k is None:
            return orient.default_rotation(fit.h, fit.bright_parity), False
        self._remember(fit, k)
        return k, True

    def _remember(self, fit: BoardFit, k: int) -> None:
        self._rotation = k
        a1 = orient._img(fit.h, orient.rotation_corners(k)[:1])[0]
        self._a1_xy = (float(a1[0]), float(a1[1]))

    # -- a known position (the start position, unless told otherwise) ------------------------------
    def _position_truth(self, fit: BoardFit, k: int, board: str = START_BOARD) -> np.ndarray:
        """Labels (lattice dark-cell order) of ``board`` (the start position) under rotation ``k``."""
        return _position_labels(fit.bright_parity, k, board)

    def _position_costs(self, fit: BoardFit, vec: np.ndarray, board: str = START_BOARD) -> list[float]:
        """How badly each rotation's labels of ``board`` fit the cells (within-class scatter).

        A half turn swaps light and dark men, which the scatter cannot see: the rotation whose
        "light" men are darker than its "dark" men is ruled out.
        """
        costs = []
        for k in range(4):
            t = self._position_truth(fit, k, board)
            spread = float(sum(((vec[t == c] - vec[t == c].mean(axis=0)) ** 2).sum() for c in range(3)))
            swapped = vec[t == 1, 0].mean() < vec[t == 2, 0].mean()
            costs.append(spread + (1e12 if swapped else 0.0))
        return costs

    def _auto_learn(self, fit: BoardFit, vec: np.ndarray, labels: np.ndarray) -> None:
        """Learn the colour model from this frame if it clearly shows the start position.

        Clearly: one rotation explains the cells far better than any other, and its three classes are
        well apart (the class means differ by several times the spread within the classes). ``labels``
        (32,) are the colour classes read without the model: as at calibration, a board whose start
        position they miss is one the network does not know, and the colour model gets the larger say.
        """
        costs = self._position_costs(fit, vec)
        order = np.argsort(costs)
        k = int(order[0])
        if costs[k] > 0.5 * costs[int(order[1])]:
            return
        t = self._position_truth(fit, k)
        means = [vec[t == c, :3].mean(axis=0) for c in range(3)]
        within = np.sqrt(np.mean([((vec[t == c, :3] - means[c]) ** 2).sum(axis=1).mean() for c in range(3)]))
        gaps = [np.linalg.norm(means[a] - means[b]) for a, b in ((0, 1), (0, 2), (1, 2))]
        if min(gaps) < 3.0 * max(within, 1.0):
            return
        self.model = ColourModel.learn(vec, t)
        self.colour_weight = _colour_weight(labels, t)
        self._prob = None  # readings made without the colour model are not carried over
        self._see_men(fit, k, START_BOARD)
        if self.white_at is None and self._rotation is None:
            self._remember(fit, k)

    # -- calibration ------------------------------------------------------------------------------
    def learn_start_position(self, frame: np.ndarray) -> dict:
        """Learn the colour model from a frame of the start position (all 32 labels known).

        White's side comes from ``white_at`` if given; otherwise each of the four rotations is tried
        and the one whose start-position labels form the tightest colour classes wins (light men,
        dark men and the two empty middle ranks leave no doubt). Returns a report: ``ok``, ``reason``,
        ``orientation_ok``, ``agreement`` (share of squares then read as the start position).
        """
        return self.learn_position(frame, START_BOARD)

    def learn_position(self, frame: np.ndarray, board: str) -> dict:
        """Learn the colour model from a frame of any known position: ``board``, 32 characters of
        ``.wbWB`` in observation order (kings count as men of their colour), with at least
        ``MIN_EACH_TO_LEARN`` empty squares, light and dark pieces. A game set up from a FEN or resumed
        from its journal knows its position as well as the start position does.

        The same report and checks as :meth:`learn_start_position`; a board without enough of each
        class is a ValueError.
        """
        known, board = board, _board_to_learn(board)
        frame = as_bgr8(frame)
        if isinstance(frame, str):
            return {"ok": False, "reason": frame}  # as for a frame with no board in it
        self._follow_size((frame.shape[1], frame.shape[0]))  # before White's side is saved below
        self.reset_tracking()
        saved_side = self._rotation, self._a1_xy, self._place
        self._rotation = None
        saved, self.model = (self.model, self.colour_weight), None
        res = self.process(frame)
        found = self._fit if res.found else None
        if found is None and known == START_BOARD:
            # A small board seen steeply, whose far rows of men hide the corners between them: a window only
            # such a view explains, which reading the start position back confirms or refuses (below)
            try:
                found = localize_frame(frame, steep_start=True)
            except NotFound:
                found = None
        if found is None:
            self.model, self.colour_weight = saved
            return {"ok": False, "reason": res.reason}
        # A hand flag is not fatal here: at a steep angle the rows of men lean over the light squares
        # behind them. The caller is asked for a clear start position; the classes' tightness decides.
        agreement, res = self._learn_on(frame, found, board)
        if agreement < MIN_START_AGREEMENT:
            # The start position's men can pull the localizer's window one square aside (they hide the
            # corners and break the light/dark alternation along the board's edge). A window one square off
            # reads back at most 23 of 32 squares as the start position, the right one 25 or more
            # (1000 rendered start positions): the windows beside it get a chance to read back better.
            best = (agreement, res, found, self.model, self.colour_weight, self._rotation, self._a1_xy)
            for fit in windows_beside(to_gray(frame, found.view), found):
                agreement, res = self._learn_on(frame, fit, board)
                if agreement > best[0]:
                    best = (agreement, res, fit, self.model, self.colour_weight, self._rotation, self._a1_xy)
            taken = [found]
            for _ in range(OTHER_BOARDS if best[0] < MIN_START_AGREEMENT else 0):
                # Another board in view (a hall of boards, the next table's at the picture's edge), which the
                # localizer may have found first: the one that reads back as the position is the one.
                try:
                    other = localize_beside(frame, taken)
                except NotFound:
                    break
                taken.append(other)
                agreement, res = self._learn_on(frame, other, board)
                if agreement > best[0]:
                    best = (agreement, res, other, self.model, self.colour_weight, self._rotation, self._a1_xy)
                if best[0] >= MIN_START_AGREEMENT:
                    break
            agreement, res, fit, self.model, self.colour_weight, self._rotation, self._a1_xy = best
            self._fit, self._prob, self._crown = fit, None, None
            self._place = orient._img(fit.h, orient.LATTICE_CORNERS)
            self._forget_settled_view()
        if agreement < MIN_START_AGREEMENT and not self.familiar:
            # Last, on a board the network does not know, the colour model's larger say may read it back
            # (a network nearly blind to these pieces outvotes the colours at the usual weight).
            agreement, res = self._read_again(frame, board)
        if agreement < MIN_START_AGREEMENT:
            # Classes learned from a board that is not the start position (a hand over it, pieces not set
            # up, a board whose pieces stand on the light squares) do not even read their own frame back.
            self.model, self.colour_weight = saved
            self._rotation, self._a1_xy, self._place = saved_side
            self.reset_tracking()
            if board == START_BOARD:
                why = f"the board does not look like the start position (only {round(agreement * 32)} of 32 squares"
            else:
                why = (f"the board does not look like the expected position (only {round(agreement * 100)} % of "
                       "one kind of square, empty, light or dark,")
            return {"ok": False, "agreement": agreement,
                    "reason": f"{why} read back as it): set up the pieces, nothing over the board"}
        self._window = orient._img(self._fit.h, orient.LATTICE_CORNERS)  # later localizations hold to it
        if self.squares == "net" and (self._crown is None or self._crown[0] is not self._fit):
            self._read_again(frame, board)  # the kept window was chosen among others: its crowns read afresh
        self._see_men(self._fit, self._rotation, known)
        return {"ok": True, "reason": None, "orientation_ok": res.orientation_ok, "agreement": agreement,
                "corners": res.corners, "white_side": _side_of(res.corners) if res.corners else None}

    def _learn_on(self, frame: np.ndarray, fit: BoardFit, board: str) -> tuple[float, FrameResult]:
        """Learn the colours of ``board`` on the window ``fit``, and how far they outvote the square
        network (``colour_weight``); (share read back as ``board``, the reading)."""
        self._fit, self._rotation, self._prob, self._crown = fit, None, None, None
        vec = cell_vectors(features(warp_lattice(frame, fit.h), fit.bright_parity), fit.bright_parity)
        costs = self._position_costs(fit, vec, board)
        k = orient.from_image_side(fit.h, self.white_at) if self.white_at is not None else int(np.argmin(costs))
        self._remember(fit, k)
        truth = self._position_truth(fit, k, board)
        self.model = ColourModel.learn(vec, truth)
        # Read back at the usual weight: the network's own view is what tells a window a square off the
        # board (whose colour classes fit their own frame) from the right one. Without the bound on the
        # colour model's vote (COLOUR_VOTE_MOST): on the frame they were learned from the colours are right
        # by construction, and bounded they could not correct a network blind to this board's dark men, so
        # the right window read back worse than one a square off (docs/vision.md, "Learning a known position").
        self.colour_weight, self._net_prob = COLOUR_WEIGHT, None
        res = self._read(frame, fit, bound_votes=False)
        if self._net_prob is not None:  # if the window is kept, this weight holds in play
            self.colour_weight = _colour_weight(_colours(self._net_prob), truth)
        return _read_back(res.board, board), res

    def _read_again(self, frame: np.ndarray, board: str) -> tuple[float, FrameResult]:
        """Read ``board`` again on the current window and weight; (share read back, the reading)."""
        self._prob, self._crown = None, None
        self._forget_settled_view()
        res = self._read(frame, self._fit)
        return _read_back(res.board, board), res

    def draw_overlay(self, frame: np.ndarray, res: FrameResult, highlight: list[str] | tuple = (),
                     masked: list[str] | tuple = (), flat_crowns: bool = False) -> np.ndarray:
        from vision.overlay import draw_overlay

        picture = as_bgr8(frame)
        return draw_overlay(frame if isinstance(picture, str) else picture, res, highlight, masked, flat_crowns)


def _far_from(fit: BoardFit, place: np.ndarray) -> bool:
    """Is the board of ``fit`` elsewhere than the one at image corners ``place`` (4×2): its middle more than
    :data:`ELSEWHERE` of that board's side away? A bumped camera moves a board less; the next board in a
    hall stands a side or more away."""
    place = np.asarray(place, dtype=np.float64)
    side = float(np.mean(np.linalg.norm(place - np.roll(place, 1, axis=0), axis=1)))
    here = orient._img(fit.h, orient.LATTICE_CORNERS).mean(axis=0)
    return float(np.linalg.norm(here - place.mean(axis=0))) > ELSEWHERE * side


def read_squares(x: np.ndarray, d: np.ndarray | None = None, hand_seen: bool = False,
                 square: np.ndarray | None = None) -> np.ndarray:
    """(N, 6) class probabilities for rows ``x`` of :func:`vision.squarenet.board_inputs` (``d`` their
    :func:`describe`, computed if not given): the square network's (``square``, computed if not given), with
    the second network's split where it is torn between bare wood and a dark piece (``with_dark_opinion``)
    and the patch reader's vote where it is not sure (``vision.patchnet.with_patch_opinion``, which raises
    "covered" only where ``hand_seen``)."""
    d = describe(x) if d is None else d
    square = default_net().forward(d) if square is None else square
    prob = with_dark_opinion(square, d, dark_net())
    return with_patch_opinion(prob, x, d, patch_net(), hand_seen)


def _in_light(top: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Lattice top view ``top`` in the light of the first settled view: divided by ``light`` (_light_over)."""
    return np.clip(top.astype(np.float32) / light[..., None], 0, 255).astype(np.uint8)


def _same_light(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    """Are two lights over the lattice top view (None: the first settled view's) the same, to a few per cent?"""
    if a is None or b is None:
        return a is None and b is None
    return float(np.abs(np.log(a / b)).max()) < LIGHT_SAME_READ


def _fingertip_reach(bright_parity: int, covered: np.ndarray) -> np.ndarray:
    """(32,) bool, lattice dark-cell order: where a fingertip can be, the edge squares and those beside a
    covered light square. A hand reaches in from outside the board, covering what lies on its way
    (vision.squarenet.with_colour_model, ``reachable``)."""
    cells = dark_cells(bright_parity)
    edge = (cells == 0).any(axis=1) | (cells == 7).any(axis=1)
    return edge | (covered_neighbours(covered, bright_parity) > 0)


def _hand_spreads(pieces: np.ndarray, conf: np.ndarray, net_covered: np.ndarray, bright_parity: int) -> None:
    """In place: a square beside one read as under the hand (``COVERED``) whose network alone said "covered"
    above ``COVERED_WITH_HAND`` is under the hand too, whatever the colour model's veto made of it.

    One picture of a board the network knows, with no hand seen on the light squares: the network's hand on
    one square proves a hand is there, and a hand lies over a patch of squares, not one. The veto on
    "covered" is there for pieces the network does not know, and a dark fingertip over a light man fits a
    dark man's colours (`dama bench vision --seed 3` scene 4: e7 under 64 % of the hand, "covered" 0.991,
    read a dark man beside the two squares read ``?``; docs/vision.md, "A hand spreads to the squares
    beside it"). ``pieces``, ``conf``, ``net_covered`` (32,) in lattice dark-cell order."""
    under = pieces == COVERED
    if not under.any():
        return
    joined = ~under & (net_covered > COVERED_WITH_HAND) & diagonal_neighbours(under, bright_parity)
    pieces[joined], conf[joined] = COVERED, net_covered[joined]


@lru_cache(maxsize=16)
def _observation_order(bright_parity: int, k: int, ok: bool) -> np.ndarray:
    """Index into the lattice dark cells of each observation square (a1, c1, ... h8)."""
    index = {(int(i), int(j)): n for n, (i, j) in enumerate(dark_cells(bright_parity))}
    order = np.array([index[(int(i), int(j))] for i, j in orient.square_cells(k, ok)])
    order.flags.writeable = False
    return order


@lru_cache(maxsize=32)
def _position_labels(bright_parity: int, k: int, board: str) -> np.ndarray:
    """Colour labels (0/1/2, lattice dark-cell order) of ``board`` (lower case) under rotation ``k``."""
    cells = dark_cells(bright_parity)
    index = {(int(i), int(j)): n for n, (i, j) in enumerate(cells)}
    ok = orient.a1_is_dark(k, bright_parity)
    truth = np.zeros(32, dtype=np.int64)
    for n, (i, j) in enumerate(orient.square_cells(k, ok)):
        truth[index[(int(i), int(j))]] = ".wb".index(board[n])
    truth.flags.writeable = False
    return truth


def _colour_weight(network_colours: np.ndarray, truth: np.ndarray) -> float:
    """How far the colour model learned on a known position outvotes the network in play: the usual weight
    where the network alone read that position (``FAMILIAR_START``), the larger one where it did not (a board
    unlike its training renders, or the wrong window)."""
    familiar = float(np.mean(network_colours == truth)) >= FAMILIAR_START
    return COLOUR_WEIGHT if familiar else COLOUR_WEIGHT_UNFAMILIAR


def _colours(prob: np.ndarray) -> np.ndarray:
    """(N,) colour classes 0/1/2 of decided probabilities, -1 where the square is covered."""
    pieces = decide(prob)[0]
    return np.where(pieces == COVERED, -1, COLOUR_OF[pieces])


def _board_to_learn(board: str) -> str:
    """``board`` in lower case (kings count as men), or ValueError when colours cannot be learned from it."""
    if not isinstance(board, str) or len(board) != 32 or set(board) - set(".wbWB"):
        raise ValueError(f"a position to learn from is 32 characters of .wbWB, not {board!r}")
    board = board.lower()
    few = [name for c, name in ((".", "empty squares"), ("w", "light pieces"), ("b", "dark pieces"))
           if board.count(c) < MIN_EACH_TO_LEARN]
    if few:
        raise ValueError(f"too few {' and '.join(few)} to learn the colours from (at least {MIN_EACH_TO_LEARN} "
                         "of each)")
    return board


def _read_back(got: str, board: str) -> float:
    """Share of squares read as ``board``'s colours (a king read as a man of its colour counts).

    Other than the start position, a position can be mostly one class (an ending is mostly empty
    squares), which a reading of that class alone would match: there the share is that of the class
    read back worst.
    """
    right = np.array([a.lower() == b for a, b in zip(got, board, strict=True)])
    if board == START_BOARD:
        return float(right.mean())
    truth = np.array(list(board))
    return float(min(right[truth == c].mean() for c in ".wb"))


def _camera_of(data: object) -> tuple[np.ndarray, tuple[int, int]]:
    """(K, (width, height)) from a profile's ``camera`` ({"size": [w, h], "K": 3 × 3}); ValueError if unusable."""
    try:
        k = np.array(data["K"], dtype=np.float64)  # type: ignore[index]
        w, h = (int(v) for v in data["size"])  # type: ignore[index]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"profile camera needs size [w, h] and a 3x3 K ({exc})") from None
    if k.shape != (3, 3) or not np.isfinite(k).all() or k[0, 0] <= 0 or k[1, 1] <= 0 or w <= 0 or h <= 0:
        raise ValueError("profile camera needs positive size and focal lengths and a finite 3x3 K")
    return k, (w, h)


def _side_of(corners: dict[str, tuple[float, float]]) -> str:
    """Image side nearest White's edge (a1–h1), from the corners."""
    mid = (np.asarray(corners["a1"]) + np.asarray(corners["h1"])) / 2
    centre = np.mean([corners[n] for n in CORNER_NAMES], axis=0)
    d = mid - centre
    if abs(d[1]) >= abs(d[0]):
        return "bottom" if d[1] > 0 else "top"
    return "right" if d[0] > 0 else "left"


__all__ = ["FrameResult", "VisionPipeline", "refine"]
