"""The OpenAI Chat adapter beyond the payload table: SDK values, detection, streams, messages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter
from together.types.chat import ChatCompletionChunk as TogetherChunk

import stopkit
from stopkit import StopReason, ToolResult
from stopkit._stream import detect_stream
from stopkit.adapters.openai_chat import (
    CONTENT_FILTER,
    FINISH_DETAILS_TYPE,
    FINISH_REASON,
    OpenAIChatAdapter,
)
from tests._adapters import ADAPTER_OF_WIRE
from tests._corpus import rows
from tests._literals import literal_values
from tests._payloads import PAYLOADS, case_part, load_cases, same_stop

ADAPTER = OpenAIChatAdapter()
FOLDER = PAYLOADS / "openai_chat"


def _case(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FOLDER / name).read_text(encoding="utf-8"))
    return data


def _reply(name: str) -> Any:
    return _case(name)["reply"]


# --- the tables against the installed SDK and the payload files -----------------------------


@pytest.mark.parametrize(
    "choice_type",
    ["openai.types.chat.chat_completion:Choice", "openai.types.chat.chat_completion_chunk:Choice"],
)
def test_every_sdk_finish_reason_is_mapped(choice_type: str) -> None:
    """Every finish_reason value of the installed openai SDK's Literal is in the table."""
    import importlib

    module_name, _, name = choice_type.partition(":")
    choice = getattr(importlib.import_module(module_name), name)
    values = literal_values(choice.model_fields["finish_reason"].annotation)
    assert values >= {"stop", "length", "tool_calls", "content_filter", "function_call"}
    assert values - FINISH_REASON.keys() == set()


def _all_cases() -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(FOLDER.glob("*.json"))]


def test_every_table_value_has_a_payload_case() -> None:
    """Each raw value of each table is exercised by at least one payload case."""
    cases = _all_cases()
    raw_reasons = {c["expect"].get("raw_reason") for c in cases}
    assert set(FINISH_REASON) - raw_reasons == set()
    assert set(FINISH_DETAILS_TYPE) - raw_reasons == set()
    categories: set[str] = set()
    for case in cases:
        for choice in (case.get("reply") or {}).get("choices") or []:
            if isinstance(choice, dict):
                categories |= set(choice.get("content_filter_results") or {})
    assert set(CONTENT_FILTER) - categories == set()


def test_tables_are_typed_and_titled() -> None:
    """The adapter exposes its tables (for the docs) and says how streaming differs."""
    assert ADAPTER.tables["finish_reason"] is FINISH_REASON
    for table in ADAPTER.tables.values():
        for raw, (reason, detail) in table.items():
            assert isinstance(raw, str)
            assert isinstance(reason, StopReason)
            assert detail is None or isinstance(detail, str)
    assert ADAPTER.stream_notes


def test_repetition_is_not_a_natural_end() -> None:
    """The vLLM repetition stop is escalated as unknown/error, never returned as an answer."""
    assert FINISH_REASON["repetition"] == (StopReason.UNKNOWN, "error")


# --- multiple choices -----------------------------------------------------------------------


def test_normalize_all_gives_one_stop_per_choice_in_index_order() -> None:
    """With n > 1: one Stop per choice, in index order, each keeping the whole reply as raw."""
    reply = _reply("multiple_choices.json")
    stops = stopkit.normalize_all(reply)
    assert [(s.reason, s.text) for s in stops] == [
        (StopReason.COMPLETED, "Blue."),
        (StopReason.OUTPUT_LIMIT, "Green is"),
    ]
    assert all(s.raw is reply for s in stops)


def test_normalize_all_without_choices_gives_one_stop() -> None:
    """A reply with choices: [] still gives exactly one Stop (unknown/missing)."""
    (stop,) = stopkit.normalize_all(_reply("empty_choices.json"))
    assert (stop.reason, stop.detail) == (StopReason.UNKNOWN, "missing")


def test_stream_results_give_one_stop_per_choice() -> None:
    """The accumulator's results() reads every streamed choice; result() is choice 0."""
    acc = ADAPTER.stream()
    for event in _case("stream_multiple_choices.stream.json")["events"]:
        acc.feed(event)
    assert [(s.reason, s.text) for s in acc.results()] == [
        (StopReason.COMPLETED, "Blue."),
        (StopReason.OUTPUT_LIMIT, "Green is"),
    ]
    assert acc.result() is acc.results()[0]


# --- detection ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        # Ollama native /api/chat
        {
            "model": "llama3",
            "message": {"role": "assistant", "content": "Hi"},
            "done": True,
            "done_reason": "stop",
        },
        # Cohere v2
        {
            "id": "x",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Hi"}]},
            "finish_reason": "COMPLETE",
        },
        # OpenAI Responses
        {"id": "resp_1", "object": "response", "status": "completed", "output": []},
        # legacy completions
        {"object": "text_completion", "choices": [{"text": "Hi", "finish_reason": "stop"}]},
        # a stream chunk is not a whole reply
        {"object": "chat.completion.chunk", "choices": []},
        {"choices": "stop"},
        None,
        42,
    ],
)
def test_detects_only_chat_completions(reply: Any) -> None:
    """Detection needs a choices list: Ollama, Cohere, Responses and chunks are not chat replies."""
    assert ADAPTER.detects(reply) is False


def test_detects_chat_completion_and_sdk_object() -> None:
    """A chat completion dict and the SDK's ChatCompletion are detected, also by auto-detection."""
    from tests.sdk_forms.openai_chat import to_sdk

    reply = _reply("stop.json")
    assert ADAPTER.detects(reply)
    assert ADAPTER.detects(to_sdk(reply))
    assert stopkit.detect(reply).name == "openai.chat"


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        ({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}}]}, True),
        # Azure's first chunk: object "" and no choices, only prompt_filter_results
        ({"choices": [], "id": "", "object": "", "prompt_filter_results": []}, True),
        ({"type": "response.created", "response": {}}, False),
        ({"type": "message_start", "message": {}}, False),
        (
            {"model": "llama3", "message": {"role": "assistant", "content": "H"}, "done": False},
            False,
        ),
        ({"object": "chat.completion", "choices": []}, False),
        # Perplexity labels its chunks as whole completions: a choice with a delta is a chunk
        (
            {
                "object": "chat.completion",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "Paris"},
                        "delta": {"role": "assistant", "content": "Paris"},
                    }
                ],
            },
            True,
        ),
        # ... and a whole reply (its choices carry a message only) is not
        (
            {
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"content": "Hi"}, "finish_reason": "stop"}],
            },
            False,
        ),
    ],
)
def test_detects_event(event: Any, expected: bool) -> None:
    """Stream detection accepts chat chunks (Azure's and Perplexity's too) and nothing else."""
    assert ADAPTER.detects_event(event) is expected


def _first_events() -> list[tuple[str, str, Any]]:
    """(id, adapter, first event) of every payload stream and every in-scope corpus stream."""
    out = [
        (case.id, case.adapter, case.data["events"][0])
        for case in load_cases()
        if case.is_stream and case.data["events"]
    ]
    for wire in ADAPTER_OF_WIRE:
        for row in rows(wire, stream=True):
            events = row.load()
            if events:
                out.append((row.file, row.adapter, events[0]))
    return out


def test_stream_detection_takes_chat_streams_and_no_other() -> None:
    """Every recorded Chat stream is detected as Chat; no other adapter's first event is."""
    for name, adapter, first in _first_events():
        if adapter == "openai.chat":
            assert detect_stream(first).name == "openai.chat", name
        else:
            assert not ADAPTER.detects_event(first), name


# --- streams --------------------------------------------------------------------------------


def test_result_can_be_read_before_and_after_the_end() -> None:
    """result() mid-stream is stream_incomplete, and the finished stream then reads normally."""
    events = _case("stream_text.stream.json")["events"]
    acc = ADAPTER.stream()
    for event in events[:3]:
        acc.feed(event)
    early = acc.result()
    assert (early.reason, early.detail, early.text) == (
        StopReason.UNKNOWN,
        "stream_incomplete",
        "Paris is the capital",
    )
    assert acc.result() == early
    for event in events[3:]:
        acc.feed(event)
    assert acc.result().reason is StopReason.COMPLETED
    assert acc.result().text == "Paris is the capital of France."


def test_stream_joins_argument_pieces_once() -> None:
    """Argument fragments are kept as pieces and parsed only when result() is asked for."""
    acc = ADAPTER.stream()
    acc.feed(
        {
            "object": "chat.completion.chunk",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a"'}}
                        ]
                    },
                }
            ],
        }
    )
    for _ in range(1000):
        acc.feed(
            {
                "object": "chat.completion.chunk",
                "choices": [
                    {
                        "index": 0,
                        "delta": {"tool_calls": [{"index": 0, "function": {"arguments": " "}}]},
                    }
                ],
            }
        )
    acc.feed(
        {
            "object": "chat.completion.chunk",
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]},
                    "finish_reason": "tool_calls",
                }
            ],
        }
    )
    (call,) = acc.result().tool_calls
    assert call.arguments == {"a": 1}
    assert call.complete


@pytest.mark.parametrize("bad_id", [["x"], {"a": 1}, True, 1.5, 7])
def test_stream_call_id_of_the_wrong_type_is_never_runnable(bad_id: Any) -> None:
    """A streamed call whose id is not a string is incomplete, as in its non-streaming twin."""
    call = {"index": 0, "id": bad_id, "type": "function", "function": {"name": "f"}}
    pieces = [{"index": 0, "function": {"arguments": '{"a": 1}'}}]
    chunks = [
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}
        for delta in ({"tool_calls": [call]}, {"tool_calls": pieces})
    ]
    chunks[-1]["choices"][0]["finish_reason"] = "tool_calls"
    twin = {"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls",
            "message": {"role": "assistant", "tool_calls": [{**call, "function": {
                "name": "f", "arguments": '{"a": 1}'}}]}}]}  # fmt: skip
    streamed, whole = stopkit.normalize_stream(chunks), stopkit.normalize(twin)
    assert streamed.tool_calls == whole.tool_calls
    assert not streamed.runnable_tool_calls
    assert "not a string" in (streamed.tool_calls[0].error or "")


def test_stream_later_milder_finish_does_not_undo_filter() -> None:
    """After content_filter, a later stop does not make the stream completed again."""
    acc = ADAPTER.stream()
    for finish in ("stop", "content_filter", "stop"):
        acc.feed(
            {
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
            }
        )
    stop = acc.result()
    assert (stop.reason, stop.raw_reason) == (StopReason.FILTERED, "content_filter")


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "c1", "object": "chat.completion.chunk", "choices": [choice], **extra}


_LATE_CALL = {"tool_calls": [{"index": 0, "id": "call_9", "type": "function",
                              "function": {"name": "wire_money", "arguments": "{}"}}]}  # fmt: skip


@pytest.mark.parametrize(
    ("after", "reason", "raw_reason", "text"),
    [
        # text and a tool call after the end are not taken; a note counts their chunks
        ([_chunk({"content": " and more"}), _chunk(_LATE_CALL)], "completed", "stop", "Done."),
        # a milder finish value never replaces a stricter one
        ([_chunk({}, "stop")], "completed", "stop", "Done."),
        # Azure's late content_filter is stricter: it wins, its text does not come with it
        ([_chunk({"content": " step two"}, "content_filter")], "filtered", "content_filter",
         "Done."),
        # a late tool_calls value brings no call: unknown, nothing to run
        ([_chunk(_LATE_CALL, "tool_calls")], "unknown", "tool_calls", "Done."),
    ],
)  # fmt: skip
def test_nothing_after_finish_reason_changes_the_reply_but_a_stricter_value(
    after: list[dict[str, Any]], reason: str, raw_reason: str, text: str
) -> None:
    """After a choice's finish_reason no text or call is taken; only a stricter value wins."""
    events = [_chunk({"role": "assistant", "content": "Done."}), _chunk({}, "stop"), *after]
    stop = stopkit.normalize_stream(events)
    assert (stop.reason.value, stop.raw_reason, stop.text, stop.tool_calls) == (
        reason,
        raw_reason,
        text,
        (),
    )
    late = sum(1 for e in after if e["choices"][0]["delta"])
    if late:
        said = f"{late} chunk{'' if late == 1 else 's'} after finish_reason"
        assert any(said in note for note in stop.notes), stop.notes


def _call_fragment(index: int, arguments: str, call_id: str | None = None) -> dict[str, Any]:
    fragment: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if call_id is not None:
        fragment.update(id=call_id, type="function")
        fragment["function"]["name"] = "get_weather"
    return {"tool_calls": [fragment]}


_FIRST_CALL = [_chunk(_call_fragment(0, '{"city": "Paris"}', "call_a")), _chunk({}, "tool_calls")]


@pytest.mark.parametrize(
    ("after", "calls", "late"),
    [
        # a new index after a tool_calls finish is the same turn (Together finishes each call)
        ([_chunk(_call_fragment(1, "", "call_b")), _chunk(_call_fragment(1, '{"city": "Oslo"}')),
          _chunk({}, "tool_calls")], ["call_a", "call_b"], 0),
        # ... its arguments may end in the finish chunk itself
        ([_chunk(_call_fragment(1, '{"city": "Oslo"}', "call_b"), "tool_calls")],
         ["call_a", "call_b"], 0),
        # text after a tool_calls finish is not taken
        ([_chunk({"content": "Anything else?"})], ["call_a"], 1),
        # nor more arguments for a call that came before the finish
        ([_chunk(_call_fragment(0, '{"unit": "C"}'))], ["call_a"], 1),
    ],
)  # fmt: skip
def test_after_a_tool_calls_finish_only_calls_of_a_new_index_are_taken(
    after: list[dict[str, Any]], calls: list[str], late: int
) -> None:
    """After finish_reason tool_calls a new tool-call index is the same turn; nothing else is."""
    stop = stopkit.normalize_stream([*_FIRST_CALL, *after])
    assert stop.reason is StopReason.TOOL_REQUEST
    assert [c.id for c in stop.runnable_tool_calls] == calls
    assert stop.tool_calls[0].arguments == {"city": "Paris"}
    said = "1 chunk after finish_reason carried text or tool calls: ignored"
    assert any(said in note for note in stop.notes) is bool(late), stop.notes


@pytest.mark.parametrize("finish", ["stop", "length", "content_filter"])
def test_after_any_other_finish_a_new_call_is_not_taken(finish: str) -> None:
    """After a finish value that is not tool_calls, a call of a new index is late: not taken."""
    events = [_chunk({"content": "Done."}), _chunk({}, finish), _chunk(_LATE_CALL)]
    stop = stopkit.normalize_stream(events)
    assert stop.tool_calls == ()
    assert any("after finish_reason carried text or tool calls" in n for n in stop.notes)


def test_together_sdk_chunks_finishing_each_call_give_both_calls() -> None:
    """Together's own ChatCompletionChunk objects read as their JSON: both calls, one turn."""
    events = case_part(
        "openai_chat", "stream_together_finish_after_each_call.stream.json", "events"
    )
    stop = stopkit.normalize_stream([TogetherChunk.model_validate(e) for e in events])
    same_stop(stop, stopkit.normalize_stream(events))
    assert [c.id for c in stop.runnable_tool_calls] == ["call_paris", "call_tokyo"]


def test_length_then_stop_stays_output_limit() -> None:
    """A stop sent after length does not make a cut reply read as complete."""
    stop = stopkit.normalize_stream(
        [_chunk({"content": "Once upon"}), _chunk({}, "length"), _chunk({}, "stop")]
    )
    assert (stop.reason, stop.detail) == (StopReason.OUTPUT_LIMIT, "max_tokens")


def test_usage_and_filter_annotations_after_the_end_are_read() -> None:
    """The usage-only chunk and a late filter annotation, both after the end, are still read."""
    annotation = {
        "index": 0,
        "delta": {},
        "finish_reason": None,
        "content_filter_results": {"violence": {"filtered": True, "severity": "high"}},
    }
    usage = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    stop = stopkit.normalize_stream([
        _chunk({"content": "Hi"}, "stop"),
        {"id": "c1", "object": "chat.completion.chunk", "choices": [annotation]},
        {"id": "c1", "object": "chat.completion.chunk", "choices": [], "usage": usage},
    ])  # fmt: skip
    assert (stop.reason, stop.detail, stop.text) == (StopReason.FILTERED, "safety", "Hi")
    assert stop.usage is not None
    assert (stop.usage.input_tokens, stop.usage.output_tokens) == (5, 2)


class _CountedEntry(dict[str, Any]):
    """An Azure prompt_filter_results entry that counts how often it is read."""

    reads = 0

    def get(self, key: str, default: Any = None) -> Any:
        type(self).reads += 1
        return super().get(key, default)


def test_prompt_filter_entries_are_read_a_bounded_number_of_times() -> None:
    """Each chunk's prompt_filter_results entry is read a few times, however many choices.

    Reading the entries once per choice made a stream of 8,000 such chunks (one choice each)
    take a minute: the work grew with entries x choices.
    """
    _CountedEntry.reads = 0
    n = 300
    results = {"hate": {"filtered": False, "severity": "safe"}}
    acc = ADAPTER.stream()
    for index in range(n):
        entry = _CountedEntry(prompt_index=0, content_filter_results=results)
        choice = {"index": index, "delta": {"content": "x"}, "finish_reason": "stop"}
        acc.feed({"id": "c1", "object": "chat.completion.chunk", "choices": [choice],
                  "prompt_filter_results": [entry]})  # fmt: skip
    stops = acc.results()
    assert len(stops) == n
    assert all(s.reason is StopReason.COMPLETED for s in stops)
    assert _CountedEntry.reads <= 2 * n


def test_stream_sdk_chunks_and_dicts_agree_on_a_refusal() -> None:
    """The SDK's ChatCompletionChunk objects give the same Stop as the JSON chunks."""
    from tests.sdk_forms.openai_chat import to_sdk_event

    events = _case("stream_refusal.stream.json")["events"]
    same_stop(
        stopkit.normalize_stream([to_sdk_event(e) for e in events]),
        stopkit.normalize_stream(events),
    )


_FINISHED_STREAMS = [
    p.name
    for p in sorted(FOLDER.glob("*.stream.json"))
    if json.loads(p.read_text(encoding="utf-8"))["expect"].get("detail")
    not in ("stream_incomplete", "error")
]


@pytest.mark.parametrize("name", _FINISHED_STREAMS)
def test_stream_raw_is_the_whole_reply(name: str) -> None:
    """A finished stream's Stop carries the reply it amounts to, which reads to the same Stop."""
    stop = stopkit.normalize_stream(_case(name)["events"])
    assert stop.raw["object"] == "chat.completion"
    same_stop(stop, stopkit.normalize(stop.raw))


def test_cut_stream_raw_keeps_what_arrived() -> None:
    """A cut stream's raw reply holds the text and the partial call, with no finish_reason."""
    stop = stopkit.normalize_stream(_case("stream_cut.stream.json")["events"])
    (choice,) = stop.raw["choices"]
    assert choice["finish_reason"] is None
    assert choice["message"]["content"] == "Checking."
    assert choice["message"]["tool_calls"][0]["function"]["arguments"] == '{"city": "Pa'


# --- the loop's messages --------------------------------------------------------------------


def _assistant_param_is_valid(message: dict[str, Any]) -> None:
    from openai.types.chat import ChatCompletionMessageParam

    TypeAdapter(ChatCompletionMessageParam).validate_python(message)


def test_assistant_message_for_tool_calls_keeps_the_argument_strings() -> None:
    """The assistant message repeats the calls with their arguments exactly as sent."""
    stop = stopkit.normalize(_reply("parallel_tool_calls.json"))
    (message,) = ADAPTER.assistant_message(stop)
    assert message == {
        "role": "assistant",
        "content": "Let me check both.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Tokyo"}'},
            },
        ],
    }
    _assistant_param_is_valid(message)


def test_assistant_message_without_text_has_null_content() -> None:
    """A tool-only reply is sent back with content null, as the API returned it."""
    (message,) = ADAPTER.assistant_message(stopkit.normalize(_reply("tool_calls.json")))
    assert message["content"] is None
    assert message["tool_calls"][0]["function"]["arguments"] == '{"city": "Paris"}'


def test_assistant_message_keeps_invalid_arguments_as_sent() -> None:
    """Arguments that are not JSON are sent back unchanged (the model must see what it wrote)."""
    (message,) = ADAPTER.assistant_message(stopkit.normalize(_reply("invalid_json_arguments.json")))
    assert message["tool_calls"][0]["function"]["arguments"] == "{city: Paris}"


def test_assistant_message_of_a_stream_equals_its_twin() -> None:
    """A streamed reply gives the same assistant message as its non-streaming twin."""
    streamed = stopkit.normalize_stream(_case("stream_parallel_tool_calls.stream.json")["events"])
    whole = stopkit.normalize(_reply("parallel_tool_calls.json"))
    assert ADAPTER.assistant_message(streamed) == ADAPTER.assistant_message(whole)


def test_assistant_message_with_refusal_and_text() -> None:
    """A refusal is carried on the message; a plain answer carries its text."""
    (refused,) = ADAPTER.assistant_message(stopkit.normalize(_reply("refusal_stop.json")))
    assert refused["refusal"] == "I'm sorry, I can't help with that."
    (plain,) = ADAPTER.assistant_message(stopkit.normalize(_reply("stop.json")))
    assert plain == {"role": "assistant", "content": "Paris is the capital of France."}
    _assistant_param_is_valid(refused)


def test_assistant_message_for_custom_and_legacy_calls() -> None:
    """Custom tool calls go back as custom calls; a legacy reply as a function_call message."""
    (custom,) = ADAPTER.assistant_message(stopkit.normalize(_reply("custom_tool_call.json")))
    assert custom["tool_calls"] == [
        {"id": "call_cus", "type": "custom", "custom": {"name": "run_sql", "input": "SELECT 1;"}}
    ]
    _assistant_param_is_valid(custom)
    (legacy,) = ADAPTER.assistant_message(stopkit.normalize(_reply("function_call_legacy.json")))
    assert legacy == {
        "role": "assistant",
        "content": None,
        "function_call": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    _assistant_param_is_valid(legacy)


def test_tool_results_one_tool_message_per_call_in_order() -> None:
    """Each result becomes one tool message with its call id, in the order given."""
    stop = stopkit.normalize(_reply("parallel_tool_calls.json"))
    results = [
        ToolResult(call_id="call_1", name="get_weather", content='{"temp": 21}'),
        ToolResult(call_id="call_2", name="get_weather", content="boom", is_error=True),
    ]
    messages = ADAPTER.tool_results(stop, results)
    assert messages == [
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 21}'},
        {"role": "tool", "tool_call_id": "call_2", "content": "boom"},
    ]
    for message in messages:
        _assistant_param_is_valid(message)


def test_tool_results_for_a_legacy_function_call() -> None:
    """The deprecated functions API takes its result back as a function message."""
    stop = stopkit.normalize(_reply("function_call_legacy.json"))
    messages = ADAPTER.tool_results(
        stop, [ToolResult(call_id="", name="get_weather", content="21")]
    )
    assert messages == [{"role": "function", "name": "get_weather", "content": "21"}]


def test_resume_is_not_applicable() -> None:
    """Chat has no paused stop: resume raises a ValueError naming the stop's reason."""
    stop = stopkit.normalize(_reply("stop.json"))
    with pytest.raises(ValueError, match=r"no paused stop.*'completed'"):
        ADAPTER.resume(stop)


def test_loop_round_trip_with_chat_messages() -> None:
    """The loop runs both calls and sends back the assistant message and one tool message each."""
    from stopkit.testing import ScriptedModel

    model = ScriptedModel([_reply("parallel_tool_calls.json"), _reply("stop.json")])
    outcome = stopkit.run_loop(
        model,
        [{"role": "user", "content": "Weather in Paris and Tokyo?"}],
        tools={"get_weather": lambda city: f"21 in {city}"},
    )
    assert outcome.text == "Paris is the capital of France."
    assert outcome.messages[1:] == [
        *ADAPTER.assistant_message(stopkit.normalize(_reply("parallel_tool_calls.json"))),
        {"role": "tool", "tool_call_id": "call_1", "content": "21 in Paris"},
        {"role": "tool", "tool_call_id": "call_2", "content": "21 in Tokyo"},
        {"role": "assistant", "content": "Paris is the capital of France."},
    ]


_KEYS = [
    "message", "finish_reason", "index", "delta", "error", "stop_reason", "native_finish_reason",
    "content_filter_results", "finish_details", "content", "refusal", "tool_calls",
    "function_call", "x_groq", "prompt_filter_results", "type", "text", "filtered", "name",
    "arguments", "id", "function", "custom", "input",
]  # fmt: skip
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(st.lists(_JSON, max_size=3), st.dictionaries(st.sampled_from(_KEYS), _JSON, max_size=4))
def test_never_raises_on_a_reply_of_its_shape(choices: list[Any], top: dict[str, Any]) -> None:
    """Any JSON under `choices` gives a Stop (whole reply and stream), never an exception."""
    reply = {**top, "choices": choices}
    stop = ADAPTER.normalize(reply)
    assert stop.raw is reply
    assert len(ADAPTER.normalize_all(reply)) == max(1, len(choices))
    if stop.reason is StopReason.TOOL_REQUEST:
        assert stop.tool_calls
    accumulator = ADAPTER.stream()
    accumulator.feed(reply)
    accumulator.feed({"choices": choices})
    assert accumulator.result().provider == "openai.chat"
