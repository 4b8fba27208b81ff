"""Colour profile: learned on the start position, misreads explained, lighting judged, drift followed."""

from __future__ import annotations

import numpy as np
import pytest
from calib_synthetic import scene

from calibration.board import label_corners
from calibration.colours import START, ColourModel, check_start, dark_square_samples, lighting

CORNERS = label_corners(np.array([(40, 220), (290, 215), (250, 30), (75, 35)], np.float64), "bottom")
PTS = np.array([CORNERS[k] for k in ("a1", "h1", "h8", "a8")])


def _model(frame: np.ndarray) -> ColourModel:
    return ColourModel.learn(*dark_square_samples(frame, CORNERS))


def test_learned_model_reads_the_start_position_back():
    frame = scene(START, PTS)
    model = _model(frame)
    dark, _ = dark_square_samples(frame, CORNERS)
    assert model.classify(dark) == START
    assert check_start(model.classify(dark), dark, model) == []
    assert all(v > 1.5 for v in model.separation().values())
    assert lighting(frame, CORNERS, model).ok


def test_missing_piece_is_named_with_square_and_advice():
    model = _model(scene(START, PTS))
    broken = START[:10] + "." + START[11:]  # e3 is the 11th dark square
    dark, _ = dark_square_samples(scene(broken, PTS), CORNERS)
    problems = check_start(model.classify(dark), dark, model)
    assert [p.square for p in problems] == ["e3"]
    assert problems[0].message.startswith("e3 reads empty but should hold a light piece:")


def test_hidden_square_and_stray_piece_messages():
    reading = "?" + START[1:12] + "b" + START[13:]
    problems = check_start(reading)
    assert [p.square for p in problems] == ["a1", "b4"]
    assert "hidden" in problems[0].message
    assert problems[1].message.startswith("b4 reads a dark piece but should be empty")


def test_glare_and_darkness_are_reported():
    frame = scene(START, PTS)
    model = _model(frame)
    glare = frame.copy()
    glare[60:200, 80:260] = 255
    report = lighting(glare, CORNERS, model)
    assert not report.ok and "glare" in report.message()
    dim = (frame * 0.15).astype(np.uint8)
    assert "dark" in lighting(dim, CORNERS, _model(dim)).message()


def test_drift_update_follows_slow_dimming_and_ignores_outliers():
    model = _model(scene(START, PTS))
    base = scene(START, PTS).astype(np.float64)
    for step in range(1, 41):  # the lamp fades by 30% over the game, a little at a time
        dark, _ = dark_square_samples((base * (1 - 0.3 * step / 40)).astype(np.uint8), CORNERS)
        for _ in range(10):
            model.update(dark, START, rate=0.05)
    target = dark[12:20].mean(axis=0)
    assert np.linalg.norm(np.array(model.means["."]) - target) < 1.0
    assert model.classify(dark) == START
    stale = _model(scene(START, PTS))
    assert np.linalg.norm(np.array(stale.means["."]) - target) > 10
    # a square labelled empty that shows a piece (a misread or a hand) must not drag the mean
    frozen = ColourModel.from_json(model.to_json())
    lying = dark.copy()
    lying[12:20] = np.array(model.means["w"])
    frozen.update(lying, START, rate=0.5)
    assert np.allclose(frozen.means["."], model.means["."])


def test_update_rejects_silly_rate():
    model = _model(scene(START, PTS))
    with pytest.raises(ValueError, match="rate"):
        model.update(np.zeros((32, 3)), START, rate=2.0)
