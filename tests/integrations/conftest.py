"""What the integrations' tests share."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest


@pytest.fixture
def sync_runs() -> Iterator[None]:
    """A framework's sync run (`run_sync`) leaves the event loop it made open: close it after."""
    yield
    policy = asyncio.get_event_loop_policy()
    policy.get_event_loop().close()
    policy.set_event_loop(None)
