"""A user's test suite on the stopkit pytest plugin, as a project would write it.

Collected with the rest of the tests, and run by CI once more at the lowest pytest and pluggy
the plugin declares (`stopkit[pytest]`): it uses only pytest, httpx and stopkit.
"""

from __future__ import annotations

from typing import Any

import pytest

from stopkit.testing import Payload, assert_stop


def test_a_test_that_does_not_use_the_plugin() -> None:
    """An unrelated test runs as if the plugin were not there."""
    assert sum([1, 2]) == 3


@pytest.mark.stopkit_payloads("payloads")
def test_each_payload_in_the_folder(stopkit_payload: Payload) -> None:
    """The marker gives each payload of the folder in turn (its README.txt is no payload)."""
    assert stopkit_payload.name in ("reply.json", "stream.txt")
    assert_stop(stopkit_payload, provider="anthropic")


def test_the_replay_fixture_serves_a_recording(stopkit_replay: Any) -> None:
    """The fixture's HTTP client answers a request with the recorded reply."""
    client = stopkit_replay.client("payloads/reply.json", library="httpx")
    reply = client.post("https://api.anthropic.com/v1/messages", json={}).json()
    assert_stop(reply, reason="completed")
