"""SVG pictures of a position for the dashboard: a wooden board, men and crowned kings, highlighted squares
and arrows.

No information is carried by colour alone: every highlight kind also has its own pattern or outline
(hatching, dots, a double frame, a dashed frame), kings carry a crown mark, unseen squares (``?``) a question
mark, and the picture has a ``<title>``/``<desc>`` and per-piece titles for screen readers.

>>> svg = board_svg("wwwwwwwwwwww........bbbbbbbbbbbb", highlight={"c3": "move", "d4": "move"}, arrows=[("c3", "d4")])
>>> svg.startswith("<svg") and "white man on c3" in svg
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape

from rules.position import Position
from rules.squares import SQUARE_NAMES, file_of, parse_square, rank_of

# kind -> (colour, how it is marked besides colour, words for the title)
HIGHLIGHT_STYLES: dict[str, tuple[str, str, str]] = {
    "move": ("#2f7de1", "dots", "move"),
    "last": ("#e0b000", "frame", "last move"),
    "capture": ("#d9480f", "hatch", "capture"),
    "missed": ("#c2255c", "cross", "missed capture"),
    "illegal": ("#c92a2a", "cross", "illegal"),
    "select": ("#2b8a3e", "double", "selected"),
    "pending": ("#7048e8", "dashed", "capture under way"),
}

_LIGHT = "#f3dcb2"
_DARK = "#9a6434"
_FRAME = "#5b3417"


def _defs() -> str:
    return (
        "<defs>"
        '<linearGradient id="wood-light" x1="0" y1="0" x2="1" y2="0.3">'
        '<stop offset="0" stop-color="#f7e4c0"/><stop offset="0.5" stop-color="#efd3a3"/>'
        '<stop offset="1" stop-color="#f5dfb6"/></linearGradient>'
        '<linearGradient id="wood-dark" x1="0" y1="0" x2="1" y2="0.25">'
        '<stop offset="0" stop-color="#a8703d"/><stop offset="0.45" stop-color="#8d5a2b"/>'
        '<stop offset="1" stop-color="#a26a38"/></linearGradient>'
        '<pattern id="grain" width="40" height="8" patternUnits="userSpaceOnUse">'
        '<path d="M0 2 Q10 0 20 2 T40 2 M0 6 Q12 4 22 6 T40 6" fill="none" stroke="#000" stroke-opacity="0.07"'
        ' stroke-width="0.8"/></pattern>'
        '<radialGradient id="man-white" cx="0.4" cy="0.35" r="0.7">'
        '<stop offset="0" stop-color="#ffffff"/><stop offset="1" stop-color="#d9d2c3"/></radialGradient>'
        '<radialGradient id="man-black" cx="0.4" cy="0.35" r="0.7">'
        '<stop offset="0" stop-color="#5a5a5a"/><stop offset="1" stop-color="#151515"/></radialGradient>'
        '<pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        '<line x1="0" y1="0" x2="0" y2="8" stroke="#000" stroke-opacity="0.45" stroke-width="3"/></pattern>'
        '<pattern id="dots" width="10" height="10" patternUnits="userSpaceOnUse">'
        '<circle cx="5" cy="5" r="2" fill="#000" fill-opacity="0.45"/></pattern>'
        '<marker id="arrowhead" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" markerHeight="4"'
        ' orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#1864ab"/></marker>'
        "</defs>"
    )


def _normalize_highlight(highlight: Mapping[str, str] | Iterable[str]) -> dict[int, str]:
    items = highlight.items() if isinstance(highlight, Mapping) else ((sq, "select") for sq in highlight)
    return {parse_square(sq): kind for sq, kind in items}


def board_svg(position_or_board: Position | str, highlight: Mapping[str, str] | Iterable[str] = (),
              arrows: Iterable[tuple[str, str]] = (), flipped: bool = False, size: int = 400,
              coordinates: bool = True) -> str:
    """An SVG document (a string) showing a position or a 32-character observation string.

    ``highlight`` maps square names to a kind of :data:`HIGHLIGHT_STYLES` (or to any CSS colour, drawn with
    a plain frame); a list highlights squares as ``select``. ``arrows`` are (from, to) square names.
    ``flipped`` shows the board from Black's side. ValueError names a bad square or board string.
    """
    if isinstance(position_or_board, Position):
        board = position_or_board.board_string()
        turn = position_or_board.turn.value
    else:
        board = position_or_board
        turn = None
        if len(board) != 32 or any(c not in ".wbWB?" for c in board):
            raise ValueError(f"a board string has 32 characters of . w b W B ?, got {board!r}")
    marks = _normalize_highlight(highlight)
    arrow_list = [(parse_square(a), parse_square(b)) for a, b in arrows]

    margin = size * 0.06 if coordinates else size * 0.02
    cell = (size - 2 * margin) / 8

    def corner(file: int, rank: int) -> tuple[float, float]:
        col, row = (7 - file, rank) if flipped else (file, 7 - rank)
        return margin + col * cell, margin + row * cell

    def centre(sq: int) -> tuple[float, float]:
        x, y = corner(file_of(sq), rank_of(sq))
        return x + cell / 2, y + cell / 2

    title = "Czech draughts position" + (f", {turn} to move" if turn else "")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" width="{size}" height="{size}"'
        ' role="img" aria-labelledby="board-title board-desc">',
        f'<title id="board-title">{escape(title)}</title>',
        f'<desc id="board-desc">{escape(describe(board))}</desc>',
        _defs(),
        f'<rect x="0" y="0" width="{size}" height="{size}" rx="{size * 0.015:.1f}" fill="{_FRAME}"/>',
    ]
    for rank in range(8):
        for file in range(8):
            x, y = corner(file, rank)
            dark = (file + rank) % 2 == 0
            fill = "url(#wood-dark)" if dark else "url(#wood-light)"
            parts.append(f'<rect x="{x:.2f}" y="{y:.2f}" width="{cell:.2f}" height="{cell:.2f}" fill="{fill}"/>')
            parts.append(f'<rect x="{x:.2f}" y="{y:.2f}" width="{cell:.2f}" height="{cell:.2f}" fill="url(#grain)"/>')
    if coordinates:
        font = margin * 0.6
        for i in range(8):
            fx, _ = corner(i, 0)
            _, ry = corner(0, i)
            letter = "abcdefgh"[i]
            parts.append(f'<text x="{fx + cell / 2:.1f}" y="{size - margin * 0.3:.1f}" font-size="{font:.1f}" '
                         f'text-anchor="middle" fill="#f3dcb2" font-family="sans-serif" aria-hidden="true">'
                         f'{letter}</text>')
            parts.append(f'<text x="{margin / 2:.1f}" y="{ry + cell / 2 + font / 3:.1f}" font-size="{font:.1f}" '
                         f'text-anchor="middle" fill="#f3dcb2" font-family="sans-serif" aria-hidden="true">'
                         f'{i + 1}</text>')
    for sq, kind in sorted(marks.items()):
        parts.append(_highlight(sq, kind, *corner(file_of(sq), rank_of(sq)), cell))
    for sq, ch in enumerate(board):
        if ch != ".":
            parts.append(_piece(sq, ch, *centre(sq), cell))
    for a, b in arrow_list:
        (x1, y1), (x2, y2) = centre(a), centre(b)
        parts.append(f'<g class="arrow"><title>arrow {SQUARE_NAMES[a]} to {SQUARE_NAMES[b]}</title>'
                     f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#1864ab" '
                     f'stroke-opacity="0.8" stroke-width="{cell * 0.12:.1f}" stroke-linecap="round" '
                     'marker-end="url(#arrowhead)"/></g>')
    parts.append("</svg>")
    return "".join(parts)


def _highlight(sq: int, kind: str, x: float, y: float, cell: float) -> str:
    colour, style, words = HIGHLIGHT_STYLES.get(kind, (kind, "frame", "highlighted"))
    colour = escape(colour, quote=True)
    w = cell * 0.07
    out = [f'<g class="highlight {escape(kind, quote=True)}"><title>{SQUARE_NAMES[sq]}: {escape(words)}</title>',
           f'<rect x="{x:.2f}" y="{y:.2f}" width="{cell:.2f}" height="{cell:.2f}" fill="{colour}" '
           'fill-opacity="0.45"/>']
    inset = w / 2
    frame = (f'<rect x="{x + inset:.2f}" y="{y + inset:.2f}" width="{cell - 2 * inset:.2f}" '
             f'height="{cell - 2 * inset:.2f}" fill="none" stroke="{colour}" stroke-width="{w:.2f}"')
    if style in ("hatch", "dots"):
        out.append(f'<rect x="{x:.2f}" y="{y:.2f}" width="{cell:.2f}" height="{cell:.2f}" fill="url(#{style})"/>')
        out.append(frame + "/>")
    elif style == "cross":
        out.append(frame + "/>")
        out.append(f'<path d="M{x + w:.2f} {y + w:.2f} L{x + cell - w:.2f} {y + cell - w:.2f} M{x + cell - w:.2f} '
                   f'{y + w:.2f} L{x + w:.2f} {y + cell - w:.2f}" stroke="{colour}" stroke-width="{w:.2f}"/>')
    elif style == "double":
        out.append(frame + "/>")
        i2 = w * 2.2
        out.append(f'<rect x="{x + i2:.2f}" y="{y + i2:.2f}" width="{cell - 2 * i2:.2f}" height="{cell - 2 * i2:.2f}" '
                   f'fill="none" stroke="{colour}" stroke-width="{w / 2:.2f}"/>')
    elif style == "dashed":
        out.append(frame + f' stroke-dasharray="{w * 2:.2f} {w * 1.5:.2f}"/>')
    else:
        out.append(frame + "/>")
    out.append("</g>")
    return "".join(out)


def _crown(cx: float, cy: float, r: float, colour: str) -> str:
    """A three-pointed crown mark on a king (so a king is told from a man without colour)."""
    w, h = r * 1.1, r * 0.7
    x0, y0 = cx - w / 2, cy + h / 2
    pts = [(x0, y0), (x0, y0 - h), (x0 + w * 0.25, y0 - h * 0.45), (cx, y0 - h * 1.05),
           (x0 + w * 0.75, y0 - h * 0.45), (x0 + w, y0 - h), (x0 + w, y0)]
    d = "M" + " L".join(f"{px:.2f} {py:.2f}" for px, py in pts) + " z"
    return f'<path d="{d}" fill="{colour}" stroke="{colour}" stroke-width="{r * 0.05:.2f}" stroke-linejoin="round"/>'


def _piece(sq: int, ch: str, cx: float, cy: float, cell: float) -> str:
    name = SQUARE_NAMES[sq]
    r = cell * 0.38
    if ch == "?":
        return (f'<g class="unknown"><title>{name}: not seen</title>'
                f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="{r:.2f}" fill="#868e96" fill-opacity="0.55" '
                f'stroke="#343a40" stroke-width="{r * 0.08:.2f}" stroke-dasharray="{r * 0.25:.2f} {r * 0.2:.2f}"/>'
                f'<text x="{cx:.2f}" y="{cy + r * 0.38:.2f}" font-size="{r * 1.1:.2f}" text-anchor="middle" '
                f'font-family="sans-serif" font-weight="bold" fill="#f8f9fa">?</text></g>')
    white = ch in "wW"
    king = ch in "WB"
    colour = "white" if white else "black"
    label = f"{colour} {'king' if king else 'man'} on {name}"
    rim = "#8c7b5e" if white else "#000000"
    ring = "#b8a888" if white else "#3a3a3a"
    out = [f'<g class="piece {colour}{" king" if king else ""}"><title>{label}</title>',
           f'<circle cx="{cx:.2f}" cy="{cy + r * 0.08:.2f}" r="{r:.2f}" fill="#000" fill-opacity="0.35"/>',
           f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="{r:.2f}" fill="url(#man-{colour})" stroke="{rim}" '
           f'stroke-width="{r * 0.06:.2f}"/>',
           f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="{r * 0.72:.2f}" fill="none" stroke="{ring}" '
           f'stroke-width="{r * 0.06:.2f}"/>']
    if king:
        out.append(_crown(cx, cy, r, "#b8860b" if white else "#f2c94c"))
    out.append("</g>")
    return "".join(out)


def describe(board: str) -> str:
    """A sentence listing the pieces (for screen readers), e.g. ``White men: a1, c1; white kings: d4. …``."""
    groups = {("white", "men"): "w", ("white", "kings"): "W", ("black", "men"): "b", ("black", "kings"): "B",
              ("unseen", "squares"): "?"}
    out = []
    for (colour, what), ch in groups.items():
        squares = [SQUARE_NAMES[i] for i, c in enumerate(board) if c == ch]
        if squares:
            out.append(f"{colour} {what}: {', '.join(squares)}")
    return ("; ".join(out) or "empty board").capitalize() + "."
