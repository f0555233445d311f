"""Replay: a recorded run replays exactly, with no call; a changed request is a mismatch."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import stopkit
import stopkit.loop
import stopkit.loop.events
import stopkit.loop.journal
from stopkit import StopReason
from stopkit.loop import DEFAULT_HANDLERS
from stopkit.loop.journal import RunStatus, current_step
from tests.loop.journal._scenario import (
    FINAL,
    Trace,
    TurnModel,
    final_reply,
    record_tool,
    summary,
    tool_reply,
)


def run(journal: Any, trace: Trace, *, use_async: bool = False, prompt: str = "Record.",
        **settings: Any) -> stopkit.Outcome:  # fmt: skip
    model = TurnModel(trace, settings.pop("turns", 3), settings.pop("calls", 2))
    settings = {"tools": {"record": record_tool(trace)}, "journal": journal,
                "run_id": "run-1", **settings}  # fmt: skip
    if use_async:
        return asyncio.run(stopkit.arun_loop(model.acall, prompt, **settings))
    return stopkit.run_loop(model, prompt, **settings)


@pytest.mark.parametrize("use_async", [False, True], ids=["run_loop", "arun_loop"])
def test_a_finished_run_replays_with_no_call_and_the_same_outcome(
    journal: Any, use_async: bool
) -> None:
    """Rerunning a finished run calls neither the model nor a tool, and gives the same Outcome."""
    first = Trace()
    outcome = run(journal, first, use_async=use_async)
    assert outcome.text == FINAL
    assert len(first.lines) == 4 + 6
    again = Trace()
    replayed = run(journal, again, use_async=use_async)
    assert again.lines == []
    assert summary(replayed) == summary(outcome)
    info = journal.run("run-1")
    assert (info.status, info.termination, info.steps) == (RunStatus.FINISHED, "completed", 10)
    names = [step.name for step in journal.steps("run-1")]
    # Steps are listed in the order they were recorded: a turn's tool calls run concurrently
    # under arun_loop, so they may finish (and be recorded) in either order.
    assert (names[0], set(names[1:3]), names[3]) == (
        "model_call_1", {"tool_call_1_0", "tool_call_1_1"}, "model_call_2",
    )  # fmt: skip


def test_a_replayed_run_emits_the_events_of_the_recorded_one(journal: Any) -> None:
    """Replayed steps report the same events a live run reports, in the same order."""
    seen: list[list[str]] = [[], []]
    for events in seen:
        run(journal, Trace(), on_event=lambda e, events=events: events.append(type(e).__name__))
    assert seen[0] == seen[1]
    assert "ToolReturned" in seen[0]


@pytest.mark.parametrize(
    ("change", "step", "words"),
    [
        ({"prompt": "Record, please."}, "model_call_1", "the messages differ"),
        ({"overrides": {"temperature": 0.5}}, "model_call_1", "the overrides differ"),
        ({"handlers": "changed arguments"}, "tool_call_1_0", "arguments"),
    ],
    ids=["prompt", "overrides", "tool-arguments"],
)
def test_a_changed_request_raises_journal_mismatch_naming_the_step(
    journal: Any, change: dict[str, Any], step: str, words: str
) -> None:
    """A rerun whose prompt, overrides or tool arguments changed stops at the step that differs."""
    run(journal, Trace())
    if change.get("handlers"):

        def changed(ctx: stopkit.loop.LoopContext) -> stopkit.loop.Action:
            calls = [c.model_copy(update={"arguments": {**c.arguments, "i": 9}})
                     for c in ctx.stop.tool_calls]  # fmt: skip
            return ctx.continue_with_results(ctx.run_tools(calls))

        change = {"handlers": {**DEFAULT_HANDLERS, StopReason.TOOL_REQUEST: changed}}
    trace = Trace()
    with pytest.raises(stopkit.loop.journal.JournalMismatch, match=words) as raised:
        run(journal, trace, **change)
    assert raised.value.step == step
    assert "model" not in " ".join(trace.lines[1:])  # nothing after the mismatch was called
    assert journal.run("run-1").status is RunStatus.FINISHED  # refused: nothing changed
    assert len(journal.steps("run-1")) == 10


def test_a_run_that_ends_before_its_recorded_steps_raises_journal_mismatch(journal: Any) -> None:
    """Replaying code that finishes earlier than the recording is a mismatch, not a silent end."""
    run(journal, Trace())
    finish_at_once = {
        **DEFAULT_HANDLERS, StopReason.TOOL_REQUEST: lambda ctx: stopkit.loop.Finish()
    }
    with pytest.raises(stopkit.loop.journal.JournalMismatch) as raised:
        run(journal, Trace(), handlers=finish_at_once)
    assert raised.value.step == "tool_call_1_0"


def test_a_failed_model_call_is_made_again_when_the_run_is_rerun(journal: Any) -> None:
    """A run that ended with ModelCallError resumes at the failed call; earlier steps replay."""

    def failing(messages: Any, **overrides: Any) -> Any:
        if len(messages) > 2:
            raise ConnectionError("reset")
        return tool_reply(1, 1)

    tools = {"record": record_tool(Trace())}
    with pytest.raises(stopkit.ModelCallError):
        stopkit.run_loop(failing, "Record.", tools=tools, journal=journal, run_id="r")
    assert journal.run("r").status is RunStatus.FAILED
    calls: list[int] = []

    def working(messages: Any, **overrides: Any) -> Any:
        calls.append(len(messages))
        return final_reply()

    outcome = stopkit.run_loop(working, "Record.", tools=tools, journal=journal, run_id="r")
    assert (outcome.text, calls) == (FINAL, [3])
    assert journal.run("r").status is RunStatus.FINISHED


def test_a_streamed_reply_is_recorded_as_its_events_and_replayed_from_them(journal: Any) -> None:
    """A stream is kept as its JSON events; a replay reads them with the adapter's accumulator."""
    events = [
        {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
                                              "model": "x", "content": [], "stop_reason": None,
                                              "usage": {"input_tokens": 1, "output_tokens": 0}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "text_delta", "text": "Hello"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
         "usage": {"output_tokens": 1}},
        {"type": "message_stop"},
    ]  # fmt: skip
    deltas: list[list[str]] = [[], []]
    outcomes = []
    for seen in deltas:

        def on_event(event: Any, seen: list[str] = seen) -> None:
            if isinstance(event, stopkit.loop.events.TextDelta):
                seen.append(event.text)

        outcomes.append(stopkit.run_loop(lambda m, **o: iter(events), "Hi", journal=journal,
                                         run_id="s", on_event=on_event))  # fmt: skip
    assert [o.text for o in outcomes] == ["Hello", "Hello"]
    assert deltas == [["Hello"], ["Hello"]]
    recorded = json.loads(journal.steps("s")[0].result)
    assert recorded == {"events": events}


def test_an_sdk_reply_is_recorded_as_its_json_dump(journal: Any) -> None:
    """An SDK object is kept as its JSON dump (no null fields), read back to the same run."""
    from anthropic.types import Message

    reply = Message.model_validate(final_reply())
    first = stopkit.run_loop(lambda m, **o: reply, "Hi", journal=journal, run_id="sdk")
    again = stopkit.run_loop(lambda m, **o: pytest.fail("called"), "Hi", journal=journal,
                             run_id="sdk")  # fmt: skip
    assert json.loads(journal.steps("sdk")[0].result) == {
        "reply": reply.model_dump(mode="json", by_alias=True, exclude_none=True)
    }
    assert summary(again) == summary(first)
    assert again.stop is not None
    assert first.stop is not None
    # `details` keep the provider's extras as the body holds them: without the null fields.
    assert again.stop.model_dump(exclude={"details"}) == first.stop.model_dump(exclude={"details"})


def test_the_current_step_is_named_while_each_call_runs(journal: Any) -> None:
    """`current_step()` names the model call and the tool call being made, also in threads."""
    seen: list[str | None] = []

    def model(messages: Any, **overrides: Any) -> Any:
        seen.append(current_step())
        return tool_reply(1, 1) if len(messages) == 1 else final_reply()

    def record(turn: int, i: int) -> str:
        seen.append(current_step())
        return "ok"

    stopkit.run_loop(model, "Hi", tools={"record": record}, tool_timeout=5)
    assert seen == ["model_call_1", "tool_call_1_0", "model_call_2"]
    assert current_step() is None


def test_text_cut_inside_an_emoji_is_recorded_and_replayed(journal: Any) -> None:
    """Text cut inside an emoji (a lone surrogate) in a reply, arguments and a result replays."""
    cut = "caf" + chr(0xD83D)
    reply = tool_reply(1)
    reply["content"][0]["text"] = cut
    reply["content"][1]["input"] = {"note": cut}
    replies = iter([reply, final_reply()])
    tools = {"record": lambda **arguments: cut}
    first = stopkit.run_loop(lambda m, **o: next(replies), "Hi", tools=tools, journal=journal,
                             run_id="emoji")  # fmt: skip
    assert first.text == FINAL
    again = stopkit.run_loop(lambda m, **o: pytest.fail("called"), "Hi", tools=tools,
                             journal=journal, run_id="emoji")  # fmt: skip
    assert summary(again) == summary(first)
    assert json.loads(journal.steps("emoji")[0].result)["reply"]["content"][0]["text"] == cut


def _paused(journal: Any) -> None:
    tools = {"record": record_tool(Trace())}
    stopkit.run_loop(TurnModel(Trace(), 1), "Record.", tools=tools, journal=journal,
                     run_id="run-1", approve=lambda call: stopkit.loop.Defer())  # fmt: skip


def _attention(journal: Any) -> None:
    def charge(turn: int, i: int) -> str:
        raise KeyboardInterrupt  # the process stops inside a call that must not run twice

    tools = {"record": stopkit.tool(charge, idempotent=False)}
    with pytest.raises(KeyboardInterrupt):
        stopkit.run_loop(TurnModel(Trace(), 1), "Record.", tools=tools, journal=journal,
                         run_id="run-1")  # fmt: skip
    stopkit.run_loop(TurnModel(Trace(), 1), "Record.", tools=tools, journal=journal,
                     run_id="run-1", on_escalate=lambda escalation: None)  # fmt: skip


@pytest.mark.parametrize(
    ("make", "status"),
    [
        (lambda journal: run(journal, Trace()), RunStatus.FINISHED),
        (_paused, RunStatus.AWAITING_APPROVAL),
        (_attention, RunStatus.NEEDS_ATTENTION),
    ],
    ids=["finished", "awaiting-approval", "needs-attention"],
)
def test_a_rerun_refused_with_journal_mismatch_changes_nothing(
    journal: Any, make: Any, status: RunStatus
) -> None:
    """A changed prompt is refused, and the run's row is left exactly as it was."""
    make(journal)
    before = journal.run("run-1")
    assert before.status is status
    with pytest.raises(stopkit.loop.journal.JournalMismatch):
        run(journal, Trace(), prompt="Something else entirely.")
    assert journal.run("run-1") == before
