"""Colour checks over vision's model: learned on the start position, misreads explained, lighting judged,
drift followed."""

from __future__ import annotations

import numpy as np
import pytest
from calib_synthetic import scene

from calibration.board import label_corners
from calibration.colours import (
    START,
    adapt,
    check_start,
    classify,
    dark_square_samples,
    learn,
    lighting,
    square_vectors,
    worst_margin,
)
from vision.classify import ColourModel

CORNERS = label_corners(np.array([(40, 220), (290, 215), (250, 30), (75, 35)], np.float64), "bottom")
PTS = np.array([CORNERS[k] for k in ("a1", "h1", "h8", "a8")])


def _model(frame: np.ndarray) -> ColourModel:
    return learn(square_vectors(frame, CORNERS))


def test_learned_model_is_visions_and_reads_the_start_position_back():
    frame = scene(START, PTS)
    model = _model(frame)
    assert isinstance(model, ColourModel)  # one model: the recognizer's own
    reading, conf = classify(model, square_vectors(frame, CORNERS))
    assert reading == START
    dark, _ = dark_square_samples(frame, CORNERS)
    assert check_start(reading, dark) == []
    assert lighting(frame, CORNERS, model).ok


def test_missing_piece_is_named_with_square_and_advice():
    model = _model(scene(START, PTS))
    broken = START[:10] + "." + START[11:]  # e3 is the 11th dark square
    frame = scene(broken, PTS)
    dark, _ = dark_square_samples(frame, CORNERS)
    problems = check_start(classify(model, square_vectors(frame, CORNERS))[0], dark)
    assert [p.square for p in problems] == ["e3"]
    assert problems[0].message.startswith("e3 reads empty but should hold a light piece:")
    margin, square = worst_margin(model, square_vectors(frame, CORNERS))
    assert (margin, square) == (0.0, "e3")


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


def test_drift_follows_slow_dimming_and_ignores_outliers():
    base = scene(START, PTS).astype(np.float64)
    model = _model(base.astype(np.uint8))
    stale = _model(base.astype(np.uint8))
    for step in range(1, 41):  # the lamp fades by 40% over the game, a little at a time
        vec = square_vectors((base * (1 - 0.4 * step / 40)).astype(np.uint8), CORNERS)
        for _ in range(10):
            assert adapt(model, vec, START, rate=0.05)
    empty_now = vec[12:20].mean(axis=0)
    # within a step and a half of the 8-bit Lab conversion (vision.cells.lab_of: a and b move in steps of 1)
    assert np.linalg.norm(model.mean[0] - empty_now) < 1.5
    assert np.linalg.norm(stale.mean[0] - empty_now) > 5.0
    assert classify(model, vec)[0] == START
    # squares labelled empty that show light pieces (a misread or a hand) must not drag the mean
    frozen = ColourModel.from_json(model.to_json())
    lying = vec.copy()
    lying[12:20] = vec[0:8]
    adapt(frozen, lying, START, rate=0.5)
    assert np.allclose(frozen.mean[0], model.mean[0], atol=1e-3)


def test_adapt_rejects_silly_rate_and_unseen_squares():
    frame = scene(START, PTS)
    model = _model(frame)
    vec = square_vectors(frame, CORNERS)
    with pytest.raises(ValueError, match="rate"):
        adapt(model, vec, START, rate=2.0)
    assert adapt(model, vec, "?" + START[1:]) is False
