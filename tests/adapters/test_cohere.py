"""The Cohere v2 Chat adapter: its table against the SDK's values, detection, continuation."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

import stopkit
from stopkit.adapters.cohere import FINISH_REASON, CohereAdapter
from tests._literals import literal_values
from tests._payloads import PAYLOADS, load_cases, same_stop

ADAPTER = CohereAdapter()
CASES = load_cases(PAYLOADS / "cohere")

def _reply(name: str) -> dict[str, Any]:
    reply: dict[str, Any] = json.loads((PAYLOADS / "cohere" / name).read_text())["reply"]
    return reply


def _events(name: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = json.loads((PAYLOADS / "cohere" / name).read_text())["events"]
    return events


def _objects(value: Any) -> Any:
    """The same JSON as nested attribute objects, the way an SDK model is read."""
    if isinstance(value, dict):
        return SimpleNamespace(**{k: _objects(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_objects(v) for v in value]
    return value


def test_installed_sdk_finish_reasons_are_exactly_the_table() -> None:
    """Every value of the installed SDK's `ChatFinishReason` is mapped, and nothing else is.

    cohere is a dev dependency (the lock pins it): its own type is read, not a copy of it.
    """
    types = pytest.importorskip("cohere.types")
    values = literal_values(types.ChatFinishReason)
    assert values, "ChatFinishReason has no Literal values any more"
    assert values == set(FINISH_REASON), values ^ set(FINISH_REASON)


def test_every_table_value_has_a_payload_case() -> None:
    """Each finish_reason in the table is exercised by a recorded case that expects it."""
    covered = {c.expect.get("raw_reason") for c in CASES}
    assert set(FINISH_REASON) <= covered, set(FINISH_REASON) - covered


def test_every_stream_case_with_a_twin_names_a_real_file() -> None:
    """Each stream's twin exists, so the stream-equals-reply check really runs."""
    for case in CASES:
        twin = case.data.get("twin")
        if twin:
            assert (case.path.parent / twin).is_file(), case.id


def test_sdk_shaped_objects_give_the_same_stop() -> None:
    """A reply read by attribute access (as an SDK model is) gives the dict's Stop."""
    for name in ("tool_call.json", "complete.json", "max_tokens_tool_call.json"):
        reply = _reply(name)
        same_stop(stopkit.normalize(_objects(reply), adapter="cohere"), stopkit.normalize(reply))


def test_sdk_shaped_events_give_the_same_stop() -> None:
    """Stream events read by attribute access give the same Stop as the parsed JSON events."""
    events = _events("tool_call.stream.json")
    same_stop(
        stopkit.normalize_stream([_objects(e) for e in events], adapter="cohere"),
        stopkit.normalize_stream(events),
    )


@pytest.mark.parametrize(
    "reply",
    [
        # Cohere v1 chat: finish_reason beside `text`, no `message`.
        {"text": "Hi", "generation_id": "g", "finish_reason": "COMPLETE", "chat_history": []},
        # An OpenAI choice has finish_reason and message too, but it is not a reply.
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hi"}},
        # Ollama native.
        {"model": "m", "created_at": "t", "message": {"role": "assistant"}, "done": True},
    ],
)
def test_not_a_cohere_v2_reply(reply: dict[str, Any]) -> None:
    """Shapes that merely share a field name are not claimed by the cohere adapter."""
    assert not ADAPTER.detects(reply)


def test_stream_result_can_be_read_twice_and_keeps_growing() -> None:
    """`result()` may be called mid-stream and again at the end, each time for what was fed."""
    acc = ADAPTER.stream()
    events = _events("complete.stream.json")
    for event in events[:-1]:
        acc.feed(event)
    assert acc.result().detail == "stream_incomplete"
    acc.feed(events[-1])
    first, second = acc.result(), acc.result()
    assert first.reason is second.reason is stopkit.StopReason.COMPLETED
    assert first.text == second.text == "The capital of France is Paris."


def test_assistant_message_sends_back_the_plan_and_the_calls() -> None:
    """A tool request becomes one assistant message with tool_plan and the calls as sent."""
    stop = stopkit.normalize(_reply("tool_call.json"))
    assert ADAPTER.assistant_message(stop) == [
        {
            "role": "assistant",
            "tool_plan": "I will use the weather tool and the cityAttractions tool.",
            "tool_calls": [
                {
                    "id": "weather_e8p4",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"location": "San Francisco"}'},
                },
                {
                    "id": "cityAttractions_pyxs",
                    "type": "function",
                    "function": {
                        "name": "cityAttractions",
                        "arguments": '{"city": "San Francisco"}',
                    },
                },
            ],
        }
    ]


def test_assistant_message_is_the_same_from_a_stream() -> None:
    """The streamed tool request gives the same continuation message as the whole reply."""
    whole = stopkit.normalize(_reply("tool_call.json"))
    streamed = stopkit.normalize_stream(_events("tool_call.stream.json"))
    assert ADAPTER.assistant_message(streamed) == ADAPTER.assistant_message(whole)


def test_assistant_message_of_an_answer_is_its_text() -> None:
    """A finished answer goes back as the assistant's text only (no thinking, no tool fields)."""
    stop = stopkit.normalize(_reply("complete.json"))
    assert ADAPTER.assistant_message(stop) == [
        {"role": "assistant", "content": "The capital of France is Paris."}
    ]


def test_tool_results_one_tool_message_per_call() -> None:
    """Each result is one tool message: a JSON object as a document, other text as text."""
    stop = stopkit.normalize(_reply("tool_call.json"))
    results = [
        stopkit.ToolResult(call_id="weather_e8p4", name="weather", content='{"temp_c": 18}'),
        stopkit.ToolResult(
            call_id="cityAttractions_pyxs",
            name="cityAttractions",
            content="error: the tool timed out",
            is_error=True,
        ),
    ]
    assert ADAPTER.tool_results(stop, results) == [
        {
            "role": "tool",
            "tool_call_id": "weather_e8p4",
            "content": [{"type": "document", "document": {"data": {"temp_c": 18}}}],
        },
        {
            "role": "tool",
            "tool_call_id": "cityAttractions_pyxs",
            "content": [{"type": "text", "text": "error: the tool timed out"}],
        },
    ]


def test_null_arguments_go_back_as_sent() -> None:
    """A parameterless call's "null" arguments are sent back unchanged, not re-serialized."""
    stop = stopkit.normalize(_reply("tool_call_null_arguments.json"))
    [message] = ADAPTER.assistant_message(stop)
    assert message["tool_calls"][0]["function"]["arguments"] == "null"


def test_resume_refuses() -> None:
    """Cohere never pauses, so resume raises ValueError instead of inventing a request."""
    stop = stopkit.normalize(_reply("complete.json"))
    with pytest.raises(ValueError, match="never paused"):
        ADAPTER.resume(stop)


# --- the end of a stream (issue 12) ---------------------------------------------------------------


def _end(finish_reason: str, output_tokens: int = 12) -> dict[str, Any]:
    usage = {"billed_units": {"input_tokens": 12, "output_tokens": 9},
             "tokens": {"input_tokens": 500, "output_tokens": output_tokens}}  # fmt: skip
    return {"type": "message-end", "delta": {"finish_reason": finish_reason, "usage": usage}}


def _answer(text: str) -> list[dict[str, Any]]:
    return [
        {"type": "message-start", "id": "c1", "delta": {"message": {"role": "assistant"}}},
        {"type": "content-start", "index": 0,
         "delta": {"message": {"content": {"type": "text", "text": ""}}}},
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": text}}}},
        {"type": "content-end", "index": 0},
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("first", "second", "reason"),
    [
        ("MAX_TOKENS", "COMPLETE", stopkit.StopReason.OUTPUT_LIMIT),
        ("MAX_TOKENS", "TOOL_CALL", stopkit.StopReason.OUTPUT_LIMIT),
        ("ERROR", "COMPLETE", stopkit.StopReason.UNKNOWN),
        ("TIMEOUT", "STOP_SEQUENCE", stopkit.StopReason.UNKNOWN),
        ("COMPLETE", "MAX_TOKENS", stopkit.StopReason.OUTPUT_LIMIT),
    ],
)
def test_the_stricter_of_two_message_ends_wins(
    first: str, second: str, reason: stopkit.StopReason
) -> None:
    """A second message-end replaces the finish_reason only when it is at least as strict."""
    stop = stopkit.normalize_stream([*_answer("Hi"), _end(first), _end(second)])
    assert stop.reason is reason


def test_nothing_after_message_end_changes_the_reply() -> None:
    """Text and tool calls sent after message-end are not taken; a note counts the events."""
    call = {"id": "t9", "type": "function", "function": {"name": "wire_money", "arguments": "{}"}}
    after = [
        {"type": "tool-call-start", "index": 1, "delta": {"message": {"tool_calls": call}}},
        {"type": "tool-call-end", "index": 1},
        *_answer(" and more")[1:],
    ]
    stop = stopkit.normalize_stream([*_answer("Done."), _end("COMPLETE"), *after])
    assert (stop.reason, stop.text, stop.tool_calls) == (stopkit.StopReason.COMPLETED, "Done.", ())
    assert any("5 events arrived after the message-end event" in n for n in stop.notes), stop.notes


def test_a_tool_call_index_started_again_is_noted() -> None:
    """A tool-call-start reusing an index replaces the earlier call, and a note says so."""

    def call(call_id: str, name: str) -> list[dict[str, Any]]:
        said = {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
        return [
            {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": said}}},
            {"type": "tool-call-end", "index": 0},
        ]

    start = _answer("")[0]
    events = [start, *call("t1", "delete_files"), *call("t2", "wire_money"), _end("TOOL_CALL")]
    stop = stopkit.normalize_stream(events)
    assert [c.name for c in stop.tool_calls] == ["wire_money"]
    assert any("tool call index 0 started again" in n for n in stop.notes), stop.notes


def test_a_later_message_end_is_still_read_for_usage() -> None:
    """Usage sent in a repeated message-end replaces the first count (it is the later total)."""
    stop = stopkit.normalize_stream([*_answer("Hi"), _end("COMPLETE", 3), _end("COMPLETE", 4)])
    assert (stop.reason, stop.usage and stop.usage.output_tokens) == (
        stopkit.StopReason.COMPLETED,
        4,
    )


def test_usage_is_the_model_token_count_not_the_billed_one() -> None:
    """`usage.tokens` fills Usage (billed_units are fewer); the raw usage stays in details."""
    reply = _reply("complete.json")
    stop = stopkit.normalize(reply)
    assert stop.usage is not None
    assert (stop.usage.input_tokens, stop.usage.output_tokens) == (500, 12)
    assert stop.details["usage"] is reply["usage"]


def test_sdk_float_counts_read_as_the_ints_sent() -> None:
    """The cohere SDK types counts as floats (12.0): Usage holds the int the wire sent."""
    types = pytest.importorskip("cohere.v2.types")
    from cohere.core.unchecked_base_model import construct_type

    reply = _reply("citations.json")
    obj = construct_type(type_=types.V2ChatResponse, object_=reply)
    assert isinstance(obj.usage.tokens.input_tokens, float)
    usage = stopkit.normalize(reply).usage
    assert usage is not None
    assert stopkit.normalize(obj).usage == usage
