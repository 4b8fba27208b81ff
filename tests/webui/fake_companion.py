"""A small companion for the dashboard tests: the real rules engine, no camera.

It implements the interface of ``dama.companion.Companion`` (boards, snapshot, frame_jpeg, subscribe,
control, pdn) honestly: moves are parsed and played by ``rules.Position`` (an illegal move raises), the
snapshot is derived from the resulting position, and every change is published as an event to every
subscriber, as the watch loop does.
"""

from __future__ import annotations

import queue
import threading
from typing import Any

import cv2
import numpy as np

from rules import Color, Position
from rules.squares import SQUARE_NAMES


class FakeSubscription:
    def __init__(self, owner: FakeCompanion) -> None:
        self._q: queue.Queue[dict[str, Any]] = queue.Queue()
        self._owner = owner
        self.closed = False

    def get(self, timeout: float | None = None) -> dict[str, Any] | None:
        if self.closed:
            return None  # like the real bus: a closed subscription answers at once
        try:
            return self._q.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        self.closed = True
        self._owner._drop(self)


class _Game:
    def __init__(self, board: str, fen: str | None = None) -> None:
        self.board = board
        self.start_fen = fen or Position.start().fen()
        self.position = Position.from_fen(self.start_fen)
        self.moves: list[dict[str, Any]] = []
        self.alerts: list[dict[str, Any]] = []
        self.status = {"board_found": True, "orientation_ok": True, "hand": False, "state": "waiting"}
        self.flipped = False
        self.result: str | None = None
        self.result_reason: str | None = None
        self.pending: dict[str, Any] | None = None
        self.frame = True
        self.masked: list[str] = []


class FakeCompanion:
    def __init__(self, boards: tuple[str, ...] = ("1",)) -> None:
        self._games = {b: _Game(b) for b in boards}
        self._subs: list[FakeSubscription] = []
        self._lock = threading.Lock()
        self.controls: list[tuple[str, str, dict[str, Any]]] = []

    # -- driving the game (what the watch loop would do) ---------------------------------------
    def publish(self, event: dict[str, Any]) -> None:
        with self._lock:
            subs = list(self._subs)
        for s in subs:
            s._q.put(dict(event))

    def play(self, board: str, text: str, t: float = 0.0) -> dict[str, Any]:
        g = self._games[board]
        move = g.position.parse_move(text)
        if not g.position.is_legal(move):
            raise ValueError(f"{text} is not legal here")
        side = "white" if g.position.turn == Color.WHITE else "black"
        notation = g.position.notation(move)
        g.position = g.position.play(move)
        ply = len(g.moves) + 1
        g.moves.append({"ply": ply, "side": side, "move": notation, "t": t,
                        "path": move.path_names(), "captured": move.captured_names()})
        event = {"event": "move", "ply": ply, "side": side, "move": notation, "path": move.path_names(),
                 "captured": move.captured_names(), "fen": g.position.fen(), "board": board, "t": t}
        self.publish(event)
        return event

    def flag(self, board: str, kind: str, squares: list[str], message: str, side: str | None = None) -> dict:
        g = self._games[board]
        side = side or ("white" if g.position.turn == Color.WHITE else "black")
        moves = g.position.legal_moves()
        legal = [g.position.notation(m) for m in moves]
        legal_moves = [{"path": m.path_names(), "captured": m.captured_names()} for m in moves]
        event = {"event": "violation", "kind": kind, "side": side, "squares": squares, "legal": legal,
                 "legal_moves": legal_moves, "message": message, "board": board}
        g.alerts.append({k: v for k, v in event.items() if k not in ("event", "board", "legal_moves")})
        self.publish(event)
        return event

    def correct(self, board: str) -> None:
        self._games[board].alerts.clear()
        self.publish({"event": "corrected", "board": board})

    def set_status(self, board: str, **status: Any) -> None:
        g = self._games[board]
        g.status.update(status)
        self.publish({"event": "status", **g.status, "board": board})

    def finish(self, board: str, result: str, reason: str) -> None:
        g = self._games[board]
        g.result, g.result_reason = result, reason
        g.status["state"] = "game_over"
        self.publish({"event": "game_over", "result": result, "reason": reason, "board": board})

    def set_frame(self, board: str, present: bool) -> None:
        self._games[board].frame = present

    def end_streams(self) -> None:
        """Close every subscription, as a companion shutting down does (the pages must reconnect)."""
        with self._lock:
            subs, self._subs = self._subs, []
        for s in subs:
            s.closed = True

    def _drop(self, sub: FakeSubscription) -> None:
        with self._lock:
            self._subs = [s for s in self._subs if s is not sub]

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subs)

    # -- the interface the dashboard reads ------------------------------------------------------
    def boards(self) -> list[str]:
        return list(self._games)

    def snapshot(self, board: str) -> dict[str, Any]:
        g = self._games[board]
        last = dict(g.moves[-1]) if g.moves else None
        return {
            "board": board, "fen": g.position.fen(), "board_string": g.position.board_string(),
            "turn": "white" if g.position.turn == Color.WHITE else "black",
            "moves": [{k: m[k] for k in ("ply", "side", "move", "t")} for m in g.moves],
            "alerts": [dict(a) for a in g.alerts], "status": dict(g.status), "pending": g.pending,
            "result": g.result, "result_reason": g.result_reason, "flipped": g.flipped, "last_move": last,
            "masked": list(g.masked),
        }

    def frame_jpeg(self, board: str, overlay: bool = True) -> bytes | None:
        g = self._games[board]
        if not g.frame:
            return None
        img = np.full((240, 320, 3), (40, 60, 80), np.uint8)
        s, x0, y0 = 26, 56, 16
        b = g.position.board_string()
        for i, name in enumerate(SQUARE_NAMES):
            f, r = ord(name[0]) - 97, int(name[1]) - 1
            x, y = x0 + f * s, y0 + (7 - r) * s
            cv2.rectangle(img, (x, y), (x + s, y + s), (40, 70, 110), -1)
            if b[i] in "wWbB":
                colour = (230, 240, 245) if b[i] in "wW" else (30, 30, 30)
                cv2.circle(img, (x + s // 2, y + s // 2), s // 2 - 3, colour, -1)
        if overlay:
            for k in range(9):
                cv2.line(img, (x0 + k * s, y0), (x0 + k * s, y0 + 8 * s), (0, 255, 0), 1)
                cv2.line(img, (x0, y0 + k * s), (x0 + 8 * s, y0 + k * s), (0, 255, 0), 1)
        ok, data = cv2.imencode(".jpg", img)
        return bytes(data) if ok else None

    def subscribe(self) -> FakeSubscription:
        sub = FakeSubscription(self)
        with self._lock:
            self._subs.append(sub)
        return sub

    def control(self, board: str, action: str, **params: Any) -> dict[str, Any]:
        if board not in self._games:
            raise ValueError(f"unknown board {board!r}")
        g = self._games[board]
        self.controls.append((board, action, params))
        if action == "flip":
            g.flipped = not g.flipped
            return {"ok": True, "flipped": g.flipped}
        if action == "new_game":
            self._games[board] = _Game(board, params.get("fen"))
            self.publish({"event": "game_start", "fen": self._games[board].start_fen, "board": board})
        elif action == "setup_from_camera":
            turn = Color.BLACK if params.get("turn") == "black" else Color.WHITE
            fen = Position.from_board_string(g.position.board_string(), turn=turn).fen()
            self._games[board] = _Game(board, fen)
            self.publish({"event": "game_start", "fen": fen, "board": board})
        elif action == "mask_squares":
            from dama.masking import parse_squares, square_names

            g.masked = square_names(parse_squares(params.get("squares")))
            return {"ok": True, "masked": g.masked, "message": f"read from the game: {', '.join(g.masked)}"}
        elif action == "accept":
            if not g.alerts:
                raise ValueError("there is no violation to accept")
            g.alerts.clear()
            self.publish({"event": "accepted", "fen": g.position.fen(), "board": board})
        elif action == "takeback":
            if not g.moves:
                raise ValueError("there is no move to take back")
            g.moves.pop()
            g.position = Position.from_fen(g.start_fen)
            for m in g.moves:
                g.position = g.position.play(g.position.parse_move(m["move"]))
            self.publish({"event": "takeback", "ply": len(g.moves) + 1, "fen": g.position.fen(), "board": board})
        else:
            raise ValueError(f"unknown action {action!r}")
        return {"ok": True, "fen": self._games[board].position.fen()}

    def pdn(self, board: str) -> str:
        g = self._games[board]
        body = []
        for m in g.moves:
            if m["side"] == "white":
                body.append(f"{(m['ply'] + 1) // 2}.")
            body.append(m["move"])
        result = g.result or "*"
        return (f'[Event "test"]\n[GameType "29,W,8,8,A0,0"]\n[FEN "{g.start_fen}"]\n[Result "{result}"]\n\n'
                + " ".join([*body, result]) + "\n")
