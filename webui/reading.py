"""Answers to a blind player's questions about the position, as plain sentences (issue 7 item 2).

Each function takes a companion snapshot (or its board string) and returns one text for the page's
aria-live region: the last move, the last capture, one rank, the whole position rank by rank, the pieces
of one side, the captures available now, the status. Square and piece are always said together.
"""

from __future__ import annotations

from typing import Any

from rules.squares import SQUARE_NAMES
from webui.announce import _join, side_name, violation_title

PIECES = {"w": "white man", "W": "white king", "b": "black man", "B": "black king", ".": "empty", "?": "not seen"}

STATE_TEXT = {
    "no_board": "The camera does not see the board.",
    "orientation_wrong": "The board is turned wrongly: a dark square must be at each player's left (čl. 2.4).",
    "hand": "A hand is over the board.",
    "setting_up": "The board does not show the game's position yet: set the pieces up.",
    "waiting": "Waiting for a move.",
    "capture_pending": "A capture is under way.",
    "game_over": "The game is over.",
}


def _check(board_string: str) -> str:
    if len(board_string) != 32 or any(c not in PIECES for c in board_string):
        raise ValueError(f"not a 32-character board string: {board_string!r}")
    return board_string


def read_rank(board_string: str, rank: int) -> str:
    """``"Rank 3: a3 white man, c3 empty, e3 white man, g3 white king."``"""
    _check(board_string)
    if not 1 <= rank <= 8:
        raise ValueError(f"rank must be 1 to 8, not {rank}")
    cells = [f"{SQUARE_NAMES[i]} {PIECES[board_string[i]]}" for i in range((rank - 1) * 4, rank * 4)]
    return f"Rank {rank}: " + ", ".join(cells) + "."


def read_position(board_string: str, from_side: str = "white") -> str:
    """Every occupied square, rank by rank from the far side of ``from_side`` (as the player sees it)."""
    _check(board_string)
    ranks = range(8, 0, -1) if from_side == "white" else range(1, 9)
    parts = []
    for rank in ranks:
        occupied = [f"{SQUARE_NAMES[i]} {PIECES[board_string[i]]}" for i in range((rank - 1) * 4, rank * 4)
                    if board_string[i] not in ".?"]
        parts.append(f"rank {rank}: " + (", ".join(occupied) if occupied else "empty"))
    return "Position, " + "; ".join(parts) + "."


def list_side(board_string: str, side: str) -> str:
    """``"White: 8 men on a1, c1, …; 1 king on e5."``: the pieces of one side."""
    _check(board_string)
    if side not in ("white", "black"):
        raise ValueError(f"side must be white or black, not {side!r}")
    man, king = ("w", "W") if side == "white" else ("b", "B")
    men = [SQUARE_NAMES[i] for i, c in enumerate(board_string) if c == man]
    kings = [SQUARE_NAMES[i] for i, c in enumerate(board_string) if c == king]
    if not men and not kings:
        return f"{side_name(side)}: no pieces."
    parts = []
    if men:
        parts.append(f"{len(men)} {'man' if len(men) == 1 else 'men'} on {_join(men)}")
    if kings:
        parts.append(f"{len(kings)} {'king' if len(kings) == 1 else 'kings'} on {_join(kings)}")
    return f"{side_name(side)}: " + "; ".join(parts) + "."


def captures_now(fen: str) -> str:
    """The captures the side to move has now (compulsory, čl. 4.1), from the rules engine."""
    from rules import Color, Position

    pos = Position.from_fen(fen)
    side = "white" if pos.turn == Color.WHITE else "black"
    captures = [pos.notation(m) for m in pos.legal_moves() if m.is_capture]
    if not captures:
        return f"{side_name(side)} to move: no capture available."
    return f"{side_name(side)} to move must capture: {_join(captures)}."


def last_move(snapshot: dict[str, Any], capture_only: bool = False) -> str:
    """The last move (or last capture) of the game with its number and side."""
    moves = snapshot.get("moves") or []
    for m in reversed(moves):
        text = str(m.get("move", ""))
        if capture_only and "x" not in text and ":" not in text:
            continue
        label = "Last capture" if capture_only else "Last move"
        return f"{label}: {_move_number(m)}, {side_name(m.get('side'))}, {text}."
    return "No capture yet." if capture_only else "No move yet."


def _move_number(m: dict[str, Any]) -> str:
    ply = int(m.get("ply") or 0)
    number = (ply + 1) // 2
    return f"move {number}" if ply else "move"


def status(snapshot: dict[str, Any]) -> str:
    """The status line and any open alerts."""
    st = snapshot.get("status") or {}
    parts = [STATE_TEXT.get(str(st.get("state")), str(st.get("state") or "Unknown status."))]
    turn = snapshot.get("turn")
    if turn and st.get("state") not in ("game_over", "no_board"):
        parts.append(f"{side_name(turn)} to move.")
    if snapshot.get("result"):
        parts.append(f"Result {snapshot['result']}.")
    for alert in snapshot.get("alerts") or []:
        parts.append(f"Alert: {violation_title(str(alert.get('kind', '')))}.")
    return " ".join(parts)


def answer(snapshot: dict[str, Any], what: str, arg: str | None = None) -> str:
    """Dispatch a reading request by name; ValueError with a clear message for unknown requests."""
    board = str(snapshot.get("board_string") or "")
    if what == "last_move":
        return last_move(snapshot)
    if what == "last_capture":
        return last_move(snapshot, capture_only=True)
    if what == "rank":
        try:
            rank = int(arg or "")
        except ValueError:
            raise ValueError(f"rank must be a number 1 to 8, not {arg!r}") from None
        return read_rank(board, rank)
    if what == "position":
        return read_position(board, "black" if snapshot.get("flipped") else "white")
    if what == "side":
        return list_side(board, (arg or "").lower())
    if what == "captures":
        return captures_now(str(snapshot.get("fen")))
    if what == "status":
        return status(snapshot)
    raise ValueError(f"unknown reading {what!r}; one of last_move, last_capture, rank, position, side, "
                     "captures, status")
