"""The feed written to a folder in the layout relay tools poll (after DGT LiveChess's export):

    <folder>/tournament.json          event name, rounds
    <folder>/round-<R>/index.json     the games of the round (board, players, result, file)
    <folder>/round-<R>/game-<N>.pdn   one game per file
    <folder>/round-<R>/games.pdn      every game of the round in one file

Every file is replaced atomically (write a temporary file, then rename), so a poller never reads half a
file, and only files whose content changed are rewritten.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from dama.broadcast.feed import BroadcastFeed


def write_atomic(path: Path, text: str) -> bool:
    """Replace ``path`` with ``text`` unless it already holds it; returns whether it wrote."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except FileNotFoundError:
        pass
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return True


class FolderSink:
    """An event-bus sink that keeps a relay folder current from a :class:`BroadcastFeed`."""

    name = "broadcast-folder"

    def __init__(self, feed: BroadcastFeed, folder: str | Path) -> None:
        self.feed = feed
        self.folder = Path(folder)
        self._written_version = -1

    def handle(self, event: dict[str, Any]) -> None:
        self.write()

    def write(self) -> int:
        """Bring the folder up to date; returns the number of files rewritten."""
        if self.feed.version == self._written_version:
            return 0
        version = self.feed.version
        round_no = self.feed.tags.get("Round", "1")
        round_dir = self.folder / f"round-{round_no}"
        written = 0
        index = self.feed.index()
        for game in json.loads(index.body)["games"]:
            doc = self.feed.board_pdn(game["board"])
            if doc is not None:
                written += write_atomic(round_dir / game["file"], doc.body)
        written += write_atomic(round_dir / "games.pdn", self.feed.round_pdn().body)
        written += write_atomic(round_dir / "index.json", index.body + "\n")
        tournament = {"name": self.feed.tags.get("Event", "?"), "site": self.feed.tags.get("Site", "?"),
                      "rounds": [{"round": round_no, "index": f"round-{round_no}/index.json"}]}
        written += write_atomic(self.folder / "tournament.json", json.dumps(tournament, indent=1) + "\n")
        self._written_version = version
        return written

    def close(self) -> None:
        self.write()
