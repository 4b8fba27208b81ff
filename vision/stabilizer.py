"""Stage 5, stability: pass an observation on only once the board has been still and unoccluded.

Hands moving pieces produce many transient observations (half-lifted pieces, occluded squares); the
referee must see only the positions the players leave on the board. An observation is emitted once it
has been seen, unchanged, with no hand and no ``?`` square, for ``hold_seconds`` of frame time (and in
at least ``min_frames`` frames, so a slow source cannot pass a single glimpse), and not again while it
stays the same. The hold starts no earlier than ``grace_seconds`` after the last frame with a hand: the
first frames after a hand leaves may still carry its blur or shadow.
"""

from __future__ import annotations


class Stabilizer:
    """Debounce observations by frame time: ``update`` returns a board once per stable change."""

    def __init__(self, hold_seconds: float = 0.5, grace_seconds: float = 0.1, min_frames: int = 1) -> None:
        if hold_seconds < 0 or grace_seconds < 0:
            raise ValueError("hold_seconds and grace_seconds must be >= 0")
        if min_frames < 1:
            raise ValueError("min_frames must be >= 1")
        self.hold_seconds = float(hold_seconds)
        self.grace_seconds = float(grace_seconds)
        self.min_frames = int(min_frames)
        self.reset()

    @property
    def last_emitted(self) -> str | None:
        """The last observation passed on (None before the first)."""
        return self._emitted

    def reset(self) -> None:
        """Forget everything (e.g. after re-localization or a new game): the next stable board is emitted."""
        self._candidate: str | None = None
        self._since: float | None = None
        self._frames = 0
        self._hand_at: float | None = None
        self._emitted: str | None = None

    def update(self, t: float, observation: str | None, hand: bool) -> str | None:
        """Feed one frame's result at time ``t`` (seconds); returns the observation when it becomes stable.

        ``observation`` None (board not found), a hand over the board or any ``?`` square restarts the
        wait: nothing seen through a hand counts as stable.
        """
        if observation is None or hand or "?" in observation:
            self._candidate = None
            self._since = None
            self._frames = 0
            self._hand_at = t
            return None
        if observation != self._candidate:
            self._candidate = observation
            self._since = t
            self._frames = 0
        self._frames += 1
        assert self._since is not None
        start = self._since
        if self._hand_at is not None:
            start = max(start, self._hand_at + self.grace_seconds)
        if t - start >= self.hold_seconds and self._frames >= self.min_frames and observation != self._emitted:
            self._emitted = observation
            return observation
        return None
