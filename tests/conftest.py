"""Test-wide settings: property tests explore afresh on every local run, but CI replays a fixed set.

Hypothesis draws new examples on each run, which is how a developer's ``make test`` finds new failing
games (a looping king capture was found this way). A landing gate must not fail at random, so with
``CI`` set the examples are derandomized (the same every run); a failure prints the example to
reproduce it locally (``@reproduce_failure``).
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
