"""``dama bench referee``: time per observation of the referee in middlegame positions (goal: under 1 ms).

Middlegame positions come from seeded random games (plies 12–40, at least 14 pieces). For each position a
fresh referee is built (not timed) and one observation is timed, of each kind the camera sends:

- ``unchanged``: the board as it stands (most stable boards are this);
- ``move``: the result of a legal move (recording it, the FEN, the draw rules, the next position's index);
- ``part-way``: a capture under way (jumper moved, nothing taken off yet), where the position has a capture;
- ``illegal``: a board no legal move explains (a man stepping backwards or an extra piece), classified and
  worded;
- ``unknown``: the move result with two unrelated squares hidden (``?``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from rules.bench import middlegame_positions
from rules.position import Move, Position
from rules.referee import Referee


def _with(board: str, changes: dict[int, str]) -> str:
    chars = list(board)
    for sq, c in changes.items():
        chars[sq] = c
    return "".join(chars)


def _part_way(pos: Position) -> str | None:
    seqs = pos.capture_sequences()
    if not seqs:
        return None
    seq = seqs[0]
    board = pos.board_string()
    return _with(board, {seq.start: ".", seq.path[1]: board[seq.start]})


def _illegal(pos: Position, rng: random.Random) -> str:
    board = pos.board_string()
    empty = [i for i, c in enumerate(board) if c == "."]
    return _with(board, {rng.choice(empty): "w" if pos.turn.value == "white" else "b"})


def _unknown(pos: Position, move: Move, rng: random.Random) -> str:
    after = pos.play(move)
    board = after.board_string()
    changed = set(move.path) | set(move.captured)
    hidden = rng.sample([i for i in range(32) if i not in changed], 2)
    return _with(board, {i: "?" for i in hidden})


CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}


def measure(positions: list[Position], seed: int, clock: str = "wall") -> dict[str, list[float]]:
    """Seconds per observation by kind; ``clock`` "cpu" counts only this thread's CPU time, which a busy
    shared machine does not inflate."""
    rng = random.Random(seed)
    tick = CLOCKS[clock]
    times: dict[str, list[float]] = {"unchanged": [], "move": [], "part-way": [], "illegal": [], "unknown": []}

    def _time(factory: Callable[[], Referee], board: str) -> float:
        ref = factory()
        t0 = tick()
        ref.observe(board)
        return tick() - t0

    for pos in positions:
        def factory(p: Position = pos) -> Referee:
            return Referee(p)

        move = rng.choice(pos.legal_moves())
        times["unchanged"].append(_time(factory, pos.board_string()))
        times["move"].append(_time(factory, pos.play(move).board_string()))
        part = _part_way(pos)
        if part is not None:
            times["part-way"].append(_time(factory, part))
        times["illegal"].append(_time(factory, _illegal(pos, rng)))
        times["unknown"].append(_time(factory, _unknown(pos, move, rng)))
    return times


def _row(name: str, values: list[float]) -> str:
    if not values:
        return f"| {name} | 0 | – | – | – |"
    ms = sorted(v * 1000 for v in values)
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    return f"| {name} | {len(ms)} | {statistics.mean(ms):.3f} | {statistics.median(ms):.3f} | {p99:.3f} |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dama bench referee", description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=400, help="middlegame positions (default 400)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    args = parser.parse_args(argv)
    if args.positions < 1:
        parser.error("--positions must be at least 1")
    positions = middlegame_positions(args.positions, args.seed, min_pieces=14)
    measure(positions[: min(20, len(positions))], args.seed)  # warm up
    worst = 0.0
    for clock in ("wall", "cpu"):
        times = measure(positions, args.seed, clock)
        every = [v for values in times.values() for v in values]
        print(f"referee time per observation ({clock} clock), {len(positions)} middlegame positions "
              f"(seed {args.seed}), in ms")
        print("| observation | n | mean | median | p99 |")
        print("|---|---|---|---|---|")
        for name, values in times.items():
            print(_row(name, values))
        print(_row("all", every))
        print()
        if clock == "cpu":
            worst = max(statistics.mean(v) for v in times.values() if v) * 1000
    print(f"goal: under 1 ms per observation; slowest kind's mean CPU time {worst:.3f} ms -> "
          f"{'met' if worst < 1.0 else 'NOT met'}")
    return 0
