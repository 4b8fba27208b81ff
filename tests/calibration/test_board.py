"""Corner naming, White's side and the čl. 2.4 check, on a perspective-warped synthetic board."""

from __future__ import annotations

import numpy as np
import pytest
from calib_synthetic import scene

from calibration.board import (
    CornerError,
    corner_error,
    grid_lines,
    label_corners,
    orient_from_start,
    parse_corners,
    white_side_of,
)
from calibration.colours import START

# a1, h1, h8, a8 of the picture when White sits at the bottom (a trapezoid: camera in front of White)
BOTTOM = np.array([(40, 220), (290, 215), (250, 30), (75, 35)], np.float64)


@pytest.mark.parametrize("side", ["bottom", "right", "top", "left"])
def test_labels_run_counter_clockwise_from_whites_left(side):
    shuffled = BOTTOM[[2, 0, 3, 1]]
    named = label_corners(shuffled, side)
    assert white_side_of(named) == side
    if side == "bottom":
        assert named == {k: tuple(map(float, p)) for k, p in zip(("a1", "h1", "h8", "a8"), BOTTOM, strict=True)}


@pytest.mark.parametrize("rotation", [0, 1, 2, 3])
def test_start_position_tells_whites_side(rotation):
    # the same board seen with White at each side: roll which image point is a1
    corners = np.roll(BOTTOM, -rotation, axis=0)
    frame = scene(START, corners)
    report = orient_from_start(frame, BOTTOM[::-1])
    assert report.rule_ok
    truth = dict(zip(("a1", "h1", "h8", "a8"), map(tuple, corners), strict=True))
    assert corner_error(report.corners, truth) < 1e-6
    assert report.white_side == white_side_of(truth)


def test_quarter_turned_board_breaks_rule_2_4():
    frame = scene(START, BOTTOM, quarter_turned=True)
    report = orient_from_start(frame, BOTTOM)
    assert report.white_side == "bottom"
    assert not report.rule_ok
    assert "čl. 2.4" in report.message()


def test_parse_corners_and_bad_input():
    pts = parse_corners("40,220 290,215; 250,30 75,35", (320, 240))
    assert pts.shape == (4, 2)
    with pytest.raises(CornerError, match="eight numbers"):
        parse_corners("1,2,3")
    with pytest.raises(CornerError, match="eight numbers"):
        parse_corners("a,b,c,d,e,f,g,h")
    with pytest.raises(CornerError, match="outside"):
        parse_corners("40,220 290,215 250,30 75,900", (320, 240))
    with pytest.raises(CornerError, match="convex"):
        parse_corners("0,0 100,0 50,0 0,100")  # three in line
    with pytest.raises(CornerError, match="px²"):
        parse_corners("0,0 5,0 5,5 0,5")


def test_grid_lines_pass_through_corners():
    named = label_corners(BOTTOM, "bottom")
    lines = grid_lines(named)
    assert len(lines) == 18
    ends = np.array([p for line in lines for p in line])
    for c in BOTTOM:
        assert np.min(np.linalg.norm(ends - c, axis=1)) < 1e-6
