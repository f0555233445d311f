"""The OpenAI Responses adapter: its tables against the installed SDK, and the loop methods."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import httpx2
import pytest
from openai.types.responses import (
    Response,
    ResponseInputItem,
    ResponseOutputItem,
    ResponseStatus,
    ResponseStreamEvent,
    parsed_response,
)
from openai.types.responses.response import IncompleteDetails
from openai.types.responses.response_error import ResponseError
from pydantic import BaseModel, TypeAdapter

import stopkit
import stopkit.record
from stopkit import StopReason, ToolResult
from stopkit.adapters._openai_responses_calls import _PARSED_FIELDS, OUTPUT_TYPE_OF
from stopkit.adapters.openai_responses import (
    CLIENT_CALL_TYPES,
    ERROR_CODE,
    INCOMPLETE_REASON,
    STATUS,
    OpenAIResponsesAdapter,
)
from tests.sdk_forms.openai_responses import to_sdk, to_sdk_event

CASES = Path(__file__).parents[1] / "payloads" / "openai_responses"
ADAPTER = OpenAIResponsesAdapter()

#: Output item types that are not client calls: messages, reasoning, provider-run tools, and
#: the answers to calls. A new SDK item type fails `test_every_output_item_type_is_decided`
#: until someone decides which side it is on.
NOT_CALLS = {
    "message",
    "reasoning",
    "compaction",
    "additional_tools",
    "program",
    "program_output",
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
    "mcp_list_tools",
    *OUTPUT_TYPE_OF.values(),
}


def _literals(annotation: Any) -> list[str]:
    """Every string of the Literals inside a (possibly Optional/Union) annotation."""
    if typing.get_origin(annotation) is typing.Literal:
        return [a for a in typing.get_args(annotation) if isinstance(a, str)]
    out: list[str] = []
    for arg in typing.get_args(annotation):
        out += _literals(arg)
    return out


def _reply(name: str) -> dict[str, Any]:
    reply: dict[str, Any] = json.loads((CASES / name).read_text())["reply"]
    return reply


def _item_types(union: Any) -> set[str]:
    members = typing.get_args(typing.get_args(union)[0])
    return {_literals(m.model_fields["type"].annotation)[0] for m in members}


def test_every_sdk_status_is_mapped() -> None:
    """Every value of the installed SDK's ResponseStatus literal is in the status table."""
    assert set(typing.get_args(ResponseStatus)) <= set(STATUS)


def test_every_sdk_incomplete_reason_is_mapped() -> None:
    """Every IncompleteDetails.reason value of the installed SDK is in the reason table."""
    reasons = _literals(IncompleteDetails.model_fields["reason"].annotation)
    assert reasons
    assert set(reasons) <= set(INCOMPLETE_REASON)


def test_every_sdk_policy_error_code_is_filtered() -> None:
    """Every policy code of the SDK's ResponseError.code is in the table; the rest are errors."""
    codes = set(_literals(ResponseError.model_fields["code"].annotation))
    policy = {code for code in codes if "policy" in code}
    assert policy == set(ERROR_CODE), "a policy code is missing, or a code left the SDK"
    assert all(reason is StopReason.FILTERED for reason, _ in ERROR_CODE.values())
    stop = stopkit.normalize(
        {"object": "response", "status": "failed", "output": [], "error": {"code": "server_error"}}
    )
    assert (stop.reason, stop.detail) == (StopReason.UNKNOWN, "error")


def test_every_output_item_type_is_decided() -> None:
    """Every output item type of the SDK is either a client call or known not to be one."""
    types = _item_types(ResponseOutputItem)
    undecided = types - CLIENT_CALL_TYPES - NOT_CALLS
    assert not undecided, f"decide whether these are client calls: {undecided}"
    assert types >= CLIENT_CALL_TYPES


def test_every_answer_type_is_an_sdk_input_item() -> None:
    """The item type answering each client call is one the SDK accepts as input."""
    assert set(OUTPUT_TYPE_OF) == CLIENT_CALL_TYPES
    assert set(OUTPUT_TYPE_OF.values()) <= _item_types(ResponseInputItem)


def test_tables_are_exposed_for_the_readme() -> None:
    """The adapter exposes its three tables under their wire field names."""
    assert ADAPTER.tables == {
        "status": STATUS,
        "incomplete_details.reason": INCOMPLETE_REASON,
        "error.code": ERROR_CODE,
    }
    assert ADAPTER.name == "openai.responses"


def test_detection_of_replies_and_events() -> None:
    """A Response is detected as dict and SDK object; a Chat completion and its chunks are not."""
    reply = _reply("completed_text.json")
    assert ADAPTER.detects(reply)
    assert ADAPTER.detects(to_sdk(reply))
    assert not ADAPTER.detects({"object": "chat.completion", "choices": []})
    assert not ADAPTER.detects(42)
    assert ADAPTER.detects_event({"type": "response.created", "response": reply})
    assert not ADAPTER.detects_event({"object": "chat.completion.chunk", "choices": []})
    assert ADAPTER.detects_event({"type": "error", "code": "x", "sequence_number": 0})
    assert not ADAPTER.detects_event({"type": "error", "error": {"type": "overloaded_error"}})
    assert stopkit.detect(reply) is stopkit.get_adapter("openai.responses")


def test_assistant_message_is_the_output_items_as_dicts() -> None:
    """The assistant message is every output item as sent, reasoning included, in both forms."""
    reply = _reply("completed_function_call.json")
    items = ADAPTER.assistant_message(stopkit.normalize(reply))
    assert items == reply["output"]
    assert [i["type"] for i in items] == ["reasoning", "function_call"]
    from_sdk = ADAPTER.assistant_message(stopkit.normalize(to_sdk(reply)))
    assert from_sdk == reply["output"]
    assert all(type(i) is dict for i in from_sdk)


def test_every_field_the_sdks_parsing_helpers_add_is_left_out_of_the_input() -> None:
    """The fields openai's `Parsed*` output types add over their wire types are never sent back.

    `responses.parse()` and `responses.stream()` build these types (each subclasses its wire
    type); a field one of them adds (a new SDK release may add one) must be in `_PARSED_FIELDS`,
    under the item or part type it comes in.
    """
    parsed_types = [
        t
        for name, t in vars(parsed_response).items()
        if name.startswith("Parsed") and isinstance(t, type) and issubclass(t, BaseModel)
    ]
    added = {t: set(t.model_fields) - set(t.__mro__[1].model_fields) for t in parsed_types}
    assert {
        typing.get_args(t.model_fields["type"].annotation)[0]: tuple(sorted(fields))
        for t, fields in added.items()
        if fields
    } == _PARSED_FIELDS


def test_a_parsed_replys_output_goes_back_without_the_parsed_fields(tmp_path: Path) -> None:
    """`responses.parse(text_format=...)`'s reply goes back without the helper's `parsed` fields."""
    import openai

    reply = {
        **_reply("completed_text.json"),
        "output": [
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": '{"city": "Paris"}', "annotations": []}]},
            {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "get_weather",
             "arguments": '{"city": "Paris"}', "status": "completed"},
        ],
    }
    (tmp_path / "reply.json").write_text(json.dumps({"reply": reply}))
    http = httpx2.Client(transport=stopkit.record.ReplayTransport(tmp_path / "reply.json"))
    client = openai.OpenAI(api_key="sk-test", http_client=http, max_retries=0)
    parsed = client.responses.parse(model="gpt-4o", input="Weather?", text_format=City)
    assert parsed.output_parsed == City(city="Paris")  # the SDK did fill `parsed`
    items = ADAPTER.assistant_message(stopkit.normalize(parsed))
    assert items == reply["output"]
    _validate_inputs(items)


class City(BaseModel):
    """The structured output of the parsed reply."""

    city: str


def _validate_inputs(items: list[dict[str, Any]]) -> None:
    adapter = TypeAdapter(ResponseInputItem)
    for item in items:
        adapter.validate_python(item)


def test_tool_results_for_function_calls() -> None:
    """One function_call_output per call id, error results included, valid SDK input items."""
    stop = stopkit.normalize(_reply("parallel_function_calls.json"))
    results = [
        ToolResult(call_id="call_a", name="get_weather", content='{"temp": 21}'),
        ToolResult(call_id="call_b", name="get_time", content="boom", is_error=True),
    ]
    items = ADAPTER.tool_results(stop, results)
    assert items == [
        {"type": "function_call_output", "call_id": "call_a", "output": '{"temp": 21}'},
        {"type": "function_call_output", "call_id": "call_b", "output": "boom"},
    ]
    _validate_inputs(items)


def test_tool_results_answer_each_call_in_its_own_item_type() -> None:
    """Each built-in client call is answered with the input item type the SDK defines for it."""
    expected = {
        "custom_tool_call.json": "custom_tool_call_output",
        "computer_call.json": "computer_call_output",
        "local_shell_call.json": "local_shell_call_output",
        "shell_call_local.json": "shell_call_output",
        "apply_patch_call.json": "apply_patch_call_output",
        "tool_search_client.json": "tool_search_output",
        "mcp_approval_request.json": "mcp_approval_response",
    }
    for case, kind in expected.items():
        stop = stopkit.normalize(_reply(case))
        (call,) = stop.tool_calls
        content = "data:image/png;base64,AAAA" if kind == "computer_call_output" else "done"
        items = ADAPTER.tool_results(
            stop, [ToolResult(call_id=call.id, name=call.name, content=content)]
        )
        assert [i["type"] for i in items] == [kind], case
        _validate_inputs(items)
        sdk_stop = stopkit.normalize(to_sdk(_reply(case)))
        assert (
            ADAPTER.tool_results(
                sdk_stop, [ToolResult(call_id=call.id, name=call.name, content=content)]
            )
            == items
        )


def test_mcp_approval_follows_the_result() -> None:
    """An MCP approval request is approved by a good result and denied by an error result."""
    stop = stopkit.normalize(_reply("mcp_approval_request.json"))
    (call,) = stop.tool_calls
    ok = ADAPTER.tool_results(stop, [ToolResult(call_id=call.id, name=call.name, content="ok")])
    no = ADAPTER.tool_results(
        stop, [ToolResult(call_id=call.id, name=call.name, content="not allowed", is_error=True)]
    )
    assert ok == [
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True}
    ]
    assert no[0]["approve"] is False
    assert no[0]["reason"] == "not allowed"


def test_shell_and_patch_results_carry_failure() -> None:
    """A failed shell or patch result says so in the shape the API reads (exit code, status)."""
    stop = stopkit.normalize(_reply("shell_call_local.json"))
    (shell,) = ADAPTER.tool_results(
        stop,
        [ToolResult(call_id="call_sh1", name="shell_call", content="no such file", is_error=True)],
    )
    assert shell["output"] == [
        {"stdout": "", "stderr": "no such file", "outcome": {"type": "exit", "exit_code": 1}}
    ]
    stop = stopkit.normalize(_reply("apply_patch_call.json"))
    (patch,) = ADAPTER.tool_results(
        stop,
        [ToolResult(call_id="call_ap1", name="apply_patch_call", content="bad", is_error=True)],
    )
    assert patch["status"] == "failed"


def test_program_caller_is_echoed_in_the_output() -> None:
    """A call made by a program is answered with the same caller, so the program gets it."""
    stop = stopkit.normalize(_reply("function_call_from_program.json"))
    (item,) = ADAPTER.tool_results(
        stop, [ToolResult(call_id="call_p1", name="get_weather", content="sunny")]
    )
    assert item["caller"] == {"type": "program", "caller_id": "prog_call_1"}
    _validate_inputs([item])


def test_resume_background_polls_the_response() -> None:
    """A queued or in-progress response resumes with no messages and the id to poll."""
    for case in ("queued.json", "in_progress.json"):
        stop = stopkit.normalize(_reply(case))
        assert stop.reason is StopReason.PAUSED
        assert ADAPTER.resume(stop) == ([], {"poll_response_id": "resp_001"})
        assert ADAPTER.resume(stopkit.normalize(to_sdk(_reply(case))))[1] == {
            "poll_response_id": "resp_001"
        }


def test_resume_steered_and_max_messages_append_the_items() -> None:
    """A steered or max_messages response resumes by appending its items, no overrides."""
    for case in ("incomplete_steered.json", "incomplete_max_messages.json"):
        reply = _reply(case)
        assert ADAPTER.resume(stopkit.normalize(reply)) == (reply["output"], {})


def test_resume_refuses_a_stop_that_is_not_paused() -> None:
    """Resuming a reply that is not paused is a programming error."""
    with pytest.raises(ValueError, match="only a paused reply"):
        ADAPTER.resume(stopkit.normalize(_reply("completed_text.json")))


def _events(name: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = json.loads((CASES / name).read_text())["events"]
    return events


def test_stream_result_can_be_read_before_and_after_the_end() -> None:
    """result() is stream_incomplete mid-stream, then the final Stop, and repeatable."""
    events = _events("parallel_function_calls.stream.json")
    acc = ADAPTER.stream()
    for event in events[:-1]:
        acc.feed(event)
    mid = acc.result()
    assert (mid.reason, mid.detail) == (StopReason.UNKNOWN, "stream_incomplete")
    assert [c.id for c in mid.tool_calls] == ["call_a", "call_b"]
    acc.feed(events[-1])
    first, second = acc.result(), acc.result()
    assert first.reason is StopReason.TOOL_REQUEST
    assert first == second


def test_error_event_beside_a_completed_terminal_makes_it_unknown() -> None:
    """An error event in a stream whose terminal event says completed makes the Stop unknown."""
    events = _events("completed_text.stream.json")
    bad = [*events[:-1], {"type": "error", "code": "server_error", "message": "x"}, events[-1]]
    stop = stopkit.normalize_stream(bad)
    assert (stop.reason, stop.detail) == (StopReason.UNKNOWN, "error")
    assert stop.text == "The capital of France is Paris."
    assert stop.details["stream_errors"] == [
        {"type": "error", "code": "server_error", "message": "x"}
    ]


def test_error_event_does_not_hide_a_truncation() -> None:
    """An error event beside an output_limit terminal keeps output_limit (rules 1-3 first)."""
    events = _events("incomplete_max_output_tokens.stream.json")
    bad = [*events[:-1], {"type": "error", "code": "server_error", "message": "x"}, events[-1]]
    assert stopkit.normalize_stream(bad).reason is StopReason.OUTPUT_LIMIT


def test_streamed_items_fill_a_terminal_response_without_output() -> None:
    """When the terminal response has no output, the streamed items are what gets appended."""
    events = _events("terminal_without_output.stream.json")
    want = _reply("completed_function_call.json")["output"]
    for form in (events, [to_sdk_event(e) for e in events]):
        stop = stopkit.normalize_stream(form)
        assert stop.reason is StopReason.TOOL_REQUEST
        assert ADAPTER.assistant_message(stop) == want


def test_cut_stream_keeps_what_arrived_as_its_raw_output() -> None:
    """A cut stream's Stop carries the items received, the unfinished call with its fragments."""
    stop = stopkit.normalize_stream(_events("cut_stream.stream.json"))
    items = ADAPTER.assistant_message(stop)
    assert [i["type"] for i in items] == ["message", "function_call", "function_call"]
    assert items[2]["arguments"] == '{"tz":"Eur'


def test_sdk_event_objects_are_read() -> None:
    """The SDK's own event objects give the same Stop as their JSON dicts."""
    events = _events("incomplete_max_output_tokens_call.stream.json")
    objects = [to_sdk_event(e) for e in events]
    assert all(
        isinstance(o, typing.get_args(typing.get_args(ResponseStreamEvent)[0])) for o in objects
    )
    stop = stopkit.normalize_stream(objects)
    assert stop.reason is StopReason.OUTPUT_LIMIT
    assert not stop.tool_calls[0].complete


def test_sdk_response_is_the_real_class() -> None:
    """The SDK form used by the payload table is openai's own Response class."""
    assert isinstance(to_sdk(_reply("completed_text.json")), Response)


@pytest.mark.parametrize(
    "output",
    [
        [None, 3, "x"],
        [{"type": "message", "content": "not a list"}],
        [{"type": "message", "content": [{"type": "output_text", "text": 5}]}],
        [{"type": "function_call", "name": None, "arguments": 7}],
        [{"type": "computer_call", "call_id": "c", "action": "click"}],
        [{"type": "mcp_approval_request"}],
        [{"type": ["message"]}, {"type": "function_call_output", "call_id": {"x": 1}}],
        [{"type": "function_call", "call_id": ["c"], "name": "f", "arguments": "{}"}],
    ],
)
def test_odd_items_never_raise(output: list[Any]) -> None:
    """Odd or broken output items give a Stop, never an exception."""
    stop = stopkit.normalize({"object": "response", "status": "completed", "output": output})
    assert stop.provider == "openai.responses"
    assert all(isinstance(c.complete, bool) for c in stop.tool_calls)


@pytest.mark.parametrize(
    "reply",
    [
        {"object": "response", "status": "incomplete", "incomplete_details": {"reason": ["x"]}},
        {"object": "response", "status": "failed", "error": {"code": {"a": 1}}},
        {"object": "response", "status": ["completed"]},
        {"object": "response", "status": "incomplete", "incomplete_details": "max_output_tokens"},
    ],
)
def test_odd_stop_fields_are_unknown_not_raised(reply: dict[str, Any]) -> None:
    """Stop fields of the wrong type give an UNKNOWN Stop with the reply kept, never an error."""
    stop = stopkit.normalize(reply)
    assert stop.reason is StopReason.UNKNOWN
    assert stop.raw is reply


def test_odd_stream_events_are_ignored() -> None:
    """Events of unexpected shapes are skipped; the stream still ends as incomplete."""
    acc = ADAPTER.stream()
    for event in ({"type": ["x"]}, {"type": None}, {}, {"type": "response.output_text.delta"}):
        acc.feed(event)
    assert acc.result().detail == "stream_incomplete"


# --- ids and types of the wrong type (issue 12) -----------------------------------------------

_BAD_ID_ITEMS = [
    {"type": "function_call", "call_id": ["c"], "name": "f", "arguments": "{}"},
    {"type": "function_call", "call_id": {"a": 1}, "name": "f", "arguments": "{}"},
    {"type": "custom_tool_call", "call_id": 7, "name": "run_sql", "input": "SELECT 1;"},
    {"type": "computer_call", "call_id": {"x": 1}, "action": {"type": "click", "x": 1, "y": 2}},
    {"type": "shell_call", "call_id": ["s"], "action": {"commands": ["pwd"]}},
    {"type": "mcp_approval_request", "id": ["m"], "server_label": "s", "name": "f",
     "arguments": "{}"},
]  # fmt: skip


@pytest.mark.parametrize("item", _BAD_ID_ITEMS, ids=lambda i: f"{i['type']}")
@pytest.mark.parametrize("form", ["dict", "sdk"])
def test_a_call_id_of_the_wrong_type_is_never_runnable(item: dict[str, Any], form: str) -> None:
    """A call whose id is not a string is complete=False with an error; nothing raises later."""
    reply = {
        "object": "response",
        "status": "completed",
        "output": [item, {"type": ["function_call"], "call_id": "c2", "name": "g"}],
    }
    stop = stopkit.normalize(reply if form == "dict" else to_sdk(reply))
    (call,) = stop.tool_calls
    assert (call.complete, stop.runnable_tool_calls) == (False, ())
    assert "not a string" in (call.error or "")
    results = [ToolResult(call_id=call.id, name=call.name, content="x", is_error=True)]
    (answer,) = ADAPTER.tool_results(stop, results)
    assert answer["type"] in set(OUTPUT_TYPE_OF.values())
    assert len(ADAPTER.assistant_message(stop)) == 2


def test_an_answer_naming_a_call_by_an_id_of_the_wrong_type_answers_nothing() -> None:
    """An output item whose call_id is a list is no answer: the call stays pending."""
    stop = stopkit.normalize(
        {
            "object": "response",
            "status": "completed",
            "output": [
                {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                {"type": "function_call_output", "call_id": ["c1"], "output": "x"},
            ],
        }
    )
    assert [c.id for c in stop.runnable_tool_calls] == ["c1"]


# --- a repeated terminal signal, and events after the end (issue 12) ---------------------------


def _terminal(kind: str, status: str, **more: Any) -> dict[str, Any]:
    response = {**_reply("completed_text.json"), "status": status, **more}
    return {"type": kind, "response": response}


_COMPLETED = _terminal("response.completed", "completed")
_FILTERED = _terminal(
    "response.incomplete", "incomplete", incomplete_details={"reason": "content_filter"}
)
_CUT = _terminal(
    "response.incomplete", "incomplete", incomplete_details={"reason": "max_output_tokens"}
)
_FAILED = _terminal("response.failed", "failed", error={"code": "server_error", "message": "x"})
_POLICY = _terminal("response.failed", "failed", error={"code": "bio_policy", "message": "x"})


@pytest.mark.parametrize(
    ("first", "second", "reason", "detail"),
    [
        (_FILTERED, _COMPLETED, StopReason.FILTERED, "safety"),
        (_FAILED, _COMPLETED, StopReason.UNKNOWN, "error"),
        (_POLICY, _COMPLETED, StopReason.FILTERED, "policy"),
        (_CUT, _COMPLETED, StopReason.OUTPUT_LIMIT, "max_tokens"),
        (_COMPLETED, _FILTERED, StopReason.FILTERED, "safety"),
        (_COMPLETED, _FAILED, StopReason.UNKNOWN, "error"),
        (_CUT, _FILTERED, StopReason.FILTERED, "safety"),
    ],
)
@pytest.mark.parametrize("form", ["dict", "sdk"])
def test_the_stricter_of_two_terminal_events_wins(
    first: dict[str, Any], second: dict[str, Any], reason: StopReason, detail: str, form: str
) -> None:
    """A second terminal event replaces the first only when its stop value is as strict."""
    events: list[Any] = [*_events("completed_text.stream.json")[:-1], first, second]
    if form == "sdk":
        events = [to_sdk_event(e) for e in events]
    stop = stopkit.normalize_stream(events)
    assert (stop.reason, stop.detail) == (reason, detail)


_REFUSED = {"type": "response.completed", "response": _reply("refusal.json")}
_CALLED = {"type": "response.completed", "response": _reply("completed_function_call.json")}


@pytest.mark.parametrize(
    ("first", "second"),
    [(_REFUSED, _CALLED), (_COMPLETED, _CALLED), (_REFUSED, _CUT), (_CALLED, _COMPLETED)],
    ids=["refusal-then-call", "text-then-call", "refusal-then-cut", "call-then-text"],
)
def test_a_later_terminal_event_no_stricter_than_the_reply_changes_nothing(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    """A second terminal event that is not stricter than the reply so far is not taken."""
    events: list[Any] = [*_events("completed_text.stream.json")[:-1], first]
    whole = stopkit.normalize_stream(events)
    stop = stopkit.normalize_stream([*events, second])
    assert (stop.reason, stop.detail, stop.text) == (whole.reason, whole.detail, whole.text)
    assert stop.tool_calls == whole.tool_calls
    assert any("1 events arrived after response.completed" in n for n in stop.notes)


def test_a_stricter_later_terminal_event_brings_its_reason_not_its_output() -> None:
    """A stricter terminal event after the end decides the reason; its items are not taken."""
    events: list[Any] = [*_events("completed_text.stream.json")[:-1], _COMPLETED]
    whole = stopkit.normalize_stream(events)
    call = {"type": "function_call", "call_id": "c9", "name": "wire_money", "arguments": "{}"}
    later = _terminal(
        "response.incomplete",
        "incomplete",
        incomplete_details={"reason": "content_filter"},
        output=[call],
    )
    stop = stopkit.normalize_stream([*events, later])
    assert (stop.reason, stop.detail) == (StopReason.FILTERED, "safety")
    assert (stop.text, stop.tool_calls) == (whole.text, whole.tool_calls)


def test_nothing_after_the_terminal_event_changes_the_reply() -> None:
    """Text and calls sent after the terminal event are ignored, and a note counts them."""
    events = _events("terminal_without_output.stream.json")
    end = next(i for i, e in enumerate(events) if e["type"] == "response.completed")
    whole = stopkit.normalize_stream(events[: end + 1])
    call = {"type": "function_call", "call_id": "call_9", "name": "wire_money", "arguments": "{}"}
    after = [
        {"type": "response.output_text.delta", "output_index": 0, "delta": " and more"},
        {"type": "response.output_item.added", "output_index": 5, "item": call},
        {"type": "response.output_item.done", "output_index": 5, "item": call},
        {"type": "error", "code": "server_error", "message": "late"},
    ]
    stop = stopkit.normalize_stream([*events[: end + 1], *after])
    assert (stop.reason, stop.text) == (whole.reason, whole.text)
    assert stop.tool_calls == whole.tool_calls
    assert [c.name for c in stop.tool_calls] == ["get_weather"]
    assert any("4 events arrived after response.completed" in n for n in stop.notes)


def test_signal_tables_do_not_overlap() -> None:
    """The three tables share no key, so one stop value names one row for the stream."""
    keys = [*STATUS, *INCOMPLETE_REASON, *ERROR_CODE]
    assert len(keys) == len(set(keys))


# --- usage and the ceiling (issue 12) -----------------------------------------------------------


def test_usage_of_an_sdk_response_is_read_from_its_own_type() -> None:
    """The SDK's ResponseUsage gives the same counts as its JSON, the raw object kept."""
    reply = _reply("completed_function_call.json")
    obj = to_sdk(reply)
    stop = stopkit.normalize(obj)
    assert stop.usage == stopkit.normalize(reply).usage
    assert isinstance(obj, Response)
    assert stop.details["usage"] is obj.usage
    assert stop.model_dump()["usage"]["cache_read_tokens"] == 1024


def test_a_completed_reply_with_an_error_object_is_unknown() -> None:
    """An error object beside status completed is an in-band error: unknown/error, kept."""
    reply = {**_reply("completed_text.json"), "error": {"code": "server_error", "message": "x"}}
    stop = stopkit.normalize(reply)
    assert (stop.reason, stop.detail) == (StopReason.UNKNOWN, "error")
    assert stop.details["error"] == {"code": "server_error", "message": "x"}


def test_an_sdk_call_nested_beyond_what_pydantic_dumps_is_incomplete_not_raised() -> None:
    """A call item whose action nests deeper than pydantic serializes: an unrunnable call."""
    from openai._models import construct_type
    from openai.types.responses import Response

    env: dict[str, Any] = {"x": 1}
    for _ in range(400):
        env = {"a": env}
    action = {"type": "exec", "command": ["ls"], "env": env}
    body = {"id": "r", "object": "response", "created_at": 1, "status": "completed",
            "model": "m", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "output": [{"type": "local_shell_call", "id": "ls1", "call_id": "c1",
                        "status": "completed", "action": action}]}  # fmt: skip
    stop = stopkit.normalize(construct_type(type_=Response, value=body))
    (call,) = stop.tool_calls
    assert (stop.reason, call.complete) == (StopReason.TOOL_REQUEST, False)
    assert call.error == "arguments are nested too deep to read"
