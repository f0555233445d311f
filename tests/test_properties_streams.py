"""Streams whose events are damaged: an accumulator never raises, whatever its events hold.

A proxy, a compatible server or a broken network path can send events whose fields have the
wrong type (an `index` that is a list, a `type` that is an object, text that is a number). The
accumulators read them as malformed data: the result is a `Stop`, never an exception.
"""

from __future__ import annotations

from typing import Any

import stopkit
from stopkit import Stop, StopReason


def _run(adapter: str, events: list[Any]) -> Stop:
    accumulator = stopkit.get_adapter(adapter).stream()
    for event in events:
        accumulator.feed(event)
    return accumulator.result()


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
