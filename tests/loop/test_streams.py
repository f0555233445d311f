"""A streaming `call_model` (`stopkit/loop/_streams.py`): the loop reads the stream it returns.

Real SDK clients run over recorded streams (`stopkit.record.ReplayTransport`); `call_model` returns
the SDK's own stream object, and the loop reads it with the adapter's accumulator, reporting
the text as it arrives.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import stopkit
import stopkit.loop.events
import stopkit.record
from stopkit import Termination
from stopkit.loop.events import TextDelta
from tests import _wrap_clients as sdk
from tests._payloads import PAYLOADS
from tests.loop._validate import assert_valid_transcript

# folder -> (the recorded tool request stream, the recorded final answer stream)
TURNS = {
    "anthropic": ("tool_use", "end_turn"),
    "openai_chat": ("tool_calls", "stop"),
    "openai_responses": ("function_call", "completed"),
    "gemini": ("function_call", "stop"),
}


def recorded(folder: str, name: str) -> Path:
    return sdk.RECORDINGS / folder / f"{name}.stream.json"


def stop_of(folder: str, name: str) -> stopkit.Stop:
    """The Stop of a recorded stream, read without the loop."""
    events = json.loads(recorded(folder, name).read_text())["response"]["events"]
    return stopkit.normalize_stream(events, adapter=sdk.ADAPTER[folder])


def weather(**arguments: Any) -> str:
    return "18 °C"


def texts_by_turn(events: list[Any]) -> dict[int, str]:
    joined: dict[int, str] = {}
    for event in events:
        if isinstance(event, TextDelta):
            joined[event.turn] = joined.get(event.turn, "") + event.text
    return joined


def check(folder: str, outcome: stopkit.Outcome, events: list[Any]) -> None:
    first, final = (stop_of(folder, name) for name in TURNS[folder])
    assert outcome.termination is Termination.COMPLETED
    assert outcome.text == final.text != ""
    assert outcome.turns == 2
    assert [r.call.name for r in outcome.tool_runs] == [c.name for c in first.tool_calls]
    assert [r.result.content for r in outcome.tool_runs] == ["18 °C"] * len(first.tool_calls)
    adapter = stopkit.get_adapter(sdk.ADAPTER[folder])
    sent_back = outcome.messages[1 : 1 + len(adapter.assistant_message(first))]
    assert sent_back == adapter.assistant_message(first)  # the rebuilt reply goes back
    assert texts_by_turn(events) == {n: s.text for n, s in ((1, first), (2, final)) if s.text}
    assert_valid_transcript(adapter.name, outcome.messages)


@pytest.mark.parametrize("folder", list(TURNS))
def test_run_loop_reads_the_sdks_own_stream(folder: str) -> None:
    """`call_model` returns `create(stream=True)`'s stream (a generator for Gemini)."""
    client = sdk.client(
        folder, stopkit.record.ReplayTransport([recorded(folder, name) for name in TURNS[folder]])
    )
    events: list[Any] = []

    def call_model(messages: list[Any], **overrides: Any) -> Any:
        return sdk.request(folder, client, stream=True)

    outcome = stopkit.run_loop(
        call_model, "Weather in Paris?", tools={"get_weather": weather}, on_event=events.append
    )
    check(folder, outcome, events)


@pytest.mark.parametrize("folder", list(TURNS))
async def test_arun_loop_reads_the_sdks_own_async_stream(folder: str) -> None:
    """An async `call_model` returns the async client's stream; `async for` reads it."""
    transport = stopkit.record.ReplayTransport([recorded(folder, name) for name in TURNS[folder]])
    client = sdk.client(folder, transport, is_async=True)
    events: list[Any] = []

    async def call_model(messages: list[Any], **overrides: Any) -> Any:
        return await sdk.arequest(folder, client, stream=True)

    outcome = await stopkit.arun_loop(
        call_model, "Weather in Paris?", tools={"get_weather": weather}, on_event=events.append
    )
    check(folder, outcome, events)


# The recordings' tool, strict: the openai helpers parse its calls' arguments (`parsed_arguments`).
WEATHER_TOOL = {
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
    "strict": True,
}

# folder -> the SDK's stream helper: a manager whose `with` gives the helper stream.
HELPERS = {
    "anthropic": lambda c, m: c.messages.stream(model="m", max_tokens=256, messages=m),
    "openai_chat": lambda c, m: c.chat.completions.stream(
        model="gpt-4o", messages=m, tools=[{"type": "function", "function": WEATHER_TOOL}]
    ),
    "openai_responses": lambda c, m: c.responses.stream(
        model="gpt-4o", input=m, tools=[{"type": "function", **WEATHER_TOOL}]
    ),
}

# folder -> the helper stream's final reply (anthropic `ParsedMessage`, openai
# `ParsedChatCompletion` / `ParsedResponse`), and where it keeps the parsed arguments (None:
# anthropic's tool input is already an object, and its `parsed_output` is `exclude=True`).
FINAL = {
    "anthropic": (lambda s: s.get_final_message(), None),
    "openai_chat": (
        lambda s: s.get_final_completion(),
        lambda r: r.choices[0].message.tool_calls[0].function.parsed_arguments,
    ),
    "openai_responses": (lambda s: s.get_final_response(), lambda r: r.output[0].parsed_arguments),
}


@pytest.mark.parametrize("is_async", [False, True], ids=["run_loop", "arun_loop"])
@pytest.mark.parametrize("folder", list(HELPERS))
def test_the_sdks_stream_helpers_are_entered_and_read(folder: str, is_async: bool) -> None:
    """The helpers `messages.stream()`, `chat.completions.stream()`, `responses.stream()` work.

    Each is a context manager whose helper stream yields derived events beside the wire ones
    (openai's chat helper wraps each chunk in a `ChunkEvent`): the loop reads the wire events.
    """
    transport = stopkit.record.ReplayTransport([recorded(folder, name) for name in TURNS[folder]])
    client = sdk.client(folder, transport, is_async=is_async)
    events: list[Any] = []

    def call_model(messages: list[Any], **overrides: Any) -> Any:
        return HELPERS[folder](client, messages)

    settings: dict[str, Any] = {"tools": {"get_weather": weather}, "on_event": events.append}
    if is_async:  # the async manager, entered with `async with`
        outcome = asyncio.run(stopkit.arun_loop(call_model, "Weather in Paris?", **settings))
    else:
        outcome = stopkit.run_loop(call_model, "Weather in Paris?", **settings)
    check(folder, outcome, events)


def _fields(stop: stopkit.Stop) -> dict[str, Any]:
    return stop.model_dump(mode="json", exclude={"raw"})


@pytest.mark.parametrize("is_async", [False, True], ids=["normalize_stream", "anormalize_stream"])
@pytest.mark.parametrize("folder", list(HELPERS))
def test_normalize_stream_reads_a_helper_stream_as_the_loop_does(
    folder: str, is_async: bool
) -> None:
    """`normalize_stream` given a helper's stream reads its wire events: the recording's `Stop`.

    The loop, `wrap` and `normalize_stream` read one list of stream forms (`stopkit/_forms.py`).
    """
    name = TURNS[folder][0]
    transport = stopkit.record.ReplayTransport([recorded(folder, name)])
    client = sdk.client(folder, transport, is_async=is_async)

    async def read_async() -> stopkit.Stop:
        async with HELPERS[folder](client, sdk.MESSAGES) as stream:
            return await stopkit.anormalize_stream(stream)

    if is_async:
        stop = asyncio.run(read_async())
    else:
        with HELPERS[folder](client, sdk.MESSAGES) as stream:
            stop = stopkit.normalize_stream(stream)
    assert _fields(stop) == _fields(stop_of(folder, name))
    assert stop.reason is stopkit.StopReason.TOOL_REQUEST


@pytest.mark.parametrize("folder", list(HELPERS))
def test_a_helpers_final_reply_goes_back_with_request_fields_only(folder: str) -> None:
    """The turn rebuilt from a helper's final (parsed) reply validates as the SDK's request type.

    The openai helpers add `parsed_arguments` to each function call, a field the API does not
    accept back (it answers 400 "Unknown parameter").
    """
    transport = stopkit.record.ReplayTransport([recorded(folder, TURNS[folder][0])])
    client = sdk.client(folder, transport)
    final_of, parsed_of = FINAL[folder]
    with HELPERS[folder](client, sdk.MESSAGES) as stream:
        final = final_of(stream)
    if parsed_of is not None:
        assert parsed_of(final) == {"city": "Paris"}  # the helper did parse the call
    adapter = stopkit.get_adapter(sdk.ADAPTER[folder])
    turn = adapter.assistant_message(stopkit.normalize(final, adapter=adapter))
    assert turn
    assert_valid_transcript(adapter.name, [*sdk.MESSAGES, *turn])


# --- iterables of events -------------------------------------------------------------------------

# adapter folder -> (tool request stream, final stream), from tests/payloads
PAYLOAD_TURNS = {
    "bedrock": ("tool_use", "end_turn"),
    "cohere": ("tool_call", "complete"),
    "ollama": ("stop_tool_calls", "stop"),
    "anthropic": ("tool_use_parallel", "end_turn_text"),
}


def payload_events(folder: str, name: str) -> list[Any]:
    events: list[Any] = json.loads((PAYLOADS / folder / f"{name}.stream.json").read_text())[
        "events"
    ]
    return events


@pytest.mark.parametrize("mode", ["list", "generator", "async generator"])
@pytest.mark.parametrize("folder", list(PAYLOAD_TURNS))
def test_an_iterable_of_events_is_a_stream(folder: str, mode: str) -> None:
    """A list, a generator or an async generator of parsed events is read as one reply."""
    turns = [payload_events(folder, name) for name in PAYLOAD_TURNS[folder]]
    first, final = (stopkit.normalize_stream(events) for events in turns)
    calls = iter(turns)
    seen: list[Any] = []

    def sync_model(messages: list[Any], **overrides: Any) -> Any:
        events = next(calls)
        return events if mode == "list" else (event for event in events)

    async def async_model(messages: list[Any], **overrides: Any) -> AsyncIterator[Any]:
        for event in next(calls):
            yield event

    tools = {call.name: weather for call in first.tool_calls}
    if mode == "async generator":
        run = stopkit.arun_loop(async_model, "hi", tools=tools, on_event=seen.append)
        outcome = asyncio.run(run)
    else:
        outcome = stopkit.run_loop(sync_model, "hi", tools=tools, on_event=seen.append)
    assert outcome.termination is Termination.COMPLETED
    assert outcome.text == final.text
    assert len(outcome.tool_runs) == len(first.tool_calls) > 0
    assert outcome.stop is not None
    assert outcome.stop.provider == stopkit.get_adapter(folder).name
    assert "".join(e.text for e in seen if isinstance(e, TextDelta) and e.turn == 2) == final.text
    assert_valid_transcript(outcome.stop.provider, outcome.messages)


def test_a_stream_cut_short_is_unknown_and_escalated() -> None:
    """A stream that ends before its terminal event is `unknown` (`stream_incomplete`)."""
    events = payload_events("anthropic", "end_turn_text")[:-2]
    escalated: list[stopkit.loop.events.Escalation] = []
    outcome = stopkit.run_loop(lambda m, **kw: iter(events), "hi", on_escalate=escalated.append)
    assert outcome.termination is Termination.UNKNOWN
    assert outcome.stop is not None
    assert outcome.stop.detail == "stream_incomplete"
    assert escalated[0].stop is outcome.stop


def test_a_stream_no_adapter_reads_ends_the_run_as_unknown() -> None:
    """Events of no known stream: the run ends as unknown (`unsupported_reply`), nothing lost."""
    outcome = stopkit.run_loop(
        lambda m, **kw: iter([{"what": "is this"}]), "hi", on_escalate=lambda e: None
    )
    assert outcome.termination is Termination.UNKNOWN
    assert outcome.stop is not None
    assert outcome.stop.detail == "unsupported_reply"


def test_an_async_stream_in_run_loop_is_a_type_error() -> None:
    """`run_loop` cannot read an async stream: a `TypeError` points to `arun_loop`."""

    async def events() -> AsyncIterator[Any]:
        yield {}

    with pytest.raises(TypeError, match="arun_loop"):
        stopkit.run_loop(lambda m, **kw: events(), "hi")
