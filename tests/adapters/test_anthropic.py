"""The anthropic adapter beyond the payload table: SDK drift, continuation messages, streams."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest
from anthropic.lib.streaming._messages import accumulate_event, build_events
from anthropic.types import ContentBlock, RawContentBlockDelta
from anthropic.types import (
    StopReason as SDKStopReason,
)
from anthropic.types.beta import BetaContentBlock, BetaRawContentBlockDelta, BetaStopReason

import stopkit
from stopkit import StopReason, ToolResult
from stopkit.adapters._anthropic_rules import STOP_REASONS
from stopkit.adapters.anthropic import AnthropicAdapter
from tests._payloads import PAYLOADS, same_stop
from tests.sdk_forms.anthropic import to_sdk, to_sdk_event

CASES = PAYLOADS / "anthropic"
ADAPTER = AnthropicAdapter()

#: The detail vocabulary of the shared brief, per reason.
DETAILS: dict[StopReason, set[str | None]] = {
    StopReason.OUTPUT_LIMIT: {"max_tokens", "context_window"},
    StopReason.FILTERED: {"refusal"},
    StopReason.PAUSED: {"server_tool_limit", "compaction"},
    StopReason.TOOL_REQUEST: {None},
    StopReason.COMPLETED: {None},
    StopReason.STOP_SEQUENCE: {None},
}

#: Every content block type the adapter has a rule for (text, client call, or ignored on purpose).
KNOWN_BLOCKS = {
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "server_tool_use",
    "mcp_tool_use",
    "mcp_tool_result",
    "mcp_tool_listing",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "advisor_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "container_upload",
    "compaction",
    "fallback",
}
KNOWN_DELTAS = {
    "text_delta",
    "input_json_delta",
    "thinking_delta",
    "signature_delta",
    "citations_delta",
    "compaction_delta",
}


def _case(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CASES / name).read_text(encoding="utf-8"))
    return data


def _message_start() -> dict[str, Any]:
    """A fresh message_start event of an empty message, the way a stream opens."""
    message = {"id": "m", "type": "message", "role": "assistant", "content": [], "model": "claude"}
    return {"type": "message_start", "message": message}


def _literals(union: Any) -> set[str]:
    """The `type` literals of an SDK discriminated union of models."""
    members = typing.get_args(typing.get_args(union)[0]) or typing.get_args(union)
    out: set[str] = set()
    for member in members:
        if typing.get_origin(member) is typing.Annotated:
            out |= _literals(member)
            continue
        if typing.get_origin(member) is typing.Union:
            for inner in typing.get_args(member):
                out |= _literals(typing.Annotated[inner, None])
            continue
        out |= set(typing.get_args(member.model_fields["type"].annotation))
    return out


def test_every_sdk_stop_reason_is_mapped() -> None:
    """Every value of the installed SDK's StopReason and BetaStopReason is in the table."""
    values = set(typing.get_args(SDKStopReason)) | set(typing.get_args(BetaStopReason))
    assert values, "could not read the SDK's StopReason literals"
    assert values - set(STOP_REASONS) == set()


def test_table_details_use_the_shared_vocabulary() -> None:
    """Each mapped value's detail is one the contract documents for its reason."""
    assert AnthropicAdapter.tables == {"stop_reason": STOP_REASONS}
    for raw, (reason, detail) in STOP_REASONS.items():
        assert detail in DETAILS[reason], (raw, reason, detail)


@pytest.mark.parametrize(
    ("union", "known"),
    [
        (ContentBlock, KNOWN_BLOCKS),
        (BetaContentBlock, KNOWN_BLOCKS),
        (RawContentBlockDelta, KNOWN_DELTAS),
        (BetaRawContentBlockDelta, KNOWN_DELTAS),
    ],
)
def test_every_sdk_block_and_delta_type_is_known(union: Any, known: set[str]) -> None:
    """A content block or delta type the SDK added must be reviewed (client call? text?)."""
    found = _literals(union)
    assert found, "could not read the SDK's union"
    assert found - known == set()


def test_thinking_and_unknown_blocks_never_become_text_or_calls() -> None:
    """Odd or unknown blocks are skipped without raising; only text blocks make the text."""
    reply = {
        "type": "message",
        "role": "assistant",
        "content": [
            None,
            3,
            "x",
            {"type": "future_block", "text": "no"},
            {"text": "no type"},
            {"type": "thinking", "thinking": "hidden", "signature": "s"},
            {"type": "text", "text": "shown"},
        ],
        "stop_reason": "end_turn",
    }
    stop = stopkit.normalize(reply)
    assert (stop.reason, stop.text, stop.tool_calls) == (StopReason.COMPLETED, "shown", ())


def test_tool_use_without_id_or_name_is_incomplete() -> None:
    """A tool_use block missing its name is listed but cannot run."""
    reply = {
        "type": "message",
        "role": "assistant",
        "stop_reason": "tool_use",
        "content": [{"type": "tool_use", "id": "toolu_1", "input": {}}],
    }
    stop = stopkit.normalize(reply)
    assert stop.reason is StopReason.TOOL_REQUEST
    assert stop.tool_calls[0].complete is False
    assert stop.runnable_tool_calls == ()


def test_detects_only_messages_and_message_streams() -> None:
    """Detection takes a Messages reply and stream start, not other providers' shapes."""
    assert ADAPTER.detects({"type": "message", "role": "assistant", "content": []})
    assert not ADAPTER.detects({"object": "chat.completion", "choices": []})
    assert not ADAPTER.detects({"object": "response", "output": []})
    assert ADAPTER.detects_event({"type": "message_start", "message": {}})
    assert ADAPTER.detects_event({"type": "error", "error": {"type": "overloaded_error"}})
    # OpenAI Responses' error event has no nested error object.
    assert not ADAPTER.detects_event({"type": "error", "code": "x", "message": "m"})
    assert not ADAPTER.detects_event({"type": "response.created", "response": {}})


# --- continuation: assistant_message / tool_results / resume --------------------------------


def test_assistant_message_sends_blocks_as_received() -> None:
    """The assistant message holds the reply's blocks unchanged, thinking signatures included."""
    reply = _case("end_turn_thinking.json")["reply"]
    stop = stopkit.normalize(reply)
    assert ADAPTER.assistant_message(stop) == [{"role": "assistant", "content": reply["content"]}]


def test_assistant_message_from_sdk_object_matches_the_wire() -> None:
    """An SDK Message gives the same blocks as its JSON body (nulls left out)."""
    for name in ("end_turn_thinking.json", "server_tool_web_search.json", "compaction.json"):
        reply = _case(name)["reply"]
        from_sdk = ADAPTER.assistant_message(stopkit.normalize(to_sdk(reply)))
        from_dict = ADAPTER.assistant_message(stopkit.normalize(reply))
        assert from_sdk == _drop_nulls(from_dict), name


def _drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


def test_assistant_message_drops_blank_text_blocks() -> None:
    """Blank text blocks are left out: the API rejects them ("text content blocks must be ...")."""
    reply = {
        "type": "message",
        "role": "assistant",
        "stop_reason": "tool_use",
        "content": [
            {"type": "text", "text": ""},
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
            {"type": "text", "text": "  \n"},
        ],
    }
    message = ADAPTER.assistant_message(stopkit.normalize(reply))
    assert message == [{"role": "assistant", "content": [reply["content"][1]]}]


@pytest.mark.parametrize(
    "name", sorted(p.name for p in CASES.glob("*.stream.json") if "twin" in p.read_text())
)
def test_stream_assistant_message_equals_twin(name: str) -> None:
    """A streamed reply sends back the same blocks as its non-streaming twin."""
    case = _case(name)
    twin = _case(case["twin"])["reply"]
    streamed = ADAPTER.assistant_message(stopkit.normalize_stream(case["events"]))
    assert streamed == ADAPTER.assistant_message(stopkit.normalize(twin))


def test_tool_results_one_user_message_in_call_order() -> None:
    """Results go back as one user message of tool_result blocks, in the calls' order."""
    stop = stopkit.normalize(_case("tool_use_parallel.json")["reply"])
    first, second = (c.id for c in stop.tool_calls)
    results = [
        ToolResult(call_id=second, name="get_time", content="12:00"),
        ToolResult(call_id=first, name="get_weather", content="boom", is_error=True),
        ToolResult(call_id=first, name="get_weather", content="duplicate"),
    ]
    assert ADAPTER.tool_results(stop, results) == [
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": first, "content": "boom", "is_error": True},
                {"type": "tool_result", "tool_use_id": second, "content": "12:00"},
            ],
        }
    ]
    assert ADAPTER.tool_results(stop, []) == []


def test_resume_pause_turn_appends_the_reply_without_overrides() -> None:
    """pause_turn resumes by appending the reply as sent (server_tool_use kept), no overrides."""
    reply = _case("pause_turn.json")["reply"]
    messages, overrides = ADAPTER.resume(stopkit.normalize(reply))
    assert messages == [{"role": "assistant", "content": reply["content"]}]
    assert overrides == {}


def test_resume_compaction_and_its_stream() -> None:
    """A compaction pause resumes with the compaction block sent back, streamed or not."""
    whole = ADAPTER.resume(stopkit.normalize(_case("compaction.json")["reply"]))
    streamed = ADAPTER.resume(stopkit.normalize_stream(_case("compaction.stream.json")["events"]))
    assert whole == streamed
    assert whole[0][0]["content"][0]["type"] == "compaction"


def test_resume_refuses_a_stop_that_is_not_paused() -> None:
    """Only a paused Stop can be resumed."""
    with pytest.raises(ValueError, match="paused"):
        ADAPTER.resume(stopkit.normalize(_case("end_turn_text.json")["reply"]))


# --- streams -------------------------------------------------------------------------------


def test_result_can_be_read_mid_stream_and_again() -> None:
    """result() is stream_incomplete before message_stop, and final after it; callable twice."""
    events = _case("tool_use_parallel.stream.json")["events"]
    acc = ADAPTER.stream()
    for event in events[:-1]:
        acc.feed(event)
    early = acc.result()
    assert (early.reason, early.detail) == (StopReason.UNKNOWN, "stream_incomplete")
    assert len(early.tool_calls) == 2
    acc.feed(events[-1])
    assert acc.result().reason is StopReason.TOOL_REQUEST
    assert acc.result() is acc.result()


def test_stream_starting_with_an_error_event() -> None:
    """A stream whose only event is an error is detected and gives unknown/error."""
    stop = stopkit.normalize_stream(
        [{"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}]
    )
    assert (stop.provider, stop.reason, stop.detail) == ("anthropic", StopReason.UNKNOWN, "error")
    assert stop.details["error"] == {"type": "api_error", "message": "Internal server error"}


def _sdk_stream(events: list[dict[str, Any]]) -> tuple[list[Any], Any]:
    """Run events through the SDK's own MessageStream machinery: the events, the final message."""
    snapshot = None
    bufs: dict[int, bytes] = {}
    fired: list[Any] = []
    for raw in events:
        event = to_sdk_event(raw)
        if event is None or isinstance(event, dict):
            continue
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=bufs)
        fired.extend(build_events(event=event, message_snapshot=snapshot))
    return fired, snapshot


@pytest.mark.parametrize(
    "name",
    [
        "end_turn_text.stream.json",
        "end_turn_thinking.stream.json",
        "tool_use_parallel.stream.json",
        "max_tokens_in_tool_use.stream.json",
        "server_tool_web_search.stream.json",
        "refusal.stream.json",
        "pause_turn.stream.json",
    ],
)
def test_sdk_message_stream_events_and_snapshot_agree(name: str) -> None:
    """The SDK MessageStream's events (derived ones too) and final message give the same Stop."""
    events = _case(name)["events"]
    fired, snapshot = _sdk_stream(events)
    assert {"text", "input_json"} & {e.type for e in fired}, "no derived events were fired"
    from_events = stopkit.normalize_stream(events)
    same_stop(stopkit.normalize_stream(fired), from_events)
    same_stop(stopkit.normalize(snapshot), from_events)


def test_stream_of_blocks_without_deltas_keeps_start_input() -> None:
    """A tool_use whose input came whole in content_block_start (no deltas) keeps that input."""
    stop = stopkit.normalize_stream(
        [
            _message_start(),
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "f",
                    "input": {"a": 1},
                },
            },
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
            {"type": "message_stop"},
        ]
    )
    assert stop.reason is StopReason.TOOL_REQUEST
    assert stop.tool_calls[0].arguments == {"a": 1}


def test_invalid_streamed_json_is_an_incomplete_call() -> None:
    """Tool input fragments that do not form JSON make the call incomplete, with the error."""
    stop = stopkit.normalize_stream(
        [
            _message_start(),
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": '{"a": 1,,}'},
            },
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
            {"type": "message_stop"},
        ]
    )
    call = stop.tool_calls[0]
    assert (stop.reason, call.complete) == (StopReason.TOOL_REQUEST, False)
    assert "not valid JSON" in str(call.error)


def test_payload_cases_cover_every_table_value() -> None:
    """Every raw value of the table has a payload case showing it."""
    seen = set()
    for path in Path(CASES).glob("*.json"):
        expect = json.loads(path.read_text(encoding="utf-8"))["expect"]
        seen.add(expect.get("raw_reason"))
    assert set(STOP_REASONS) - seen == set()


def test_message_start_holding_blocks_keeps_them_first() -> None:
    """Blocks already inside message_start (some proxies) come before the streamed ones."""
    start = {
        "type": "message_start",
        "message": {
            "id": "m",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [{"type": "text", "text": "Hello"}],
        },
    }
    stop = stopkit.normalize_stream(
        [
            start,
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "!"},
            },
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
            {"type": "message_stop"},
        ]
    )
    assert (stop.reason, stop.text) == (StopReason.COMPLETED, "Hello!")


def _text_block_events(index: int, text: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        },
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "text_delta", "text": text},
        },
        {"type": "content_block_stop", "index": index},
    ]


def _delta(stop_reason: str) -> dict[str, Any]:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason},
        "usage": {"output_tokens": 9},
    }


def test_stop_reason_already_in_message_start_is_read() -> None:
    """A message_start holding the whole message and its stop_reason reads like its twin.

    Programmatic tool calling streams this way: message_start, then message_stop, with no
    message_delta in between.
    """
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": 1}}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 7},
    }
    stop = stopkit.normalize_stream(
        [{"type": "message_start", "message": message}, {"type": "message_stop"}]
    )
    same_stop(stop, stopkit.normalize(message))
    assert stop.reason is StopReason.TOOL_REQUEST
    assert not [n for n in stop.notes if "no stop_reason" in n]


@pytest.mark.parametrize(
    ("first", "second", "reason"),
    [
        ("refusal", "end_turn", StopReason.FILTERED),
        ("max_tokens", "end_turn", StopReason.OUTPUT_LIMIT),
        ("max_tokens", "tool_use", StopReason.OUTPUT_LIMIT),
        ("end_turn", "refusal", StopReason.FILTERED),
        ("end_turn", "max_tokens", StopReason.OUTPUT_LIMIT),
    ],
)
def test_the_stricter_of_two_stop_values_wins(first: str, second: str, reason: StopReason) -> None:
    """A second message_delta replaces the stop value only when it is at least as strict."""
    events = [_message_start(), *_text_block_events(0, "Hi"), _delta(first), _delta(second)]
    stop = stopkit.normalize_stream([*events, {"type": "message_stop"}])
    assert stop.reason is reason


def test_nothing_after_message_stop_changes_the_reply() -> None:
    """Blocks sent after message_stop are neither text nor calls; a note counts them."""
    after = [
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {
                "type": "tool_use",
                "id": "toolu_9",
                "name": "wire_money",
                "input": {},
            },
        },
        {"type": "content_block_stop", "index": 1},
        *_text_block_events(2, " and more"),
    ]
    events = [_message_start(), *_text_block_events(0, "Done."), _delta("end_turn")]
    stop = stopkit.normalize_stream([*events, {"type": "message_stop"}, *after])
    assert (stop.reason, stop.text, stop.tool_calls) == (StopReason.COMPLETED, "Done.", ())
    assert any("5 events arrived after the message_stop" in note for note in stop.notes)


def _tool_block_events(index: int, call_id: str, name: str) -> list[dict[str, Any]]:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    return [
        {"type": "content_block_start", "index": index, "content_block": block},
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": 1}'},
        },
        {"type": "content_block_stop", "index": index},
    ]


@pytest.mark.parametrize(
    ("earlier", "kind"),
    [
        (_tool_block_events(0, "toolu_1", "delete_files"), "tool_use"),
        (_text_block_events(0, "Checking."), "text"),
    ],
    ids=["tool_use", "text"],
)
def test_a_block_index_started_again_is_noted(earlier: list[Any], kind: str) -> None:
    """A block started again under an index already used replaces the earlier one, noted."""
    events = [_message_start(), *earlier, *_tool_block_events(0, "toolu_2", "wire_money")]
    stop = stopkit.normalize_stream([*events, _delta("tool_use"), {"type": "message_stop"}])
    assert [c.name for c in stop.tool_calls] == ["wire_money"]
    assert any(f"index 0 started again: the earlier {kind} block" in n for n in stop.notes)


def test_an_empty_stop_reason_in_message_start_is_no_stop_value() -> None:
    """A message_start whose stop_reason is "" (a proxy's placeholder) does not hold it."""
    start = _message_start()
    start["message"]["stop_reason"] = ""
    events = [start, *_tool_block_events(0, "toolu_1", "get_weather"), _delta("tool_use")]
    stop = stopkit.normalize_stream([*events, {"type": "message_stop"}])
    assert (stop.reason, stop.raw_reason) == (StopReason.TOOL_REQUEST, "tool_use")
    late_empty = [*events, _delta(""), {"type": "message_stop"}]
    assert stopkit.normalize_stream(late_empty).reason is StopReason.TOOL_REQUEST


def test_a_stricter_stop_value_after_message_stop_still_wins() -> None:
    """A refusal sent after message_stop is still read: a stricter signal is never dropped."""
    events = [_message_start(), *_text_block_events(0, "Sure"), _delta("end_turn")]
    stop = stopkit.normalize_stream([*events, {"type": "message_stop"}, _delta("refusal")])
    assert stop.reason is StopReason.FILTERED
