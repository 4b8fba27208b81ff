"""Czech draughts (Česká dáma, ČFD rules) as pure logic: no I/O, no camera, no threads.

The value types are squares (an ``int`` 0..31 in observation order), :class:`Color`, :class:`Move`
and :class:`Position`. Everything else (notation, FEN, PDN, the game record with the draw rules of
čl. 6, SVG, the referee) is built from them.
"""

from rules.fen import FenError
from rules.position import Color, Move, Position
from rules.squares import SQUARE_NAMES, Square, parse_square, square_name

__all__ = ["Color", "FenError", "Move", "Position", "SQUARE_NAMES", "Square", "parse_square", "square_name"]
