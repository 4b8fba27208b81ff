"""PDN tags given on the command line, shared by ``dama watch`` and ``dama hub``."""

from __future__ import annotations


def parse_board_tags(items: list[str]) -> dict[str, dict[str, str]]:
    """``["board1:White=Novák", ...]`` → ``{"board1": {"White": "Novák"}}``; ValueError naming a bad item."""
    tags: dict[str, dict[str, str]] = {}
    for item in items:
        board, sep, rest = item.partition(":")
        name, eq, value = rest.partition("=")
        if not sep or not eq or not board or not name:
            raise ValueError(f"--tag {item!r}: write BOARD:NAME=VALUE, e.g. board1:White=Novák")
        tags.setdefault(board, {})[name] = value
    return tags
