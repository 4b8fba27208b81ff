"""FEN of PDN 3.0 with algebraic squares and ``K`` before kings (as GameType 29 uses).

``W:Wa1,a3,b2,c1,c3,d2,e1,e3,f2,g1,g3,h2:Ba7,b6,b8,c7,d6,d8,e7,f6,f8,g7,h6,h8`` is the start position.
The first letter is the side to move; each of the two piece lists starts with its colour. Errors name the
problem and where it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.squares import SQUARE_NAMES, parse_square

if TYPE_CHECKING:
    from rules.position import Position


class FenError(ValueError):
    """A malformed FEN; the message names the problem and where it is."""


def parse_fen(fen: str) -> Position:
    from rules.position import Color, Position

    text = fen.strip().strip('"').rstrip(".").strip()
    if not text:
        raise FenError("empty FEN")
    fields = [f.strip() for f in text.split(":")]
    turn_text = fields[0].upper()
    if turn_text not in ("W", "B"):
        raise FenError(f"FEN {fen!r}: the side to move must be W or B, got {fields[0]!r}")
    boards = {"W": 0, "B": 0}
    kings = 0
    seen_colours = set()
    for field in fields[1:]:
        if not field:
            continue
        colour = field[0].upper()
        if colour not in ("W", "B"):
            raise FenError(f"FEN {fen!r}: a piece list must start with W or B, got {field!r}")
        if colour in seen_colours:
            raise FenError(f"FEN {fen!r}: the {'white' if colour == 'W' else 'black'} pieces are listed twice")
        seen_colours.add(colour)
        for item in field[1:].split(","):
            item = item.strip()
            if not item:
                continue
            king = item[0] in "Kk"
            name = item[1:] if king else item
            try:
                sq = parse_square(name)
            except ValueError as exc:
                raise FenError(f"FEN {fen!r}: {exc}") from None
            bit = 1 << sq
            if (boards["W"] | boards["B"]) & bit:
                raise FenError(f"FEN {fen!r}: square {SQUARE_NAMES[sq]} is given twice")
            boards[colour] |= bit
            if king:
                kings |= bit
    return Position(boards["W"], boards["B"], kings, Color.WHITE if turn_text == "W" else Color.BLACK)


def _pieces(bb: int, kings: int) -> str:
    items = sorted((SQUARE_NAMES[s], bool(kings >> s & 1)) for s in range(32) if bb >> s & 1)
    return ",".join(("K" if k else "") + name for name, k in items)


def write_fen(position: Position) -> str:
    from rules.position import Color

    turn = "W" if position.turn is Color.WHITE else "B"
    return f"{turn}:W{_pieces(position.white, position.kings)}:B{_pieces(position.black, position.kings)}"
