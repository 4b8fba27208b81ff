"""Before the first move: is the board still being set up, rather than showing a move?

A game begins from a known position (the start position of čl. 2.8, a FEN, or where a resumed game
stood). Until its first move is recorded, a stable board that differs from that position on more squares
than a wrong move of a piece or two would change, and that no legal move explains, is a board whose
pieces are still being placed, or one set up for something else; it stays so until it shows the
position. Calling it an illegal move (čl. 5.4) would be a false alarm. The session says so instead and
waits; the player sets the pieces up, or starts from the board as it stands (``setup_from_camera``).
"""

from __future__ import annotations

from rules import SQUARE_NAMES, Position
from rules.referee_match import Observation, PositionIndex

# Squares a wrong first move may change and still be flagged as one: a piece moved wrongly changes two,
# two pieces moved (or a piece moved and one taken off) four. More is a board being set up.
SETUP_SQUARES = 4


def squares_off(observation: str, position: Position) -> list[str]:
    """Names of the seen squares whose piece colour differs from ``position`` (kings count as men; ``?`` is
    not compared)."""
    expected = position.board_string().lower()
    return [SQUARE_NAMES[i] for i, (seen, want) in enumerate(zip(observation.lower(), expected, strict=True))
            if seen != "?" and seen != want]


def still_setting_up(observation: str, position: Position, setting_up: bool = False) -> list[str]:
    """The squares that show ``observation`` is a board being set up rather than a first move from
    ``position`` (see the module's docstring); empty when the referee should judge it.

    ``setting_up``: the board seen before was already being set up. Then it stays so until it shows the
    position (or a legal move from it): the last pieces put down must not read as pieces taken off.
    """
    off = squares_off(observation, position)
    if not off or (len(off) <= SETUP_SQUARES and not setting_up):
        return []
    # a long first capture from a set-up position changes many squares
    return [] if PositionIndex(position).moves_fitting(Observation.parse(observation)) else off


def setup_message(off: list[str]) -> str:
    """What the players are told while the board is being set up."""
    shown = ", ".join(off[:6]) + (", …" if len(off) > 6 else "")
    return (f"The board does not show the game's position yet ({len(off)} squares differ: {shown}). Set the "
            "pieces up, or start from the board as it stands (set up from camera); nothing is recorded until then.")
