"""`run_loop` / `arun_loop` read every reply and stream the client families return.

`call_model` returns what the real SDK client returned (over a loopback server, as in
tests/wrap/test_families.py): a boto3 Converse dict, its `converse_stream` response dict, an
InvokeModel response whose body is still unread, a mistralai `EventStream`, an Ollama iterator,
a Cohere generator, LiteLLM's `CustomStreamWrapper` and Responses stream, xai_sdk's `Response`
and `(Response, Chunk)` pairs (over gRPC, tests/wrap/test_xai.py's server), ... The loop reads
each as `stopkit.wrap` does (one list of stream forms): the run ends as the reply says.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from xai_sdk.chat import user

import stopkit
from stopkit import Termination
from stopkit.record._payloads import load_payload
from tests._loopback import Loopback
from tests.adapters.test_litellm import _close_the_loop_litellm_leaves  # noqa: F401 -- an autouse fixture
from tests.adapters.test_litellm import pytestmark as litellm_warnings
from tests.wrap.families import BY_NAME, FORMS, Form, served, settle
from tests.wrap.test_families import _payload
from tests.wrap.test_xai import Chat, _client, _queue, serving

pytestmark = litellm_warnings  # LiteLLM's own pydantic warnings: not stopkit's doing

# What the loop reads: the forms returning a reply or a stream (not a raw HTTP response).
READ = [form for form in FORMS if form.read == "value"]


@pytest.fixture(scope="module")
def loopback() -> Iterator[Loopback]:
    """One loopback server for the module."""
    with served() as http:
        yield http


def _completed(loopback: Loopback, form: Form) -> stopkit.Stop:
    """Queue the form's completed reply (or stream) on the server; return its recorded `Stop`."""
    reply, stream = form.cases["completed"]
    path = stream if form.stream else reply
    assert path is not None
    loopback.queue[:] = [_payload(form, path)]
    return load_payload(path).stop()


@pytest.mark.parametrize("form", READ, ids=lambda f: f.id)
def test_the_loop_reads_what_the_client_returned(loopback: Loopback, form: Form) -> None:
    """A completed reply (or stream) of each form ends the run `completed`, with its text."""
    expected = _completed(loopback, form)

    async def run() -> stopkit.Outcome:
        client = BY_NAME[form.family].make(loopback.url, form.is_async)
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


STREAMS = [form for form in READ if form.stream]


@pytest.mark.parametrize("form", STREAMS, ids=lambda f: f.id)
def test_normalize_stream_reads_what_the_loop_reads(loopback: Loopback, form: Form) -> None:
    """The stream a client returned, given to `normalize_stream`, is read as the loop reads it.

    One list of stream forms (`stopkit/_forms.py`): boto3's `converse_stream` dict, mistralai's
    `EventStream`, ... are unpacked to their wire events by all three readers.
    """
    expected = _completed(loopback, form)

    async def read() -> stopkit.Stop:
        client = BY_NAME[form.family].make(loopback.url, form.is_async)
        if form.is_async:
            return await stopkit.anormalize_stream(await settle(form.call(client, loopback.url)))
        return stopkit.normalize_stream(form.call(client, loopback.url))

    stop = asyncio.run(read())
    assert (stop.reason, stop.detail, stop.text) == (expected.reason, None, expected.text)
    assert stop.provider == (form.adapter or expected.provider)
    assert loopback.queue == []


@pytest.fixture(scope="module")
def grpc_server() -> Iterator[tuple[Chat, str]]:
    """xai_sdk's Chat service on a local port (tests/wrap/test_xai.py's)."""
    with serving() as served:
        yield served


@pytest.mark.parametrize("stream", [False, True], ids=["sample", "stream"])
@pytest.mark.parametrize("is_async", [False, True], ids=["run_loop", "arun_loop"])
def test_the_loop_reads_xai_sdks_response_and_stream(
    grpc_server: tuple[Chat, str], stream: bool, is_async: bool
) -> None:
    """`chat.sample()`'s `Response`, and the pairs `chat.stream()` yields, end the run completed."""
    chat, address = grpc_server
    _queue(chat, "stop", stream=stream)

    def start() -> Any:  # the client made where it is used (an async one, on the running loop)
        client = _client(address, is_async)
        conversation = client.chat.create(model="grok-4", messages=[user("Weather?")])
        return conversation.stream() if stream else conversation.sample()

    async def acall(messages: list[Any], **overrides: Any) -> Any:
        return await settle(start())

    if is_async:
        outcome = asyncio.run(stopkit.arun_loop(acall, "Weather?"))
    else:
        outcome = stopkit.run_loop(lambda m, **kw: start(), "Weather?")
    assert outcome.stop is not None
    assert (outcome.termination, outcome.stop.provider) == (Termination.COMPLETED, "xai")
    assert outcome.text == "Paris is sunny."
