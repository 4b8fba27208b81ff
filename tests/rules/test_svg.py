"""The SVG board: valid XML, one drawn piece per piece, crowns on kings, highlights marked by more than colour,
flipping, unseen squares, accessible titles."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from rules import Position
from rules.svg import HIGHLIGHT_STYLES, board_svg

NS = {"s": "http://www.w3.org/2000/svg"}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def groups(root: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in root.iter("{http://www.w3.org/2000/svg}g") if cls in g.get("class", "").split()]


def title_of(el: ET.Element) -> str:
    return el.find("s:title", NS).text


def test_every_piece_is_drawn_once_with_its_name_and_kings_carry_a_crown():
    pos = Position.from_fen("B:Wa1,c3,Kd4:Bb6,Ke7,h8")
    root = parse(board_svg(pos))
    pieces = groups(root, "piece")
    assert sorted(title_of(g) for g in pieces) == sorted([
        "white man on a1", "white man on c3", "white king on d4", "black man on b6", "black king on e7",
        "black man on h8"])
    kings = groups(root, "king")
    assert len(kings) == 2 and all(g.find("s:path", NS) is not None for g in kings)  # the crown mark
    assert all(g.find("s:path", NS) is None for g in pieces if g not in kings)
    assert root.find("s:title", NS).text == "Czech draughts position, black to move"
    assert "white kings: d4" in root.find("s:desc", NS).text
    assert root.get("role") == "img"


def test_flipped_board_puts_a1_in_the_other_corner():
    def centre_of(svg: str, name: str) -> tuple[float, float]:
        g = next(g for g in groups(parse(svg), "piece") if title_of(g).endswith(name))
        c = g.findall("s:circle", NS)[1]
        return float(c.get("cx")), float(c.get("cy"))

    board = "w" + "." * 30 + "b"
    x, y = centre_of(board_svg(board, size=400), "a1")
    fx, fy = centre_of(board_svg(board, size=400, flipped=True), "a1")
    assert x < 200 < y and fx > 200 > fy


@pytest.mark.parametrize("kind", sorted(HIGHLIGHT_STYLES))
def test_each_highlight_kind_has_a_mark_besides_colour(kind):
    root = parse(board_svg(Position.start(), highlight={"d4": kind}))
    (g,) = groups(root, "highlight")
    marks = [el for el in g if el.tag.endswith(("rect", "path")) and el.get("fill") in (None, "none")
             or (el.get("fill") or "").startswith("url(") or el.get("stroke-dasharray")]
    assert marks, f"highlight {kind} is colour only"
    assert title_of(g).startswith("d4: ")


def test_distinct_kinds_are_drawn_differently_without_colour():
    def shape(kind: str) -> str:
        (g,) = groups(parse(board_svg(Position.start(), highlight={"d4": kind})), "highlight")
        return " ".join(el.tag.split("}")[1] + (el.get("fill") or "") + (el.get("stroke-dasharray") and "dash" or "")
                        for el in g[2:])

    shapes = {shape(kind) for kind in ("move", "capture", "missed", "select", "pending")}
    assert len(shapes) == 5


def test_list_highlights_arrows_and_unknown_squares():
    board = "wwww?wwwwwww........bbbbbbbbbbbb"
    root = parse(board_svg(board, highlight=["c3", "d4"], arrows=[("c3", "d4")]))
    assert len(groups(root, "highlight")) == 2
    (arrow,) = groups(root, "arrow")
    assert title_of(arrow) == "arrow c3 to d4"
    (unknown,) = groups(root, "unknown")
    assert title_of(unknown) == "b2: not seen" and unknown.find("s:text", NS).text == "?"


def test_coordinates_can_be_left_out():
    with_coords = parse(board_svg(Position.start()))
    without = parse(board_svg(Position.start(), coordinates=False))
    assert len(with_coords.findall("s:text", NS)) == 16 and not without.findall("s:text", NS)


@pytest.mark.parametrize(("args", "message"), [
    (("x" * 32,), "32 characters"),
    (("w" * 31,), "32 characters"),
])
def test_bad_board_strings_are_refused(args, message):
    with pytest.raises(ValueError, match=message):
        board_svg(*args)


def test_bad_squares_are_refused():
    with pytest.raises(ValueError, match="unknown square"):
        board_svg(Position.start(), highlight=["z9"])
    with pytest.raises(ValueError, match="light square"):
        board_svg(Position.start(), arrows=[("a2", "b3")])
