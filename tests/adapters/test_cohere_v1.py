"""The Cohere v1 Chat adapter: its table against the SDK's types, detection, streams, turns."""

from __future__ import annotations

import dataclasses
import json
import typing
from typing import Any

import pytest

import stopkit
from stopkit import StopReason, ToolResult
from stopkit._stream import detect_stream
from stopkit.adapters import _cohere_rules as v2
from stopkit.adapters._bedrock_invoke_rules import COHERE_FINISH_REASON
from stopkit.adapters._cohere_v1_stream import EVENT_TYPES
from stopkit.adapters.cohere_v1 import FINISH_REASON, CohereV1Adapter
from tests._literals import literal_values
from tests._payloads import PAYLOADS, case_part, load_cases, same_stop
from tests.loop._validate import assert_valid_transcript

ADAPTER = CohereV1Adapter()
FOLDER = PAYLOADS / "cohere_v1"
CASES = load_cases(FOLDER)

#: cohere-python 7.3.1: `FinishReason` (`cohere/types/finish_reason.py`, a reply's) and
#: `ChatStreamEndEventFinishReason` (`chat_stream_end_event_finish_reason.py`, a stream-end's).
PINNED_FINISH_REASONS = (
    "COMPLETE", "STOP_SEQUENCE", "ERROR", "ERROR_TOXIC", "ERROR_LIMIT", "USER_CANCEL",
    "MAX_TOKENS", "TIMEOUT",
)  # fmt: skip

#: DESIGN section 3, "Added formats": the mapping of the values only v1 sends.
DESIGNED = {
    "COMPLETE": StopReason.COMPLETED,
    "MAX_TOKENS": StopReason.OUTPUT_LIMIT,
    "ERROR_LIMIT": StopReason.OUTPUT_LIMIT,
    "STOP_SEQUENCE": StopReason.STOP_SEQUENCE,
    "ERROR_TOXIC": StopReason.FILTERED,
    "ERROR": StopReason.UNKNOWN,
    "USER_CANCEL": StopReason.UNKNOWN,
}


def _reply(name: str) -> Any:
    return case_part("cohere_v1", name, "reply")


def _events(name: str) -> list[Any]:
    events: list[Any] = case_part("cohere_v1", name, "events")
    return events


# --- the table --------------------------------------------------------------------------------


def test_pinned_sdk_finish_reasons_are_exactly_the_table() -> None:
    """Every v1 FinishReason value is mapped, and the table maps nothing else."""
    assert set(PINNED_FINISH_REASONS) == set(FINISH_REASON)


@pytest.mark.parametrize("name", ["FinishReason", "ChatStreamEndEventFinishReason"])
def test_installed_sdk_finish_reasons_are_mapped(name: str) -> None:
    """Every value of the installed SDK's own v1 finish-reason types is mapped."""
    from cohere import types  # a dev dependency: a missing SDK fails here, never skips

    values = literal_values(getattr(types, name))
    assert values, f"{name} has no Literal values any more"
    assert values <= set(FINISH_REASON), values - set(FINISH_REASON)


def test_the_table_follows_the_design() -> None:
    """The values DESIGN names map as it says; ERROR_LIMIT is the context window."""
    assert {raw: FINISH_REASON[raw][0] for raw in DESIGNED} == DESIGNED
    assert FINISH_REASON["ERROR_LIMIT"][1] == "context_window"
    assert FINISH_REASON["MAX_TOKENS"][1] == "max_tokens"


def test_the_table_is_the_one_v1_finish_reason_table() -> None:
    """v1 Chat and Bedrock's Cohere Command bodies share one FinishReason type: one table."""
    assert FINISH_REASON is COHERE_FINISH_REASON


def test_every_table_value_has_a_payload_case() -> None:
    """Each finish_reason in the table is exercised by a case that expects it."""
    covered = {c.expect.get("raw_reason") for c in CASES}
    assert set(FINISH_REASON) <= covered, set(FINISH_REASON) - covered


def test_shared_values_are_v2s_own_entries() -> None:
    """The values v1 shares with v2 map to v2's very entries (imported, never copied)."""
    for raw in ("COMPLETE", "STOP_SEQUENCE", "MAX_TOKENS", "ERROR", "TIMEOUT"):
        assert FINISH_REASON[raw] is v2.FINISH_REASON[raw], raw


# --- SDK drift ------------------------------------------------------------------------------

#: What the reader and the stream read, per cohere-python type: a field the SDK drops or renames
#: fails here before a reply silently loses it.
READ_FIELDS = {
    "NonStreamedChatResponse": {"text", "generation_id", "finish_reason", "tool_calls",
                                "citations", "meta"},
    "ToolCall": {"name", "parameters"},
    "ToolCallDelta": {"index", "name", "parameters", "text"},
    "ApiMeta": {"tokens"},
    "ApiMetaTokens": {"input_tokens", "output_tokens"},
    "StreamStartStreamedChatResponse": {"event_type", "generation_id"},
    "TextGenerationStreamedChatResponse": {"event_type", "text"},
    "CitationGenerationStreamedChatResponse": {"event_type", "citations"},
    "ToolCallsChunkStreamedChatResponse": {"event_type", "text", "tool_call_delta"},
    "ToolCallsGenerationStreamedChatResponse": {"event_type", "text", "tool_calls"},
    "StreamEndStreamedChatResponse": {"event_type", "finish_reason", "response"},
}  # fmt: skip


@pytest.mark.parametrize("name", list(READ_FIELDS))
def test_the_sdk_types_hold_every_field_read(name: str) -> None:
    """Each field the adapter reads is still a field of the SDK's own type."""
    from cohere import types
    from cohere.types import streamed_chat_response

    sdk_type = getattr(types, name, None) or getattr(streamed_chat_response, name)
    assert READ_FIELDS[name] <= set(sdk_type.model_fields), READ_FIELDS[name] - set(
        sdk_type.model_fields
    )


def test_the_stream_knows_exactly_the_sdks_event_types() -> None:
    """EVENT_TYPES is the `event_type` of every member of the SDK's StreamedChatResponse union."""
    from cohere.types import StreamedChatResponse

    (members, *_) = typing.get_args(StreamedChatResponse)  # Annotated[Union[...], metadata]
    sdk = set().union(*(literal_values(m.model_fields["event_type"].annotation)
                        for m in typing.get_args(members)))  # fmt: skip
    assert sdk == EVENT_TYPES, sdk ^ EVENT_TYPES


# --- detection --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        # Cohere v2 chat: finish_reason beside `message`.
        {"id": "1", "finish_reason": "COMPLETE", "message": {"role": "assistant"}},
        # An OpenAI Responses body has a `text` (its format config), never a finish_reason.
        {"id": "resp_1", "object": "response", "status": "completed", "text": {"format": {}}},
        # A choice of a legacy completion.
        {"choices": [{"text": "x", "finish_reason": "stop"}], "object": "text_completion"},
    ],
)
def test_not_a_cohere_v1_reply(reply: dict[str, Any]) -> None:
    """Shapes that merely share a field name are not claimed by cohere.v1."""
    assert not ADAPTER.detects(reply)


def test_another_librarys_object_with_text_and_finish_reason_is_not_claimed() -> None:
    """An object saying `text` and `finish_reason` that the cohere SDK did not make is refused."""

    @dataclasses.dataclass
    class Response:  # the fields pydantic-ai's ModelResponse shows (`text` is its property)
        text: str = "Hi"
        finish_reason: str = "stop"

    assert not ADAPTER.detects(Response())
    assert ADAPTER.detects(dataclasses.asdict(Response()))  # a JSON body of that shape is v1's


def test_sdk_objects_are_auto_detected() -> None:
    """The SDK's `NonStreamedChatResponse` and stream events are read without `adapter=`."""
    from tests.sdk_forms.cohere_v1 import to_sdk, to_sdk_event

    assert stopkit.detect(to_sdk(_reply("complete.json"))).name == "cohere.v1"
    first = to_sdk_event(_events("complete.stream.json")[0])
    assert detect_stream(first).name == "cohere.v1"


# --- streams ----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", [c for c in CASES if c.is_stream], ids=lambda c: str(c.id))
def test_raw_ndjson_body_gives_the_same_stop(case: Any) -> None:
    """The stream as the newline-delimited JSON the API sends gives the events' Stop."""
    events = case.data["events"]
    body = "\n".join(json.dumps(e) for e in events) + "\n"
    same_stop(stopkit.normalize_stream(body), stopkit.normalize_stream(events))


def test_call_ids_are_stable_between_a_reply_and_its_stream() -> None:
    """Calls without ids get call_<position>, the same on every read and in the stream."""
    first = stopkit.normalize(_reply("tool_calls.json"))
    again = stopkit.normalize(_reply("tool_calls.json"))
    streamed = stopkit.normalize_stream(_events("tool_calls.stream.json"))
    ids = [c.id for c in first.tool_calls]
    assert ids == ["call_0", "call_1"]
    assert ids == [c.id for c in again.tool_calls] == [c.id for c in streamed.tool_calls]


def test_calls_are_rebuilt_from_their_deltas_when_the_end_does_not_list_them() -> None:
    """Without tool-calls-generation and with a bare stream-end, the deltas make the calls."""
    events = [
        e
        for e in _events("tool_calls.stream.json")
        if e["event_type"] not in ("tool-calls-generation", "stream-end")
    ]
    events.append({"event_type": "stream-end", "finish_reason": "COMPLETE", "response": {}})
    stop = stopkit.normalize_stream(events)
    assert stop.reason is StopReason.TOOL_REQUEST
    assert [(c.id, c.name, c.arguments) for c in stop.tool_calls] == [
        ("call_0", "get_weather", {"city": "Paris", "units": "metric"}),
        ("call_1", "get_time", {"timezone": "Europe/Paris"}),
    ]
    plan = "I will look up the weather in Paris and the local time there."
    assert stop.details["tool_plan"] == plan


def test_a_plan_before_its_calls_is_not_text() -> None:
    """A stream cut after the plan's pieces but before any call: the plan is not answer text."""
    events = _events("tool_calls.stream.json")[:3]
    stop = stopkit.normalize_stream(events)
    assert (stop.reason, stop.text) == (StopReason.UNKNOWN, "")
    assert stop.details["tool_plan"] == "I will look up the weather in Paris"


@pytest.mark.parametrize(
    ("first", "second", "reason"),
    [
        ("MAX_TOKENS", "COMPLETE", StopReason.OUTPUT_LIMIT),
        ("COMPLETE", "ERROR_TOXIC", StopReason.FILTERED),
        ("ERROR", "COMPLETE", StopReason.UNKNOWN),
    ],
)
def test_the_stricter_of_two_stream_ends_wins(
    first: str, second: str, reason: StopReason
) -> None:
    """A second stream-end replaces the finish_reason only when it is at least as strict."""
    events = [
        {"event_type": "text-generation", "text": "Hi"},
        {"event_type": "stream-end", "finish_reason": first, "response": {"text": "Hi"}},
        {"event_type": "stream-end", "finish_reason": second, "response": {"text": "Hi"}},
    ]
    stop = stopkit.normalize_stream(events)
    assert stop.reason is reason
    assert any("1 event arrived after the stream-end event" in n for n in stop.notes), stop.notes


def test_a_later_stream_end_is_still_read_for_its_meta() -> None:
    """Token counts sent in a later stream-end replace the earlier ones."""
    end = _events("complete.stream.json")[-1]
    later = {**end, "response": {**end["response"], "meta": {"tokens": {"output_tokens": 9}}}}
    stop = stopkit.normalize_stream([*_events("complete.stream.json"), later])
    assert stop.usage is not None
    assert stop.usage.output_tokens == 9


def test_usage_is_the_model_token_count_not_the_billed_one() -> None:
    """meta.tokens is Stop.usage; billed_units stays in details["usage"] (the meta object)."""
    stop = stopkit.normalize(_reply("complete.json"))
    assert stop.usage is not None
    assert (stop.usage.input_tokens, stop.usage.output_tokens) == (49, 8)
    assert stop.details["usage"]["billed_units"] == {"input_tokens": 31, "output_tokens": 8}


def test_sdk_float_counts_read_as_the_ints_sent() -> None:
    """The SDK types meta's counts as floats; 49.0 reads as the 49 the wire sent."""
    from tests.sdk_forms.cohere_v1 import to_sdk

    stop = stopkit.normalize(to_sdk(_reply("complete.json")))
    assert stop.usage is not None
    assert (stop.usage.input_tokens, stop.usage.output_tokens) == (49, 8)


# --- the conversation -------------------------------------------------------------------------


def test_assistant_message_sends_back_the_plan_and_the_calls() -> None:
    """A tool request is one CHATBOT message: the plan, and the calls as the model sent them."""
    stop = stopkit.normalize(_reply("tool_calls.json"))
    assert ADAPTER.assistant_message(stop) == [
        {
            "role": "CHATBOT",
            "message": "I will look up the weather in Paris and the local time there.",
            "tool_calls": [
                {"name": "get_weather", "parameters": {"city": "Paris", "units": "metric"}},
                {"name": "get_time", "parameters": {"timezone": "Europe/Paris"}},
            ],
        }
    ]


def test_assistant_message_is_the_same_from_a_stream() -> None:
    """The streamed reply gives the same continuation message as the whole reply."""
    for stream_file, reply_file in (
        ("tool_calls.stream.json", "tool_calls.json"),
        ("complete.stream.json", "complete.json"),
    ):
        streamed = stopkit.normalize_stream(_events(stream_file))
        whole = stopkit.normalize(_reply(reply_file))
        assert ADAPTER.assistant_message(streamed) == ADAPTER.assistant_message(whole)


def test_assistant_message_of_an_answer_is_its_text() -> None:
    """A finished answer goes back as a CHATBOT message holding its text."""
    stop = stopkit.normalize(_reply("complete.json"))
    assert ADAPTER.assistant_message(stop) == [
        {"role": "CHATBOT", "message": "The capital of France is Paris."}
    ]


def test_tool_results_are_one_tool_message_with_each_call() -> None:
    """Each result names its call (name and parameters); outputs is always a list of objects."""
    stop = stopkit.normalize(_reply("tool_calls.json"))
    results = [
        ToolResult(call_id="call_0", name="get_weather", content='{"temp_c": 18}'),
        ToolResult(call_id="call_1", name="get_time", content="16:42"),
    ]
    weather, time = stop.tool_calls
    assert ADAPTER.tool_results(stop, results) == [
        {
            "role": "TOOL",
            "tool_results": [
                {"call": {"name": "get_weather", "parameters": weather.arguments},
                 "outputs": [{"temp_c": 18}]},
                {"call": {"name": "get_time", "parameters": time.arguments},
                 "outputs": [{"result": "16:42"}]},
            ],
        }
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("result", "outputs"),
    [
        (ToolResult(call_id="call_0", name="f", content="[{\"a\": 1}, {\"b\": 2}]"),
         [{"a": 1}, {"b": 2}]),
        (ToolResult(call_id="call_0", name="f", content="[1, 2]"), [{"result": "[1, 2]"}]),
        (ToolResult(call_id="call_0", name="f", content="{broken"), [{"result": "{broken"}]),
        (ToolResult(call_id="call_0", name="f", content="boom", is_error=True),
         [{"error": "boom"}]),
    ],
)  # fmt: skip
def test_tool_result_outputs(result: ToolResult, outputs: list[dict[str, Any]]) -> None:
    """A list of objects goes as that list; other text as {"result"}; an error as {"error"}."""
    stop = stopkit.normalize(_reply("tool_calls.json"))
    (message,) = ADAPTER.tool_results(stop, [result])
    assert message["tool_results"][0]["outputs"] == outputs


def test_user_message_and_resume() -> None:
    """A user turn is a USER message; v1 never pauses, so resume raises ValueError."""
    assert ADAPTER.user_message("Go on.") == {"role": "USER", "message": "Go on."}
    with pytest.raises(ValueError, match="never paused"):
        ADAPTER.resume(stopkit.normalize(_reply("complete.json")))


def test_the_loop_runs_both_calls_and_sends_their_results() -> None:
    """run_loop: the calls run, and the next request holds the CHATBOT and TOOL messages."""
    from stopkit.testing import ScriptedModel

    model = ScriptedModel([_reply("tool_calls.json"), _reply("complete.json")])
    tools = {
        "get_weather": lambda city, units: {"temp_c": 18},
        "get_time": lambda timezone: "16:42",
    }
    start = [ADAPTER.user_message("Weather and time in Paris?")]
    outcome = stopkit.run_loop(model, start, tools=tools)
    assert outcome.termination.value == "completed"
    assert outcome.text == "The capital of France is Paris."
    sent = list(model.calls[1].messages)
    assert [m["role"] for m in sent] == ["USER", "CHATBOT", "TOOL"]
    outputs = [r["outputs"] for r in sent[2]["tool_results"]]
    assert outputs == [[{"temp_c": 18}], [{"result": "16:42"}]]
    assert_valid_transcript("cohere.v1", outcome.messages)  # the SDK's own v1 Message type


def test_events_with_fields_of_the_wrong_type_are_read() -> None:
    """An event_type, index or response of the wrong type (a list, an object) raises nothing."""
    end = {"event_type": "stream-end", "finish_reason": "COMPLETE", "response": {"text": "Hi"}}
    damaged: list[list[Any]] = [
        [end, {"event_type": [], "text": " more"}],  # raised TypeError: unhashable type
        [{"event_type": "tool-calls-chunk", "tool_call_delta": {"index": [0], "name": "f"}}, end],
        [{"event_type": "tool-calls-chunk", "tool_call_delta": {"index": {"i": 0}}}, end],
        [{"event_type": "tool-calls-generation", "tool_calls": {"name": "f"}}, end],
        [{"event_type": "text-generation", "text": 3}, {**end, "response": ["Hi"]}],
    ]
    for events in damaged:
        stop = stopkit.normalize_stream(events, adapter="cohere.v1")
        assert isinstance(stop.reason, StopReason), events
