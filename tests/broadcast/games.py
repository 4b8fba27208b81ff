"""Event streams of real games, made with the rules engine (what a board's referee emits)."""

from __future__ import annotations

import random

from rules import Position


def game_events(seed: int, plies: int = 30) -> list[dict]:
    rng = random.Random(seed)
    pos = Position.start()
    events: list[dict] = [{"event": "game_start", "fen": pos.fen(), "t": 0.0}]
    for ply in range(1, plies + 1):
        moves = pos.legal_moves()
        if not moves:
            events.append({"event": "game_over", "result": "0-1" if pos.turn.value == "white" else "1-0",
                           "reason": f"{pos.turn.value} cannot move", "t": float(ply)})
            break
        move = rng.choice(moves)
        notation = pos.notation(move)
        side = pos.turn.value
        pos = pos.play(move)
        events.append({"event": "move", "ply": ply, "side": side, "move": notation, "path": move.path_names(),
                       "captured": move.captured_names(), "fen": pos.fen(), "t": 2.0 * ply})
    return events
