"""`dama recognize`: the JSON contract and its failure cases (never a traceback)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from dama.cli import main


def _run(capsys, *args) -> tuple[int, dict]:
    rc = main(["recognize", *args])
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    return rc, json.loads(out[0])


def test_found(tmp_path, capsys, get_scene):
    sc = get_scene(3)
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), sc.start_image)
    rc, data = _run(capsys, str(path), "--json")
    assert rc == 0
    assert list(data) == ["found", "corners", "orientation_ok", "board", "ms"]
    assert data["found"] is True and data["orientation_ok"] is True
    assert data["board"] == "w" * 12 + "." * 8 + "b" * 12
    for k in ("a1", "h1", "h8", "a8"):
        assert np.hypot(*np.subtract(data["corners"][k], sc.corners[k])) < 2.0


def test_crown_px_is_added_only_when_asked(tmp_path, capsys, get_scene):
    """`--crown-px` appends, after the contract's keys, how far a king's top lands beyond a man's on each
    square: the pipeline's own figure, in observation order."""
    from vision.pipeline import VisionPipeline

    sc = get_scene(3)
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), sc.start_image)
    rc, data = _run(capsys, str(path), "--json", "--crown-px")
    assert rc == 0
    assert list(data) == ["found", "corners", "orientation_ok", "board", "ms", "crown_px"]
    want = VisionPipeline().process(sc.start_image).crown_px
    assert np.allclose(data["crown_px"], want, atol=0.051) and len(data["crown_px"]) == 32
    missing = tmp_path / "none.png"
    rc, data = _run(capsys, str(missing), "--crown-px")
    assert rc == 1 and list(data) == ["found", "reason"]


@pytest.mark.parametrize("kind", ["missing", "corrupt", "black", "half", "text", "empty", "folder", "thumbnail"])
def test_not_found(tmp_path, capsys, get_scene, kind):
    path = tmp_path / f"{kind}.png"
    if kind == "empty":  # OpenCV asserts on an empty buffer
        path.write_bytes(b"")
    elif kind == "folder":
        path.mkdir()
    elif kind == "thumbnail":  # a board 30 px across: once an assertion in the adaptive threshold
        cv2.imwrite(str(path), cv2.resize(get_scene(3).start_image, (40, 24), interpolation=cv2.INTER_AREA))
    elif kind == "corrupt":
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    elif kind == "text":
        path = tmp_path / "notes.txt"
        path.write_text("not an image")
    elif kind == "black":
        cv2.imwrite(str(path), np.zeros((360, 640, 3), np.uint8))
    elif kind == "half":
        sc = get_scene(3)
        img = sc.start_image.copy()
        xs = [c[0] for c in sc.corners.values()]
        img[:, int((min(xs) + max(xs)) / 2):] = 0
        cv2.imwrite(str(path), img)
    rc, data = _run(capsys, str(path), "--json")
    assert rc == 1
    assert data["found"] is False and data["reason"]
    if kind in ("empty", "folder"):
        assert data["reason"] == f"{'empty file' if kind == 'empty' else 'not a file'}: {path}"


@pytest.mark.parametrize("where", ["no such folder", "unknown picture type", "a folder"])
def test_an_overlay_that_cannot_be_written_is_refused_before_any_work(tmp_path, capsys, get_scene, where):
    img = tmp_path / "b.png"
    cv2.imwrite(str(img), get_scene(3).start_image)
    overlay = {"no such folder": tmp_path / "none" / "o.png", "unknown picture type": tmp_path / "o.xyz",
               "a folder": tmp_path}[where]
    assert main(["recognize", str(img), "--overlay", str(overlay)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "cannot write the overlay" in captured.err
    assert (where.split()[-1] if where != "a folder" else "folder") in captured.err
    assert not (tmp_path / "none").exists() and not (tmp_path / "o.xyz").exists()
    rc, data = _run(capsys, str(img), "--overlay", str(tmp_path / "o.jpg"))
    assert rc == 0 and data["found"] is True and cv2.imread(str(tmp_path / "o.jpg")) is not None


def test_bad_profile(tmp_path, capsys, get_scene):
    img = tmp_path / "b.png"
    cv2.imwrite(str(img), get_scene(3).start_image)
    prof = tmp_path / "p.json"
    prof.write_text('{"colour_model": {"mean": [1], "std": [1]}}')
    assert main(["recognize", str(img), "--profile", str(prof), "--json"]) == 2
    prof.write_text("{broken")
    assert main(["recognize", str(img), "--profile", str(prof), "--json"]) == 2
    assert "profile" in capsys.readouterr().err


def test_a_calibration_profile_gives_its_colours_corners_and_white_side(tmp_path, capsys, get_scene):
    """`dama recognize IMAGE --profile` with the file `dama calibrate` writes (colours nested under
    `colours.vision`, corners under `board`): a board whose pieces stand as if White sat opposite (each
    side's men on the other's half) is read from White's side as calibrated. (Until 2026-12-02 such a
    file was taken for the pipeline's own profile and its contents ignored: the pieces decided, and a1
    came out at h8's corner.)"""
    from calibration.profile import BoardCalibration, Profile, save_profile
    from calibration.vision_adapter import learn_with_pipeline
    from vision.geometry import CORNER_NAMES
    from vision.render import render_scene

    sc = get_scene(5)
    swapped = "bbbbbbbbbbbb........wwwwwwwwwwww"
    mid = tmp_path / "mid.png"
    cv2.imwrite(str(mid), render_scene(swapped, sc.params).image)
    profile = Profile(name="test")
    learned, why = learn_with_pipeline(sc.start_image, profile)
    assert learned is not None, why
    profile.colours["vision"] = learned
    profile.board = BoardCalibration(corners={k: tuple(learned["corners"][k]) for k in CORNER_NAMES})
    path = save_profile(profile, tmp_path / "cal.json")

    def a1_error(data: dict) -> float:
        return float(np.linalg.norm(np.subtract(data["corners"]["a1"], sc.corners["a1"])))

    rc, alone = _run(capsys, str(mid), "--json")
    assert rc == 0 and a1_error(alone) > 100  # the pieces put White on the other side
    rc, data = _run(capsys, str(mid), "--profile", str(path), "--json")
    assert rc == 0 and a1_error(data) < 3, data["corners"]
    assert data["board"] == swapped


def test_a_damaged_calibration_profile_is_refused_with_the_file_named(tmp_path, capsys, get_scene):
    img = tmp_path / "b.png"
    cv2.imwrite(str(img), get_scene(3).start_image)
    prof = tmp_path / "cal.json"
    prof.write_text(json.dumps({"version": 2, "camera": {"size": [640, 360], "K": [[1, 0], [0, 1]], "dist": []}}))
    assert main(["recognize", str(img), "--profile", str(prof), "--json"]) == 2
    err = capsys.readouterr().err
    assert "cal.json" in err and "camera" in err, err
