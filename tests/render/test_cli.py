"""`dama render`: scripts to videos and images, clear errors for bad input."""

from __future__ import annotations

import json

import cv2
import pytest

from dama.cli import main

SCRIPT = """# a short game
wwwwwwwwwwww........bbbbbbbbbbbb

wwwwwwww.wwww.......bbbbbbbbbbbb   # c3-d4
wwwwwwww.wwww.......b.bbbbbbbbbb   # the piece on d6 leaves (any change will do)
"""


def test_script_to_mp4(tmp_path, capsys) -> None:
    script = tmp_path / "game.txt"
    script.write_text(SCRIPT)
    out = tmp_path / "game.mp4"
    rc = main(["render", "--script", str(script), "--out", str(out), "--size", "192x108", "--fps", "6",
               "--hold", "0.5", "--seed", "3"])
    assert rc == 0
    truth = json.loads((tmp_path / "game.json").read_text())
    cap = cv2.VideoCapture(str(out))
    n = 0
    while cap.read()[0]:
        n += 1
    assert n == truth["frame_count"] > 3 * 3
    assert len(truth["timeline"]) == 3
    assert truth["size"] == [192, 108]
    assert "frame" in capsys.readouterr().err  # progress on stderr


def test_png_renders_first_state_and_is_reproducible(tmp_path) -> None:
    script = tmp_path / "s.txt"
    script.write_text(SCRIPT)
    for name in ("a.png", "b.png"):
        assert main(["render", "--script", str(script), "--out", str(tmp_path / name), "--size", "160x90",
                     "--seed", "5"]) == 0
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    assert cv2.imread(str(tmp_path / "a.png")).shape == (90, 160, 3)


@pytest.mark.parametrize(
    "content,needle",
    [
        ("wwwwwwwwwwww........bbbbbbbbbbbb\nwwwwwwwwwwww........bbbbbbbbbbb\n", ":2: expected 32 characters"),
        ("\n# c\nwwwwwwwwwwww........bbbbbbbbbbbx\n", ":3: invalid character"),
        ("# nothing\n\n", "no board states"),
    ],
)
def test_bad_script_names_the_line(tmp_path, capsys, content: str, needle: str) -> None:
    script = tmp_path / "bad.txt"
    script.write_text(content)
    rc = main(["render", "--script", str(script), "--out", str(tmp_path / "o.mp4")])
    assert rc == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err
    assert not (tmp_path / "o.mp4").exists()


@pytest.mark.parametrize("args,needle", [
    (["--size", "big"], "--size"), (["--fps", "0"], "--fps"), (["--hold", "-1"], "--hold"),
    (["--shake", "20"], "--shake"), (["--bumps", "-1"], "--bumps"), (["--tilt", "80"], "--tilt"),
    (["--seed", "-1"], "--seed"), (["--fps", "nan"], "--fps"), (["--hold", "inf"], "--hold"),
    (["--tilt", "nan"], "--tilt"), (["--shake", "nan"], "--shake"),
])
def test_bad_options(tmp_path, capsys, args, needle) -> None:
    script = tmp_path / "s.txt"
    script.write_text(SCRIPT)
    assert main(["render", "--script", str(script), "--out", str(tmp_path / "o.png"), *args]) == 2
    assert needle in capsys.readouterr().err


def test_missing_script(tmp_path, capsys) -> None:
    assert main(["render", "--script", str(tmp_path / "none.txt"), "--out", str(tmp_path / "o.png")]) == 2
    assert "cannot read script" in capsys.readouterr().err
