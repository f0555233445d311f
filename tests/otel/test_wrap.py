"""`stopkit.wrap`-ped real SDK clients over replayed recordings: one model-call span per call."""

from __future__ import annotations

import asyncio
import copy
import gc
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import httpx2
import pytest

import stopkit
import stopkit.otel
import stopkit.record
from stopkit.record._payloads import Payload, load_payload
from tests import _wrap_clients as sdk
from tests.otel._telemetry import Recorded

# The conventions' finish reason of each stopkit reason, written out (not read from the code).
FINISH = {
    "tool_request": "tool_call", "completed": "stop", "stop_sequence": "stop",
    "output_limit": "length", "filtered": "content_filter", "unknown": "error",
    "paused": "paused",
}  # fmt: skip
PROVIDER = {
    "anthropic": "anthropic", "openai_chat": "openai", "openai_responses": "openai",
    "gemini": "gcp.gemini",  # the client talks to the Gemini API, not Vertex AI
}  # fmt: skip
MODEL = {
    "anthropic": "claude-test-model", "openai_chat": "gpt-4o", "openai_responses": "gpt-4o",
    "gemini": "gemini-2.5-flash",
}  # fmt: skip
RECORDED = sorted(p for f in sdk.FOLDERS for p in (sdk.RECORDINGS / f).glob("*.json"))


def _stream_recording(folder: str) -> Path:
    """The recorded stream of a plain answer in `folder`."""
    name = {"anthropic": "end_turn", "openai_responses": "completed"}.get(folder, "stop")
    return sdk.RECORDINGS / folder / f"{name}.stream.json"


def wrapped(folder: str, source: Any, *, is_async: bool = False) -> tuple[Any, list[Any]]:
    seen: list[stopkit.Stop] = []
    transport = stopkit.record.ReplayTransport(source)
    client = sdk.client(folder, transport, is_async=is_async)
    return stopkit.wrap(client, on_stop=seen.append), seen


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("path", RECORDED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_one_span_per_call_with_the_finish_reason(
    path: Path, is_async: bool, otel: Recorded
) -> None:
    """Each recorded reply or stream: one CLIENT span, the finish reason and the raw value."""
    folder, payload = path.parent.name, load_payload(path)
    client, seen = wrapped(folder, [path], is_async=is_async)
    if is_async:
        asyncio.run(sdk.acall(folder, client, payload.is_stream))
    else:
        sdk.call(folder, client, payload.is_stream)
    [span] = otel.spans
    stop = seen[0]
    attributes = dict(span.attributes or {})
    assert span.kind.name == "CLIENT"
    assert span.parent is None
    operation = "generate_content" if folder == "gemini" else "chat"
    assert span.name == f"{operation} {MODEL[folder]}"
    assert attributes["gen_ai.provider.name"] == PROVIDER[folder]
    assert attributes["gen_ai.request.model"] == MODEL[folder]
    assert attributes["gen_ai.response.finish_reasons"] == (FINISH[stop.reason.value],)
    assert attributes.get("stopkit.stop.raw_reason") == stop.raw_reason
    assert attributes["stopkit.stop.reason"] == stop.reason.value
    assert attributes.get("stopkit.stop.detail") == stop.detail
    assert attributes.get("gen_ai.request.stream") == (True if payload.is_stream else None)
    if folder == "anthropic":
        assert attributes["gen_ai.request.max_tokens"] == 256


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_a_stream_span_ends_when_the_stream_ends(is_async: bool, otel: Recorded) -> None:
    """The span of a streamed call is open while the stream is read, and ends at its end."""
    path = sdk.RECORDINGS / "anthropic" / "tool_use.stream.json"
    client, _ = wrapped("anthropic", [path], is_async=is_async)

    async def aread() -> None:
        stream = await sdk.arequest("anthropic", client, True)
        assert otel.spans == ()
        async for _ in stream:
            pass

    if is_async:
        asyncio.run(aread())
    else:
        stream = sdk.request("anthropic", client, True)
        assert otel.spans == ()
        for _ in stream:
            pass
    [span] = otel.spans
    assert span.attributes["gen_ai.response.finish_reasons"] == ("tool_call",)  # type: ignore[index]


@pytest.mark.parametrize("folder", sdk.FOLDERS)
def test_a_stream_cut_short_is_an_error(folder: str, otel: Recorded) -> None:
    """A stream closed before its end: finish reason `error`, detail `stream_incomplete`."""
    client, seen = wrapped(folder, [_stream_recording(folder)])
    stream = sdk.request(folder, client, True)
    next(iter(stream))
    stream.close()
    [span] = otel.spans
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.response.finish_reasons"] == ("error",)
    assert attributes["stopkit.stop.detail"] == "stream_incomplete"
    assert seen[0].detail == "stream_incomplete"


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("folder", sdk.FOLDERS)
def test_an_abandoned_stream_still_ends_its_span(
    folder: str, is_async: bool, otel: Recorded
) -> None:
    """A stream dropped after one event, never closed: its span ends, `stream_incomplete`."""
    client, seen = wrapped(folder, [_stream_recording(folder)], is_async=is_async)

    async def aread_one() -> None:
        stream = await sdk.arequest(folder, client, True)
        await anext(aiter(stream))

    if is_async:
        asyncio.run(aread_one())
    else:
        next(iter(sdk.request(folder, client, True)))
    gc.collect()  # the proxy and its watch hold each other: the cycle collector drops them
    [span] = otel.spans
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.response.finish_reasons"] == ("error",)
    assert attributes["stopkit.stop.detail"] == "stream_incomplete"
    assert seen == []  # on_stop is the caller's: never called from the garbage collector


@pytest.mark.parametrize(
    "read",
    [lambda raw: None, lambda raw: raw.http_response.json(), lambda raw: raw.parse(to=dict)],
    ids=["dropped", "read-as-json", "parsed-to-another-type"],
)
def test_a_raw_response_never_parsed_still_ends_its_span(read: Any, otel: Recorded) -> None:
    """`with_raw_response` not `parse()`d: its call still ends, as of when it returned, untold."""
    client, seen = wrapped("openai_chat", [sdk.RECORDINGS / "openai_chat" / "stop.json"])
    raw = client.chat.completions.with_raw_response.create(model="gpt-4o", messages=sdk.MESSAGES)
    returned = time.time_ns()
    read(raw)
    del raw
    gc.collect()  # the proxy dropped: the reply will never be read through stopkit
    [span] = otel.spans
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.request.model"] == "gpt-4o"
    assert "gen_ai.response.finish_reasons" not in attributes  # no reply was read
    assert span.status.status_code.name == "UNSET"
    assert span.end_time is not None
    assert span.end_time <= returned  # it ended when the call returned, not when dropped
    [(timed, (count, _))] = otel.points("gen_ai.client.operation.duration")
    assert (count, "error.type" in timed) == (1, False)
    assert otel.points("stopkit.stops") == []
    assert seen == []


def test_a_stream_broken_by_an_error_is_an_error_span(otel: Recorded) -> None:
    """A stream whose read raises midway: its span is in error with the exception's type."""
    events = load_payload(_stream_recording("anthropic")).events
    assert events is not None

    class Broken(httpx2.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            for event in events[:3]:
                yield f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
            raise httpx2.ReadError("connection reset")

    def serve(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"},
                               stream=Broken())  # fmt: skip

    client = stopkit.wrap(sdk.client("anthropic", httpx2.MockTransport(serve)))
    # anthropic >= 2.17 raises its own connection error around the transport's ReadError.
    with pytest.raises((httpx2.ReadError, anthropic.APIConnectionError)) as raised:
        sdk.call("anthropic", client, True)
    [span] = otel.spans
    attributes = dict(span.attributes or {})
    error_type = type(raised.value).__name__
    assert (span.status.status_code.name, attributes["error.type"]) == ("ERROR", error_type)
    assert attributes["gen_ai.response.finish_reasons"] == ("error",)
    assert attributes["stopkit.stop.detail"] == "stream_incomplete"
    [(failed, _)] = [p for p in otel.points("gen_ai.client.operation.duration")]
    assert failed["error.type"] == error_type


def test_every_choice_has_its_finish_reason(otel: Recorded) -> None:
    """With `n=2`, the span's finish reasons are both choices', and each is counted."""
    reply = copy.deepcopy(load_payload(sdk.RECORDINGS / "openai_chat" / "stop.json").reply)
    second = {**copy.deepcopy(reply["choices"][0]), "index": 1, "finish_reason": "length"}
    reply["choices"].append(second)
    client, _ = wrapped("openai_chat", [Payload(None, reply=reply)])
    sdk.call("openai_chat", client, False)
    [span] = otel.spans
    assert span.attributes["gen_ai.response.finish_reasons"] == ("stop", "length")  # type: ignore[index]
    reasons = sorted(a["stopkit.stop.reason"] for a, _ in otel.points("stopkit.stops"))
    assert reasons == ["completed", "output_limit"]


def test_a_failed_call_is_an_error_span(otel: Recorded) -> None:
    """An SDK call that raises (HTTP 500): the span has the exception's type, in error."""

    def fail(request: httpx.Request) -> httpx.Response:
        error = {"code": 500, "message": "internal", "status": "INTERNAL"}
        return httpx.Response(500, json={"error": error})

    client = stopkit.wrap(sdk.client("gemini", httpx.MockTransport(fail)))
    with pytest.raises(Exception, match="500"):
        sdk.call("gemini", client, False)
    [span] = otel.spans
    assert span.status.status_code.name == "ERROR"
    assert span.attributes["error.type"] == "ServerError"  # type: ignore[index]
    assert "gen_ai.response.finish_reasons" not in (span.attributes or {})


def test_a_wrapped_client_inside_a_loop_adds_to_its_span(otel: Recorded) -> None:
    """A wrapped client called by the loop: one model-call span per call, the request's facts."""
    paths = [sdk.RECORDINGS / "gemini" / name for name in ("function_call.json", "stop.json")]
    client, _ = wrapped("gemini", paths)

    def call_model(messages: list[Any], **overrides: Any) -> Any:
        config = {"max_output_tokens": overrides.get("max_tokens", 300)}
        return client.models.generate_content(
            model="gemini-2.5-flash", contents=messages, config=config
        )

    tools = {"get_weather": lambda **_: "18 °C"}
    outcome = stopkit.run_loop(call_model, "Weather?", tools=tools, adapter="gemini")
    assert outcome.turns == 2
    [root] = otel.trees()
    calls = [c for c in root.children if c.kind == "CLIENT"]
    assert [c.name for c in calls] == ["generate_content gemini-2.5-flash"] * 2
    assert [c.attributes["gen_ai.provider.name"] for c in calls] == ["gcp.gemini"] * 2
    assert [c.attributes["gen_ai.request.max_tokens"] for c in calls] == [300, 300]
    assert [c.attributes["stopkit.turn"] for c in calls] == [1, 2]
    assert all(not c.children for c in calls)  # no second span for the wrapped call


def test_nothing_after_uninstrument(otel: Recorded) -> None:
    """After `uninstrument()` a wrapped client's calls record nothing."""
    stopkit.otel.uninstrument()
    client, seen = wrapped("openai_chat", [sdk.RECORDINGS / "openai_chat" / "stop.json"])
    sdk.call("openai_chat", client, False)
    assert len(seen) == 1
    assert otel.spans == ()


@pytest.mark.parametrize(
    ("kwargs", "facts"),
    [
        ({"model": "gpt-4o", "max_tokens": 64}, ("gpt-4o", 64)),
        ({"model": "gpt-4o", "max_completion_tokens": 64}, ("gpt-4o", 64)),
        # The SDK's sentinel for a keyword left out is not a ceiling: the one given is.
        ({"model": "gpt-4o", "max_tokens": "NOT_GIVEN", "max_completion_tokens": 64},
         ("gpt-4o", 64)),
        ({"model": "gpt-4o", "max_tokens": None, "max_output_tokens": 32}, ("gpt-4o", 32)),
        ({"model": "gemini-2.5-flash", "config": {"max_output_tokens": 16}},
         ("gemini-2.5-flash", 16)),
        ({"model": "gemini-2.5-flash", "config": {"maxOutputTokens": 16}},
         ("gemini-2.5-flash", 16)),
        ({"model": "m", "max_tokens": True}, ("m", None)),  # a bool is not a count
        ({"model": "m"}, ("m", None)),
    ],
)  # fmt: skip
def test_request_facts_read_the_ceiling_the_call_gives(
    kwargs: dict[str, Any], facts: tuple[Any, Any]
) -> None:
    """The model and the output ceiling a call's keywords give; a sentinel is not a ceiling."""
    import openai

    from stopkit.otel._wrapped import request_facts

    given = {k: openai.NOT_GIVEN if v == "NOT_GIVEN" else v for k, v in kwargs.items()}
    assert request_facts(given) == facts
