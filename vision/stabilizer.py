"""Stage 5, stability: pass an observation on only once the board has been still and unoccluded.

Hands moving pieces produce many transient observations (half-lifted pieces, occluded squares); the
referee must see only the positions the players leave on the board. An observation is emitted once it
has been seen, unchanged, with no hand and no ``?`` square, for ``hold_seconds`` of frame time, and not
again while it stays the same.
"""

from __future__ import annotations


class Stabilizer:
    """Debounce observations by frame time: ``update`` returns a board once per stable change."""

    def __init__(self, hold_seconds: float = 0.5) -> None:
        if hold_seconds < 0:
            raise ValueError("hold_seconds must be >= 0")
        self.hold_seconds = float(hold_seconds)
        self._candidate: str | None = None
        self._since: float | None = None
        self._emitted: str | None = None

    @property
    def last_emitted(self) -> str | None:
        """The last observation passed on (None before the first)."""
        return self._emitted

    def reset(self) -> None:
        """Forget everything (e.g. after re-localization or a new game): the next stable board is emitted."""
        self._candidate = None
        self._since = None
        self._emitted = None

    def update(self, t: float, observation: str | None, hand: bool) -> str | None:
        """Feed one frame's result at time ``t`` (seconds); returns the observation when it becomes stable.

        ``observation`` None (board not found), a hand over the board or any ``?`` square restarts the
        wait: nothing seen through a hand counts as stable.
        """
        if observation is None or hand or "?" in observation:
            self._candidate = None
            self._since = None
            return None
        if observation != self._candidate:
            self._candidate = observation
            self._since = t
        assert self._since is not None
        if t - self._since >= self.hold_seconds and observation != self._emitted:
            self._emitted = observation
            return observation
        return None
