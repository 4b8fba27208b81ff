"""Camera intrinsics from views of the printed pattern: detection, view selection, the solve.

Calibration fails in practice for three reasons: too few *different* views (twenty frames of a pattern
held still are one view), views that all sit in the middle of the image (distortion lives at the edges),
and no tilt (focal length is only observable from perspective). :class:`ViewCollector` guards against
all three and says what to do next; :func:`solve` runs OpenCV's ``calibrateCamera`` and reports the RMS
reprojection error in pixels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.pattern import PatternSpec
from calibration.profile import CameraIntrinsics

COVERAGE_GRID = (3, 3)  # columns, rows of image regions a good set of views should reach
_REGION_NAMES = (("top left", "top", "top right"), ("left", "middle", "right"),
                 ("bottom left", "bottom", "bottom right"))


def _gray(frame: np.ndarray) -> np.ndarray:
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def find_pattern(frame: np.ndarray, spec: PatternSpec) -> np.ndarray | None:
    """Inner corners (N, 2) float32 in OpenCV's order, refined to sub-pixel, or None if not all seen.

    ``findChessboardCornersSB`` is tried first (robust to blur and accurate); the classic detector
    with ``cornerSubPix`` is the fallback for builds or images where SB fails.
    """
    gray = _gray(frame)
    size = spec.inner
    if min(gray.shape) < 3 * (min(size) + 1) or max(gray.shape) < 3 * (max(size) + 1):
        return None  # under 3 px a square: no pattern to see (and OpenCV's detectors assert on such pictures)
    try:
        found, corners = cv2.findChessboardCornersSB(gray, size, flags=cv2.CALIB_CB_NORMALIZE_IMAGE)
        classic = not found
        if classic:
            flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
            found, corners = cv2.findChessboardCorners(gray, size, flags=flags)
    except cv2.error:  # a picture the detectors refuse shows no pattern
        return None
    if not found:
        return None
    if classic:  # the SB detector's corners are sub-pixel already
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 0.01)
        # search window: a third of the smallest corner spacing, so it never reaches the next corner
        pts = corners.reshape(-1, 2)
        spacing = np.min(np.linalg.norm(np.diff(pts.reshape(size[1], size[0], 2), axis=1), axis=2))
        win = int(max(2, min(11, spacing / 3)))
        corners = cv2.cornerSubPix(gray, corners, (win, win), (-1, -1), criteria)
    pts = corners.reshape(-1, 2).astype(np.float32)
    if not _quiet_zone(gray, pts, size):
        return None  # a checkered grid that goes on: the draughts board itself, not the printed pattern
    return pts


def _quiet_zone(gray: np.ndarray, corners: np.ndarray, inner: tuple[int, int]) -> bool:
    """Is the detected grid ringed by plain paper, as the printed pattern is (a square's width of margin)?

    The draughts board is a checkered grid too, and a 9×6 pattern's inner corners fit inside its 9×9
    grid lines (the playing area's edge counts as one): there a row beyond the detected squares is
    more squares or the dark frame. Samples outside the picture are not judged.
    """
    nx, ny = inner
    grid = np.array([(i, j) for j in range(ny) for i in range(nx)], dtype=np.float32)
    h, _ = cv2.findHomography(grid, corners)
    if h is None:
        return True

    def sample(points: np.ndarray) -> np.ndarray:
        img = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float32), h).reshape(-1, 2)
        ok = (img[:, 0] >= 0) & (img[:, 0] < gray.shape[1] - 1) & (img[:, 1] >= 0) & (img[:, 1] < gray.shape[0] - 1)
        xy = np.round(img[ok]).astype(int)
        return gray[xy[:, 1], xy[:, 0]].astype(np.float64)

    # the pattern's own squares (centres at half-integers from -0.5 to n - 0.5), light and dark
    cells = np.array([(i + 0.5, j + 0.5) for j in range(-1, ny) for i in range(-1, nx)], dtype=np.float32)
    light_mask = ((np.floor(cells[:, 0]) + np.floor(cells[:, 1])) % 2 == 0)
    a, b = sample(cells[light_mask]), sample(cells[~light_mask])
    if not len(a) or not len(b):
        return True
    light, dark = max(a.mean(), b.mean()), min(a.mean(), b.mean())
    # the ring a square beyond them, in the middle of the printed margin
    xs = np.arange(-1, nx + 1) - 0.5
    ys = np.arange(-1, ny + 1) - 0.5
    ring = np.concatenate([[(x, -1.5) for x in xs], [(x, ny + 0.5) for x in xs],
                           [(-1.5, y) for y in ys], [(nx + 0.5, y) for y in ys]]).astype(np.float32)
    margin = sample(ring)
    return not len(margin) or bool(margin.min() > (light + dark) / 2)


def _tilt(corners: np.ndarray, spec: PatternSpec) -> float:
    """How far the pattern is from facing the camera: relative length difference of opposite edges."""
    nx, ny = spec.inner
    g = corners.reshape(ny, nx, 2)
    top, bottom = np.linalg.norm(g[0, -1] - g[0, 0]), np.linalg.norm(g[-1, -1] - g[-1, 0])
    left, right = np.linalg.norm(g[-1, 0] - g[0, 0]), np.linalg.norm(g[-1, -1] - g[0, -1])
    return float(max(abs(top - bottom) / max(top, bottom), abs(left - right) / max(left, right)))


@dataclass
class Offer:
    """What happened to one frame offered to the collector (``accepted`` and a short reason)."""

    accepted: bool
    reason: str
    corners: np.ndarray | None = None


@dataclass
class ViewCollector:
    """Keeps views of the pattern that add information; tracks coverage and tilt for guidance."""

    spec: PatternSpec
    image_size: tuple[int, int] | None = None
    target_views: int = 12
    min_motion: float = 0.04  # mean corner displacement, as a fraction of the image diagonal
    tilted_needed: int = 3
    tilt_threshold: float = 0.08
    views: list[np.ndarray] = field(default_factory=list)
    tilts: list[float] = field(default_factory=list)
    covered: set[tuple[int, int]] = field(default_factory=set)
    frames_seen: int = 0
    frames_found: int = 0

    def offer(self, frame: np.ndarray) -> Offer:
        """Detect the pattern in ``frame`` and keep the view unless it nearly repeats a kept one."""
        h, w = frame.shape[:2]
        if self.image_size is None:
            self.image_size = (w, h)
        elif self.image_size != (w, h):
            return Offer(False, f"frame is {w}x{h}, earlier frames were "
                                f"{self.image_size[0]}x{self.image_size[1]}")
        self.frames_seen += 1
        corners = find_pattern(frame, self.spec)
        if corners is None:
            return Offer(False, "pattern not found (all of it must be visible)")
        self.frames_found += 1
        return self.add(corners)

    def add(self, corners: np.ndarray) -> Offer:
        """Keep already-detected corners unless they nearly repeat a kept view."""
        assert self.image_size is not None, "offer a frame first or set image_size"
        diag = float(np.hypot(*self.image_size))
        for i, kept in enumerate(self.views):
            # the same pattern turned half-way round is numbered backwards: compare both ways
            d = min(np.mean(np.linalg.norm(kept - corners, axis=1)),
                    np.mean(np.linalg.norm(kept[::-1] - corners, axis=1)))
            if d < self.min_motion * diag:
                return Offer(False, f"too similar to view {i + 1}: move or tilt the pattern", corners)
        self.views.append(corners)
        self.tilts.append(_tilt(corners, self.spec))
        self.covered |= self._cells(corners)
        return Offer(True, f"view {len(self.views)} kept", corners)

    def _cells(self, corners: np.ndarray) -> set[tuple[int, int]]:
        assert self.image_size is not None
        w, h = self.image_size
        gx, gy = COVERAGE_GRID
        cols = np.clip((corners[:, 0] / w * gx).astype(int), 0, gx - 1)
        rows = np.clip((corners[:, 1] / h * gy).astype(int), 0, gy - 1)
        return set(zip(cols.tolist(), rows.tolist(), strict=True))

    @property
    def coverage(self) -> float:
        """Fraction of the image regions that some kept view reached."""
        return len(self.covered) / (COVERAGE_GRID[0] * COVERAGE_GRID[1])

    @property
    def tilted_views(self) -> int:
        return sum(t >= self.tilt_threshold for t in self.tilts)

    @property
    def ready(self) -> bool:
        """Enough views, tilted enough, reaching every region: a solve will be trustworthy."""
        return (len(self.views) >= self.target_views and self.tilted_views >= self.tilted_needed
                and self.coverage >= 1.0)

    def hint(self) -> str:
        """The single most useful next thing for the user to do."""
        if not self.views:
            return "hold the printed pattern flat in front of the camera, all of it visible"
        if len(self.views) < 3:
            return "good: now move it to other places and angles"
        missing = [_REGION_NAMES[r][c] for r in range(3) for c in range(3) if (c, r) not in self.covered]
        if missing:
            return "move the pattern toward the " + ", ".join(missing[:3]) + " of the picture"
        if self.tilted_views < self.tilted_needed:
            return "tilt the pattern (about 30 degrees) left, right, up and down"
        if len(self.views) < self.target_views:
            return "keep going: a few more positions and angles"
        return "enough views: calibrating"

    def progress(self) -> str:
        """One status line, e.g. ``views 7/12 · coverage 6/9 · tilted 2/3 · move the pattern ...``."""
        cells = COVERAGE_GRID[0] * COVERAGE_GRID[1]
        return (f"views {len(self.views)}/{self.target_views} · coverage {len(self.covered)}/{cells} · "
                f"tilted {min(self.tilted_views, self.tilted_needed)}/{self.tilted_needed} · {self.hint()}")


@dataclass
class IntrinsicsResult:
    """The solved camera and how well it explains each view (pixels); ``dropped`` views were outliers."""

    camera: CameraIntrinsics
    rms: float
    per_view: list[float]
    dropped: int = 0


def _calibrate(views: list[np.ndarray], spec: PatternSpec, image_size: tuple[int, int],
               fix_k3: bool) -> tuple[float, np.ndarray, np.ndarray, list[float]]:
    obj = spec.object_points()
    image_points = [v.reshape(-1, 1, 2).astype(np.float32) for v in views]
    flags = cv2.CALIB_FIX_K3 if fix_k3 else 0
    rms, K, dist, rvecs, tvecs = cv2.calibrateCamera([obj] * len(views), image_points, image_size, None, None,
                                                     flags=flags)
    per_view = []
    for pts, r, t in zip(image_points, rvecs, tvecs, strict=True):
        proj, _ = cv2.projectPoints(obj, r, t, K, dist)
        per_view.append(float(np.sqrt(np.mean(np.sum((proj - pts) ** 2, axis=2)))))
    return float(rms), K, dist, per_view


def solve(views: list[np.ndarray], spec: PatternSpec, image_size: tuple[int, int],
          fix_k3: bool | None = None) -> IntrinsicsResult:
    """Run ``calibrateCamera`` on the kept views; ValueError when there are too few.

    ``k3`` (the sixth-order radial term) is held at zero unless there are 15 views or more, because
    with fewer views it trades off against k1/k2 and makes the edges worse, not better. Views that
    fit far worse than the others (a misdetected corner, a motion-blurred frame) are dropped once and
    the solve repeated.
    """
    if len(views) < 3:
        raise ValueError(f"only {len(views)} usable views of the pattern; at least 3 are needed (10+ advised)")
    if fix_k3 is None:
        fix_k3 = len(views) < 15
    rms, K, dist, per_view = _calibrate(views, spec, image_size, fix_k3)
    limit = max(0.5, 3.0 * float(np.median(per_view)))
    keep = [v for v, e in zip(views, per_view, strict=True) if e <= limit]
    dropped = len(views) - len(keep)
    if dropped and len(keep) >= 3:
        rms, K, dist, per_view = _calibrate(keep, spec, image_size, fix_k3)
    else:
        dropped = 0
    camera = CameraIntrinsics(size=(int(image_size[0]), int(image_size[1])), K=K.tolist(),
                              dist=dist.ravel()[:5].tolist(), rms=rms, views=len(per_view))
    return IntrinsicsResult(camera=camera, rms=rms, per_view=per_view, dropped=dropped)
