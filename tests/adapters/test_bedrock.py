"""The bedrock adapter: service-model values, detection, the loop's continuation messages."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

import stopkit
from stopkit.adapters.bedrock import STOP_REASONS, STREAM_ERRORS, BedrockAdapter
from stopkit.testing import assert_stop

ADAPTER = BedrockAdapter()

PAYLOADS = Path(__file__).parents[1] / "payloads" / "bedrock"


def _case(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PAYLOADS / name).read_text(encoding="utf-8"))
    return data


def test_service_model_when_botocore_is_installed() -> None:
    """The installed botocore's service model lists exactly the table's values.

    botocore is a dev dependency, pinned by the lock: its own model is read, not a copy of it.
    """
    botocore = pytest.importorskip("botocore", reason="botocore is not installed here")
    folder = Path(botocore.__file__).parent / "data" / "bedrock-runtime"
    models = sorted(folder.glob("*/service-2.json*"))
    assert models, f"no bedrock-runtime service model under {folder}"
    raw = models[-1].read_bytes()
    shapes = json.loads(gzip.decompress(raw) if models[-1].suffix == ".gz" else raw)["shapes"]
    assert set(shapes["StopReason"]["enum"]) == set(STOP_REASONS)
    stream_members = shapes["ConverseStreamOutput"]["members"]
    assert {m for m in stream_members if m.endswith("Exception")} == set(STREAM_ERRORS)
    assert ADAPTER.tables["stopReason"] is STOP_REASONS


def test_payload_cases_cover_every_table_value() -> None:
    """Every value of every table has a payload case showing it (a reply or a stream)."""
    seen: set[str] = set()
    for path in PAYLOADS.glob("*.json"):
        seen.add(str(json.loads(path.read_text(encoding="utf-8"))["expect"].get("raw_reason")))
    covered = {*STOP_REASONS, "modelStreamErrorException", "throttlingException"}
    assert covered <= seen
    # The other exception events go through the same table entry; check them directly.
    for name in STREAM_ERRORS:
        stop = stopkit.normalize_stream([{name: {"message": "boom"}}])
        assert (stop.reason.value, stop.detail, stop.raw_reason) == ("unknown", "error", name)


@pytest.mark.parametrize(
    "reply",
    [
        {"object": "response", "output": [{"type": "message", "content": []}]},
        {"model": "llama3", "message": {"role": "assistant", "content": "Hi"}, "done": True},
        {"id": "c1", "finish_reason": "COMPLETE", "message": {"role": "assistant"}},
        {"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"},
        {"candidates": [{"content": {"parts": [{"text": "Hi"}]}, "finishReason": "STOP"}]},
        {"output": "text", "stopReason": "end_turn"},
    ],
)
def test_other_shapes_are_not_bedrock_replies(reply: dict[str, Any]) -> None:
    """Replies of the other wire APIs (and a string `output`) are not taken for Converse."""
    assert not ADAPTER.detects(reply)


@pytest.mark.parametrize(
    "event",
    [
        {"type": "message_start", "message": {}},
        {"type": "message-start", "delta": {}},
        {"object": "chat.completion.chunk", "choices": []},
        {"type": "response.created", "response": {}},
        {"candidates": [{"content": {"parts": [{"text": "Hi"}]}}]},
        {"model": "llama3", "message": {"content": "Hi"}, "done": False},
        {"metadata": "not a ConverseStream metadata event"},
        "messageStart",
    ],
)
def test_other_first_events_are_not_bedrock_streams(event: Any) -> None:
    """First events of the other wire APIs' streams are not taken for a ConverseStream."""
    assert not ADAPTER.detects_event(event)


def test_assistant_message_is_the_content_as_sent() -> None:
    """The assistant message holds the reply's content blocks as sent, reasoning included."""
    reply = _case("reasoning_excluded.json")["reply"]
    stop = stopkit.normalize(reply)
    assert ADAPTER.assistant_message(stop) == [
        {"role": "assistant", "content": reply["output"]["message"]["content"]}
    ]


def test_assistant_message_drops_blank_text_blocks() -> None:
    """Whitespace-only text blocks are left out: Bedrock rejects them in a request."""
    use = {"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}
    reply = {
        "output": {"message": {"role": "assistant", "content": [{"text": " \n"}, use]}},
        "stopReason": "tool_use",
    }
    message = ADAPTER.assistant_message(stopkit.normalize(reply))
    assert message == [{"role": "assistant", "content": [use]}]


def test_assistant_message_from_a_stream_is_the_reassembled_reply() -> None:
    """A streamed reply gives the blocks Converse would return: input parsed, signature kept."""
    stop = stopkit.normalize_stream(_case("reasoning.stream.json")["events"])
    assert ADAPTER.assistant_message(stop) == [
        {
            "role": "assistant",
            "content": [
                {
                    "reasoningContent": {
                        "reasoningText": {
                            "text": "The user wants the weather; I should call the tool.",
                            "signature": "sig-abc",
                        }
                    }
                },
                {"text": "Checking the weather."},
                {
                    "toolUse": {
                        "toolUseId": "tooluse_w1",
                        "name": "get_weather",
                        "input": {"city": "Paris"},
                    }
                },
            ],
        }
    ]


def test_assistant_message_without_a_converse_reply_is_rebuilt() -> None:
    """A Stop not read from a Converse reply is rebuilt from its text and tool calls."""
    call = stopkit.ToolCall(id="t1", name="get_weather", arguments={"city": "Paris"})
    stop = stopkit.Stop(
        reason=stopkit.StopReason.TOOL_REQUEST, provider="bedrock", text="Hm.", tool_calls=(call,)
    )
    assert ADAPTER.assistant_message(stop) == [
        {
            "role": "assistant",
            "content": [
                {"text": "Hm."},
                {"toolUse": {"toolUseId": "t1", "name": "get_weather", "input": {"city": "Paris"}}},
            ],
        }
    ]


def test_tool_results_are_one_user_message_of_tool_result_blocks() -> None:
    """Results go back in one user message, in order: JSON objects as json, errors flagged."""
    stop = stopkit.normalize(_case("tool_use_parallel.json")["reply"])
    results = [
        stopkit.ToolResult(call_id="tooluse_w1", name="get_weather", content='{"temp": 21}'),
        stopkit.ToolResult(
            call_id="tooluse_t2", name="get_time", content="TimeoutError: 5 s", is_error=True
        ),
        stopkit.ToolResult(call_id="tooluse_x", name="echo", content="[1, 2]"),
    ]
    assert ADAPTER.tool_results(stop, results) == [
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "tooluse_w1",
                        "content": [{"json": {"temp": 21}}],
                        "status": "success",
                    }
                },
                {
                    "toolResult": {
                        "toolUseId": "tooluse_t2",
                        "content": [{"text": "TimeoutError: 5 s"}],
                        "status": "error",
                    }
                },
                {
                    "toolResult": {
                        "toolUseId": "tooluse_x",
                        "content": [{"text": "[1, 2]"}],
                        "status": "success",
                    }
                },
            ],
        }
    ]


def test_resume_raises_a_clear_error() -> None:
    """Bedrock has no paused value, so resume refuses with a ValueError saying so."""
    stop = stopkit.normalize(_case("end_turn.json")["reply"])
    with pytest.raises(ValueError, match="no paused stopReason"):
        ADAPTER.resume(stop)


def test_stream_result_is_stable_and_cheap_to_repeat() -> None:
    """result() may be called more than once, before and after the end, without changing state."""
    acc = ADAPTER.stream()
    events = _case("tool_use.stream.json")["events"]
    for event in events[:5]:
        acc.feed(event)
    early = acc.result()
    assert (early.reason.value, early.detail) == ("unknown", "stream_incomplete")
    assert acc.result() is early
    for event in events[5:]:
        acc.feed(event)
    final = acc.result()
    assert final.reason is stopkit.StopReason.TOOL_REQUEST
    assert final.tool_calls[0].arguments == {"city": "Paris"}
    assert acc.result() is final


def _reply(content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop_reason,
        "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
    }


class _Script:
    """A scripted Bedrock model: replays replies, records each call's messages and overrides."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = list(replies)
        self.calls: list[tuple[list[Any], dict[str, Any]]] = []

    def __call__(self, messages: list[Any], **overrides: Any) -> dict[str, Any]:
        self.calls.append((list(messages), overrides))
        return self.replies.pop(0)


def _run_loop() -> Any:
    run_loop = getattr(stopkit, "run_loop", None)
    if run_loop is None:
        pytest.skip("this checkout has no loop driver yet")
    return run_loop


def test_loop_tool_round_trip() -> None:
    """The loop runs a Bedrock tool call and sends back a Converse-valid transcript."""
    run_loop = _run_loop()
    use = {"toolUse": {"toolUseId": "tu1", "name": "get_weather", "input": {"city": "Paris"}}}
    model = _Script(
        [
            _reply([{"text": "Checking."}, use], "tool_use"),
            _reply([{"text": "21 °C in Paris."}], "end_turn"),
        ]
    )
    start = [{"role": "user", "content": [{"text": "Weather in Paris?"}]}]
    outcome = run_loop(
        model, start, tools={"get_weather": lambda city: {"temp": 21}}, adapter="bedrock"
    )
    assert (outcome.termination.value, outcome.text) == ("completed", "21 °C in Paris.")
    sent = model.calls[1][0]
    assert sent[1] == {"role": "assistant", "content": [{"text": "Checking."}, use]}
    assert sent[2] == {
        "role": "user",
        "content": [
            {
                "toolResult": {
                    "toolUseId": "tu1",
                    "content": [{"json": {"temp": 21}}],
                    "status": "success",
                }
            }
        ],
    }


def test_loop_truncated_tool_call_is_never_run_nor_appended() -> None:
    """A toolUse cut at max_tokens is not run; the retry's transcript lacks the cut reply."""
    run_loop = _run_loop()
    use = {"toolUse": {"toolUseId": "tu1", "name": "get_weather", "input": {"city": "Par"}}}
    ran: list[str] = []
    model = _Script([_reply([use], "max_tokens"), _reply([{"text": "Done."}], "end_turn")])
    start = [{"role": "user", "content": [{"text": "Weather in Paris?"}]}]
    outcome = run_loop(
        model,
        start,
        tools={"get_weather": lambda city: ran.append(city)},
        adapter="bedrock",
        max_tokens=100,
    )
    assert ran == []
    assert outcome.termination.value == "completed"
    assert model.calls[1][0] == start
    assert model.calls[1][1].get("max_tokens", 0) > 100


def test_proxy_sse_with_event_names_reads_like_the_boto3_events() -> None:
    """SSE from a proxy naming each event in its `event:` line gives the boto3 events' Stop."""
    events = _case("tool_use.stream.json")["events"]
    text = "".join(
        f"event: {name}\ndata: {json.dumps(payload)}\n\n"
        for event in events
        for name, payload in event.items()
    )
    from_sse = stopkit.normalize_stream(text)
    from_events = stopkit.normalize_stream(events)
    assert from_sse.provider == "bedrock"
    assert (from_sse.reason, from_sse.text, from_sse.tool_calls) == (
        from_events.reason,
        from_events.text,
        from_events.tool_calls,
    )


def test_events_that_are_not_converse_events_are_ignored_with_a_note() -> None:
    """A non-dict event is skipped, and the Stop says so; the rest still reads normally."""
    events = [*_case("end_turn.stream.json")["events"], "keep-alive"]
    stop = stopkit.normalize_stream(events)
    assert (stop.reason.value, stop.text) == ("completed", "Paris is the capital of France.")
    assert any("not ConverseStream events" in note for note in stop.notes)


# --- the end of a stream (issue 12) ---------------------------------------------------------------


def _text_events(text: str) -> list[dict[str, Any]]:
    return [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": text}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
    ]


def _metadata(output_tokens: int) -> dict[str, Any]:
    usage = {"inputTokens": 5, "outputTokens": output_tokens, "totalTokens": 5 + output_tokens}
    return {"metadata": {"usage": usage, "metrics": {"latencyMs": 100}}}


@pytest.mark.parametrize(
    ("first", "second", "reason"),
    [
        ("guardrail_intervened", "end_turn", stopkit.StopReason.FILTERED),
        ("content_filtered", "end_turn", stopkit.StopReason.FILTERED),
        ("max_tokens", "end_turn", stopkit.StopReason.OUTPUT_LIMIT),
        ("max_tokens", "tool_use", stopkit.StopReason.OUTPUT_LIMIT),
        ("end_turn", "guardrail_intervened", stopkit.StopReason.FILTERED),
        ("end_turn", "max_tokens", stopkit.StopReason.OUTPUT_LIMIT),
        ("guardrail_intervened", "throttlingException", stopkit.StopReason.FILTERED),
    ],
)
def test_the_stricter_of_two_terminal_signals_wins(
    first: str, second: str, reason: stopkit.StopReason
) -> None:
    """A second messageStop (or an exception) replaces the first only when it is as strict."""
    late = (
        {second: {"message": "slow down"}}
        if second in STREAM_ERRORS
        else {"messageStop": {"stopReason": second}}
    )
    events = [*_text_events("Hi"), {"messageStop": {"stopReason": first}}, late]
    assert stopkit.normalize_stream(events).reason is reason


def test_a_tool_block_index_started_again_is_noted() -> None:
    """A toolUse block started again under its index loses the earlier call: a note says so."""

    def call(call_id: str, name: str) -> list[dict[str, Any]]:
        start = {"toolUse": {"toolUseId": call_id, "name": name}}
        delta = {"toolUse": {"input": '{"a": 1}'}}
        return [
            {"contentBlockStart": {"contentBlockIndex": 0, "start": start}},
            {"contentBlockDelta": {"contentBlockIndex": 0, "delta": delta}},
            {"contentBlockStop": {"contentBlockIndex": 0}},
        ]

    events = [{"messageStart": {"role": "assistant"}}, *call("t1", "delete_files"),
              *call("t2", "wire_money"), {"messageStop": {"stopReason": "tool_use"}}]  # fmt: skip
    stop = stopkit.normalize_stream(events)
    assert not stop.runnable_tool_calls
    assert any("content block index 0 started again" in n for n in stop.notes), stop.notes


@pytest.mark.parametrize("pieces", [['{"path": "/tmp"}'], []], ids=["input whole", "no input"])
def test_a_tool_block_never_closed_is_not_run_even_when_the_message_ends(
    pieces: list[str],
) -> None:
    """A toolUse block with no contentBlockStop lost events: its call is cut, as in Anthropic's."""
    start = {"toolUse": {"toolUseId": "tu_1", "name": "delete_files"}}
    events = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"contentBlockIndex": 0, "start": start}},
        *(
            {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": p}}}}
            for p in pieces
        ),
        {"messageStop": {"stopReason": "tool_use"}},
    ]
    stop = stopkit.normalize_stream(events)
    assert [call.complete for call in stop.tool_calls] == [False]
    assert stop.runnable_tool_calls == ()


def test_nothing_after_message_stop_changes_the_reply() -> None:
    """Blocks sent after messageStop are neither text nor calls; a note counts the events."""
    after = [
        {
            "contentBlockStart": {
                "contentBlockIndex": 1,
                "start": {"toolUse": {"toolUseId": "tu_9", "name": "wire_money"}},
            }
        },
        {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{}"}}}},
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {"contentBlockDelta": {"contentBlockIndex": 2, "delta": {"text": " and more"}}},
    ]
    events = [*_text_events("Done."), {"messageStop": {"stopReason": "end_turn"}}, *after]
    stop = stopkit.normalize_stream([*events, _metadata(3)])
    assert (stop.reason, stop.text, stop.tool_calls) == (stopkit.StopReason.COMPLETED, "Done.", ())
    assert any("4 events arrived after the messageStop event" in n for n in stop.notes), stop.notes


def test_metadata_after_message_stop_is_read_for_usage() -> None:
    """The metadata event that follows messageStop (the normal order) gives the Stop its usage."""
    events = [*_text_events("Done."), {"messageStop": {"stopReason": "end_turn"}}, _metadata(3)]
    stop = stopkit.normalize_stream(events)
    assert_stop(stop, usage={"input_tokens": 5, "output_tokens": 3, "total_tokens": 8})
    assert not [note for note in stop.notes if "arrived after" in note]


# --- InvokeModel guardrail actions ------------------------------------------------------------


def _invoke(trace: Any) -> dict[str, Any]:
    reply = _case("invoke_guardrail_action.json")["reply"]
    return {**reply, "amazon-bedrock-trace": trace}


def _assessed(policy: str, kind: str, *actions: str) -> dict[str, Any]:
    """A guardrail trace whose one output assessment holds `policy.kind` entries with `actions`."""
    entries = [{"type": "T", "action": action} for action in actions]
    return {"guardrail": {"outputs": [{"g": {policy: {kind: entries}}}]}}


@pytest.mark.parametrize(
    ("trace", "masked_only"),
    [
        pytest.param(None, False, id="no-trace"),
        pytest.param(_assessed("topicPolicy", "topics", "BLOCKED"), False, id="blocked"),
        pytest.param(
            _assessed("sensitiveInformationPolicy", "piiEntities", "ANONYMIZED", "BLOCKED"),
            False,
            id="masked-and-blocked",
        ),
        pytest.param(
            _assessed("sensitiveInformationPolicy", "regexes", "ANONYMIZED", "NONE"),
            True,
            id="masked-only",
        ),
    ],
)
def test_guardrail_action_intervened_is_a_filter_and_says_when_it_only_masked(
    trace: Any, masked_only: bool
) -> None:
    """`amazon-bedrock-guardrailAction: INTERVENED` filters; a trace of only masking says so."""
    stop = stopkit.normalize(_invoke(trace))
    assert (stop.reason, stop.detail) == (stopkit.StopReason.FILTERED, "guardrail"), stop.notes
    assert any("amazon-bedrock-guardrailAction 'INTERVENED'" in n for n in stop.notes)
    assert stop.details.get("guardrail_masked_only", False) is masked_only


def test_a_masking_guardrail_reads_the_same_through_converse_and_invoke_model() -> None:
    """One masking guardrail event gives one reason and one masked-only entry, both APIs."""
    converse = _case("guardrail_masked.json")["reply"]
    invoke = {
        **_case("invoke_guardrail_action.json")["reply"],
        "amazon-bedrock-trace": converse["trace"],
    }
    a, b = stopkit.normalize(converse), stopkit.normalize(invoke)
    assert (a.reason, a.detail, a.details["guardrail_masked_only"]) == (
        b.reason,
        b.detail,
        b.details["guardrail_masked_only"],
    )
    blocked = {**converse, "trace": _assessed("topicPolicy", "topics", "BLOCKED")}
    assert "guardrail_masked_only" not in stopkit.normalize(blocked).details


def test_guardrail_trace_too_large_to_read_is_not_taken_as_masking() -> None:
    """A trace past the reading bound proves nothing: the intervention stays a filter."""
    entities = [{"type": "PHONE", "action": "ANONYMIZED"}] * 20_000
    trace = {"guardrail": {"outputs": [{"g": {"sensitiveInformationPolicy": {
        "piiEntities": entities}}}]}}  # fmt: skip
    assert stopkit.normalize(_invoke(trace)).reason is stopkit.StopReason.FILTERED


def test_usage_reads_converse_and_invoke_model_cache_fields() -> None:
    """Converse's cacheRead/WriteInputTokens and Nova's *InputTokenCount spellings both count."""
    reply = _case("end_turn.json")["reply"]
    converse = {"inputTokens": 3, "outputTokens": 10, "totalTokens": 113,
                "cacheReadInputTokens": 100, "cacheWriteInputTokens": 0}  # fmt: skip
    invoke = {"inputTokens": 3, "outputTokens": 10,
              "cacheReadInputTokenCount": 100, "cacheWriteInputTokenCount": 0}  # fmt: skip
    for usage, total in ((converse, 113), (invoke, None)):
        stop = stopkit.normalize({**reply, "usage": usage})
        counts = {"input_tokens": 3, "output_tokens": 10, "reasoning_tokens": None,
                  "cache_read_tokens": 100, "cache_write_tokens": 0,
                  "total_tokens": total}  # fmt: skip
        assert_stop(stop, usage=counts)
        assert stop.details["usage"] is usage
