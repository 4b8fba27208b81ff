"""Stage 5: the stabilizer's timing behaviour (frame time, not wall time)."""

from __future__ import annotations

import pytest

from vision.stabilizer import Stabilizer

A = "w" * 12 + "." * 8 + "b" * 12
B = "w" * 11 + "." + "w" + "." * 7 + "b" * 12


def feed(stab: Stabilizer, frames) -> list:
    return [(t, out) for t, obs, hand in frames if (out := stab.update(t, obs, hand)) is not None]


def test_emits_once_after_hold():
    stab = Stabilizer(hold_seconds=0.5)
    frames = [(t / 10, A, False) for t in range(0, 20)]
    assert feed(stab, frames) == [(0.5, A)]


def test_hand_restarts_the_wait_and_change_is_emitted():
    stab = Stabilizer(hold_seconds=0.5)
    frames = [(t / 10, A, False) for t in range(0, 8)]  # A emitted at 0.5
    frames += [(0.8, "?" * 32, True), (0.9, B, True), (1.0, B, True)]  # hand moving a piece
    frames += [(1.0 + t / 10, B, False) for t in range(1, 10)]  # hand gone at 1.1: B stable at 1.6
    assert feed(stab, frames) == [(0.5, A), (pytest.approx(1.6), B)]


def test_flicker_never_stable():
    stab = Stabilizer(hold_seconds=0.3)
    frames = [(t / 10, A if t % 2 else B, False) for t in range(30)]
    assert feed(stab, frames) == []


def test_question_marks_and_missing_board_are_not_stable():
    stab = Stabilizer(hold_seconds=0.2)
    occluded = A[:5] + "?" + A[6:]
    assert feed(stab, [(t / 10, occluded, False) for t in range(10)]) == []
    assert feed(stab, [(t / 10, None, False) for t in range(10)]) == []


def test_same_board_after_hand_is_not_repeated():
    stab = Stabilizer(hold_seconds=0.2)
    frames = [(t / 10, A, False) for t in range(5)] + [(0.5, A, True)] + [(0.6 + t / 10, A, False) for t in range(5)]
    assert [o for _, o in feed(stab, frames)] == [A]


def test_configurable_hold_and_validation():
    stab = Stabilizer(hold_seconds=0.0)
    assert stab.update(0.0, A, False) == A
    with pytest.raises(ValueError):
        Stabilizer(hold_seconds=-1)
