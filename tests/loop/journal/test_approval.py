"""A journaled run awaiting approval: kept as such, and resumed by a rerun or `resume_loop`.

The rerun of the same `run_id`, given the person's decisions (`approvals=`), replays the
journal up to the paused turn — its model call and the calls that ran are not made again —
and ends as an uninterrupted run with the same decisions. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

import stopkit
import stopkit.loop
from stopkit import Termination, ToolCall
from stopkit.loop import Defer, ModelCallContext
from stopkit.loop.journal import RunStatus
from tests.loop.journal._scenario import Trace, TurnModel, record_tool, summary

MODES = ["run_loop", "arun_loop"]
PENDING = "toolu_1_1"  # the second call of the first turn


def defer_one(call: ToolCall) -> bool | Defer:
    """The second call of the first turn needs a person; the rest is allowed."""
    return Defer("needs a look") if call.id == PENDING else True


def run(mode: str, trace: Trace, approve: Callable[[ToolCall], Any], **settings: Any) -> Any:
    """Two tool turns of two calls each, then the final answer; every call traced."""
    model = TurnModel(trace, turns=2, calls=2)
    settings = {"tools": {"record": record_tool(trace)}, "approve": approve, **settings}
    if mode == "run_loop":
        return stopkit.run_loop(model, "Record.", **settings)
    return asyncio.run(stopkit.arun_loop(model.acall, "Record.", **settings))


@pytest.mark.parametrize("decision", [True, "not this one"], ids=["approved", "denied"])
@pytest.mark.parametrize("mode", MODES)
def test_a_rerun_with_approvals_ends_as_the_uninterrupted_run(
    journal: Any, mode: str, decision: bool | str
) -> None:
    """Paused in turn 1 and rerun with the decision: the uninterrupted run's outcome.

    Turn 1's model call and its other call are replayed, not made again.
    """
    whole_trace = Trace()
    whole = run(mode, whole_trace, lambda call: decision if call.id == PENDING else True)

    first = Trace()
    paused = run(mode, first, defer_one, journal=journal, run_id="r1")
    assert paused.termination is Termination.AWAITING_APPROVAL
    assert [call.id for call in paused.pending_calls] == [PENDING]
    assert first.lines == ["model 1", "tool 1.0"]
    info = journal.run("r1")
    assert (info.status, info.termination) == (RunStatus.AWAITING_APPROVAL, "awaiting_approval")
    assert info.detail == f"awaiting approval of record ({PENDING})"

    again = Trace()
    resumed = run(mode, again, defer_one, journal=journal, run_id="r1",
                  approvals={PENDING: decision})  # fmt: skip
    assert summary(resumed) == summary(whole)
    # A naive rerun would call the model three times; the paused turn's call is replayed.
    model_calls = [line for line in again.lines if line.startswith("model")]
    assert model_calls == ["model 2", "model 3"]
    assert "tool 1.0" not in again.lines  # ran before the pause: replayed
    assert ("tool 1.1" in again.lines) is (decision is True)
    assert journal.run("r1").status is RunStatus.FINISHED


@pytest.mark.parametrize("mode", MODES)
def test_resume_loop_resumes_a_journaled_run_through_its_journal(journal: Any, mode: str) -> None:
    """`resume_loop` on a journaled outcome reruns the run id, with the same end."""
    whole = run(mode, Trace(), lambda call: True)
    trace = Trace()
    paused = run(mode, trace, defer_one, journal=journal, run_id="r2")
    if mode == "run_loop":
        resumed = stopkit.resume_loop(paused, {PENDING: True})
    else:
        resumed = asyncio.run(stopkit.aresume_loop(paused, {PENDING: True}))
    assert summary(resumed) == summary(whole)
    # Each call made once in all (the calls of a turn run concurrently in arun_loop).
    assert sorted(trace.lines) == ["model 1", "model 2", "model 3", "tool 1.0", "tool 1.1",
                                   "tool 2.0", "tool 2.1"]  # fmt: skip


def test_a_rerun_without_a_decision_waits_again_running_nothing_twice(journal: Any) -> None:
    """Rerun with no approval for the pending call: `approve` is asked again, nothing reruns."""
    run("run_loop", Trace(), defer_one, journal=journal, run_id="r3")
    asked: list[str] = []

    def approve(call: ToolCall) -> bool | Defer:
        asked.append(call.id)
        return defer_one(call)

    again = Trace()
    outcome = run("run_loop", again, approve, journal=journal, run_id="r3")
    assert outcome.termination is Termination.AWAITING_APPROVAL
    assert (again.lines, asked) == ([], [PENDING])


def test_replayed_model_calls_do_not_pass_before_model_call(journal: Any) -> None:
    """A replayed model call is not made, so the hook (a rate limiter) is not asked about it."""
    run("run_loop", Trace(), defer_one, journal=journal, run_id="r4")
    turns: list[int] = []

    def before_model_call(ctx: ModelCallContext) -> None:
        turns.append(ctx.turn)

    run("run_loop", Trace(), defer_one, journal=journal, run_id="r4",
        approvals={PENDING: True}, before_model_call=before_model_call)  # fmt: skip
    assert turns == [2, 3]


@pytest.mark.parametrize("mode", MODES)
def test_a_journaled_outcome_resumes_once(journal: Any, mode: str) -> None:
    """A second resume of a journaled outcome raises `AlreadyResumed` naming its run id."""
    trace = Trace()
    paused = run(mode, trace, defer_one, journal=journal, run_id="r5")
    resume = stopkit.resume_loop if mode == "run_loop" else (
        lambda outcome, approvals: asyncio.run(stopkit.aresume_loop(outcome, approvals))
    )  # fmt: skip
    resume(paused, {PENDING: True})
    with pytest.raises(stopkit.loop.AlreadyResumed, match="run 'r5'") as raised:
        resume(paused, {PENDING: True})
    assert raised.value.run_id == "r5"
    assert trace.lines.count("tool 1.1") == 1
    assert journal.run("r5").status is RunStatus.FINISHED


def charging(trace: Trace, interrupt: bool) -> Any:
    """A `record` that moves money: not idempotent; `interrupt` stops the process mid-call."""

    @stopkit.tool(idempotent=False)
    def record(turn: int, i: int) -> str:
        trace.add(f"transfer {turn}.{i}")
        if interrupt:
            raise KeyboardInterrupt
        return f"sent {turn}.{i}"

    return record


@pytest.mark.parametrize("crash", [False, True], ids=["finished", "crashed-in-the-call"])
def test_an_approval_given_to_reruns_moves_money_once(journal: Any, crash: bool) -> None:
    """The same approvals given to every rerun: the approved transfer happens once.

    Once it ran, a rerun replays its result; once it started and the process stopped, a rerun
    stops as needs_attention (it may or may not have happened) instead of sending it again.
    """
    trace = Trace()
    settings = {"journal": journal, "run_id": "pay", "on_escalate": lambda escalation: None}

    def go(interrupt: bool = False, **more: Any) -> Any:
        model = TurnModel(trace, turns=1, calls=1)
        return stopkit.run_loop(model, "Pay.", tools={"record": charging(trace, interrupt)},
                                **settings, **more)  # fmt: skip

    assert go(approve=lambda call: Defer()).termination is Termination.AWAITING_APPROVAL
    approvals = {"toolu_1_0": True}
    if crash:
        with pytest.raises(KeyboardInterrupt):
            go(interrupt=True, approvals=approvals)
    ends = {go(approvals=approvals).termination for _ in range(2)}
    assert ends == {Termination.NEEDS_ATTENTION if crash else Termination.COMPLETED}
    assert trace.lines.count("transfer 1.0") == 1
