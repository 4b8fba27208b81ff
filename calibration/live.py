"""A profile at run time: what the watch loop calls on every frame and now and then.

    live = LiveCalibration(load_profile(path))
    pipeline = live.pipeline()                      # the recognizer, sharing the profile's colour model
    for frame in source:
        image = live.prepare(frame.image)          # undistorted with cached maps (no-op without a lens)
        result = pipeline.process(image, frame.t)
        ...
        live.adapt(image, trusted_board)            # after a stable, referee-confirmed position
    save_profile(live.profile)                      # keep what the light taught us for next time

There is one colour model: vision's (:class:`vision.classify.ColourModel`), stored in the profile. The
pipeline built by :meth:`LiveCalibration.pipeline` reads with that very object and nudges it on every
confident frame; :meth:`adapt` moves it further with positions the referee trusts and writes it back
into the profile. ``adapt`` only acts every ``every`` calls to stay cheap.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration import vision_adapter
from calibration.colours import adapt, classify, square_vectors
from calibration.profile import Profile
from calibration.undistort import undistort


class LiveCalibration:
    """Undistortion, the vision pipeline (or its profile dict), a fallback reading and drift adaptation."""

    def __init__(self, profile: Profile, rate: float = 0.02, every: int = 10) -> None:
        self.profile = profile
        self.rate = rate
        self.every = max(1, every)
        self._calls = 0
        self.model = vision_adapter.colour_model(profile)  # ProfileError when damaged

    def prepare(self, frame: np.ndarray) -> np.ndarray:
        """The frame as the pipeline must see it (lens distortion removed when calibrated)."""
        return undistort(frame, self.profile.camera)

    def pipeline_profile(self) -> dict[str, Any]:
        return vision_adapter.pipeline_profile(self.profile)

    def pipeline(self, **options: Any) -> Any:
        """The vision pipeline for this profile, reading with (and adapting) the profile's colour model."""
        from vision.pipeline import VisionPipeline

        vp = VisionPipeline(self.pipeline_profile(), **options)
        if self.model is not None:
            vp.model = self.model  # the same object: one model, adapted by the game and by :meth:`adapt`
        return vp

    def read(self, frame: np.ndarray) -> str | None:
        """The colour model's reading of a prepared frame at the profile's corners, None before calibration."""
        if self.model is None or self.profile.board is None:
            return None
        return classify(self.model, square_vectors(frame, self.profile.board.corners))[0]

    def adapt(self, frame: np.ndarray, observation: str) -> bool:
        """Follow light drift with a trusted observation; True when the model was updated this call."""
        self._calls += 1
        if self.model is None or self.profile.board is None or self._calls % self.every:
            return False
        if len(observation) != 32 or "?" in observation:
            return False  # only fully seen positions teach the model
        if not adapt(self.model, square_vectors(frame, self.profile.board.corners), observation, self.rate):
            return False
        vision_adapter.set_colour_model(self.profile, self.model)
        return True
