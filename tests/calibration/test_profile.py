"""Profile files: round trip, default folder, migration, and clear errors for every kind of bad file."""

from __future__ import annotations

import json

import pytest

from calibration.profile import (
    PROFILE_VERSION,
    BoardCalibration,
    CameraIntrinsics,
    Profile,
    ProfileError,
    default_profile_dir,
    load_profile,
    profile_path,
    save_profile,
)


def _profile() -> Profile:
    camera = CameraIntrinsics(size=(640, 480), K=[[500.0, 0, 320], [0, 502.0, 240], [0, 0, 1]],
                              dist=[-0.2, 0.05, 0.001, 0.0, 0.0], rms=0.21, views=12)
    board = BoardCalibration(corners={"a1": (100.5, 400.0), "h1": (540.0, 401.0), "h8": (500.0, 80.0),
                                      "a8": (140.0, 79.5)}, white_side="bottom", source="manual",
                             image_size=(640, 480))
    return Profile(name="kitchen", camera=camera, board=board, colours={"dark": [1, 2, 3]})


def test_round_trip_keeps_every_field(tmp_path):
    path = save_profile(_profile(), tmp_path / "p.json")
    loaded = load_profile(path)
    original = _profile()
    assert loaded.camera == original.camera
    assert loaded.board == original.board
    assert loaded.colours == original.colours
    assert json.loads(path.read_text())["version"] == PROFILE_VERSION


def test_bare_name_goes_to_xdg_config(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_profile_dir() == tmp_path / "dama" / "profiles"
    written = save_profile(_profile())
    assert written == tmp_path / "dama" / "profiles" / "kitchen.json"
    assert load_profile("kitchen").name == "kitchen"
    assert profile_path("some/where.json").name == "where.json"


def test_home_config_when_xdg_unset(monkeypatch, tmp_path):
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_profile_dir() == tmp_path / ".config" / "dama" / "profiles"


def test_version_0_flat_file_is_migrated(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"K": [[400, 0, 160], [0, 400, 120], [0, 0, 1]], "dist": [0.1, 0, 0, 0],
                                "image_size": [320, 240],
                                "corners": [[10, 200], [300, 200], [280, 20], [30, 20]]}))
    p = load_profile(path)
    assert p.camera is not None and p.camera.size == (320, 240) and p.camera.focal == (400, 400)
    assert p.board is not None and p.board.corners["h8"] == (280.0, 20.0)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"{\"version\": 1, \"camera\": ", "broken JSON at line 1"),
        (b"\x89PNG\r\n\x1a\n\xff\xfe", "not a text file"),
        (b"[1, 2, 3]", "must be an object"),
        (b"{\"hello\": 1}", "not a dama profile"),
        (b"{\"version\": 7, \"board\": null}", "newer dama"),
        (b"{\"version\": \"one\"}", "not a whole number"),
        (b"{\"version\": 1, \"board\": {\"corners\": {\"a1\": [1, 2]}}}", "lacks h1, h8, a8"),
        (b"{\"version\": 1, \"board\": {\"corners\": {\"a1\": [1, 2], \"h1\": [1, \"x\"], \"h8\": [0, 0],"
         b" \"a8\": [0, 0]}}}", "not a finite number"),
        (b"{\"version\": 1, \"camera\": {\"size\": [640, 480], \"K\": [[1, 0], [0, 1]], \"dist\": []}}",
         "3x3"),
        (b"{\"version\": 1, \"camera\": {\"size\": [640, 480], \"K\": [[9, 0, 1], [0, 9, 1], [0, 0, 1]],"
         b" \"dist\": [1, 2, 3]}}", "3 coefficients"),
        (b"{\"version\": 1, \"board\": {\"corners\": {\"a1\": [1, 2], \"h1\": [1, 2], \"h8\": [0, 0],"
         b" \"a8\": [0, 0]}, \"white_side\": \"north\"}}", "white_side"),
        (b"{\"version\": 1, \"colours\": [1]}", "colours must be an object"),
        (b"{\"version\": 2, \"board\": {\"corners\": {\"a1\": [1, 2], \"h1\": [1, 2], \"h8\": [0, 0],"
         b" \"a8\": [0, 0]}, \"fixed\": \"yes\"}}", "board.fixed"),
    ],
)
def test_bad_files_give_profile_error_naming_file_and_problem(tmp_path, content, expected):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    assert expected in str(info.value)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(ProfileError, match="no such file"):
        load_profile(tmp_path / "nope.json")


def test_directory_instead_of_file(tmp_path):
    (tmp_path / "x.json").mkdir()
    with pytest.raises(ProfileError, match="cannot be read"):
        load_profile(tmp_path / "x.json")
