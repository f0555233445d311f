"""The DBOS workflows the DBOS tests run in their own process (DBOS on a SQLite file).

Importing this module registers them with DBOS, which must happen before `DBOS.launch()`.
Each workflow returns what the tests compare (a run's `summary`, the keys its tools got).
"""

from __future__ import annotations

import time
from typing import Any

from dbos import DBOS

import stopkit
import stopkit.loop
import stopkit.loop.events
from stopkit.loop.journal import dbos as durable
from stopkit.loop.journal._codec import canonical
from tests.loop.journal._forms import FORMS, REFUSED, Model, Tool
from tests.loop.journal._scenario import Trace, TurnModel, record_tool, summary

CALLS: list[str] = []
"""Each call of the tool of `slow_tool` (the first is slow, the others are not)."""


class Waiting(TurnModel):
    """The model of `slow_tool`: its second call waits until the tool's step is checkpointed.

    So the workflow is still running when the timed-out tool returns, as when a crash comes
    after that: what DBOS then keeps of the call is what a recovery replays.
    """

    def _checkpointed(self, steps: list[Any]) -> bool:
        return any(step["function_name"] == "tool_call_1_0" for step in steps)

    def __call__(self, messages: Any, **overrides: Any) -> dict[str, Any]:
        if self.turn_of(messages) == 2:
            for _ in range(500):
                if self._checkpointed(DBOS.list_workflow_steps(DBOS.workflow_id)):
                    break
                time.sleep(0.01)
        return super().__call__(messages, **overrides)

    async def acall(self, messages: Any, **overrides: Any) -> dict[str, Any]:
        import asyncio

        if self.turn_of(messages) == 2:
            for _ in range(500):
                steps = await DBOS.list_workflow_steps_async(DBOS.workflow_id)
                if self._checkpointed(steps):
                    break
                await asyncio.sleep(0.01)
        return super().__call__(messages, **overrides)


@DBOS.workflow()
def slow_tool(timeout: float, takes: float) -> dict[str, Any]:
    """One tool call that outlasts `tool_timeout` the first time: the model is told so."""

    def record(turn: int, i: int) -> str:
        CALLS.append(f"tool {turn}.{i}")
        if len(CALLS) == 1:
            time.sleep(takes)
        return f"recorded {turn}.{i}"

    outcome = durable.run_loop(Waiting(Trace(), turns=1), "Go.", tools={"record": record},
                               tool_timeout=timeout)  # fmt: skip
    return summary(outcome)


@DBOS.workflow()
async def aslow_tool(timeout: float, takes: float) -> dict[str, Any]:
    """`slow_tool` in `arun_loop`, with an async tool."""
    import asyncio

    async def record(turn: int, i: int) -> str:
        CALLS.append(f"tool {turn}.{i}")
        if len(CALLS) == 1:
            await asyncio.sleep(takes)
        return f"recorded {turn}.{i}"

    outcome = await durable.arun_loop(Waiting(Trace(), turns=1).acall, "Go.",
                                      tools={"record": record}, tool_timeout=timeout)  # fmt: skip
    return summary(outcome)


def _keyed(keys: list[str]) -> Any:
    def record(turn: int, i: int, idempotency_key: str) -> str:
        keys.append(idempotency_key)
        return "charged"

    return stopkit.tool(record, idempotent=False)


@DBOS.workflow()
def two_loops(second_run_id: str | None) -> list[str]:
    """Two loops in one workflow, each charging once; return the keys the charges got."""
    keys: list[str] = []
    durable.run_loop(TurnModel(Trace(), turns=1), "First.", tools={"record": _keyed(keys)})
    durable.run_loop(TurnModel(Trace(), turns=1), "Second.", tools={"record": _keyed(keys)},
                     run_id=second_run_id)  # fmt: skip
    return keys


@DBOS.workflow()
async def atwo_loops(second_run_id: str | None) -> list[str]:
    """`two_loops` in `arun_loop`."""
    keys: list[str] = []
    await durable.arun_loop(TurnModel(Trace(), turns=1).acall, "First.",
                            tools={"record": _keyed(keys)})  # fmt: skip
    await durable.arun_loop(TurnModel(Trace(), turns=1).acall, "Second.",
                            tools={"record": _keyed(keys)}, run_id=second_run_id)  # fmt: skip
    return keys


TRACE = Trace()
"""The model calls and tool calls of `approvals` and `aapprovals`, each as it was made."""
PENDING = "toolu_1_1"  # the second call of the first turn
CHANGED: list[str] = []
"""A reason given here replaces each denial's reason in `approvals`: its code changed since."""


def _decided(decisions: dict[str, bool | str]) -> dict[str, bool | str]:
    """The decisions sent to `approvals`, as its code (changed or not) takes them."""
    return {call_id: CHANGED[0] if CHANGED and decision is not True else decision
            for call_id, decision in decisions.items()}  # fmt: skip


def defer_one(call: stopkit.ToolCall) -> bool | stopkit.loop.Defer:
    """The second call of the first turn needs a person; the rest is allowed."""
    return stopkit.loop.Defer("needs a look") if call.id == PENDING else True


@DBOS.workflow()
def approvals() -> dict[str, Any]:
    """Two turns of two calls; one call waits for a person's decision, sent to the workflow."""
    model = TurnModel(TRACE, turns=2, calls=2)
    outcome = durable.run_loop(model, "Record.", tools={"record": record_tool(TRACE)},
                               approve=defer_one)  # fmt: skip
    while outcome.termination is stopkit.Termination.AWAITING_APPROVAL:
        DBOS.set_event("pending", [call.id for call in outcome.pending_calls])
        outcome = stopkit.resume_loop(outcome, _decided(DBOS.recv("decisions")))
    return summary(outcome)


@DBOS.workflow()
async def aapprovals() -> dict[str, Any]:
    """`approvals` in `arun_loop`."""
    model = TurnModel(TRACE, turns=2, calls=2)
    outcome = await durable.arun_loop(model.acall, "Record.",
                                      tools={"record": record_tool(TRACE)},
                                      approve=defer_one)  # fmt: skip
    while outcome.termination is stopkit.Termination.AWAITING_APPROVAL:
        await DBOS.set_event_async("pending", [call.id for call in outcome.pending_calls])
        decisions = _decided(await DBOS.recv_async("decisions"))
        outcome = await stopkit.aresume_loop(outcome, decisions)
    return summary(outcome)


def _replied(stops: list[Any]) -> Any:
    """An `on_event` keeping each reply's `Stop` as JSON (the raw reply left out)."""

    def on_event(event: Any) -> None:
        if isinstance(event, stopkit.loop.events.ModelReplied):
            stops.append(canonical(event.stop.model_dump(mode="json")))

    return on_event


def _tools(tool: Tool) -> dict[str, Any]:
    return {"record": tool, "get_weather": tool}  # the Gemini payload calls get_weather


def plain_forms(form: str) -> list[Any]:
    """Each reply's `Stop` (as JSON) in a run of reply form `form` without DBOS."""
    stops: list[Any] = []
    stopkit.run_loop(Model(FORMS[form]()), "Record.", tools=_tools(Tool()),
                     on_event=_replied(stops))  # fmt: skip
    return stops


@DBOS.workflow()
def reply_forms(form: str) -> dict[str, Any]:
    """A tool turn and the final answer in reply form `form`: each `Stop`, the calls made."""
    stops: list[Any] = []
    model, tool = Model(FORMS[form]()), Tool()
    durable.run_loop(model, "Record.", tools=_tools(tool), on_event=_replied(stops))
    return {"stops": stops, "model_calls": model.calls, "tool_runs": tool.runs}


@DBOS.workflow()
async def areply_forms(form: str) -> dict[str, Any]:
    """`reply_forms` in `arun_loop`, a stream as an async iterator."""
    stops: list[Any] = []
    model, tool = Model(FORMS[form]()), Tool()
    await durable.arun_loop(model.acall, "Record.", tools=_tools(tool), on_event=_replied(stops))
    return {"stops": stops, "model_calls": model.calls, "tool_runs": tool.runs}


@DBOS.workflow()
def refused_reply(case: str) -> None:
    """A model call returning a reply of `REFUSED` (no journal can keep it so it reads back)."""
    make, adapter, _ = REFUSED[case]
    reply = make()
    durable.run_loop(lambda messages, **overrides: reply, "Hi", adapter=adapter)
