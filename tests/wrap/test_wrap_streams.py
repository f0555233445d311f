"""Wrapped streams: the SDK's behaviour kept, the `Stop` reported once, cut streams caught."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import openai
import pytest

import stopkit
import stopkit.record
from stopkit.record._payloads import Payload, load_payload
from tests import _wrap_clients as sdk

TOOL_USE = sdk.RECORDINGS / "anthropic" / "tool_use.stream.json"
MAX_TOKENS = sdk.RECORDINGS / "anthropic" / "max_tokens.stream.json"
STREAMS = {
    "anthropic": TOOL_USE,
    "openai_chat": sdk.RECORDINGS / "openai_chat" / "tool_calls.stream.json",
    "openai_responses": sdk.RECORDINGS / "openai_responses" / "function_call.stream.json",
    "gemini": sdk.RECORDINGS / "gemini" / "stop.stream.json",
}


def _wrapped(
    folder: str, source: Any, *, is_async: bool = False, **settings: Any
) -> tuple[Any, list[stopkit.Stop]]:
    seen: list[stopkit.Stop] = []
    client = sdk.client(folder, stopkit.record.ReplayTransport(source), is_async=is_async)
    return stopkit.wrap(client, on_stop=seen.append, **settings), seen


def _cut(path: Any, keep: int) -> Payload:
    """The recorded stream of `path` with only its first `keep` events."""
    payload = load_payload(path)
    assert payload.events is not None
    return Payload(path, events=payload.events[:keep], response=payload.response)


def test_messages_stream_helper_reports_once_at_the_end() -> None:
    """The `messages.stream()` helper works as before and reports its Stop once, at the end."""
    client, seen = _wrapped("anthropic", [TOOL_USE])
    with client.messages.stream(model="m", max_tokens=9, messages=sdk.MESSAGES) as stream:
        assert next(stream.text_stream) == "Let me check."
        assert seen == []  # the stream has not ended yet
        assert list(stream.text_stream) == []
        assert len(seen) == 1
        message = stream.get_final_message()
        assert isinstance(message, anthropic.types.Message)
        assert stream.request_id == "req_1"  # attribute pass-through
    assert [(s.reason, [c.name for c in s.tool_calls]) for s in seen] == [
        (stopkit.StopReason.TOOL_REQUEST, ["get_weather"])
    ]
    assert message.stop_reason == "tool_use"


def test_messages_stream_events_are_the_helpers_own() -> None:
    """Iterating the watched helper yields the SDK's events, derived `text` events included."""
    client, seen = _wrapped("anthropic", [MAX_TOKENS, MAX_TOKENS])
    plain = sdk.client("anthropic", stopkit.record.ReplayTransport([MAX_TOKENS]))
    with plain.messages.stream(model="m", max_tokens=9, messages=sdk.MESSAGES) as stream:
        expected = [e.model_dump(warnings=False) for e in stream]
    with client.messages.stream(model="m", max_tokens=9, messages=sdk.MESSAGES) as stream:
        got = [e.model_dump(warnings=False) for e in stream]
    assert got == expected
    assert any(e["type"] == "text" for e in got)
    assert [s.reason for s in seen] == [stopkit.StopReason.OUTPUT_LIMIT]
    client, seen = _wrapped("anthropic", [MAX_TOKENS], raise_on={"output_limit"})
    with (
        pytest.raises(stopkit.TruncatedReply) as caught,
        client.beta.messages.stream(model="m", max_tokens=9, messages=sdk.MESSAGES) as stream,
    ):
        stream.until_done()
    assert caught.value.stop.text == "Paris is"
    assert caught.value.stop is seen[0]


def test_async_messages_stream_helper() -> None:
    """The async helper is watched the same way, `get_final_text` included."""

    async def main() -> tuple[str, list[stopkit.Stop]]:
        client, seen = _wrapped("anthropic", [MAX_TOKENS], is_async=True)
        async with client.messages.stream(model="m", max_tokens=9, messages=sdk.MESSAGES) as stream:
            text = await stream.get_final_text()
        return text, seen

    text, seen = asyncio.run(main())
    assert text == "Paris is"
    assert [(s.reason, s.detail) for s in seen] == [(stopkit.StopReason.OUTPUT_LIMIT, "max_tokens")]


@pytest.mark.parametrize("folder", sorted(STREAMS))
def test_a_cut_stream_reports_stream_incomplete(folder: str) -> None:
    """A stream without its terminal event reports `stream_incomplete`, and raises if asked."""
    events = load_payload(STREAMS[folder]).events
    assert events is not None
    cut = _cut(STREAMS[folder], len(events) - 1 if folder != "gemini" else 1)
    client, seen = _wrapped(folder, [cut])
    received = sdk.call(folder, client, True)
    plain = sdk.call(folder, sdk.client(folder, stopkit.record.ReplayTransport([cut])), True)
    assert sdk.dump(received) == sdk.dump(plain)
    assert [(s.reason, s.detail) for s in seen] == [
        (stopkit.StopReason.UNKNOWN, "stream_incomplete")
    ]
    client, seen = _wrapped(folder, [cut], raise_on={"unknown"})
    with pytest.raises(stopkit.UnknownStopReason) as caught:
        sdk.call(folder, client, True)
    assert caught.value.stop is seen[0]


CLOSED = "the caller closed the stream before its end"


@pytest.mark.parametrize("folder", sorted(STREAMS))
def test_closing_a_stream_early_reports_it_incomplete(folder: str) -> None:
    """Closing a stream after its first event reports `stream_incomplete` once, never raising."""
    client, seen = _wrapped(folder, [STREAMS[folder]], raise_on={"unknown"})
    stream = sdk.request(folder, client, True)
    next(iter(stream))
    stream.close()
    stream.close()
    assert [s.detail for s in seen] == ["stream_incomplete"]
    assert CLOSED in seen[0].notes[-1]
    assert stream.stop is seen[0]


@pytest.mark.parametrize("folder", ["anthropic", "openai_chat", "openai_responses"])
def test_leaving_a_with_block_early(folder: str) -> None:
    """A `break` out of `with stream:` reports it incomplete, closed by the caller: no raise."""
    client, seen = _wrapped(folder, [STREAMS[folder]] * 2, raise_on={"unknown"})

    def leave_early() -> None:
        with sdk.request(folder, client, True) as stream:
            for _ in stream:
                break

    def fail_inside() -> None:
        with sdk.request(folder, client, True) as stream:
            for _ in stream:
                raise KeyError("boom")

    leave_early()
    with pytest.raises(KeyError, match="boom"):
        fail_inside()
    assert [s.detail for s in seen] == ["stream_incomplete", "stream_incomplete"]
    assert CLOSED in seen[0].notes[-1]


def test_leaving_a_stream_helper_early() -> None:
    """A `break` out of the `messages.stream()` helper is the caller's choice: no raise."""
    client, seen = _wrapped("anthropic", [TOOL_USE], raise_on={"unknown"})
    with client.messages.stream(model="m", max_tokens=9, messages=sdk.MESSAGES) as stream:
        for _ in stream:
            break
    assert [(s.reason, s.detail) for s in seen] == [
        (stopkit.StopReason.UNKNOWN, "stream_incomplete")
    ]
    assert CLOSED in seen[0].notes[-1]


def test_closing_after_the_end_still_raises_what_the_reply_says() -> None:
    """Closed after its terminal event, a stream is whole: `raise_on` acts on its reason."""
    client, seen = _wrapped("anthropic", [MAX_TOKENS], raise_on={"output_limit"})
    stream = client.messages.create(model="m", max_tokens=9, messages=sdk.MESSAGES, stream=True)
    for event in stream:
        if event.type == "message_stop":
            break
    with pytest.raises(stopkit.TruncatedReply):
        stream.close()
    assert [(s.reason, s.notes) for s in seen] == [(stopkit.StopReason.OUTPUT_LIMIT, ())]


@pytest.mark.parametrize("folder", sorted(STREAMS))
def test_async_stream_close_and_cut(folder: str) -> None:
    """Async streams: a cut stream raises, an early `close()` does not; both are incomplete."""
    events = load_payload(STREAMS[folder]).events or []
    cut = _cut(STREAMS[folder], len(events) - 1 if folder != "gemini" else 1)

    async def main() -> list[stopkit.Stop]:
        client, seen = _wrapped(folder, [cut, STREAMS[folder]], is_async=True, raise_on="unknown")
        with pytest.raises(stopkit.UnknownStopReason):  # the connection ended it: it raises
            await sdk.acall(folder, client, True)
        stream = await sdk.arequest(folder, client, True)
        await anext(aiter(stream))
        await stream.close()  # the caller ended it: it does not
        return seen

    seen = asyncio.run(main())
    assert [(s.reason, s.detail) for s in seen] == [
        (stopkit.StopReason.UNKNOWN, "stream_incomplete"),
        (stopkit.StopReason.UNKNOWN, "stream_incomplete"),
    ]
    assert [CLOSED in " ".join(s.notes) for s in seen] == [False, True]


def test_stream_proxy_yields_the_very_same_objects() -> None:
    """The watched stream hands out the identical event objects the SDK stream yields."""
    client, _ = _wrapped("openai_chat", [STREAMS["openai_chat"]])
    stream = client.chat.completions.create(model="m", messages=sdk.MESSAGES, stream=True)
    assert isinstance(stream, openai.Stream)
    inner = stream.__wrapped__
    original = inner._iterator
    produced: list[Any] = []

    def spy() -> Any:
        for event in original:
            produced.append(event)
            yield event

    inner._iterator = spy()  # every event the SDK stream yields passes through the spy
    received = list(stream)
    assert received
    assert all(a is b for a, b in zip(received, produced, strict=True))


def test_unwatched_attributes_pass_through() -> None:
    """Everything not watched is the client's own: options, raw response fields, resources."""
    end_turn = sdk.RECORDINGS / "anthropic" / "end_turn.json"
    raw = sdk.client("anthropic", stopkit.record.ReplayTransport([end_turn] * 2))
    client = stopkit.wrap(raw)
    assert client.__wrapped__ is raw
    assert isinstance(client, anthropic.Anthropic)
    assert client.api_key == sdk.API_KEY
    assert client.messages.batches is not None
    assert client.messages.count_tokens.__self__ is raw.messages
    assert "stopkit.wrap(" in repr(client)
    response = client.messages.with_raw_response.create(
        model="m", max_tokens=9, messages=sdk.MESSAGES
    )
    assert response.http_request.method == "POST"  # the SDK's raw response; only parse() is watched
    seen: list[stopkit.Stop] = []
    faster = stopkit.wrap(raw, on_stop=seen.append).with_options(timeout=5)
    assert faster.timeout == 5
    faster.messages.create(model="m", max_tokens=9, messages=sdk.MESSAGES)
    assert len(seen) == 1  # a client derived with with_options() is still watched


def test_gemini_client_aio_and_with_block() -> None:
    """`genai.Client.aio` is watched, and the wrapped client still works as a context manager."""
    path = sdk.RECORDINGS / "gemini" / "max_tokens.json"
    client, seen = _wrapped("gemini", [path], is_async=True)
    asyncio.run(sdk.acall("gemini", client, False))
    assert [s.reason for s in seen] == [stopkit.StopReason.OUTPUT_LIMIT]
    plain = sdk.client("openai_chat", stopkit.record.ReplayTransport([path]))
    with stopkit.wrap(plain) as wrapped:
        assert wrapped.__wrapped__ is plain


def test_wrapping_a_wrapped_client_reports_to_both() -> None:
    """Wrapping twice nests the watchers: each `on_stop` hears of each reply once."""
    path = sdk.RECORDINGS / "openai_chat" / "length.stream.json"
    inner, first = _wrapped("openai_chat", [path])
    second: list[stopkit.Stop] = []
    outer = stopkit.wrap(inner, on_stop=second.append)
    sdk.call("openai_chat", outer, True)
    assert [s.reason for s in first] == [s.reason for s in second] == ["output_limit"]
