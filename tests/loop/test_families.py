"""`run_loop` / `arun_loop` read every reply and stream the client families return.

`call_model` returns what the real SDK client returned (over a loopback server, as in
tests/wrap/test_families.py): a boto3 Converse dict, its `converse_stream` response dict, an
InvokeModel response whose body is still unread, a mistralai `EventStream`, an Ollama iterator,
a Cohere generator, LiteLLM's `CustomStreamWrapper` and Responses stream, ... The loop reads
each as `stopkit.wrap` does (one list of stream forms): the run ends as the reply says.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

import stopkit
from stopkit import Termination
from stopkit.record._payloads import load_payload
from tests._loopback import Loopback
from tests.test_litellm import _close_the_loop_litellm_leaves  # noqa: F401 -- an autouse fixture
from tests.test_litellm import pytestmark as litellm_warnings
from tests.wrap.families import BY_NAME, FORMS, Form, served, settle
from tests.wrap.test_families import _payload

pytestmark = litellm_warnings  # LiteLLM's own pydantic warnings: not stopkit's doing

# What the loop reads: the forms returning a reply or a stream (not a raw HTTP response).
READ = [form for form in FORMS if form.read == "value"]


@pytest.fixture(scope="module")
def loopback() -> Iterator[Loopback]:
    """One loopback server for the module."""
    with served() as server:
        yield server


@pytest.mark.parametrize("form", READ, ids=lambda f: f.id)
def test_the_loop_reads_what_the_client_returned(loopback: Loopback, form: Form) -> None:
    """A completed reply (or stream) of each form ends the run `completed`, with its text."""
    reply, stream = form.cases["completed"]
    path = stream if form.stream else reply
    assert path is not None
    loopback.queue[:] = [_payload(form, path)]
    expected = load_payload(path).stop()
    family = BY_NAME[form.family]

    async def run() -> stopkit.Outcome:
        client = family.make(loopback.url, form.is_async)
        if form.is_async:

            async def acall(messages: list[Any], **overrides: Any) -> Any:
                return await settle(form.call(client, loopback.url))

            return await stopkit.arun_loop(acall, "Weather in Paris?")
        return stopkit.run_loop(lambda m, **kw: form.call(client, loopback.url), "Weather?")

    outcome = asyncio.run(run())
    assert outcome.stop is not None
    assert (outcome.termination, outcome.stop.detail) == (Termination.COMPLETED, None)
    assert outcome.text == expected.text
    assert outcome.stop.provider == (form.adapter or expected.provider)
    assert loopback.queue == []
