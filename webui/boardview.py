"""What the board picture shows: which squares to mark and why, from a companion snapshot.

The drawing itself belongs to ``rules.svg.board_svg``; until that lands, :func:`_fallback_board_svg`
draws the same picture here (same signature) and is deleted then.
"""

from __future__ import annotations

import re
from typing import Any

from rules.squares import SQUARE_NAMES

_SPLIT = re.compile(r"[-x:]")


def last_move_path(snapshot: dict[str, Any]) -> list[str]:
    """Squares of the last move (``["c3", "e5"]``) from ``last_move`` or the move list."""
    last = snapshot.get("last_move")
    if isinstance(last, dict):
        if last.get("path"):
            return [str(s) for s in last["path"]]
        last = last.get("move")
    if not last and snapshot.get("moves"):
        last = snapshot["moves"][-1].get("move")
    if not isinstance(last, str) or not last:
        return []
    return [s for s in _SPLIT.split(last) if s in SQUARE_NAMES]


def pending_squares(snapshot: dict[str, Any]) -> list[str]:
    pending = snapshot.get("pending") or snapshot.get("pending_capture") or {}
    return [str(s) for s in pending.get("remaining", [])] if isinstance(pending, dict) else []


def highlights(snapshot: dict[str, Any]) -> dict[str, str]:
    """Square → why it is marked: ``"alert"`` beats ``"pending"`` beats ``"last"``."""
    marks: dict[str, str] = {}
    for sq in last_move_path(snapshot):
        marks[sq] = "last"
    for sq in pending_squares(snapshot):
        marks[sq] = "pending"
    for alert in snapshot.get("alerts") or []:
        for sq in alert.get("squares") or []:
            marks[str(sq)] = "alert"
    return marks


def board_svg_for(snapshot: dict[str, Any], size: int = 480) -> str:
    board = str(snapshot.get("board_string") or "." * 32)
    path = last_move_path(snapshot)
    arrows = [(path[0], path[-1])] if len(path) >= 2 else []
    try:
        from rules.svg import board_svg  # type: ignore[import-not-found]
    except ImportError:
        board_svg = _fallback_board_svg
    return board_svg(board, highlight=highlights(snapshot), arrows=arrows,
                     flipped=bool(snapshot.get("flipped")), size=size)


# --- fallback renderer: replaced by rules.svg.board_svg -------------------------------------------------

_MARK = {"alert": ("#d7263d", "!"), "pending": ("#1f6feb", "×"), "last": ("#f2c14e", "")}


def _fallback_board_svg(board: str, highlight: dict[str, str] | None = None, arrows: Any = (),
                        flipped: bool = False, size: int = 480) -> str:
    highlight = highlight or {}
    m, sq = 24, 60
    total = 8 * sq + 2 * m
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {total} {total}" width="{size}" height="{size}">',
           '<defs><linearGradient id="fr" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#6b3f1d"/>'
           '<stop offset="1" stop-color="#3e230f"/></linearGradient>'
           '<radialGradient id="wp" cx=".4" cy=".35" r=".7"><stop offset="0" stop-color="#fffaf0"/>'
           '<stop offset="1" stop-color="#d8c6a4"/></radialGradient>'
           '<radialGradient id="bp" cx=".4" cy=".35" r=".7"><stop offset="0" stop-color="#5a5550"/>'
           '<stop offset="1" stop-color="#141210"/></radialGradient></defs>',
           f'<rect width="{total}" height="{total}" rx="10" fill="url(#fr)"/>']

    def xy(name: str) -> tuple[int, int]:
        f, r = ord(name[0]) - 97, int(name[1]) - 1
        col, row = (7 - f, r) if flipped else (f, 7 - r)
        return m + col * sq, m + row * sq

    for r in range(8):
        for f in range(8):
            x, y = xy(f"{chr(97 + f)}{r + 1}")
            dark = (f + r) % 2 == 0
            out.append(f'<rect x="{x}" y="{y}" width="{sq}" height="{sq}" fill="{"#8a5a33" if dark else "#ecd3a6"}"/>')
    for i in range(8):
        fx, _ = xy(f"{chr(97 + i)}1")
        _, ry = xy(f"a{i + 1}")
        out.append(f'<text x="{fx + sq / 2}" y="{total - 7}" font-size="15" fill="#f3e2c3" text-anchor="middle" '
                   f'font-family="sans-serif">{chr(97 + i)}</text>')
        out.append(f'<text x="{m / 2}" y="{ry + sq / 2 + 5}" font-size="15" fill="#f3e2c3" text-anchor="middle" '
                   f'font-family="sans-serif">{i + 1}</text>')
    for name, why in highlight.items():
        if name not in SQUARE_NAMES:
            continue
        x, y = xy(name)
        colour, _ = _MARK.get(why, _MARK["last"])
        out.append(f'<rect x="{x + 3}" y="{y + 3}" width="{sq - 6}" height="{sq - 6}" fill="{colour}" '
                   f'fill-opacity=".35" stroke="{colour}" stroke-width="5"/>')
    for i, c in enumerate(board):
        if c not in "wWbB":
            continue
        name = SQUARE_NAMES[i]
        x, y = xy(name)
        cx, cy = x + sq / 2, y + sq / 2
        white = c in "wW"
        out.append(f'<circle cx="{cx}" cy="{cy + 2}" r="{sq * 0.4}" fill="#000" fill-opacity=".35"/>')
        out.append(f'<circle cx="{cx}" cy="{cy}" r="{sq * 0.4}" fill="url(#{"wp" if white else "bp"})" '
                   f'stroke="{"#6b5a40" if white else "#000"}" stroke-width="2"/>')
        out.append(f'<circle cx="{cx}" cy="{cy}" r="{sq * 0.28}" fill="none" '
                   f'stroke="{"#b9a47e" if white else "#3a3632"}" stroke-width="2"/>')
        if c in "WB":
            ink = "#8a6d1c" if white else "#e0c060"
            out.append(f'<path d="M{cx - 13} {cy + 8} L{cx - 15} {cy - 8} L{cx - 6} {cy - 1} L{cx} {cy - 12} '
                       f'L{cx + 6} {cy - 1} L{cx + 15} {cy - 8} L{cx + 13} {cy + 8} Z" fill="{ink}"/>')
    for name, why in highlight.items():
        _, symbol = _MARK.get(why, _MARK["last"])
        if symbol and name in SQUARE_NAMES:
            x, y = xy(name)
            out.append(f'<circle cx="{x + sq - 12}" cy="{y + 12}" r="10" fill="#fff" stroke="#000" stroke-width="1.5"/>'
                       f'<text x="{x + sq - 12}" y="{y + 17}" font-size="15" font-weight="bold" text-anchor="middle" '
                       f'font-family="sans-serif" fill="#000">{symbol}</text>')
    for a, b in arrows:
        (x1, y1), (x2, y2) = xy(a), xy(b)
        out.append(f'<line x1="{x1 + sq / 2}" y1="{y1 + sq / 2}" x2="{x2 + sq / 2}" y2="{y2 + sq / 2}" '
                   f'stroke="#f2c14e" stroke-width="6" stroke-linecap="round" stroke-opacity=".85"/>')
    out.append("</svg>")
    return "".join(out)
