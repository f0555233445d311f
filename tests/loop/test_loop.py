"""The loop driver, provider-agnostic: every path of issue 8, driven by a fake adapter.

The fake adapter (tests/loop/_fake.py) reads replies of the shape `reply(reason, text, calls,
detail)`, so each test states its script in a line per reply. The same paths run against the
four real adapters in tests/loop/test_providers.py.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest

import stopkit
import stopkit.loop
import stopkit.loop.events
from stopkit import Stop, StopReason, Termination, ToolResult
from stopkit.loop import DEFAULT_HANDLERS, Continue, Finish, LoopContext, Retry
from stopkit.loop._ending import SYNTHESIZE_PROMPT
from stopkit.loop._handlers import SHORTER_PROMPT
from stopkit.testing import ScriptedModel, ScriptExhausted
from tests.loop._fake import FAKE, USER, FakeAdapter, add, boom, call, reply, results_of


def run(script: Sequence[Any], **settings: Any) -> tuple[stopkit.Outcome, ScriptedModel]:
    model = ScriptedModel(script)
    settings.setdefault("adapter", FAKE)
    settings.setdefault("tools", {"add": add, "boom": boom})
    return stopkit.run_loop(model, [USER], **settings), model


# --- tools ----------------------------------------------------------------------------------


def test_multi_turn_tools_then_answer() -> None:
    """Two tool turns then an answer: every result goes back and the answer ends the run."""
    outcome, model = run(
        [
            reply("tool_request", calls=[call("c1", a=1, b=2)]),
            reply("tool_request", "checking", calls=[call("c2", a=3, b=4)]),
            reply("completed", "3 and 7"),
        ]
    )
    assert outcome.termination is Termination.COMPLETED
    assert outcome.ok
    assert (outcome.text, outcome.turns) == ("3 and 7", 3)
    assert [run.result.content for run in outcome.tool_runs] == ["3", "7"]
    assert [run.turn for run in outcome.tool_runs] == [1, 2]
    second_call = model.calls[1].messages
    assert second_call[1]["reply"]["calls"][0]["id"] == "c1"
    assert second_call[2] == {"role": "tool", "call_id": "c1", "content": "3", "is_error": False}
    assert outcome.messages[-1]["reply"]["text"] == "3 and 7"  # the final answer is kept
    assert len(outcome.messages) == 6
    assert outcome.escalation is None


def test_parallel_calls_one_failing() -> None:
    """A failing call and an unknown tool become error results; the other calls still run."""
    outcome, _ = run(
        [
            reply(
                "tool_request",
                calls=[
                    call("a", a=1, b=1),
                    call("b", "boom"),
                    call("c", "nope"),
                    call("d", a=2, b=2),
                ],
            ),
            reply("completed", "done"),
        ]
    )
    by_id = {r.call.id: r.result for r in outcome.tool_runs}
    assert by_id["a"].content == "2"
    assert not by_id["a"].is_error
    assert by_id["b"].is_error
    assert by_id["b"].content == "ValueError: boom"
    assert by_id["c"].is_error
    assert "unknown tool 'nope'" in by_id["c"].content
    assert "add, boom" in by_id["c"].content
    assert by_id["d"].content == "4"
    assert {k: len(v) for k, v in results_of(outcome.messages).items()} == dict.fromkeys("abcd", 1)


def test_tool_values_are_sent_as_text() -> None:
    """A str is sent as is, anything else as JSON (unknown types through str())."""
    day = datetime.date(2026, 1, 2)
    tools = {"s": lambda: "plain", "d": lambda: {"day": day, "n": [1]}, "n": lambda: None}
    outcome, _ = run(
        [
            reply("tool_request", calls=[call("1", "s"), call("2", "d"), call("3", "n")]),
            reply("completed", "ok"),
        ],
        tools=tools,
    )
    assert [r.result.content for r in outcome.tool_runs] == [
        "plain", '{"day": "2026-01-02", "n": [1]}', "null"
    ]  # fmt: skip
    assert outcome.tool_runs[1].result.value == {"day": day, "n": [1]}


def test_bad_arguments_are_an_error_result() -> None:
    """Arguments the tool does not accept give the exception's message, not a traceback."""
    outcome, _ = run([reply("tool_request", calls=[call("x", c=1)]), reply("completed", "ok")])
    content = outcome.tool_runs[0].result.content
    assert content.startswith("TypeError: ")
    assert "Traceback" not in content


def test_incomplete_call_is_never_run() -> None:
    """A call with complete=False gets an error result and its tool is never called."""
    ran: list[int] = []
    tools = {"add": lambda a, b: ran.append(a) or a + b}
    outcome, _ = run(
        [
            reply("tool_request", calls=[call("ok", a=1, b=1), call("cut", complete=False, a=9)]),
            reply("completed", "ok"),
        ],
        tools=tools,
    )
    assert ran == [1]
    cut = outcome.tool_runs[1].result
    assert cut.is_error
    assert "not run" in cut.content
    assert "cut off" in cut.content
    assert set(results_of(outcome.messages)) == {"ok", "cut"}


def test_tool_timeout_is_an_error_result() -> None:
    """A tool slower than tool_timeout gets a timeout error result and the run goes on."""
    outcome, _ = run(
        [reply("tool_request", calls=[call("slow", "slow")]), reply("completed", "ok")],
        tools={"slow": lambda: time.sleep(1)},
        tool_timeout=0.05,
    )
    assert outcome.termination is Termination.COMPLETED
    assert outcome.tool_runs[0].result.content == "timed out after 0.05 s"


def test_tool_raising_timeouterror_is_not_our_timeout() -> None:
    """A tool's own TimeoutError is reported as its exception, not as the loop's timeout."""

    def flaky() -> None:
        raise TimeoutError("upstream slow")

    outcome, _ = run(
        [reply("tool_request", calls=[call("t", "flaky")]), reply("completed", "ok")],
        tools={"flaky": flaky},
        tool_timeout=5,
    )
    assert outcome.tool_runs[0].result.content == "TimeoutError: upstream slow"


def test_async_tool_in_sync_loop() -> None:
    """run_loop runs an async tool to completion."""

    async def later(x: int) -> int:
        await asyncio.sleep(0)
        return x * 2

    outcome, _ = run(
        [reply("tool_request", calls=[call("1", "later", x=4)]), reply("completed", "ok")],
        tools={"later": later},
    )
    assert outcome.tool_runs[0].result.content == "8"


def test_tool_request_without_calls_ends_as_unknown(caplog: pytest.LogCaptureFixture) -> None:
    """A tool request with no calls cannot be answered: the run ends, never loops."""
    outcome, model = run([reply("tool_request", "hm"), reply("completed", "x")])
    assert outcome.termination is Termination.UNKNOWN
    assert model.remaining == 1
    assert "without tool calls" in caplog.text


# --- output limit ---------------------------------------------------------------------------


def test_truncation_then_raised_limit_retry() -> None:
    """The loop's max_tokens goes with the first call; a cut doubles it once, and it sticks."""
    outcome, model = run(
        [
            reply("output_limit", "half an ans", detail="max_tokens"),
            reply("tool_request", calls=[call("c", a=1, b=1)]),
            reply("completed", "full answer"),
        ],
        max_tokens=1000,
    )
    assert outcome.termination is Termination.COMPLETED
    assert outcome.text == "full answer"
    assert [c.overrides for c in model.calls] == [
        {"max_tokens": 1000}, {"max_tokens": 2000}, {"max_tokens": 2000}
    ]  # fmt: skip
    assert model.calls[1].messages == (USER,)
    assert all(m.get("reply", {}).get("reason") != "output_limit" for m in outcome.messages)


def test_truncation_twice_finishes_truncated() -> None:
    """Cut again after the retry: finish as output_limit, partial text on the outcome only."""
    outcome, model = run(
        [
            reply("output_limit", "part one", detail="max_tokens"),
            reply("output_limit", "part one, longer", detail="max_tokens"),
            reply("completed", "never"),
        ],
        overrides={"max_tokens": 300, "temperature": 0},
    )
    assert outcome.termination is Termination.OUTPUT_LIMIT
    assert not outcome.ok
    assert outcome.text == "part one, longer"
    assert outcome.messages == [USER]
    assert model.calls[1].overrides == {"max_tokens": 600, "temperature": 0}
    assert model.remaining == 1


def test_truncation_without_known_ceiling_finishes() -> None:
    """With no max_tokens to raise and no output count on the reply, it finishes at once."""
    outcome, model = run([reply("output_limit", "cut", detail="max_tokens"), reply("completed")])
    assert (outcome.termination, outcome.text, model.remaining) == ("output_limit", "cut", 1)


def cut(output_tokens: int, **counts: int) -> dict[str, Any]:
    """A reply cut at the output ceiling, reporting what it spent."""
    usage = {"output_tokens": output_tokens, **counts}
    return reply("output_limit", "cut", detail="max_tokens", usage=usage)


@pytest.mark.parametrize(
    ("script", "settings", "sent", "ends"),
    [
        ([cut(256), reply("completed")], {}, [{}, {"max_tokens": 512}], "completed"),
        ([cut(256), cut(512)], {}, [{}, {"max_tokens": 512}], "output_limit"),
        ([cut(20_000), reply("completed")], {}, [{}, {"max_tokens": 32_768}], "completed"),
        ([cut(3_000), reply("completed")], {"max_tokens_cap": 4_000},
         [{}, {"max_tokens": 4_000}], "completed"),
        ([cut(4_000), reply("completed")], {"max_tokens_cap": 4_000}, [{}], "output_limit"),
        ([cut(0), reply("completed")], {}, [{}], "output_limit"),
    ],
    ids=["raised", "cut-again", "capped", "own-cap", "at-the-cap", "nothing-spent"],
)  # fmt: skip
def test_truncation_takes_the_ceiling_from_the_cut_reply(
    script: list[dict[str, Any]], settings: dict[str, Any], sent: list[Any], ends: str
) -> None:
    """With no max_tokens known, the output tokens the cut reply reports are its ceiling."""
    outcome, model = run(script, **settings)
    assert [c.overrides for c in model.calls] == sent
    assert outcome.termination == ends


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"max_tokens": 0}, "max_tokens must be an int of at least 1"),
        ({"max_tokens": "300"}, "max_tokens must be an int of at least 1"),
        ({"max_tokens_cap": 0}, "max_tokens_cap must be an int of at least 1"),
        ({"max_tokens": 300, "overrides": {"max_tokens": 300}}, "max_tokens is given twice"),
    ],
    ids=["zero", "a-str", "cap-zero", "twice"],
)
def test_a_ceiling_setting_that_cannot_be_sent_is_refused(
    settings: dict[str, Any], message: str
) -> None:
    """A max_tokens that is no positive int, or one given twice, is refused when built."""
    with pytest.raises(ValueError, match=message):
        stopkit.LoopSettings(**settings)


def test_truncation_at_the_cap_finishes() -> None:
    """At max_tokens_cap the limit cannot rise: never retry with identical overrides."""
    outcome, model = run(
        [reply("output_limit", "cut", detail="max_tokens"), reply("completed")],
        max_tokens=4000,
        max_tokens_cap=4000,
    )
    assert outcome.termination is Termination.OUTPUT_LIMIT
    assert model.remaining == 1


def test_context_window_finishes_at_once() -> None:
    """A full context window is not retried with more tokens; the detail stays on the stop."""
    outcome, model = run(
        [reply("output_limit", "x", detail="context_window"), reply("completed")], max_tokens=100
    )
    assert outcome.termination is Termination.OUTPUT_LIMIT
    assert model.remaining == 1
    assert outcome.stop is not None
    assert outcome.stop.detail == "context_window"


def test_context_window_calls_compact_once() -> None:
    """With a compact hook, the transcript is replaced by its result and the model called again."""
    seen: list[list[Any]] = []

    def compact(messages: list[Any]) -> list[Any]:
        seen.append(messages)
        return [{"role": "user", "content": "summary"}]

    outcome, model = run(
        [
            reply("output_limit", detail="context_window"),
            reply("output_limit", detail="context_window"),
            reply("completed"),
        ],
        compact=compact,
    )
    assert seen == [[USER]]
    assert model.calls[1].messages == ({"role": "user", "content": "summary"},)
    assert outcome.termination is Termination.OUTPUT_LIMIT
    assert model.remaining == 1


def test_finish_truncated_policy() -> None:
    """The ready-made finish_truncated policy never retries."""
    handlers = {**DEFAULT_HANDLERS, StopReason.OUTPUT_LIMIT: stopkit.loop.finish_truncated}
    outcome, model = run(
        [reply("output_limit", "cut", detail="max_tokens"), reply("completed")],
        handlers=handlers,
        max_tokens=10,
    )
    assert outcome.termination is Termination.OUTPUT_LIMIT
    assert model.remaining == 1


def test_ask_for_shorter_policy() -> None:
    """ask_for_shorter drops the cut reply, asks once for a shorter answer, then gives up."""
    handlers = {**DEFAULT_HANDLERS, StopReason.OUTPUT_LIMIT: stopkit.loop.ask_for_shorter}
    outcome, model = run(
        [reply("output_limit", "long", detail="max_tokens"), reply("completed", "short")],
        handlers=handlers,
    )
    assert outcome.text == "short"
    assert model.calls[1].messages == (USER, {"role": "user", "content": SHORTER_PROMPT})
    twice, _ = run(
        [
            reply("output_limit", detail="max_tokens"),
            reply("output_limit", "b", detail="max_tokens"),
        ],
        handlers=handlers,
    )
    assert twice.termination is Termination.OUTPUT_LIMIT
    assert twice.text == "b"


# --- filtered, unknown, paused --------------------------------------------------------------


def test_refusal_escalates_and_never_calls_again(caplog: pytest.LogCaptureFixture) -> None:
    """A filtered reply is escalated with the original input, logged, and the model not called."""
    escalations: list[stopkit.loop.events.Escalation] = []
    outcome, model = run(
        [
            reply("tool_request", calls=[call("c", a=1, b=1)]),
            reply("filtered", "I can't help with that", detail="refusal"),
            reply("completed", "never"),
        ],
        on_escalate=escalations.append,
    )
    assert model.remaining == 1
    assert outcome.termination is Termination.FILTERED
    assert outcome.escalation is escalations[0]
    assert outcome.escalation.input == (USER,)
    assert outcome.escalation.reason == "filtered (refusal)"
    assert outcome.escalation.turn == 2
    assert all(m.get("reply", {}).get("reason") != "filtered" for m in outcome.messages)
    with caplog.at_level(logging.WARNING, logger="stopkit.loop"):
        run([reply("filtered", detail="safety")])
    assert "escalated at turn 1: filtered (safety)" in caplog.text


def test_unknown_logs_raw_value_and_escalates(caplog: pytest.LogCaptureFixture) -> None:
    """An unknown stop is logged at WARNING (raw value clipped), escalated; its calls never run."""
    ran: list[int] = []
    with caplog.at_level(logging.WARNING, logger="stopkit.loop"):
        outcome, model = run(
            [
                reply(
                    "unknown",
                    "so far",
                    calls=[call("c", a=1, b=1)],
                    raw="X" * 5000,
                    detail="unrecognized",
                ),
                reply("completed"),
            ],
            tools={"add": lambda a, b: ran.append(a)},
        )
    assert outcome.termination is Termination.UNKNOWN
    assert outcome.text == "so far"
    assert ran == []
    assert model.remaining == 1
    assert outcome.escalation is not None
    record = next(r for r in caplog.records if "unknown value" in r.getMessage())
    assert record.levelno == logging.WARNING
    assert "XXXX" in record.getMessage()
    assert len(record.getMessage()) < 600


def test_pause_then_resume() -> None:
    """A paused reply is sent back with the adapter's resume overrides, for that call only."""
    outcome, model = run(
        [reply("paused", "searching", id="p1"), reply("completed", "found it")],
        overrides={"temperature": 0},
    )
    assert outcome.text == "found it"
    assert outcome.termination is Termination.COMPLETED
    assert model.calls[1].overrides == {"temperature": 0, "resume_id": "p1"}
    assert model.calls[1].messages[1]["reply"]["id"] == "p1"


def test_pause_limit() -> None:
    """More pauses than max_pauses ends the run with pause_limit and the last text salvaged."""
    script = [reply("paused", f"step {i}", id=str(i)) for i in range(5)]
    outcome, model = run(script, max_pauses=3)
    assert outcome.termination is Termination.PAUSE_LIMIT
    assert len(model.calls) == 4
    assert outcome.text == "step 3"
    assert len(outcome.messages) == 4  # the input and the three resumed replies


# --- safety nets ----------------------------------------------------------------------------


def test_max_turns_salvages_the_last_text() -> None:
    """max_turns ends the run; the last reply's calls are not run, its text is salvaged."""
    script = [reply("tool_request", f"turn {i}", calls=[call(f"c{i}", a=i, b=0)]) for i in range(9)]
    outcome, model = run(script, max_turns=4)
    assert outcome.termination is Termination.MAX_TURNS
    assert outcome.turns == 4
    assert len(model.calls) == 4
    assert outcome.text == "turn 3"
    assert {k: len(v) for k, v in results_of(outcome.messages).items()} == {
        f"c{i}": 1 for i in range(3)
    }


def test_deadline_stops_between_steps_and_around_tools() -> None:
    """A tool running past the deadline is cut with an error result; the run ends with deadline."""
    outcome, model = run(
        [reply("tool_request", "working", calls=[call("s", "slow")]), reply("completed", "late")],
        tools={"slow": lambda: time.sleep(2)},
        deadline=0.2,
    )
    assert outcome.termination is Termination.DEADLINE
    assert outcome.text == "working"
    assert model.remaining == 1
    assert outcome.tool_runs[0].result.content.startswith("timed out after 0.")
    assert set(results_of(outcome.messages)) == {"s"}


def test_deadline_already_passed() -> None:
    """A zero deadline makes no call at all and ends cleanly."""
    outcome, model = run([reply("completed", "x")], deadline=0)
    assert (outcome.termination, outcome.turns, outcome.stop, outcome.text) == (
        "deadline", 0, None, ""
    )  # fmt: skip
    assert model.remaining == 1


def test_loop_detection() -> None:
    """The same tool and arguments a third time in the window ends the run before running it."""
    same = [reply("tool_request", f"try {i}", calls=[call(f"c{i}", a=1, b=2)]) for i in range(5)]
    outcome, model = run(same)
    assert outcome.termination is Termination.LOOP_DETECTED
    assert len(model.calls) == 3
    assert len(outcome.tool_runs) == 2
    assert outcome.text == "try 2"
    assert set(results_of(outcome.messages)) == {"c0", "c1"}


def test_loop_detection_ignores_key_order_and_distinct_calls() -> None:
    """Argument order does not matter; different arguments do not count as a loop."""
    mixed = [
        reply("tool_request", calls=[{"id": "1", "name": "add", "args": {"a": 1, "b": 2}}]),
        reply("tool_request", calls=[{"id": "2", "name": "add", "args": {"b": 2, "a": 1}}]),
        reply("tool_request", calls=[call("3", a=5, b=5)]),
        reply("completed", "fine"),
    ]
    outcome, _ = run(mixed)
    assert outcome.termination is Termination.COMPLETED
    outcome, _ = run([*mixed[:2], mixed[0], reply("completed")])
    assert outcome.termination is Termination.LOOP_DETECTED


# --- empty final answer, events -------------------------------------------------------------


def test_empty_final_answer_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    """An empty final answer is logged at INFO with termination, turn and tool-call count."""
    events: list[Any] = []
    with caplog.at_level(logging.INFO, logger="stopkit.loop"):
        outcome, _ = run(
            [reply("tool_request", calls=[call("c", a=1, b=1)]), reply("completed", "")],
            on_event=events.append,
        )
    assert outcome.text == ""
    assert outcome.termination is Termination.COMPLETED
    assert "empty final answer (termination completed, turn 2, 1 tool calls)" in caplog.text
    assert events[-1] == stopkit.loop.events.LoopEnded(Termination.COMPLETED, 2, 1, True)


def test_synthesize_on_empty_final() -> None:
    """Opt-in: one extra call, tool_choice='none', asks the model to sum up; its text is used."""
    outcome, model = run(
        [
            reply("tool_request", calls=[call("c", a=1, b=1)]),
            reply("completed", ""),
            reply("completed", "I added 1 and 1: 2."),
        ],
        synthesize_on_empty_final=True,
        overrides={"max_tokens": 50},
    )
    assert outcome.text == "I added 1 and 1: 2."
    assert outcome.turns == 3
    assert model.calls[2].overrides == {"max_tokens": 50, "tool_choice": "none"}
    assert model.calls[2].messages[-1] == {"role": "user", "content": SYNTHESIZE_PROMPT}
    assert outcome.messages[-1]["reply"]["text"] == "I added 1 and 1: 2."


def test_no_synthesis_after_filtered() -> None:
    """The summing-up call is never made after a filtered reply."""
    outcome, model = run(
        [reply("filtered", detail="refusal"), reply("completed", "x")],
        synthesize_on_empty_final=True,
    )
    assert outcome.text == ""
    assert model.remaining == 1


def test_events_in_order() -> None:
    """on_event receives typed events for every step, in order."""
    events: list[Any] = []
    run(
        [reply("tool_request", calls=[call("c", a=1, b=1)]), reply("filtered", detail="safety")],
        on_event=events.append,
        on_escalate=lambda e: None,
    )
    kinds = [type(e).__name__ for e in events]
    assert kinds == [
        "TurnStarted", "ModelReplied", "ToolCalled", "ToolReturned", "TurnStarted",
        "ModelReplied", "Escalated", "LoopEnded",
    ]  # fmt: skip
    assert events[1].stop.reason is StopReason.TOOL_REQUEST
    assert events[3].result.content == "2"
    assert events[-1].termination is Termination.FILTERED


# --- handler table and actions --------------------------------------------------------------


def test_handler_table_missing_a_reason_raises_naming_it() -> None:
    """A table without every reason is refused at construction, naming what is missing."""
    table = {k: v for k, v in DEFAULT_HANDLERS.items() if k is not StopReason.PAUSED}
    with pytest.raises(ValueError, match="no handler for: paused"):
        stopkit.Loop(ScriptedModel([]), handlers=table)
    with pytest.raises(TypeError, match="the handler for filtered is not callable"):
        stopkit.Loop(ScriptedModel([]), handlers={**DEFAULT_HANDLERS, "filtered": "nope"})


def test_default_handlers_are_read_only() -> None:
    """DEFAULT_HANDLERS cannot be changed in place; merging is the way."""
    with pytest.raises(TypeError):
        DEFAULT_HANDLERS[StopReason.FILTERED] = stopkit.loop.finish_truncated  # type: ignore[index]
    assert set(DEFAULT_HANDLERS) == set(StopReason)


def test_overridden_handler_sees_the_context() -> None:
    """A user handler gets the stop, messages, turn, overrides, adapter and input."""
    seen: list[LoopContext] = []

    def mine(ctx: LoopContext) -> stopkit.loop.Action:
        seen.append(ctx)
        return Finish(text="handled", termination=Termination.COMPLETED)

    outcome, _ = run(
        [reply("filtered", "no", detail="refusal")],
        handlers={**DEFAULT_HANDLERS, StopReason.FILTERED: mine},
        overrides={"temperature": 1},
    )
    ctx = seen[0]
    assert (ctx.turn, ctx.overrides, ctx.adapter, ctx.input) == (
        1,
        {"temperature": 1},
        FAKE,
        (USER,),
    )
    assert ctx.stop.detail == "refusal"
    assert list(ctx.messages) == [USER]
    assert outcome.text == "handled"
    assert outcome.termination is Termination.COMPLETED


def test_retry_with_identical_overrides_ends_the_run(caplog: pytest.LogCaptureFixture) -> None:
    """A handler retrying with overrides already tried cannot spin: the run ends."""
    handlers = {**DEFAULT_HANDLERS, StopReason.UNKNOWN: lambda ctx: Retry({"seed": 1})}
    outcome, model = run(
        [reply("unknown"), reply("unknown"), reply("completed")], handlers=handlers
    )
    assert [c.overrides for c in model.calls] == [{}, {"seed": 1}]
    assert outcome.termination is Termination.UNKNOWN
    assert "already tried" in caplog.text


def test_handler_returning_junk_raises() -> None:
    """A handler must return one of the four actions."""
    handlers = {**DEFAULT_HANDLERS, StopReason.COMPLETED: lambda ctx: "done"}
    with pytest.raises(TypeError, match="Continue, Retry, Finish or Escalate"):
        run([reply("completed")], handlers=handlers)


def test_handler_can_continue_with_its_own_messages() -> None:
    """Continue appends the handler's messages and calls again."""
    nudge = {"role": "user", "content": "go on"}

    def once(ctx: LoopContext) -> stopkit.loop.Action:
        return Continue([nudge]) if ctx.turn == 1 else Finish()

    outcome, model = run(
        [reply("stop_sequence", "a"), reply("stop_sequence", "b")],
        handlers={**DEFAULT_HANDLERS, StopReason.STOP_SEQUENCE: once},
    )
    assert model.calls[1].messages == (USER, nudge)
    assert outcome.termination is Termination.STOP_SEQUENCE
    assert outcome.text == "b"


def test_tools_must_be_a_mapping_of_callables() -> None:
    """A tool that is not callable is refused at construction."""
    with pytest.raises(TypeError, match="'add'"):
        stopkit.Loop(ScriptedModel([]), tools={"add": 3})


# --- adapters, call_model, ScriptedModel ----------------------------------------------------


def test_adapter_detected_from_first_reply() -> None:
    """Without adapter=, the first reply picks it (a registered adapter here)."""
    stopkit.register_adapter(FAKE)
    try:
        outcome = stopkit.run_loop(ScriptedModel([reply("completed", "hi")]), [USER])
    finally:
        stopkit.unregister_adapter("fake")
    assert outcome.text == "hi"
    assert outcome.stop is not None
    assert outcome.stop.provider == "fake"


def test_async_call_model_in_run_loop_is_a_type_error() -> None:
    """run_loop refuses an async call_model with a pointer to arun_loop."""
    model = ScriptedModel([reply("completed")])
    with pytest.raises(TypeError, match="arun_loop"):
        stopkit.run_loop(model.acall, [USER], adapter=FAKE)
    with pytest.raises(TypeError, match="arun_loop"):
        stopkit.run_loop(lambda m, **kw: model.acall(m, **kw), [USER], adapter=FAKE)


def test_model_errors_raise_model_call_error() -> None:
    """An exception from call_model (an HTTP error) raises ModelCallError, the error its cause."""
    with pytest.raises(stopkit.ModelCallError) as caught:
        run([ConnectionError("down")])
    assert isinstance(caught.value.__cause__, ConnectionError)
    assert str(caught.value.__cause__) == "down"
    assert caught.value.outcome.termination is Termination.MODEL_ERROR


def test_scripted_model_exhausted() -> None:
    """A call past the end of the script raises ScriptExhausted, saying how many replies it has."""
    model = ScriptedModel([reply("completed")])
    model([USER])
    with pytest.raises(ScriptExhausted, match="call 2 was made but the script has only 1"):
        model([USER], max_tokens=3)
    assert len(model.calls) == 2
    assert model.calls[1].overrides == {"max_tokens": 3}


def test_scripted_model_snapshots_messages() -> None:
    """Each recorded call keeps the messages as they were, not the list the loop keeps growing."""
    messages = [USER]
    model = ScriptedModel([1, 2])
    model(messages)
    messages.append({"role": "assistant"})
    model(messages)
    assert [len(c.messages) for c in model.calls] == [1, 2]


# --- async ----------------------------------------------------------------------------------


class Gate:
    """Opens once `parties` tools have arrived: proof that they run at the same time.

    A tool run one after another with the others would wait alone until `timeout` and fail
    (an error result), so a test passing through a gate proves concurrency without timing it.
    Works for async tools (`await gate.apass()`) and sync tools in threads (`gate.pass_()`).
    """

    def __init__(self, parties: int, timeout: float = 5.0) -> None:
        self.parties = parties
        self.timeout = timeout
        self.arrived = 0
        self.lock = threading.Lock()
        self.opened = threading.Event()

    def _arrive(self) -> None:
        with self.lock:
            self.arrived += 1
            if self.arrived >= self.parties:
                self.opened.set()

    def pass_(self) -> None:
        self._arrive()
        if not self.opened.wait(self.timeout):
            raise TimeoutError(f"only {self.arrived} of {self.parties} tools ever ran at once")

    async def apass(self) -> None:
        self._arrive()
        waited = 0.0
        while not self.opened.is_set():  # polled: the other parties may be threads
            if waited >= self.timeout:
                raise TimeoutError(f"only {self.arrived} of {self.parties} tools ever ran at once")
            await asyncio.sleep(0.001)
            waited += 0.001


async def test_arun_runs_calls_concurrently() -> None:
    """arun_loop runs the calls of a turn at the same time; sync tools in threads."""
    gate = Gate(3)

    async def slow_async(x: int) -> int:
        await gate.apass()
        return x

    def slow_sync(x: int) -> int:
        gate.pass_()
        return x

    model = ScriptedModel(
        [
            reply(
                "tool_request",
                calls=[
                    call("1", "a", x=1),
                    call("2", "s", x=2),
                    call("3", "a", x=3),
                    call("4", "boom"),
                ],
            ),
            reply("completed", "ok"),
        ]
    )
    outcome = await stopkit.arun_loop(
        model.acall, [USER], adapter=FAKE, tools={"a": slow_async, "s": slow_sync, "boom": boom}
    )
    assert gate.arrived == 3
    assert [r.result.content for r in outcome.tool_runs if r.call.id != "4"] == ["1", "2", "3"]
    assert [m["call_id"] for m in outcome.messages if m.get("role") == "tool"] == list("1234")
    assert outcome.tool_runs[-1].result.content == "ValueError: boom"


async def test_arun_timeouts_and_deadline() -> None:
    """In arun_loop, a slow tool is cut by tool_timeout, and the deadline ends the run."""

    async def forever() -> None:
        await asyncio.sleep(10)

    model = ScriptedModel(
        [
            reply("tool_request", "w", calls=[call("1", "f"), call("2", "add", a=1, b=1)]),
            reply("completed", "late"),
        ]
    )
    outcome = await stopkit.arun_loop(
        model, [USER], adapter=FAKE, tools={"f": forever, "add": add}, deadline=0.1
    )
    assert outcome.termination is Termination.DEADLINE
    assert outcome.text == "w"
    assert [r.result.content[:16] for r in outcome.tool_runs] == ["timed out after ", "2"]


async def test_arun_async_handler_and_every_path() -> None:
    """arun_loop awaits async handlers, retries, resumes, and escalates like run_loop."""

    async def polite(ctx: LoopContext) -> stopkit.loop.Action:
        await asyncio.sleep(0)
        return Finish(text="sorry", termination=Termination.FILTERED)

    model = ScriptedModel(
        [
            reply("output_limit", detail="max_tokens"),
            reply("paused", id="p"),
            reply("tool_request", calls=[call("c", a=2, b=2)]),
            reply("filtered", detail="safety"),
            reply("completed", "never"),
        ]
    )
    outcome = await stopkit.arun_loop(
        model.acall,
        [USER],
        adapter=FAKE,
        tools={"add": add},
        max_tokens=8,
        handlers={**DEFAULT_HANDLERS, StopReason.FILTERED: polite},
    )
    assert (outcome.text, outcome.termination, model.remaining) == ("sorry", "filtered", 1)
    assert [c.overrides for c in model.calls] == [
        {"max_tokens": 8}, {"max_tokens": 16}, {"max_tokens": 16, "resume_id": "p"},
        {"max_tokens": 16},
    ]  # fmt: skip


async def test_arun_synthesize() -> None:
    """The summing-up call works in arun_loop too."""
    model = ScriptedModel([reply("completed", ""), reply("completed", "summary")])
    outcome = await stopkit.arun_loop(
        model.acall, [USER], adapter=FAKE, synthesize_on_empty_final=True
    )
    assert outcome.text == "summary"
    assert model.calls[1].overrides == {"tool_choice": "none"}


def test_run_tools_in_async_context_is_refused() -> None:
    """ctx.run_tools in arun_loop points to arun_tools."""

    def sync_only(ctx: LoopContext) -> stopkit.loop.Action:
        ctx.run_tools()
        return Finish()

    model = ScriptedModel([reply("tool_request", calls=[call("c", a=1, b=1)])])
    with pytest.raises(TypeError, match="arun_tools"):
        asyncio.run(
            stopkit.arun_loop(
                model, [USER], adapter=FAKE,
                handlers={**DEFAULT_HANDLERS, StopReason.TOOL_REQUEST: sync_only},
            )
        )  # fmt: skip


def test_pause_that_cannot_be_resumed_is_escalated() -> None:
    """An adapter whose resume() refuses the stop makes the run escalate, not crash."""

    class NoResume(FakeAdapter):
        def resume(self, stop: Stop) -> tuple[list[dict[str, Any]], dict[str, Any]]:
            raise ValueError("no continuation token")

    outcome, model = run([reply("paused"), reply("completed")], adapter=NoResume())
    assert outcome.termination is Termination.UNKNOWN
    assert outcome.escalation is not None
    assert outcome.escalation.reason == "paused, cannot resume: no continuation token"
    assert model.remaining == 1


def test_offline_example_runs() -> None:
    """examples/loop_offline.py runs offline and ends with the scripted answer."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parents[2] / "examples" / "loop_offline.py"
    out = subprocess.run(
        [sys.executable, str(script)], check=True, capture_output=True, text=True, timeout=60
    ).stdout
    assert "termination: completed" in out
    assert "-> error: ValueError: a radius cannot be negative" in out
    assert "{'max_tokens': 2048}" in out


def test_approval_handler_runs_only_approved_calls() -> None:
    """A tool_request handler can run a subset and answer the rest itself, one result per call."""

    def approve(ctx: LoopContext) -> stopkit.loop.Action:
        allowed = [c for c in ctx.stop.tool_calls if c.name != "boom"]
        denied = [
            ToolResult(call_id=c.id, name=c.name, content="denied by policy", is_error=True)
            for c in ctx.stop.tool_calls
            if c.name == "boom"
        ]
        return ctx.continue_with_results([*ctx.run_tools(allowed), *denied])

    outcome, model = run(
        [
            reply("tool_request", calls=[call("a", a=1, b=1), call("b", "boom")]),
            reply("completed", "ok"),
        ],
        handlers={**DEFAULT_HANDLERS, StopReason.TOOL_REQUEST: approve},
    )
    assert [r.call.id for r in outcome.tool_runs] == ["a"]
    sent = [m for m in model.calls[1].messages if m.get("role") == "tool"]
    assert [(m["call_id"], m["content"]) for m in sent] == [("a", "2"), ("b", "denied by policy")]
