"""The `otel` fixture: stopkit instrumented with the real SDK, every span and metric in memory."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def otel() -> Iterator[Any]:
    """Stopkit instrumented with SDK providers that keep every span and metric in memory."""
    from tests.otel._telemetry import recording  # skips (fails under CI) without the SDK

    with recording() as recorded:
        yield recorded
