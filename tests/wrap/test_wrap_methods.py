"""`stopkit.wrap(client, methods={...})`: any client's methods watched, named by their path.

The client here is the tests' own (a small class whose replies are Chat completions as JSON
dicts, and whose stream is a generator of chunks), as any in-house SDK would be.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

import stopkit
import stopkit.record
import stopkit.testing
from tests import _wrap_clients as sdk


def _completion(finish: str, text: str = "Paris is") -> dict[str, Any]:
    return {"object": "chat.completion", "choices": [
        {"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": text}}
    ]}  # fmt: skip


def _chunks(finish: str) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        return {"object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip

    first = chunk({"role": "assistant", "content": "Paris"}, None)
    return [first, chunk({"content": " is"}, finish)]


class Chat:
    """An in-house client's chat resource: `complete`, `stream`, and an async `acomplete`."""

    def __init__(self, finish: str) -> None:
        self.finish = finish
        self.sent: list[dict[str, Any]] = []

    def complete(self, **request: Any) -> Any:
        self.sent.append(request)
        if request.get("stream"):
            return iter(_chunks(self.finish))
        return _completion(self.finish)

    def stream(self, **request: Any) -> Iterator[dict[str, Any]]:
        yield from _chunks(self.finish)

    async def acomplete(self, **request: Any) -> Any:
        if request.get("stream"):
            return self._aiter()
        return _completion(self.finish)

    async def _aiter(self) -> AsyncIterator[dict[str, Any]]:
        for chunk in _chunks(self.finish):
            yield chunk


class Assistant:
    """The in-house client: `client.chat.<method>`, and an attribute that is no method."""

    def __init__(self, finish: str = "length") -> None:
        self.chat = Chat(finish)
        self.model = "in-house-1"


METHODS = {"chat.complete": "openai.chat", "chat.acomplete": "openai.chat"}


def _wrapped(finish: str = "length", **settings: Any) -> tuple[Any, list[stopkit.Stop]]:
    seen: list[stopkit.Stop] = []
    client = stopkit.wrap(Assistant(finish), on_stop=seen.append, methods=METHODS, **settings)
    return client, seen


def test_a_named_method_is_watched_and_returns_its_own_value() -> None:
    """The method's reply is returned as is and `on_stop` hears its `Stop`; the rest passes."""
    client, seen = _wrapped()
    reply = client.chat.complete(model="m", messages=sdk.MESSAGES)
    assert reply == _completion("length")
    assert [(s.reason, s.provider) for s in seen] == [("output_limit", "openai.chat")]
    assert seen[0].raw is reply
    assert client.model == "in-house-1"
    assert isinstance(client, Assistant)
    assert list(client.chat.stream()) == _chunks("length")  # not named: not watched
    assert len(seen) == 1


@pytest.mark.parametrize("finish", ["length", "content_filter", "bogus"])
def test_raise_on_raises_for_a_named_method(finish: str) -> None:
    """With the reply's reason in `raise_on`, the named method raises the typed error."""
    client, seen = _wrapped(finish, raise_on={"output_limit", "filtered", "unknown"})
    with pytest.raises(stopkit.StopReasonError) as caught:
        client.chat.complete(model="m")
    assert caught.value.stop is seen[0]


def test_a_stream_is_detected_by_stream_true_and_reported_at_its_end() -> None:
    """`stream=True` makes the result a watched stream: its chunks as they are, one `Stop`."""
    client, seen = _wrapped()
    chunks = list(client.chat.complete(model="m", stream=True))
    assert chunks == _chunks("length")
    assert [(s.reason, s.text) for s in seen] == [("output_limit", "Paris is")]


def test_a_stream_closed_early_reports_it_incomplete() -> None:
    """A named method's stream broken off after its first chunk reports `stream_incomplete`."""
    client, seen = _wrapped()
    stream = client.chat.complete(model="m", stream=True)
    next(stream)
    stream.close()
    assert [(s.reason, s.detail) for s in seen] == [("unknown", "stream_incomplete")]


def test_a_coroutine_method_is_awaited_and_its_async_stream_watched() -> None:
    """An `async def` method is awaited: its reply and its async stream are both reported."""

    async def main() -> list[stopkit.Stop]:
        client, seen = _wrapped("stop")
        await client.chat.acomplete(model="m")
        stream = await client.chat.acomplete(model="m", stream=True)
        assert [chunk async for chunk in stream] == _chunks("stop")
        return seen

    seen = asyncio.run(main())
    assert [s.reason for s in seen] == ["completed", "completed"]


def test_methods_add_to_a_known_clients_routes() -> None:
    """On a known client `methods=` adds a method (openai's legacy `completions.create`)."""
    legacy = {"object": "text_completion", "choices": [
        {"index": 0, "text": "Paris is", "finish_reason": "length"}]}  # fmt: skip
    transport = stopkit.record.ReplayTransport([stopkit.testing.Payload(None, reply=legacy)] * 2)
    seen: list[stopkit.Stop] = []
    client = stopkit.wrap(
        sdk.client("openai_chat", transport),
        on_stop=seen.append,
        methods={"completions.create": "openai.completions"},
    )
    client.completions.create(model="gpt-3.5-turbo-instruct", prompt="Weather?")
    assert [(s.reason, s.provider) for s in seen] == [("output_limit", "openai.completions")]


@pytest.mark.parametrize(
    ("methods", "error", "says"),
    [
        ({"chat.compleet": "openai.chat"}, ValueError, "chat has no attribute 'compleet'"),
        ({"chats.complete": "openai.chat"}, ValueError, "the client has no attribute 'chats'"),
        ({"model": "openai.chat"}, ValueError, "'model' is a str, not a method"),
        ({"chat..complete": "openai.chat"}, ValueError, "not a dotted method path"),
        ({"chat.complete": "acme"}, stopkit.AdapterNotFound, "no adapter named 'acme'"),
        ({"chat.complete": object()}, TypeError, "name an adapter"),
    ],
)
def test_a_bad_method_or_adapter_fails_when_wrapping(
    methods: dict[str, Any], error: type[Exception], says: str
) -> None:
    """A path that names no method, or a name that is no adapter, fails at `wrap`, saying so."""
    with pytest.raises(error, match=says):
        stopkit.wrap(Assistant(), methods=methods)


def test_an_unknown_client_is_refused_naming_the_families_and_the_escape_hatch() -> None:
    """Without `methods=`, a client of no known family is a `TypeError` saying what to do."""
    with pytest.raises(TypeError) as caught:
        stopkit.wrap(Assistant())
    message = str(caught.value)
    assert "does not know tests.wrap.test_wrap_methods.Assistant" in message
    for family in ("anthropic", "boto3 bedrock-runtime", "mistralai", "litellm", "xai_sdk"):
        assert family in message
    assert "methods={'chat.complete': 'openai.chat'}" in message
