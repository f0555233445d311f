"""The OpenAI legacy Completions adapter: its table against the SDK and Chat's, detection, turns."""

from __future__ import annotations

import typing
from typing import Any

import pytest

import stopkit
from stopkit import StopReason, ToolResult
from stopkit.adapters import _openai_chat_rules as chat
from stopkit.adapters.openai_completions import FINISH_REASON, OpenAICompletionsAdapter
from tests._payloads import PAYLOADS, case_part, load_cases, same_stop, to_sse
from tests.loop._validate import assert_valid_transcript

ADAPTER = OpenAICompletionsAdapter()
FOLDER = PAYLOADS / "openai_completions"
CASES = load_cases(FOLDER)


def _reply(name: str) -> Any:
    return case_part("openai_completions", name, "reply")


def _events(name: str) -> list[Any]:
    events: list[Any] = case_part("openai_completions", name, "events")
    return events


# --- the table: the SDK's values, Chat's verdicts ------------------------------------------------


def test_every_sdk_finish_reason_is_mapped() -> None:
    """Every finish_reason of the installed SDK's CompletionChoice Literal is in the table."""
    from openai.types import CompletionChoice

    values = set(typing.get_args(CompletionChoice.model_fields["finish_reason"].annotation))
    assert values == {"stop", "length", "content_filter"}
    assert values <= set(FINISH_REASON), values - set(FINISH_REASON)


def test_the_table_is_chats_own_entries() -> None:
    """Each value maps to Chat's very entry (imported, never copied); no tool value is listed."""
    for raw, verdict in FINISH_REASON.items():
        assert verdict is chat.FINISH_REASON[raw], raw
    assert not {"tool_calls", "function_call"} & set(FINISH_REASON)
    assert ADAPTER.tables["stop_reason (vLLM)"] is chat.VLLM_STOP_REASON
    assert ADAPTER.tables["content_filter_results (Azure, filtered: true)"] is chat.CONTENT_FILTER


# --- detection --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        {"object": "chat.completion", "choices": [{"index": 0, "text": "x"}]},
        {"choices": [{"index": 0, "text": "x", "finish_reason": "stop"}]},
        {"object": "text_completion", "choices": "not a list"},
    ],
)
def test_not_a_completion(reply: dict[str, Any]) -> None:
    """Only a `choices` list with `object: text_completion` is a completion."""
    assert not ADAPTER.detects(reply)
    assert not ADAPTER.detects_event(reply)


def test_sdk_completion_objects_are_auto_detected() -> None:
    """An `openai.types.Completion` (what `client.completions.create` returns) is read."""
    from tests.sdk_forms.openai_completions import to_sdk

    obj = to_sdk(_reply("stop.json"))
    assert type(obj).__name__ == "Completion"
    assert stopkit.detect(obj).name == "openai.completions"


# --- several choices --------------------------------------------------------------------------


def test_normalize_all_gives_one_stop_per_choice_in_index_order() -> None:
    """With n > 1: one Stop per choice, in index order, each keeping the whole reply as raw."""
    reply = _reply("two_choices.json")
    stops = stopkit.normalize_all(reply)
    assert [(s.reason, s.text) for s in stops] == [
        (StopReason.COMPLETED, " Apples."),
        (StopReason.OUTPUT_LIMIT, " Pears."),
    ]
    assert all(s.raw is reply for s in stops)


def test_stream_results_give_one_stop_per_choice() -> None:
    """The accumulator reads every streamed choice, as normalize_all reads the whole reply."""
    acc = ADAPTER.stream()
    for event in _events("two_choices.stream.json"):
        acc.feed(event)
    whole = stopkit.normalize_all(_reply("two_choices.json"))
    assert len(acc.results()) == len(whole) == 2
    for streamed, read in zip(acc.results(), whole, strict=True):
        same_stop(streamed, read)


# --- streams ----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", [c for c in CASES if c.data.get("twin")], ids=lambda c: str(c.id))
def test_streamed_raw_is_the_rebuilt_completion(case: Any) -> None:
    """A finished stream's raw is a `text_completion` dict that normalizes to the same Stop."""
    stop = stopkit.normalize_stream(case.data["events"])
    assert isinstance(stop.raw, dict)
    assert stop.raw["object"] == "text_completion"
    same_stop(stopkit.normalize(stop.raw), stop)


def test_raw_sse_with_the_done_sentinel() -> None:
    """The stream as the SSE body OpenAI sends (ending in `data: [DONE]`) gives the same Stop."""
    events = _events("stop.stream.json")
    body = to_sse(events) + "data: [DONE]\n\n"
    same_stop(stopkit.normalize_stream(body), stopkit.normalize_stream(events))


def test_sdk_stream_chunks_are_read() -> None:
    """The SDK's own streamed `Completion` chunks give the same Stop as the parsed JSON."""
    from tests.sdk_forms.openai_completions import to_sdk_event

    events = _events("length.stream.json")
    same_stop(
        stopkit.normalize_stream([to_sdk_event(e) for e in events]),
        stopkit.normalize_stream(events),
    )


# --- the conversation -------------------------------------------------------------------------


def test_assistant_and_user_messages_are_the_neutral_transcript_shape() -> None:
    """A prompt API has no wire message: the turns are `{"role", "content"}` transcript entries."""
    stop = stopkit.normalize(_reply("stop.json"))
    assert ADAPTER.assistant_message(stop) == [
        {"role": "assistant", "content": "\n\nThe capital of France is Paris."}
    ]
    assert ADAPTER.user_message("Go on.") == {"role": "user", "content": "Go on."}


def test_tool_results_and_resume_refuse() -> None:
    """The endpoint has no tools and never pauses: both raise ValueError naming the stop."""
    stop = stopkit.normalize(_reply("stop.json"))
    with pytest.raises(ValueError, match="no tool calls"):
        ADAPTER.tool_results(stop, [ToolResult(call_id="c", name="f", content="1")])
    with pytest.raises(ValueError, match="cannot be resumed"):
        ADAPTER.resume(stop)


def test_the_loop_finishes_on_a_completion_and_retries_a_truncated_one() -> None:
    """run_loop reads completions: a `length` reply is retried with a raised ceiling."""
    from stopkit.testing import ScriptedModel

    model = ScriptedModel([_reply("length.json"), _reply("stop.json")])
    outcome = stopkit.run_loop(model, [{"role": "user", "content": "Once upon"}], max_tokens=16)
    assert outcome.termination.value == "completed"
    assert outcome.text == "\n\nThe capital of France is Paris."
    assert model.calls[1].overrides.get("max_tokens", 0) > 16
    assert_valid_transcript("openai.completions", outcome.messages)
