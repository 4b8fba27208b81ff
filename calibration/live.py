"""A profile at run time: what the watch loop calls on every frame and now and then.

    live = LiveCalibration(load_profile(path))
    pipeline = VisionPipeline(live.pipeline_profile())
    for frame in source:
        image = live.prepare(frame.image)          # undistorted with cached maps (no-op without a lens)
        result = pipeline.process(image, frame.t)
        ...
        live.adapt(image, trusted_board)            # after a stable, referee-confirmed position
    save_profile(live.profile)                      # keep what the light taught us for next time

``adapt`` moves the colour model slowly toward the light of the moment (see
:meth:`calibration.colours.ColourModel.update`); it only acts every ``every`` calls to stay cheap.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration import vision_adapter
from calibration.colours import ColourModel, dark_square_samples
from calibration.profile import Profile, ProfileError
from calibration.undistort import undistort


class LiveCalibration:
    """Undistortion, the vision pipeline's profile dict, a fallback reading and drift adaptation."""

    def __init__(self, profile: Profile, rate: float = 0.02, every: int = 10) -> None:
        self.profile = profile
        self.rate = rate
        self.every = max(1, every)
        self._calls = 0
        data = profile.colours.get("model")
        try:
            self.model = ColourModel.from_json(data) if data else None
        except (KeyError, TypeError, ValueError) as exc:
            raise ProfileError(f"profile {profile.name}: its colour model is damaged ({exc}); "
                               "run dama calibrate colours") from None

    def prepare(self, frame: np.ndarray) -> np.ndarray:
        """The frame as the pipeline must see it (lens distortion removed when calibrated)."""
        return undistort(frame, self.profile.camera)

    def pipeline_profile(self) -> dict[str, Any]:
        return vision_adapter.pipeline_profile(self.profile)

    def read(self, frame: np.ndarray) -> str | None:
        """The colour model's reading of a prepared frame (32 chars), None before calibration."""
        if self.model is None or self.profile.board is None:
            return None
        dark, _ = dark_square_samples(frame, self.profile.board.corners)
        return self.model.classify(dark)

    def adapt(self, frame: np.ndarray, observation: str) -> bool:
        """Follow light drift with a trusted observation; True when the model was updated this call."""
        self._calls += 1
        if self.model is None or self.profile.board is None or self._calls % self.every:
            return False
        if len(observation) != 32 or "?" in observation:
            return False  # only fully seen positions teach the model
        dark, _ = dark_square_samples(frame, self.profile.board.corners)
        self.model.update(dark, observation, self.rate)
        self.profile.colours["model"] = self.model.to_json()
        return True
