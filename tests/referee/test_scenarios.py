"""Scenario files: boards fed to the referee one by one, each followed by the events it must give.

Format of ``scenarios/*.scenario`` (also valid input for ``dama referee``, which ignores ``#`` lines)::

    # fen: W:Wc3:Bd4,f6        optional start position (default: the start position)
    # any other comment
    wwwwwwwwwww....w....bbbbbbbbbbbb
    # expect: move move=g3-h4 side=white
    # action: takeback        a dashboard call instead of a board (accept, takeback, reset)
    # expect: takeback ply=1

Each board or action must give exactly the events listed after it, in order (none if no ``expect``
follows). ``key=value`` must equal the field (a list compares as its comma-joined items); ``key~=text``
asks that the field contain ``text``; use shell quotes for spaces.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rules import Position
from rules.referee import Referee

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.scenario"))


@dataclass
class Step:
    line: int
    board: str | None = None
    action: str | None = None
    expect: list[list[str]] = field(default_factory=list)


def read_scenario(path: Path) -> tuple[str | None, list[Step]]:
    fen, steps = None, []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = raw.strip()
        if text.startswith("# fen:"):
            fen = text.split(":", 1)[1].strip()
        elif text.startswith("# action:"):
            steps.append(Step(number, action=text.split(":", 1)[1].strip()))
        elif text.startswith("# expect:"):
            assert steps, f"{path.name}:{number}: expect before any board"
            steps[-1].expect.append(shlex.split(text.split(":", 1)[1]))
        elif text and not text.startswith("#"):
            steps.append(Step(number, board=text))
    return fen, steps


def _field_text(value) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, list) else str(value)


def check(event: dict, expected: list[str], where: str) -> None:
    kind, *conditions = expected
    assert event["event"] == kind, f"{where}: expected a {kind} event, got {event}"
    for cond in conditions:
        if "~=" in cond:
            key, text = cond.split("~=", 1)
            assert text in _field_text(event.get(key, "")), f"{where}: {key} should contain {text!r}: {event}"
        else:
            key, value = cond.split("=", 1)
            assert key in event, f"{where}: no field {key!r} in {event}"
            assert _field_text(event[key]) == value, f"{where}: {key} should be {value!r}: {event}"


def run_scenario(path: Path) -> Referee:
    fen, steps = read_scenario(path)
    assert steps, f"{path.name} has no steps"
    ref = Referee(Position.from_fen(fen) if fen else None)
    for step in steps:
        where = f"{path.name}:{step.line}"
        if step.board is not None:
            events = ref.observe(step.board)
        else:
            events = {"accept": ref.accept, "takeback": ref.takeback, "reset": ref.reset}[step.action]()
        kinds = [e["event"] for e in events]
        assert len(events) == len(step.expect), \
            f"{where}: expected {[e[0] for e in step.expect]}, got {kinds}: {events}"
        for event, expected in zip(events, step.expect, strict=True):
            check(event, expected, where)
    return ref


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    run_scenario(path)


def test_there_are_scenarios_for_every_violation_kind_and_correction() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in SCENARIOS)
    for needle in ("kind=missed_capture", "kind=king_priority", "kind=incomplete_capture", "kind=illegal_move",
                   "expect: corrected", "expect: accepted", "expect: pending", "expect: game_over",
                   "expect: reminder", "expect: takeback"):
        assert needle in text, f"no scenario checks {needle}"
