"""The Ollama native chat adapter: its table, NDJSON streams, detection, continuation."""

from __future__ import annotations

import json
import typing
from types import SimpleNamespace
from typing import Any

import pytest

import stopkit
from stopkit.adapters.ollama import DONE_REASON, OllamaAdapter
from tests._payloads import PAYLOADS, load_cases, same_stop

ADAPTER = OllamaAdapter()
CASES = load_cases(PAYLOADS / "ollama")
STREAMS = [c for c in CASES if c.is_stream]

#: ollama-python 0.6.3 types `done_reason` as a plain `Optional[str]` (`ollama/_types.py`,
#: `BaseGenerateResponse`), so the values are pinned from the server: `llm/server.go`
#: (`DoneReason.String()`: "stop", "length", "" for a closed connection) and `server/routes.go`
#: ("load", "unload" on model-management replies), as docs/api.md shows them.
DOCUMENTED_DONE_REASONS = ("stop", "length", "load", "unload", "")


def _reply(name: str) -> dict[str, Any]:
    reply: dict[str, Any] = json.loads((PAYLOADS / "ollama" / name).read_text())["reply"]
    return reply


def _events(name: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = json.loads((PAYLOADS / "ollama" / name).read_text())["events"]
    return events


def _objects(value: Any) -> Any:
    """The same JSON as nested attribute objects, the way an SDK model is read."""
    if isinstance(value, dict):
        # ollama-python keeps `function.arguments` a plain mapping (`Mapping[str, Any]`).
        return SimpleNamespace(
            **{k: v if k == "arguments" else _objects(v) for k, v in value.items()}
        )
    if isinstance(value, list):
        return [_objects(v) for v in value]
    return value


def test_documented_done_reasons_are_exactly_the_table() -> None:
    """Every documented done_reason is mapped, and the table maps nothing else."""
    assert set(DOCUMENTED_DONE_REASONS) == set(DONE_REASON)


def test_installed_sdk_done_reason_type_is_covered() -> None:
    """When the ollama SDK is installed: a Literal done_reason is mapped, else it is still str."""
    types = pytest.importorskip("ollama._types")
    annotation = types.ChatResponse.model_fields["done_reason"].annotation
    literals = {
        v
        for arg in (annotation, *typing.get_args(annotation))
        if typing.get_origin(arg) is typing.Literal
        for v in typing.get_args(arg)
    }
    if literals:
        assert literals <= set(DONE_REASON), literals - set(DONE_REASON)
    else:
        assert annotation == typing.Optional[str]  # noqa: UP045 - the SDK's own spelling


def test_every_table_value_has_a_payload_case() -> None:
    """Each done_reason in the table is exercised by a recorded case that expects it."""
    covered = {c.expect.get("raw_reason") for c in CASES}
    assert set(DONE_REASON) <= covered, set(DONE_REASON) - covered


@pytest.mark.parametrize("case", STREAMS, ids=[c.id for c in STREAMS])
def test_raw_ndjson_body_gives_the_same_stop(case: Any) -> None:
    """The stream as its raw newline-delimited JSON body (str and bytes) gives the event Stop."""
    events = case.data["events"]
    body = "\n".join(json.dumps(e) for e in events) + "\n"
    expected = stopkit.normalize_stream(events)
    same_stop(stopkit.normalize_stream(body), expected)
    same_stop(stopkit.normalize_stream(body.encode()), expected)


def test_sdk_shaped_objects_give_the_same_stop() -> None:
    """A reply read by attribute access (as an SDK model is) gives the dict's Stop."""
    for name in ("stop_tool_calls.json", "stop.json", "length_tool_call.json"):
        reply = _reply(name)
        same_stop(stopkit.normalize(_objects(reply), adapter="ollama"), stopkit.normalize(reply))


def test_sdk_shaped_chunks_give_the_same_stop() -> None:
    """Stream chunks read by attribute access give the same Stop as the parsed JSON chunks."""
    events = _events("stop_tool_calls.stream.json")
    same_stop(
        stopkit.normalize_stream([_objects(e) for e in events], adapter="ollama"),
        stopkit.normalize_stream(events),
    )


def test_synthesized_ids_are_stable() -> None:
    """Calls without ids get call_<position>, the same on every read and in the stream."""
    first = stopkit.normalize(_reply("stop_tool_calls.json"))
    again = stopkit.normalize(_reply("stop_tool_calls.json"))
    streamed = stopkit.normalize_stream(_events("stop_tool_calls.stream.json"))
    ids = [c.id for c in first.tool_calls]
    assert ids == ["call_0", "call_1"]
    assert ids == [c.id for c in again.tool_calls] == [c.id for c in streamed.tool_calls]


@pytest.mark.parametrize(
    "reply",
    [
        # Ollama's OpenAI-compatible /v1/chat/completions: read by openai.chat.
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "llama3",
            "created": 1,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "Hi"},
                    "finish_reason": "stop",
                }
            ],
        },
        # An OpenAI Responses stream event holds a `response`, but no `done`.
        {"type": "response.completed", "sequence_number": 9, "response": {"status": "completed"}},
        # Cohere v2.
        {"id": "1", "finish_reason": "COMPLETE", "message": {"role": "assistant"}},
    ],
)
def test_not_an_ollama_reply(reply: dict[str, Any]) -> None:
    """Shapes that share field names (OpenAI-compatible /v1, a Responses event) are not claimed."""
    assert not ADAPTER.detects(reply)
    assert not ADAPTER.detects_event(reply)


def test_stream_result_can_be_read_twice() -> None:
    """`result()` may be called mid-stream and again at the end, each time for what was fed."""
    acc = ADAPTER.stream()
    events = _events("stop.stream.json")
    for event in events[:-1]:
        acc.feed(event)
    assert acc.result().detail == "stream_incomplete"
    acc.feed(events[-1])
    assert acc.result().reason is acc.result().reason is stopkit.StopReason.COMPLETED


def test_assistant_message_sends_back_object_arguments_and_thinking() -> None:
    """A tool request becomes one assistant message with the calls' object arguments."""
    stop = stopkit.normalize(_reply("stop_tool_call_with_id.json"))
    assert ADAPTER.assistant_message(stop) == [
        {
            "role": "assistant",
            "content": "",
            "thinking": "The user wants the weather in Paris.",
            "tool_calls": [
                {"function": {"name": "get_current_weather", "arguments": {"city": "Paris"}}}
            ],
        }
    ]


def test_assistant_message_is_the_same_from_a_stream() -> None:
    """The streamed reply gives the same continuation message as the whole reply."""
    for stream_file, reply_file in (
        ("stop_tool_calls.stream.json", "stop_tool_calls.json"),
        ("stop.stream.json", "stop.json"),
    ):
        streamed = stopkit.normalize_stream(_events(stream_file))
        whole = stopkit.normalize(_reply(reply_file))
        assert ADAPTER.assistant_message(streamed) == ADAPTER.assistant_message(whole)


def test_tool_results_one_tool_message_per_call_with_its_name() -> None:
    """Each result is one `tool` message naming its tool in `tool_name`, in call order."""
    stop = stopkit.normalize(_reply("stop_tool_calls.json"))
    results = [
        stopkit.ToolResult(call_id="call_0", name="weather", content='{"temp_c": 3}'),
        stopkit.ToolResult(call_id="call_1", name="search", content="boom", is_error=True),
    ]
    assert ADAPTER.tool_results(stop, results) == [
        {"role": "tool", "content": '{"temp_c": 3}', "tool_name": "weather"},
        {"role": "tool", "content": "boom", "tool_name": "search"},
    ]


def test_resume_refuses() -> None:
    """Ollama never pauses, so resume raises ValueError instead of inventing a request."""
    stop = stopkit.normalize(_reply("stop.json"))
    with pytest.raises(ValueError, match="never paused"):
        ADAPTER.resume(stop)


# --- the end of a stream (issue 12) ---------------------------------------------------------------


def _chunk(content: str = "", **extra: Any) -> dict[str, Any]:
    return {
        "model": "qwen3:14b",
        "created_at": "2025-06-09T17:58:50Z",
        "message": {"role": "assistant", "content": content},
        "done": False,
        **extra,
    }


def _done(done_reason: str, eval_count: int = 57) -> dict[str, Any]:
    return _chunk(done=True, done_reason=done_reason, prompt_eval_count=33, eval_count=eval_count)


@pytest.mark.parametrize(
    ("first", "second", "reason"),
    [
        ("length", "stop", stopkit.StopReason.OUTPUT_LIMIT),
        ("unload", "stop", stopkit.StopReason.UNKNOWN),
        ("", "stop", stopkit.StopReason.UNKNOWN),
        ("stop", "length", stopkit.StopReason.OUTPUT_LIMIT),
    ],
)
def test_the_stricter_of_two_done_chunks_wins(
    first: str, second: str, reason: stopkit.StopReason
) -> None:
    """A second done chunk replaces the done_reason only when it is at least as strict."""
    stop = stopkit.normalize_stream([_chunk("Hi"), _done(first), _done(second)])
    assert stop.reason is reason


def test_nothing_after_the_done_chunk_changes_the_reply() -> None:
    """Text and tool calls sent after `done: true` are not taken; a note counts the chunks."""
    call = {"function": {"name": "wire_money", "arguments": {"to": "x"}}}
    late = _chunk(" and more")
    late["message"]["tool_calls"] = [call]
    stop = stopkit.normalize_stream([_chunk("Done."), _done("stop"), late])
    assert (stop.reason, stop.text, stop.tool_calls) == (stopkit.StopReason.COMPLETED, "Done.", ())
    assert any("1 event arrived after the done: true chunk" in n for n in stop.notes), stop.notes


def test_token_counts_of_a_later_chunk_are_still_read() -> None:
    """Counts sent after the done chunk replace the earlier ones (they are the reply's totals)."""
    stop = stopkit.normalize_stream([_chunk("Hi"), _done("stop", 5), _done("stop", 6)])
    assert (stop.reason, stop.usage and stop.usage.output_tokens) == (
        stopkit.StopReason.COMPLETED,
        6,
    )


def test_usage_is_prompt_eval_count_and_eval_count() -> None:
    """prompt_eval_count is the input, eval_count the output; a prompt served from cache is None."""
    reply = _reply("stop.json")
    stop = stopkit.normalize(reply)
    assert stop.usage is not None
    assert (stop.usage.input_tokens, stop.usage.output_tokens) == (33, 57)
    assert stop.details["usage"] == {"prompt_eval_count": 33, "eval_count": 57}
    cached = {k: v for k, v in reply.items() if k != "prompt_eval_count"}
    usage = stopkit.normalize(cached).usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens) == (None, 57)


# --- /api/generate (issue 18) -------------------------------------------------------------------


def test_api_generate_replies_and_chunks_are_ollamas() -> None:
    """A /api/generate reply and chunk (`response`, not `message`) are read by this adapter."""
    reply = _reply("generate_stop.json")
    chunk = _events("generate_stop.stream.json")[0]
    assert stopkit.detect(reply).name == "ollama"
    assert ADAPTER.detects_event(chunk)
    assert stopkit.normalize(reply).text == "The sky is blue because of Rayleigh scattering."


def test_api_generate_sdk_objects_give_the_same_stop() -> None:
    """ollama-python's `GenerateResponse` (a reply or streamed chunks) reads as the JSON does."""
    ollama = pytest.importorskip("ollama")
    reply = _reply("generate_thinking.json")
    same_stop(stopkit.normalize(ollama.GenerateResponse(**reply)), stopkit.normalize(reply))
    events = _events("generate_thinking.stream.json")
    same_stop(
        stopkit.normalize_stream([ollama.GenerateResponse(**e) for e in events]),
        stopkit.normalize_stream(events),
    )


def test_api_generate_streamed_raw_is_a_generate_reply() -> None:
    """A generate stream is rebuilt as a generate reply: `response` and `thinking`, no message."""
    stop = stopkit.normalize_stream(_events("generate_thinking.stream.json"))
    assert "message" not in stop.raw
    assert stop.raw["response"] == "The sky is blue because of Rayleigh scattering."
    assert stop.raw["thinking"] == "The user asks why the sky is blue."


def test_api_generate_continues_as_api_chat_messages() -> None:
    """/api/generate takes a prompt: its reply goes back as /api/chat's assistant message."""
    stop = stopkit.normalize(_reply("generate_thinking.json"))
    assert ADAPTER.assistant_message(stop) == [
        {
            "role": "assistant",
            "content": "The sky is blue because of Rayleigh scattering.",
            "thinking": "The user asks why the sky is blue.",
        }
    ]


def test_a_message_wins_over_a_response() -> None:
    """A body holding both is read as /api/chat's (the chat detection is unchanged)."""
    reply = {**_reply("stop.json"), "response": "not this"}
    assert stopkit.normalize(reply).text == "Bring a light jacket. Have a great day!"
