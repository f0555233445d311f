"""Deferring a tool call to a person (`stopkit.loop.Defer`), and resuming the run from its outcome.

A deferred run ends `awaiting_approval`, its pending calls listed; `resume_loop(outcome,
approvals)` goes on from exactly there: the paused turn's reply is not asked for again, the
calls that ran are not run again, and the run ends as one that was never interrupted, given the
same decisions. Scripted runs over the real adapters (`tests/loop/_shapes.py`); resuming a
journaled run is in `tests/loop/journal/test_approval.py`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import pytest

import stopkit
import stopkit.loop
from stopkit import Termination, ToolCall
from stopkit.loop import Defer
from stopkit.loop.events import LoopEnded, LoopEvent, ToolDeferred
from stopkit.testing import ScriptedModel
from tests.loop._controls import MODES, ROME, Counted, drive
from tests.loop._fake import arun
from tests.loop._shapes import (
    PROVIDERS,
    Shapes,
    assert_every_call_answered_once,
    paris,
    tokyo,
)


def script_of(p: Shapes) -> list[dict[str, Any]]:
    """Paris and Tokyo asked together, then Rome, then the answer."""
    return [
        p.tools([paris(), tokyo()], "Checking both."),
        p.tools([ROME], "And Rome."),
        p.text("Paris 18 °C, Rome 21 °C."),
    ]


def defer_tokyo(call: ToolCall) -> bool | Defer:
    """Tokyo needs a person; everything else is allowed."""
    return Defer("Tokyo is a long way") if call.arguments["city"] == "Tokyo" else True


def deciding(decisions: Mapping[str, bool | str]) -> Callable[[ToolCall], bool | str]:
    """An `approve` that decides at once what the person decided later."""
    return lambda call: decisions.get(call.id, True)


def start(
    mode: str, model: ScriptedModel, p: Shapes, approve: Any, **settings: Any
) -> stopkit.Outcome:
    """Run from the provider's user message with `approve`."""
    settings = {"tools": {"get_weather": settings.pop("tool", Counted())}, **settings}
    return drive(mode, model, [p.user], approve=approve, **settings)[0]


def resume(mode: str, outcome: stopkit.Outcome, approvals: Any) -> stopkit.Outcome:
    """Resume `outcome` the way its run was made."""
    if mode == "run_loop":
        return stopkit.resume_loop(outcome, approvals)
    return arun(stopkit.aresume_loop(outcome, approvals))


def same_run(a: stopkit.Outcome, b: stopkit.Outcome) -> None:
    """Assert two outcomes tell the same run (tool timings aside)."""
    assert (a.termination, a.text, a.turns, a.messages) == (b.termination, b.text, b.turns,
                                                            b.messages)  # fmt: skip
    assert [(r.call, r.result, r.turn) for r in a.tool_runs] == [
        (r.call, r.result, r.turn) for r in b.tool_runs
    ]
    # What the run cost: the paused turn's reply counted once, as in the uninterrupted run.
    assert (a.usage, a.wasted_usage) == (b.usage, b.wasted_usage)


@pytest.mark.parametrize("mode", MODES)
def test_a_deferred_call_ends_the_run_awaiting_approval(mode: str, p: Shapes) -> None:
    """Tokyo deferred: Paris runs, the run ends with Tokyo pending and the reply held back."""
    model = ScriptedModel(script_of(p))
    tool = Counted()
    events: list[LoopEvent] = []
    outcome = start(mode, model, p, defer_tokyo, tool=tool, on_event=events.append)
    assert outcome.termination is Termination.AWAITING_APPROVAL
    assert [call.id for call in outcome.pending_calls] == ["call_t"]
    assert tool.cities == ["Paris"]
    assert [run.call.id for run in outcome.tool_runs] == ["call_p"]
    assert outcome.messages == [p.user]  # the reply waits with its calls
    assert outcome.text == "Checking both."
    assert (outcome.turns, len(model.calls), outcome.ok) == (1, 1, False)
    deferred = [(e.call.id, e.reason) for e in events if isinstance(e, ToolDeferred)]
    assert deferred == [("call_t", "Tokyo is a long way")]
    assert isinstance(events[-1], LoopEnded)
    assert events[-1].termination is Termination.AWAITING_APPROVAL


@pytest.mark.parametrize("decision", [True, False, "too far"], ids=["approved", "false", "str"])
@pytest.mark.parametrize("mode", MODES)
def test_resuming_ends_as_the_uninterrupted_run_with_one_call_less(
    mode: str, p: Shapes, decision: bool | str
) -> None:
    """Resumed with a decision: the outcome of a run that had the decision at once.

    The paused turn's model call is not made again (one call fewer than a rerun), and Paris,
    which ran before the pause, ran once.
    """
    whole_model = ScriptedModel(script_of(p))
    whole = start(mode, whole_model, p, deciding({"call_t": decision}))

    model = ScriptedModel(script_of(p))
    tool = Counted()
    paused = start(mode, model, p, defer_tokyo, tool=tool)
    calls_before = len(model.calls)
    resumed = resume(mode, paused, {"call_t": decision})

    same_run(resumed, whole)
    assert resumed.termination is Termination.COMPLETED
    assert len(model.calls) - calls_before == len(whole_model.calls) - 1
    assert [c.messages for c in model.calls] == [c.messages for c in whole_model.calls]
    assert tool.cities == (["Paris", "Tokyo", "Rome"] if decision is True else ["Paris", "Rome"])
    assert_every_call_answered_once(p, resumed)
    if decision is not True:
        tokyo_run = next(run for run in resumed.tool_runs if run.call.id == "call_t")
        reason = "not approved" if decision is False else decision
        assert (tokyo_run.result.content, tokyo_run.result.is_error) == (f"denied: {reason}", True)


@pytest.mark.parametrize("mode", MODES)
def test_a_run_deferred_in_a_later_turn_resumes_there(mode: str) -> None:
    """Deferred at turn 2 (Rome): the resumed run starts at that turn, counters carried over."""
    p = PROVIDERS[0]

    def defer_rome(call: ToolCall) -> bool | Defer:
        return Defer() if call.id == "call_r" else True

    whole_model = ScriptedModel(script_of(p))
    whole = start(mode, whole_model, p, deciding({}))
    model = ScriptedModel(script_of(p))
    paused = start(mode, model, p, defer_rome)
    assert (paused.turns, [c.id for c in paused.pending_calls]) == (2, ["call_r"])
    resumed = resume(mode, paused, {"call_r": True})
    same_run(resumed, whole)
    assert len(model.calls) == len(whole_model.calls) == 3


@pytest.mark.parametrize("mode", MODES)
def test_an_outcome_resumes_once_and_a_second_resume_names_the_run(mode: str) -> None:
    """One approval, one call: a second resume of the same outcome raises `AlreadyResumed`.

    It raises whatever the second decision is, before anything runs; a copy of the outcome
    is the same paused run. The outcome itself is left as it was.
    """
    p = PROVIDERS[1]
    tool = Counted()
    model = ScriptedModel(script_of(p))
    paused = start(mode, model, p, defer_tokyo, tool=tool)
    resumed = resume(mode, paused, {"call_t": True})
    calls = len(model.calls)
    for again, decision in ((paused, True), (paused, "no"), (dataclasses.replace(paused), True)):
        with pytest.raises(stopkit.loop.AlreadyResumed, match=r"awaiting approval of get_weather "
                           r"\(call_t\) was resumed already") as raised:  # fmt: skip
            resume(mode, again, {"call_t": decision})
        assert raised.value.run_id is None
    assert tool.cities == ["Paris", "Tokyo", "Rome"]  # Tokyo once
    assert len(model.calls) == calls
    assert resumed.termination is Termination.COMPLETED
    assert paused.termination is Termination.AWAITING_APPROVAL


def test_a_bad_decision_does_not_use_the_resume_up() -> None:
    """A resume refused for its approvals leaves the outcome resumable."""
    paused = _paused()
    with pytest.raises(ValueError, match="no decision"):
        stopkit.resume_loop(paused, {})
    assert stopkit.resume_loop(paused, {"call_t": True}).termination is Termination.COMPLETED


def test_concurrent_resumes_run_the_approved_call_once() -> None:
    """Two `aresume_loop`s of one outcome at once: one goes on, one raises; Tokyo runs once."""
    import asyncio

    p = PROVIDERS[0]
    tool = Counted()
    paused = start("arun_loop", ScriptedModel(script_of(p)), p, defer_tokyo, tool=tool)

    async def both() -> list[Any]:
        return await asyncio.gather(
            stopkit.aresume_loop(paused, {"call_t": True}),
            stopkit.aresume_loop(paused, {"call_t": True}),
            return_exceptions=True,
        )

    results = arun(both())
    assert sorted(type(r).__name__ for r in results) == ["AlreadyResumed", "Outcome"]
    assert tool.cities == ["Paris", "Tokyo", "Rome"]


def test_resumes_from_threads_run_the_approved_call_once() -> None:
    """`resume_loop` from several threads at once: exactly one resumes."""
    from concurrent.futures import ThreadPoolExecutor

    p = PROVIDERS[2]
    tool = Counted()
    paused = start("run_loop", ScriptedModel(script_of(p)), p, defer_tokyo, tool=tool)

    def resume_once(_: int) -> str:
        try:
            return type(stopkit.resume_loop(paused, {"call_t": True})).__name__
        except stopkit.loop.AlreadyResumed:
            return "AlreadyResumed"

    with ThreadPoolExecutor(4) as pool:
        results = sorted(pool.map(resume_once, range(4)))
    assert results == ["AlreadyResumed"] * 3 + ["Outcome"]
    assert tool.cities.count("Tokyo") == 1


def test_every_deferred_call_of_a_turn_is_pending() -> None:
    """Two of three deferred: both pending in the reply's order; the third ran."""
    p = PROVIDERS[3]
    tool = Counted()
    model = ScriptedModel([p.tools([paris(), tokyo(), ROME]), p.text("Done.")])
    outcome = start("run_loop", model, p, lambda call: True if call.id == "call_t" else Defer(),
                    tool=tool)  # fmt: skip
    assert [call.id for call in outcome.pending_calls] == ["call_p", "call_r"]
    assert tool.cities == ["Tokyo"]
    resumed = stopkit.resume_loop(outcome, {"call_p": True, "call_r": False})
    assert tool.cities == ["Tokyo", "Paris"]
    assert [run.call.id for run in resumed.tool_runs] == ["call_p", "call_t", "call_r"]
    assert resumed.termination is Termination.COMPLETED


def test_a_run_of_arun_loop_resumes_only_asynchronously() -> None:
    """An async `call_model` cannot be driven by `resume_loop`: a TypeError says what to use."""
    p = PROVIDERS[0]
    paused = start("arun_loop", ScriptedModel(script_of(p)), p, defer_tokyo)
    with pytest.raises(TypeError, match="aresume_loop"):
        stopkit.resume_loop(paused, {"call_t": True})


def _paused() -> stopkit.Outcome:
    p = PROVIDERS[0]
    return start("run_loop", ScriptedModel(script_of(p)), p, defer_tokyo)


@pytest.mark.parametrize(
    ("outcome", "approvals", "error", "names"),
    [
        (_paused, {}, ValueError, "no decision for the pending call.*call_t"),
        (_paused, {"call_t": True, "call_x": True}, ValueError, "'call_x' that are not pending"),
        (_paused, {"call_t": Defer()}, TypeError, "approvals maps call ids"),
        (_paused, {"call_t": None}, TypeError, "approvals maps call ids"),
        (_paused, ["call_t"], TypeError, "approvals must map"),
        (lambda: dataclasses.replace(_paused(), _paused=None), {"call_t": True}, ValueError,
         "carries no run to resume"),
        (lambda: dataclasses.replace(_paused(), termination=Termination.COMPLETED),
         {"call_t": True}, ValueError, "only a run awaiting approval"),
        (lambda: "an outcome", {"call_t": True}, TypeError, "takes the Outcome"),
    ],
    ids=["missing", "unknown-id", "defer", "none", "not-a-mapping", "copied", "finished",
         "not-an-outcome"],
)  # fmt: skip
def test_a_bad_resume_is_refused_naming_the_problem(
    outcome: Callable[[], Any], approvals: Any, error: type[Exception], names: str
) -> None:
    """resume_loop checks the outcome and that the approvals decide exactly the pending calls."""
    with pytest.raises(error, match=names):
        stopkit.resume_loop(outcome(), approvals)


def test_a_resumed_run_keeps_its_budget_tally() -> None:
    """The budget goes on from what the paused run spent: 30 of 30 after the resumed turn."""
    p = PROVIDERS[2]
    model = ScriptedModel(script_of(p))
    paused = start("run_loop", model, p, defer_tokyo, budget=stopkit.loop.Budget(max_tokens=30))
    resumed = stopkit.resume_loop(paused, {"call_t": True})
    assert resumed.termination is Termination.BUDGET_EXCEEDED
    assert len(model.calls) == 2


def test_the_pending_calls_are_the_replys_own() -> None:
    """`pending_calls` holds the reply's own `ToolCall` objects, in a tuple."""
    paused = _paused()
    assert paused.stop is not None
    assert type(paused.pending_calls) is tuple
    assert paused.pending_calls[0] is paused.stop.tool_calls[1]
