"""Calibration profiles: one versioned JSON file per camera and board.

A profile holds what set-up learned so the watch loop never has to ask again::

    {"version": 2,
     "name": "kitchen-webcam",
     "camera": {"size": [w, h], "K": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]], "dist": [k1, k2, p1, p2, k3],
                "rms": 0.21, "views": 14} | null,
     "board": {"corners": {"a1": [x, y], "h1": ..., "h8": ..., "a8": ...}, "white_side": "bottom",
               "source": "auto" | "manual", "fixed": bool, "image_size": [w, h]} | null,
     "colours": {...}}          # the vision pipeline's own colour model, stored as it gives it

``board.fixed`` (version 2): the user set or confirmed the corners, so the recognizer uses them as its
grid instead of finding the board in every frame. Board corners are in the coordinates of the frame
the pipeline sees: undistorted when the profile has camera intrinsics. Loading never raises anything
but :class:`ProfileError`, whose message names the file and the problem in words a user can act on;
files written by older versions are migrated on load.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

PROFILE_VERSION = 2
CORNER_NAMES = ("a1", "h1", "h8", "a8")
WHITE_SIDES = ("bottom", "right", "top", "left")


class ProfileError(ValueError):
    """A profile file that cannot be used; the message says which file and why."""


@dataclass
class CameraIntrinsics:
    """Pinhole camera with lens distortion as OpenCV models it (``K`` and ``dist``)."""

    size: tuple[int, int]
    K: list[list[float]]
    dist: list[float]
    rms: float | None = None
    views: int | None = None

    @property
    def focal(self) -> tuple[float, float]:
        return self.K[0][0], self.K[1][1]

    def to_json(self) -> dict[str, Any]:
        return {"size": list(self.size), "K": [list(map(float, r)) for r in self.K],
                "dist": [float(d) for d in self.dist], "rms": self.rms, "views": self.views}

    @classmethod
    def from_json(cls, data: Any) -> CameraIntrinsics:
        _require_mapping(data, "camera")
        size = _number_list(data.get("size"), "camera.size", 2)
        K = data.get("K")
        if not isinstance(K, list) or len(K) != 3:
            raise _Bad("camera.K must be a 3x3 matrix")
        rows = [_number_list(r, "camera.K row", 3) for r in K]
        dist = _number_list(data.get("dist"), "camera.dist", None)
        if len(dist) not in (4, 5, 8, 12, 14):
            raise _Bad(f"camera.dist has {len(dist)} coefficients; OpenCV uses 4, 5, 8, 12 or 14")
        if size[0] <= 0 or size[1] <= 0 or rows[0][0] <= 0 or rows[1][1] <= 0:
            raise _Bad("camera.size and the focal lengths in camera.K must be positive")
        rms = data.get("rms")
        views = data.get("views")
        return cls(size=(int(size[0]), int(size[1])), K=rows, dist=dist,
                   rms=float(rms) if isinstance(rms, (int, float)) else None,
                   views=int(views) if isinstance(views, int) else None)


@dataclass
class BoardCalibration:
    """Where the playing area is in the image and which side White sits on."""

    corners: dict[str, tuple[float, float]]
    white_side: str = "bottom"
    source: str = "auto"
    image_size: tuple[int, int] | None = None
    fixed: bool = False  # the recognizer uses these corners as its grid (set or confirmed by the user)

    def to_json(self) -> dict[str, Any]:
        return {"corners": {k: [float(self.corners[k][0]), float(self.corners[k][1])] for k in CORNER_NAMES},
                "white_side": self.white_side, "source": self.source, "fixed": self.fixed,
                "image_size": list(self.image_size) if self.image_size else None}

    @classmethod
    def from_json(cls, data: Any) -> BoardCalibration:
        _require_mapping(data, "board")
        corners = data.get("corners")
        _require_mapping(corners, "board.corners")
        missing = [k for k in CORNER_NAMES if k not in corners]
        if missing:
            raise _Bad(f"board.corners lacks {', '.join(missing)} (needs a1, h1, h8 and a8)")
        pts = {k: tuple(_number_list(corners[k], f"board.corners.{k}", 2)) for k in CORNER_NAMES}
        side = data.get("white_side", "bottom")
        if side not in WHITE_SIDES:
            raise _Bad(f"board.white_side is {side!r}; expected one of {', '.join(WHITE_SIDES)}")
        size = data.get("image_size")
        image_size = tuple(int(v) for v in _number_list(size, "board.image_size", 2)) if size else None
        fixed = data.get("fixed", False)
        if not isinstance(fixed, bool):
            raise _Bad(f"board.fixed is {fixed!r}; expected true or false")
        return cls(corners=pts, white_side=side, source=str(data.get("source", "auto")),
                   image_size=image_size, fixed=fixed)  # type: ignore[arg-type]


@dataclass
class Profile:
    """Everything calibration learned for one camera looking at one board."""

    name: str = "default"
    camera: CameraIntrinsics | None = None
    board: BoardCalibration | None = None
    colours: dict[str, Any] = field(default_factory=dict)
    updated: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"version": PROFILE_VERSION, "name": self.name,
                "updated": self.updated or _now(),
                "camera": self.camera.to_json() if self.camera else None,
                "board": self.board.to_json() if self.board else None,
                "colours": self.colours}

    @classmethod
    def from_json(cls, data: Any) -> Profile:
        """Validate a parsed document (any version we know) and build the profile."""
        data = migrate(data)
        colours = data.get("colours") or {}
        if not isinstance(colours, dict):
            raise _Bad("colours must be an object")
        camera = CameraIntrinsics.from_json(data["camera"]) if data.get("camera") else None
        board = BoardCalibration.from_json(data["board"]) if data.get("board") else None
        return cls(name=str(data.get("name") or "default"), camera=camera, board=board,
                   colours=colours, updated=str(data.get("updated") or ""))


class _Bad(ProfileError):
    """A validation failure; :func:`load_profile` adds the file name to its message."""


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def _require_mapping(value: Any, what: str) -> None:
    if not isinstance(value, dict):
        raise _Bad(f"{what} must be an object, found {type(value).__name__}")


def _number_list(value: Any, what: str, length: int | None) -> list[float]:
    if not isinstance(value, (list, tuple)):
        raise _Bad(f"{what} must be a list of numbers")
    if length is not None and len(value) != length:
        raise _Bad(f"{what} must have {length} numbers, found {len(value)}")
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise _Bad(f"{what} holds {v!r}, which is not a finite number")
        out.append(float(v))
    return out


# --- versions ----------------------------------------------------------------------------------------

def _from_v0(data: dict[str, Any]) -> dict[str, Any]:
    """Version 0: the unversioned flat layout of early builds (``K``/``dist``/``corners`` at top level)."""
    camera = None
    if "K" in data:
        camera = {"size": data.get("image_size") or data.get("size"), "K": data["K"],
                  "dist": data.get("dist", [0, 0, 0, 0, 0]), "rms": data.get("rms")}
    board = None
    if "corners" in data:
        corners = data["corners"]
        if isinstance(corners, list) and len(corners) == 4:  # plain list in a1, h1, h8, a8 order
            corners = dict(zip(CORNER_NAMES, corners, strict=True))
        board = {"corners": corners, "white_side": data.get("white_side", "bottom"),
                 "source": data.get("source", "auto"), "image_size": data.get("image_size")}
    return {"version": 1, "name": data.get("name", "default"), "camera": camera, "board": board,
            "colours": data.get("colours") or {}}


def _from_v1(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 had no ``board.fixed``: corners given by hand were meant as the grid, so they become fixed."""
    board = data.get("board")
    if isinstance(board, dict):
        board = {**board, "fixed": board.get("source") == "manual"}
    return {**data, "version": 2, "board": board}


# MIGRATIONS[v] turns a version-v document into a version v+1 document.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {0: _from_v0, 1: _from_v1}


def migrate(data: Any) -> dict[str, Any]:
    """Bring a parsed profile document of any known version to the current one."""
    _require_mapping(data, "the profile")
    version = data.get("version", 0 if {"K", "corners"} & data.keys() else None)
    if version is None:
        raise _Bad("it is not a dama profile (no \"version\" field and none of camera, board or colours)"
                   if not {"camera", "board", "colours"} & data.keys() else "it has no \"version\" field")
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise _Bad(f"its version {version!r} is not a whole number")
    if version > PROFILE_VERSION:
        raise _Bad(f"it was written by a newer dama (profile version {version}; this one reads up to "
                   f"{PROFILE_VERSION}): update dama or calibrate again")
    while version < PROFILE_VERSION:
        data = MIGRATIONS[version](data)
        version = data["version"]
    return data


# --- files -------------------------------------------------------------------------------------------

def default_profile_dir() -> Path:
    """``$XDG_CONFIG_HOME/dama/profiles`` (``~/.config/dama/profiles`` when the variable is unset)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "dama" / "profiles"


def profile_path(name_or_path: str | os.PathLike[str]) -> Path:
    """A bare name (``kitchen-webcam``) lives in the default folder; anything with a slash or ``.json``
    is taken as a path."""
    text = os.fspath(name_or_path)
    if os.sep in text or "/" in text or text.endswith(".json"):
        return Path(text).expanduser()
    return default_profile_dir() / f"{text}.json"


def save_profile(profile: Profile, path: str | os.PathLike[str] | None = None) -> Path:
    """Write atomically (a crash mid-write never leaves half a profile); returns the path written."""
    target = profile_path(path if path is not None else profile.name)
    target.parent.mkdir(parents=True, exist_ok=True)
    profile.updated = _now()
    text = json.dumps(profile.to_json(), indent=2, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".profile-", suffix=".json", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def load_profile(path: str | os.PathLike[str]) -> Profile:
    """Read and validate a profile; every problem becomes a :class:`ProfileError` naming the file."""
    target = profile_path(path)
    try:
        raw = target.read_bytes()
    except FileNotFoundError:
        raise ProfileError(f"profile {target}: no such file (run `dama calibrate` to create it)") from None
    except OSError as exc:
        raise ProfileError(f"profile {target}: cannot be read ({exc.strerror or exc})") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ProfileError(f"profile {target}: not a text file (is it really a profile?)") from None
    except json.JSONDecodeError as exc:
        raise ProfileError(f"profile {target}: broken JSON at line {exc.lineno}, column {exc.colno} "
                           f"({exc.msg}); calibrate again or fix the file") from None
    try:
        return Profile.from_json(data)
    except _Bad as exc:
        raise ProfileError(f"profile {target}: {exc}") from None
