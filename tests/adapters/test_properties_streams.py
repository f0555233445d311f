"""Streams whose events are damaged: an accumulator never raises, whatever its events hold.

A proxy, a compatible server or a broken network path can send events whose fields have the
wrong type (an `index` that is a list, a `type` that is an object, text that is a number). The
accumulators read them as malformed data: the result is a `Stop`, never an exception.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import stopkit
from stopkit import Stop, StopReason
from tests._adapters import NAMES as ADAPTERS
from tests._payloads import Case, load_cases
from tests.adapters.test_properties_adapters import (
    _SETTINGS,
    _hostile,
    _parent,
    _paths,
    hostile_values,
    json_values,
)

STREAM_CASES = {a: [c for c in load_cases() if c.is_stream and c.adapter == a] for a in ADAPTERS}
_AVAILABLE = {adapter.name for adapter in stopkit.registered_adapters()}


def _run(adapter: str, events: list[Any]) -> Stop:
    accumulator = stopkit.get_adapter(adapter).stream()
    for event in events:
        accumulator.feed(event)
    return accumulator.result()


@st.composite
def damaged_events(draw: st.DrawFn, adapter: str) -> list[Any]:
    """A recorded stream of `adapter`, with one to three of its events damaged."""
    case: Case = draw(st.sampled_from(STREAM_CASES[adapter]))
    events: list[Any] = copy.deepcopy(case.data["events"])
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(events) - 1))
        paths = list(_paths(events[i]))
        if not paths or draw(st.integers(0, 19)) == 0:
            events[i] = draw(json_values)  # the whole event replaced
            continue
        path = draw(st.sampled_from(paths))
        parent = _parent(events[i], path)
        key = path[-1]
        if isinstance(parent, list) and (not isinstance(key, int) or key >= len(parent)):
            continue
        if not isinstance(parent, dict | list):
            continue
        op = draw(st.sampled_from(("replace", "remove", "wrong_type", "hostile")))
        if op == "remove":
            if isinstance(parent, list):
                del parent[key]
            else:
                parent.pop(key, None)
        elif op == "replace":
            parent[key] = draw(json_values)
        elif op == "wrong_type":
            old = parent[key] if isinstance(parent, list) or key in parent else None
            parent[key] = draw(st.sampled_from([[old], {"value": old}, str(old)[:40], 1.5, None]))
        else:
            parent[key] = _hostile(draw(hostile_values))
    return events


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_damaged_streams_never_raise(adapter: str) -> None:
    """Recorded streams with damaged events give a Stop; no call runs outside a tool request."""
    if adapter not in _AVAILABLE or not STREAM_CASES[adapter]:
        pytest.skip(f"adapter {adapter} (or its stream cases) is not in this checkout")

    @_SETTINGS
    @given(damaged_events(adapter))
    def run(events: list[Any]) -> None:
        stop = _run(adapter, events)
        assert isinstance(stop.reason, StopReason)
        assert stop.provider == adapter
        assert isinstance(stop.text, str)
        for call in stop.tool_calls:
            assert call.complete or isinstance(call.error, str), call
        if stop.reason is not StopReason.TOOL_REQUEST:
            assert stop.runnable_tool_calls == ()
        assert _run(adapter, events).reason is stop.reason  # the same events, the same answer

    run()


# --- regressions: each input below raised TypeError before its fix ------------------------------

_ANTHROPIC_START = {
    "type": "message_start",
    "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
                "model": "claude"},
}  # fmt: skip


def test_anthropic_events_with_fields_of_the_wrong_type() -> None:
    """Anthropic events with an unhashable index, block type or delta type, or non-text text."""
    damaged: list[list[Any]] = [
        [{"type": "content_block_start", "index": [0], "content_block": {"type": "text"}}],
        [{"type": "content_block_delta", "index": {"i": 0}, "delta": {"type": "text_delta"}}],
        [{"type": "content_block_stop", "index": []}],
        [{"type": "content_block_start", "index": 0, "content_block": {"type": ["text"]}}],
        [
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": {"t": 1}}},
        ],
        [{"type": "message_start", "message": {"content": 1.5}}],
        [{"type": "content_block_start", "index": 0, "content_block": {"type": "text",
                                                                      "text": 1.5}}],
        [{"type": "content_block_start", "index": 0, "content_block": {"type": "thinking",
                                                                      "thinking": 2}}],
        [
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text",
                                                                         "citations": 1.5}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta",
                                                                  "citation": {}}},
        ],
    ]  # fmt: skip
    for events in damaged:
        stop = _run("anthropic", [_ANTHROPIC_START, *events, {"type": "message_stop"}])
        assert isinstance(stop.reason, StopReason), events


def test_cohere_events_with_an_index_of_the_wrong_type() -> None:
    """Cohere content and tool-call events whose index is a list or an object are still read."""
    events = [
        {"type": "message-start", "id": "c1", "delta": {"message": {"role": "assistant"}}},
        {"type": "content-start", "index": [0], "delta": {"message": {"content": {
            "type": "text", "text": ""}}}},
        {"type": "content-delta", "index": [0], "delta": {"message": {"content": {
            "text": "Hi"}}}},
        {"type": "tool-call-start", "index": {"i": 1}, "delta": {"message": {"tool_calls": {
            "id": "t1", "type": "function", "function": {"name": "f", "arguments": "{}"}}}}},
        {"type": "tool-call-delta", "index": {"i": 1}, "delta": {"message": {"tool_calls": {
            "function": {"arguments": ""}}}}},
        {"type": "tool-call-end", "index": {"i": 1}},
        {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL"}},
    ]  # fmt: skip
    stop = _run("cohere", events)
    assert stop.text == "Hi"
    assert [call.name for call in stop.tool_calls] == ["f"]


@pytest.mark.parametrize("kind", [["content-delta"], {"type": "content-delta"}])
@pytest.mark.parametrize("after_the_end", [False, True])
def test_cohere_events_whose_type_is_a_list_or_an_object(kind: Any, after_the_end: bool) -> None:
    """A Cohere event whose type is a list or an object is ignored, before or after the end."""
    odd = {"type": kind, "index": 0, "delta": {"message": {"content": {"text": " more"}}}}
    events: list[Any] = [
        {"type": "message-start", "id": "c1", "delta": {"message": {"role": "assistant"}}},
        {"type": "content-start", "index": 0, "delta": {"message": {"content": {
            "type": "text", "text": "Hi"}}}},
        {"type": "message-end", "delta": {"finish_reason": "COMPLETE"}},
    ]  # fmt: skip
    events.insert(3 if after_the_end else 2, odd)
    stop = _run("cohere", events)
    assert (stop.reason, stop.text) == (StopReason.COMPLETED, "Hi")


def test_gemini_partial_args_string_value_of_the_wrong_type() -> None:
    """A Vertex partialArgs piece whose stringValue is not a string does not raise TypeError."""
    call = {"name": "f", "partialArgs": [{"jsonPath": "$.city", "stringValue": ["Par"]},
                                         {"jsonPath": "$.city", "stringValue": "is"}]}  # fmt: skip
    chunk = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]},
                             "finishReason": "STOP"}]}  # fmt: skip
    for stop in (stopkit.normalize(chunk), _run("gemini", [chunk])):
        assert isinstance(stop.reason, StopReason)
        assert [(c.name, c.complete) for c in stop.tool_calls] == [("f", False)]
        assert stop.runnable_tool_calls == ()


def test_responses_item_type_of_the_wrong_type() -> None:
    """A Responses output item whose `type` is a list, in a cut stream, does not raise."""
    events = [
        {"type": "response.created", "sequence_number": 0,
         "response": {"id": "resp_1", "object": "response", "status": "in_progress"}},
        {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0,
         "item": {"id": "fc_1", "type": ["function_call"], "call_id": "call_1", "name": "f"}},
    ]  # fmt: skip
    stop = _run("openai.responses", events)
    assert (stop.reason, stop.detail) == (StopReason.UNKNOWN, "stream_incomplete")
