"""The before-call hooks: `before_model_call(ctx)` and `before_tool_call(call, ctx)`.

Each runs before its call (sync, or async in `arun_loop`); raising stops the run cleanly
(`stopped_by_hook`, the reason on the outcome); the time it takes is the run's (`deadline`).
Scripted runs over the real adapters (`tests/loop/_shapes.py`).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

import stopkit
import stopkit.loop
from stopkit import Termination, ToolCall
from stopkit.loop import ModelCallContext, RetryPolicy
from stopkit.loop.events import HookStopped
from stopkit.testing import ScriptedModel
from tests.loop._controls import MODES, Counted, loop
from tests.loop._fake import arun
from tests.loop._shapes import (
    PROVIDERS,
    Shapes,
    assert_every_call_answered_once,
    get_weather,
    paris,
    tokyo,
)


def two_turns(p: Shapes) -> list[dict[str, Any]]:
    return [p.tools([paris()], "Checking Paris."), p.tools([tokyo()], "Now Tokyo."), p.text("Ok.")]


@pytest.mark.parametrize("mode", MODES)
def test_before_model_call_sees_each_call_before_it_is_made(mode: str, p: Shapes) -> None:
    """The hook gets the turn, the messages to be sent and what was spent so far."""
    seen: list[tuple[int, int, int, int]] = []
    model_calls: list[int] = []

    def before_model_call(ctx: ModelCallContext) -> None:
        seen.append((ctx.turn, ctx.attempt, len(ctx.messages), ctx.spent.tokens))
        model_calls.append(len(model.calls))

    async def abefore_model_call(ctx: ModelCallContext) -> None:
        await asyncio.sleep(0)
        before_model_call(ctx)

    model = ScriptedModel(two_turns(p))
    hook = before_model_call if mode == "run_loop" else abefore_model_call
    if mode == "run_loop":
        outcome = stopkit.run_loop(
            model, [p.user], tools={"get_weather": get_weather}, before_model_call=hook
        )
    else:
        outcome = arun(
            stopkit.arun_loop(
                model.acall, [p.user], tools={"get_weather": get_weather}, before_model_call=hook
            )
        )
    assert outcome.termination is Termination.COMPLETED
    assert [(turn, attempt, spent) for turn, attempt, _, spent in seen] == [
        (1, 1, 0),
        (2, 1, 15),
        (3, 1, 30),
    ]
    assert [len(call.messages) for call in model.calls] == [n for _, _, n, _ in seen]
    assert model_calls == [0, 1, 2]  # each time before the call was made


def test_before_model_call_is_asked_before_each_try() -> None:
    """Under a retry policy every try passes the hook (a rate limiter counts each request)."""
    p = PROVIDERS[0]
    attempts: list[tuple[int, int]] = []
    script = [ConnectionResetError("reset"), p.text("Hi.")]
    outcome, _, _ = loop(
        "run_loop",
        p,
        script,
        before_model_call=lambda ctx: attempts.append((ctx.turn, ctx.attempt)),
        retry=RetryPolicy(attempts=2, backoff=0, retry_on=(ConnectionResetError,)),
    )
    assert outcome.termination is Termination.COMPLETED
    assert attempts == [(1, 1), (1, 2)]


@pytest.mark.parametrize("mode", MODES)
def test_a_raising_before_model_call_stops_the_run_with_its_reason(mode: str, p: Shapes) -> None:
    """Raising before the second call: no call made, `stopped_by_hook`, the error kept."""
    quota = RuntimeError("the team's quota is spent")

    def before_model_call(ctx: ModelCallContext) -> None:
        if ctx.turn == 2:
            raise quota

    outcome, model, events = loop(
        mode,
        p,
        two_turns(p),
        tools={"get_weather": get_weather},
        before_model_call=before_model_call,
    )
    assert outcome.termination is Termination.STOPPED_BY_HOOK
    assert len(model.calls) == 1
    assert outcome.turns == 1
    stopped = outcome.stopped_by
    assert stopped is not None
    assert (stopped.hook, stopped.error, stopped.call, stopped.turn) == (
        "before_model_call",
        quota,
        None,
        2,
    )
    assert stopped.reason == "before_model_call raised RuntimeError: the team's quota is spent"
    assert [e for e in events if isinstance(e, HookStopped)] == [stopped]
    assert outcome.text == "Checking Paris."  # salvaged from the last reply
    assert_every_call_answered_once(p, outcome)  # the first turn, answered, is kept


@pytest.mark.parametrize("mode", MODES)
def test_before_tool_call_runs_before_each_tool(mode: str, p: Shapes) -> None:
    """The hook gets each call and the handler's context before the tool runs."""
    tool = Counted()
    seen: list[tuple[str, int, int]] = []

    def before_tool_call(call: ToolCall, ctx: stopkit.loop.LoopContext) -> None:
        seen.append((call.id, ctx.turn, len(tool.cities)))

    outcome, _, _ = loop(
        mode, p, two_turns(p), tools={"get_weather": tool}, before_tool_call=before_tool_call
    )
    assert outcome.termination is Termination.COMPLETED
    assert seen == [("call_p", 1, 0), ("call_t", 2, 1)]


@pytest.mark.parametrize("mode", MODES)
def test_a_raising_before_tool_call_stops_the_run(mode: str, p: Shapes) -> None:
    """The hook refuses Tokyo: that call does not run, the run stops, the reason is kept."""
    tool = Counted()

    def before_tool_call(call: ToolCall, ctx: stopkit.loop.LoopContext) -> None:
        if call.arguments["city"] == "Tokyo":
            raise PermissionError("no Tokyo today")

    outcome, model, _ = loop(
        mode,
        p,
        [p.tools([paris(), tokyo()], "Both."), p.text("Ok.")],
        tools={"get_weather": tool},
        before_tool_call=before_tool_call,
    )
    assert outcome.termination is Termination.STOPPED_BY_HOOK
    assert len(model.calls) == 1
    assert tool.cities == ["Paris"]
    assert outcome.stopped_by is not None
    assert outcome.stopped_by.hook == "before_tool_call"
    assert outcome.stopped_by.call is not None
    assert outcome.stopped_by.call.id == "call_t"
    assert outcome.stopped_by.reason == "before_tool_call raised PermissionError: no Tokyo today"
    tokyo_run = [run for run in outcome.tool_runs if run.call.id == "call_t"]
    assert tokyo_run[0].result.is_error
    assert "not run: the run was stopped" in tokyo_run[0].result.content
    # The reply with its calls is not in the transcript: the model is never sent it.
    assert outcome.messages == [p.user]
    assert outcome.text == "Both."


def test_after_a_hook_stopped_the_run_the_later_calls_do_not_run() -> None:
    """In `run_loop` the calls after the refused one are answered `not run`, never run."""
    p = PROVIDERS[0]
    tool = Counted()

    def before_tool_call(call: ToolCall, ctx: stopkit.loop.LoopContext) -> None:
        if call.id == "c1":
            raise PermissionError("stop")

    calls = [("c1", "get_weather", {"city": "Paris"}), ("c2", "get_weather", {"city": "Tokyo"})]
    outcome, _, _ = loop(
        "run_loop", p, [p.tools(calls)], tools={"get_weather": tool},
        before_tool_call=before_tool_call,
    )  # fmt: skip
    assert tool.cities == []
    assert [run.result.content[:30] for run in outcome.tool_runs] == [
        "not run: the run was stopped (",
        "not run: the run was stopped (",
    ]


@pytest.mark.parametrize("hook", ["before_model_call", "before_tool_call", "approve"])
def test_an_async_hook_in_run_loop_is_a_type_error_naming_it(hook: str) -> None:
    """`run_loop` cannot await a hook: a TypeError naming the setting and `arun_loop`."""
    p = PROVIDERS[0]

    async def async_hook(*args: Any) -> bool:
        return True

    with pytest.raises(TypeError, match=rf"{hook} is async: use `await stopkit.arun_loop"):
        loop("run_loop", p, two_turns(p), tools={"get_weather": get_weather}, **{hook: async_hook})


@pytest.mark.parametrize("hook", ["before_model_call", "before_tool_call", "approve"])
def test_a_hook_that_is_not_callable_is_refused(hook: str) -> None:
    """A hook must be callable: a TypeError at construction naming it."""
    with pytest.raises(TypeError, match=hook):
        stopkit.LoopSettings(**{hook: "yes"})


def test_a_sync_hook_past_the_deadline_ends_the_run_before_the_call() -> None:
    """A hook that waits past the deadline: the run ends `deadline`, the model is not called."""
    p = PROVIDERS[1]
    waited = threading.Event()

    def slow_limiter(ctx: ModelCallContext) -> None:
        waited.wait(0.3)

    outcome, model, _ = loop("run_loop", p, [p.text("Hi.")], before_model_call=slow_limiter,
                             deadline=0.05)  # fmt: skip
    assert (outcome.termination, len(model.calls), outcome.turns) == (Termination.DEADLINE, 0, 0)


def test_an_async_hook_is_cut_at_the_deadline() -> None:
    """An async hook still waiting at the deadline is cancelled; the run ends `deadline`."""
    p = PROVIDERS[2]
    cancelled: list[bool] = []

    async def never(ctx: ModelCallContext) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    outcome, model, _ = loop("arun_loop", p, [p.text("Hi.")], before_model_call=never,
                             deadline=0.05)  # fmt: skip
    assert (outcome.termination, len(model.calls)) == (Termination.DEADLINE, 0)
    assert cancelled == [True]


@pytest.mark.parametrize("mode", MODES)
def test_a_tool_hook_past_the_deadline_leaves_its_call_unrun(mode: str) -> None:
    """`before_tool_call` waiting past the deadline: the call is answered, not run; run ends."""
    p = PROVIDERS[3]
    tool = Counted()

    async def slow_async(call: ToolCall, ctx: stopkit.loop.LoopContext) -> None:
        await asyncio.sleep(1.0)

    def slow(call: ToolCall, ctx: stopkit.loop.LoopContext) -> None:
        threading.Event().wait(1.0)

    outcome, model, _ = loop(
        mode,
        p,
        [p.tools([paris()]), p.text("Ok.")],
        tools={"get_weather": tool},
        before_tool_call=slow if mode == "run_loop" else slow_async,
        deadline=0.5,  # room for the first turn on a loaded machine; the hook outlasts it
    )
    assert outcome.termination is Termination.DEADLINE
    assert tool.cities == []
    assert outcome.tool_runs[0].result.content == "not run: the run's deadline has passed"
    assert len(model.calls) == 1
