"""The fixture the loop's tests run over: each core provider's reply shapes."""

from __future__ import annotations

import pytest

from tests.loop._shapes import PROVIDERS, Shapes


@pytest.fixture(params=PROVIDERS, ids=lambda p: p.name)
def p(request: pytest.FixtureRequest) -> Shapes:
    """Each core provider's reply shapes (`tests/loop/_shapes.py`), one test each."""
    provider: Shapes = request.param
    return provider
