"""The text a streaming `call_model` hands to `on_text`: every piece once, in linear time."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

import stopkit
from stopkit.loop._streams import read_stream
from tests._payloads import load_cases
from tests._stream_text import assert_pieces_join, growth, tell_counting

STREAMS = [case for case in load_cases() if case.is_stream]
PIECES = [
    case for case in STREAMS if hasattr(stopkit.get_adapter(case.adapter).stream(), "text_pieces")
]


@pytest.mark.parametrize("case", PIECES, ids=lambda case: case.id)
def test_text_pieces_join_to_the_stops_text_after_every_event(case: Any) -> None:
    """Where an accumulator tells its text pieces, they join to `result().text` at every step."""
    assert_pieces_join(stopkit.get_adapter(case.adapter), case.data["events"])


@pytest.mark.parametrize("case", STREAMS, ids=lambda case: case.id)
def test_on_text_tells_what_the_texts_growth_tells(case: Any) -> None:
    """`on_text` gets, piece by piece, the same text the growth of `Stop.text` tells."""
    adapter = stopkit.get_adapter(case.adapter)
    told: list[str] = []
    read_stream(iter(case.data["events"]), adapter, told.append)
    assert "".join(told) == growth(adapter, case.data["events"])
    assert "" not in told


def _block(index: int, kind: str = "text", text: str = "") -> dict[str, Any]:
    return {
        "type": "content_block_start",
        "index": index,
        "content_block": {"type": kind, "text": text},
    }


def _piece(index: int, text: str) -> dict[str, Any]:
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "text_delta", "text": text},
    }


_CHUNK = {"object": "chat.completion.chunk"}
_WORDS = "word " * 2000


def _responses_delta(number: int) -> dict[str, Any]:
    """A Responses text delta: events are numbered, and a repeated number would be dropped."""
    return {
        "type": "response.output_text.delta",
        "sequence_number": number,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": "word ",
        "logprobs": [],
    }


def _llama_chunk(body: dict[str, Any]) -> dict[str, Any]:
    """An InvokeModelWithResponseStream event as boto3 yields it: the chunk's JSON as bytes."""
    return {"chunk": {"bytes": json.dumps(body).encode()}}


@pytest.mark.parametrize(
    ("name", "first", "piece", "last"),
    [
        (
            "openai.chat",
            None,
            {**_CHUNK, "choices": [{"index": 0, "delta": {"content": "word "}}]},
            {**_CHUNK, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        ),
        (
            "litellm",
            None,
            {**_CHUNK, "choices": [{"index": 0, "delta": {"content": "word "}}]},
            {**_CHUNK, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        ),
        (
            "anthropic",
            _block(0),
            _piece(0, "word "),
            {"type": "message_stop"},
        ),
        (
            "openai.responses",
            {
                "type": "response.output_item.added",
                "sequence_number": 0,
                "output_index": 0,
                "item": {"id": "msg_1", "type": "message", "role": "assistant",
                         "status": "in_progress", "content": []},
            },
            _responses_delta,
            {
                "type": "response.completed",
                "sequence_number": 2001,
                "response": {
                    "id": "resp_1", "object": "response", "status": "completed",
                    "output": [{"id": "msg_1", "type": "message", "role": "assistant",
                                "status": "completed",
                                "content": [{"type": "output_text", "text": _WORDS,
                                             "annotations": []}]}],
                },
            },
        ),
        (
            "bedrock",
            {"messageStart": {"role": "assistant"}},
            {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "word "}}},
            {"messageStop": {"stopReason": "end_turn"}},
        ),
        (
            "bedrock.invoke",
            None,
            _llama_chunk({"generation": "word ", "prompt_token_count": None,
                          "generation_token_count": 1, "stop_reason": None}),
            _llama_chunk({"generation": "", "prompt_token_count": None,
                          "generation_token_count": 2000, "stop_reason": "stop",
                          "amazon-bedrock-invocationMetrics": {"inputTokenCount": 3,
                                                               "outputTokenCount": 2000}}),
        ),
        (
            "cohere",
            {"type": "content-start", "index": 0,
             "delta": {"message": {"content": {"type": "text", "text": ""}}}},
            {"type": "content-delta", "index": 0,
             "delta": {"message": {"content": {"text": "word "}}}},
            {"type": "message-end", "delta": {"finish_reason": "COMPLETE"}},
        ),
        (
            "cohere.v1",
            {"is_finished": False, "event_type": "stream-start", "generation_id": "g1"},
            {"is_finished": False, "event_type": "text-generation", "text": "word "},
            {"is_finished": True, "event_type": "stream-end", "finish_reason": "COMPLETE",
             "response": {"response_id": "r1", "text": _WORDS, "generation_id": "g1",
                          "finish_reason": "COMPLETE"}},
        ),
    ],
)  # fmt: skip
def test_a_long_streams_text_is_told_without_reading_the_stop_at_every_event(
    name: str, first: Any, piece: Any | Callable[[int], Any], last: Any
) -> None:
    """Telling 2,000 pieces reads no `Stop` per event: the text comes from the pieces."""
    pieces = [piece(n) if callable(piece) else piece for n in range(1, 2001)]
    events = [e for e in (first, *pieces, last) if e is not None]
    told, streamed, results = tell_counting(stopkit.get_adapter(name), events)
    assert "".join(told) == _WORDS
    assert results <= 2  # the end's Stop, not one per event
    assert streamed.stop is not None
    assert streamed.stop.text == _WORDS


def _added(index: int, kind: str = "message", text: str | None = None) -> dict[str, Any]:
    """A Responses `output_item.added`, or its `.done` when it says the item's whole text."""
    item: dict[str, Any] = {"type": kind}
    if text is None:
        return {"type": "response.output_item.added", "output_index": index, "item": item}
    item["content"] = [{"type": "output_text", "text": text, "annotations": []}]
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def _delta(index: int, text: str, kind: str = "output_text") -> dict[str, Any]:
    return {"type": f"response.{kind}.delta", "output_index": index, "delta": text}


def _converse(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": delta}}


def _part(index: int, kind: str = "text") -> dict[str, Any]:
    content = {"type": kind, kind: ""}
    return {"type": "content-start", "index": index, "delta": {"message": {"content": content}}}


def _content(index: int, text: str, kind: str = "text") -> dict[str, Any]:
    return {
        "type": "content-delta",
        "index": index,
        "delta": {"message": {"content": {kind: text}}},
    }


def _generated(text: str) -> dict[str, Any]:
    return {"event_type": "text-generation", "text": text}


def _v1_end(text: str) -> dict[str, Any]:
    response = {"text": text, "finish_reason": "COMPLETE"}
    return {"event_type": "stream-end", "finish_reason": "COMPLETE", "response": response}


_COMPLETED_OTHERWISE = {
    "type": "response.completed",
    "response": {
        "object": "response",
        "status": "completed",
        "output": [_added(0, text="Bye")["item"]],
    },
}
# Each case: the adapter, the events, and the text of the reply they amount to.
_REWRITES = {
    "anthropic/an-older-block-written-after-a-newer": ("anthropic", "Hi there late!", [
        _block(0, text="Hi"), _piece(0, " there"), _block(1), _piece(1, "!"), _piece(0, " late"),
    ]),
    "anthropic/a-block-started-again": ("anthropic", "again more", [
        _block(0), _piece(0, "first"), _block(0, text="again"), _piece(0, " more"),
    ]),
    "anthropic/thinking-then-text": ("anthropic", "Answer.", [
        _block(0, "thinking"), _piece(0, "hm"), _block(1), _piece(1, "Answer."),
    ]),
    "responses/output_text.done-saying-other-text": ("openai.responses", "Hi!", [
        _added(0), _delta(0, "Hi"),
        {"type": "response.output_text.done", "output_index": 0, "content_index": 0,
         "text": "Hello"},
        _delta(0, "!"),
    ]),
    "responses/output_item.done-rewriting-the-text": ("openai.responses", "Hello more", [
        _added(0), _delta(0, "Hi"), _added(0, text="Hello"), _added(1), _delta(1, " more"),
    ]),
    "responses/output_item.done-extending-the-text": ("openai.responses", "Hi there!", [
        _added(0), _delta(0, "Hi"), _added(0, text="Hi there"), _added(1), _delta(1, "!"),
    ]),
    "responses/a-whole-item-with-no-deltas": ("openai.responses", "Whole. More.", [
        _added(0, "reasoning"), _added(1, text="Whole."), _added(2), _delta(2, " More."),
    ]),
    "responses/a-second-message-then-the-first-again": ("openai.responses", "A lateBC", [
        _added(0), _delta(0, "A"), _added(1), _delta(1, "B"), _delta(0, " late"), _delta(1, "C"),
    ]),
    "responses/refusal-deltas-between-text": ("openai.responses", "I see.", [
        _added(0), _delta(0, "I "), _delta(0, "can't", "refusal"), _delta(0, "see."),
    ]),
    "responses/deltas-before-their-item-says-reasoning": ("openai.responses", "Yes", [
        _delta(0, "Hi"), _added(0, "reasoning"), _added(1), _delta(1, "Yes"),
    ]),
    "responses/text-deltas-of-a-reasoning-item": ("openai.responses", "shown", [
        _added(0, "reasoning"), _delta(0, "hidden"), _added(1), _delta(1, "shown"),
    ]),
    "responses/completed-with-other-text-then-late-deltas": ("openai.responses", "Bye", [
        _added(0), _delta(0, "Hi"), _COMPLETED_OTHERWISE, _delta(0, " late"),
    ]),
    "bedrock/an-earlier-block-after-a-later": ("bedrock", "A lateBC", [
        _converse(0, {"text": "A"}), _converse(1, {"text": "B"}),
        _converse(0, {"text": " late"}), _converse(1, {"text": "C"}),
    ]),
    "bedrock/text-then-reasoning-in-the-same-block": ("bedrock", "Yes", [
        _converse(0, {"text": "Hi"}), _converse(0, {"reasoningContent": {"text": "hm"}}),
        _converse(1, {"text": "Yes"}),
    ]),
    "bedrock/text-then-a-tool-start-at-its-index": ("bedrock", "Yes", [
        _converse(0, {"text": "Hi"}),
        {"contentBlockStart": {"contentBlockIndex": 0,
                               "start": {"toolUse": {"toolUseId": "t1", "name": "f"}}}},
        _converse(1, {"text": "Yes"}),
    ]),
    "bedrock/reasoning-then-text-then-late-text": ("bedrock", "Answer.", [
        _converse(0, {"reasoningContent": {"text": "hm"}}), _converse(1, {"text": "Answer."}),
        {"messageStop": {"stopReason": "end_turn"}}, _converse(1, {"text": " late"}),
    ]),
    "bedrock.invoke/a-second-output-and-late-text": ("bedrock.invoke", "ac", [
        {"outputs": [{"text": "a", "stop_reason": None}, {"text": "b", "stop_reason": None}]},
        {"outputs": [{"text": "c", "stop_reason": "stop"}]},
        {"outputs": [{"text": " late", "stop_reason": None}]},
    ]),
    "cohere/an-earlier-part-after-a-later": ("cohere", "A lateBC", [
        _part(0), _content(0, "A"), _part(1), _content(1, "B"), _content(0, " late"),
        _content(1, "C"),
    ]),
    "cohere/an-empty-part-begun-first": ("cohere", "BA", [
        _part(1), _content(1, ""), _part(0), _content(0, "A"), _content(1, "B"),
    ]),
    "cohere/thinking-then-text": ("cohere", "Answer.", [
        _part(0, "thinking"), _content(0, "hm", "thinking"), _part(1), _content(1, "Answer."),
    ]),
    "cohere.v1/text-then-a-call": ("cohere.v1", "", [
        _generated("Let me look."),
        {"event_type": "tool-calls-chunk",
         "tool_call_delta": {"index": 0, "name": "f", "parameters": "{}"}},
        _generated(" more"),
    ]),
    "cohere.v1/stream-end-saying-other-text-then-late-text": ("cohere.v1", "Hello", [
        _generated("Hi"), _v1_end("Hello"), _generated(" late"),
    ]),
}  # fmt: skip


@pytest.mark.parametrize(("name", "text", "events"), list(_REWRITES.values()), ids=list(_REWRITES))
def test_text_rewritten_or_out_of_turn_tells_what_the_texts_growth_tells(
    name: str, text: str, events: list[Any]
) -> None:
    """Text written out of turn or rewritten: what is told still follows `Stop.text`."""
    adapter = stopkit.get_adapter(name)
    told: list[str] = []
    streamed = read_stream(iter(events), adapter, told.append)
    assert streamed.stop is not None
    assert streamed.stop.text == text
    assert "".join(told) == growth(adapter, events)
    assert_pieces_join(adapter, events)
