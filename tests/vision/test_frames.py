"""The pipeline's door (vision.frames): every form a picture arrives in is read as the same 8-bit BGR."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vision.frames import as_bgr8
from vision.pipeline import VisionPipeline

pictures = st.tuples(st.integers(1, 12), st.integers(1, 12)).flatmap(
    lambda hw: arrays(np.uint8, (*hw, 3)))


@settings(max_examples=80, deadline=None)
@given(bgr=pictures, alpha=st.integers(0, 255))
def test_every_encoding_of_a_picture_gives_back_its_8_bit_bgr(bgr, alpha):
    bgra = np.concatenate([bgr, np.full((*bgr.shape[:2], 1), alpha, np.uint8)], axis=2)
    for form in (bgr, bgra, bgr.astype(np.uint16) * 257, bgr.astype(np.float32) / 255.0,
                 bgr.astype(np.float64) / 255.0, np.asfortranarray(bgr)):
        got = as_bgr8(form)
        assert isinstance(got, np.ndarray) and got.dtype == np.uint8
        assert np.array_equal(got, bgr)
    if bgr.max() > 1:  # floats past 1 are read on the 0–255 scale
        assert np.array_equal(as_bgr8(bgr.astype(np.float32)), bgr)
    grey = bgr[:, :, 0]
    for form in (grey, grey[:, :, None]):
        assert np.array_equal(as_bgr8(form), np.repeat(grey[:, :, None], 3, axis=2))


@pytest.mark.parametrize(("frame", "named"), [
    (None, "not an image"), ("a picture", "not an image"), (np.zeros(10, np.uint8), "not an image"),
    (np.zeros((0, 4, 3), np.uint8), "not an image"), (np.zeros((4, 4, 5), np.uint8), "5 channels"),
    (np.zeros((4, 4, 3), bool), "bool"), (np.zeros((4, 4, 3), np.int8), "int8"),
])
def test_what_is_no_picture_is_named(frame, named):
    why = as_bgr8(frame)
    assert isinstance(why, str) and named in why
    res = VisionPipeline().process(frame)
    assert not res.found and named in res.reason
    report = VisionPipeline().learn_start_position(frame)
    assert report["ok"] is False and named in report["reason"]


def test_a_board_reads_the_same_in_every_encoding(get_scene):
    """A rendered scene handed over as BGRA, 16-bit and float (0–1) reads as its 8-bit picture does;
    before, the first two ended in OpenCV assertions and the float one was "blank"."""
    sc = get_scene(3)
    want = VisionPipeline().process(sc.image)
    assert want.found
    for form in (cv2.cvtColor(sc.image, cv2.COLOR_BGR2BGRA), sc.image.astype(np.uint16) * 257,
                 sc.image.astype(np.float32) / 255.0):
        got = VisionPipeline().process(form)
        assert got.found and got.board == want.board and got.corners == want.corners
        overlay = VisionPipeline().draw_overlay(form, got)
        assert overlay.dtype == np.uint8 and overlay.shape == sc.image.shape
