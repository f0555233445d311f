"""The Cohere v2 Chat adapter: its table against the SDK's values, detection, continuation."""

from __future__ import annotations

import json
import typing
from types import SimpleNamespace
from typing import Any

import pytest

import stopkit
from stopkit.adapters.cohere import FINISH_REASON, CohereAdapter
from tests._payloads import PAYLOADS, claimed_by, load_cases, same_stop

ADAPTER = CohereAdapter()
CASES = load_cases(PAYLOADS / "cohere")

#: `ChatFinishReason` of cohere-python 7.3.1 (`cohere/types/chat_finish_reason.py`), read from the
#: published wheel: the SDK is not a dev dependency, so its values are pinned here.
SDK_FINISH_REASONS = ("COMPLETE", "STOP_SEQUENCE", "MAX_TOKENS", "TOOL_CALL", "ERROR", "TIMEOUT")


def _reply(name: str) -> dict[str, Any]:
    reply: dict[str, Any] = json.loads((PAYLOADS / "cohere" / name).read_text())["reply"]
    return reply


def _events(name: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = json.loads((PAYLOADS / "cohere" / name).read_text())["events"]
    return events


def _literal_values(tp: Any) -> set[str]:
    """Every string of the Literal(s) inside `tp` (a Union of a Literal and Any, as Fern writes)."""
    if typing.get_origin(tp) is typing.Literal:
        return {v for v in typing.get_args(tp) if isinstance(v, str)}
    values: set[str] = set()
    for arg in typing.get_args(tp):
        values |= _literal_values(arg)
    return values


def _objects(value: Any) -> Any:
    """The same JSON as nested attribute objects, the way an SDK model is read."""
    if isinstance(value, dict):
        return SimpleNamespace(**{k: _objects(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_objects(v) for v in value]
    return value


def test_pinned_sdk_finish_reasons_are_exactly_the_table() -> None:
    """Every ChatFinishReason value of the SDK is mapped, and the table maps nothing else."""
    assert set(SDK_FINISH_REASONS) == set(FINISH_REASON)


def test_installed_sdk_finish_reasons_are_mapped() -> None:
    """When the cohere SDK is installed, every value of its own ChatFinishReason is mapped."""
    types = pytest.importorskip("cohere.types")
    values = _literal_values(types.ChatFinishReason)
    assert values, "ChatFinishReason has no Literal values any more"
    assert values <= set(FINISH_REASON), values - set(FINISH_REASON)


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


def test_detection_is_unambiguous_across_every_payload() -> None:
    """Cohere payloads are claimed by the cohere adapter alone, and it claims no other payload."""
    for case in load_cases():
        claimed = claimed_by(case)
        if claimed is None:
            continue  # an empty stream has no first event to detect
        if case.adapter == "cohere":
            assert claimed == ["cohere"], case.id
        else:
            assert "cohere" not in claimed, case.id


@pytest.mark.parametrize("case", [c for c in CASES if c.data.get("twin")], ids=lambda c: str(c.id))
def test_streamed_raw_is_the_rebuilt_reply(case: Any) -> None:
    """A finished stream's raw is a reply-shaped dict that normalizes to the same Stop."""
    stop = stopkit.normalize_stream(case.data["events"])
    assert isinstance(stop.raw, dict)
    same_stop(stopkit.normalize(stop.raw), stop)
