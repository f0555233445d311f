"""Shared test configuration."""

from __future__ import annotations

import os

from hypothesis import settings

# A fixed, bounded profile for CI; `HYPOTHESIS_PROFILE=dev` explores more locally.
settings.register_profile("ci", max_examples=150, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
