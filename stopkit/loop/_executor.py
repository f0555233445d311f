"""The tool executor of one run: runs a turn's calls, answers them when cut short.

A run owns one `ToolExecutor` (composed, not inherited); a handler reaches it only through
`ctx.run_tools()` / `ctx.arun_tools()`. Every tool call, in `run_loop` and `arun_loop` alike,
is one `ToolStep` (its turn and its slot: its place in the reply) through the controls'
points (`_controls.py`): `before_tool` may answer it instead of running it (a journal's
record, approvals' denial or deferral; the first control that answers wins, the later ones
are not asked), `starting` hears that it runs, `after_tool` hears its result. The executor's
own answers come first: a call of a reply that is not a tool request, one repeating an
earlier call's id, one past the deadline is refused (the controls hear of it; approvals are
not asked).

A call deferred to a person gets a placeholder result for its handler and joins no record:
the run then waits for a person (`ToolStep.waits`); nor does a call a stopped run leaves
unrun (`ToolStep.kept`: a rerun asks the hooks about it again). A run resumed after that
answers the calls of the paused turn that had run with their results (`resume`), without
running them again.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from stopkit._adapter import Adapter
from stopkit._logsafe import clip
from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.loop._controls import Controls, ToolStep
from stopkit.loop._handlers import as_list
from stopkit.loop._runner import (
    CANCEL_GRACE,
    CANCELLED,
    DEADLINE_PASSED,
    INTERRUPTS,
    ToolRunner,
    deadline_passed,
    error_result,
    seconds_left,
)
from stopkit.loop.events import ToolCalled, ToolReturned, ToolRun
from stopkit.loop.journal._names import as_step, tool_step

__all__ = ["ToolExecutor"]


def _repeated(calls: Sequence[ToolCall]) -> frozenset[int]:
    """Return the slots of the calls whose id an earlier call of the same reply has."""
    seen: set[str] = set()
    repeated: list[int] = []
    for slot, call in enumerate(calls):
        if call.id in seen:
            repeated.append(slot)
        seen.add(call.id)
    return frozenset(repeated)


class _Interrupted(Exception):
    """Carries a tool's KeyboardInterrupt or SystemExit out of its task, to be re-raised."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(error)
        self.error = error


class ToolExecutor:
    """Runs the tool calls of one run's turns, one by one (`run`) or concurrently (`arun`).

    The engine tells it which reply is being handled (`handling`); it keeps every `ToolRun`
    in call order (`runs`), and what it needs to answer a turn cut short (`answer_cut`).
    """

    def __init__(
        self,
        runner: ToolRunner,
        tool_timeout: float | None,
        deadline_at: float | None,
        controls: Controls,
        run_id: str | None = None,
    ) -> None:
        self.runner = runner
        self.controls = controls
        self.tool_timeout = tool_timeout
        self.deadline_at = deadline_at
        self._run_id = run_id
        self.turn = 0
        self.runs: list[ToolRun] = []
        # The reply being handled: its calls' slots (their places in it), the slots of calls
        # repeating an earlier call's id, and how many calls not of the reply were run.
        self.stop: Stop | None = None
        self.slot_of: dict[int, int] = {}
        self.slot_by_id: dict[str, int] = {}
        self.repeated: frozenset[int] = frozenset()
        self.extra = 0
        # For a run cut short: the tool request being handled, and the calls running right now.
        self.pending: Stop | None = None
        self.inflight: tuple[Sequence[ToolCall], list[ToolRun | None]] | None = None
        # The calls of this turn that have their result, by slot (what a resume keeps), and
        # those a resumed run answers without running them again (`resume`); the calls of
        # this handler that wait for a person (their runs are the handler's only).
        self.answered: dict[int, ToolRun] = {}
        self.done: dict[int, ToolRun] = {}
        self.done_turn = 0
        self.waiting: set[int] = set()

    def resume(self, turn: int, done: dict[int, ToolRun]) -> None:
        """Answer the calls of `turn` that ran before the run paused with their results."""
        self.done_turn = turn
        self.done = dict(done)

    def handling(self, turn: int, stop: Stop) -> None:
        """Say which reply the calls run next belong to: its handler is next."""
        self.answered = {}
        self.waiting = set()
        if turn != self.done_turn:
            self.done = {}
        self.turn = turn
        self.stop = stop
        self.pending = stop if stop.reason is StopReason.TOOL_REQUEST else None
        calls = stop.tool_calls
        self.slot_of = {id(call): slot for slot, call in enumerate(calls)}
        self.slot_by_id = {}
        for slot, call in enumerate(calls):
            self.slot_by_id.setdefault(call.id, slot)
        self.repeated = _repeated(calls) if len(calls) > 1 else frozenset()
        self.extra = 0

    def _slot(self, call: ToolCall) -> int:
        """Return the call's place in the reply; a call made by a handler gets the next free one.

        A handler's copy of a reply's call (the same call id, changed arguments) takes that
        call's place: a durable run then compares it with what that call recorded.
        """
        slot = self.slot_of.get(id(call))
        if slot is None:
            slot = self.slot_by_id.get(call.id)
        if slot is None:
            slot = len(self.slot_of) + self.extra
            self.extra += 1
        return slot

    @property
    def run_id(self) -> str:
        """The run's id (`run_id=`), or one made for this run: the prefix of idempotency keys."""
        if self._run_id is None:
            self._run_id = uuid.uuid4().hex
        return self._run_id

    def key(self, call: ToolCall, slot: int) -> str | None:
        """Return the call's idempotency key when its tool asks for one (else None)."""
        if not self.runner.wants_key(call.name):
            return None
        return f"{self.run_id}/{tool_step(self.turn, slot)}"

    def timeout(self) -> float | None:
        """Return the seconds the next call may take: `tool_timeout`, cut by the deadline."""
        timeout = self.tool_timeout
        left = seconds_left(self.deadline_at)
        if left is not None:
            timeout = left if timeout is None else min(timeout, left)
        return timeout

    # --- the step boundary of every tool call ----------------------------------------------

    def _step(self, call: ToolCall, slot: int, timeout: float | None) -> ToolStep:
        """Announce the call in `slot` of this turn (`ToolCalled`); return its step.

        The run refuses to run a call of a reply that is not a tool request (a handler's
        `run_tools()` under `unknown` or a cut reply), a call repeating the id of an earlier
        call of the reply (every call answered once: the later one with this error), a call
        past the deadline: its step says so (`refused`).
        """
        tell = self.controls.tell
        if tell is not None:
            tell(ToolCalled(self.turn, call))
        tool = ToolStep(self.turn, slot, call)
        stop = self.stop
        if stop is not None and stop.reason is not StopReason.TOOL_REQUEST:
            tool.refused = error_result(call, f"not run: the reply stopped as {stop.reason.value}")
        elif slot in self.repeated:
            tool.refused = error_result(
                call, f"not run: an earlier call of this reply has the same id ({clip(call.id)})"
            )
        elif timeout is not None and timeout <= 0:
            tool.refused = error_result(call, DEADLINE_PASSED)
        return tool

    def _answered(self, tool: ToolStep, answer: ToolResult | None) -> ToolResult | None:
        """Return the call's answer (None: it runs now, and the controls are told so).

        A control's answer, else the run's refusal, else the deadline's when it passed
        meanwhile (the controls' questions take time).
        """
        if answer is None:
            answer = tool.refused
        if answer is None and deadline_passed(self.deadline_at):
            answer = error_result(tool.call, DEADLINE_PASSED)
        if answer is None:
            self.controls.starting(tool)
        return answer

    def _after(self, tool: ToolStep, result: ToolResult, seconds: float) -> ToolRun:
        """Tell the controls the call's result; return its run.

        A call waiting for a person is the handler's only: no `ToolReturned`, no place among
        the turn's answered calls.
        """
        self.controls.after_tool(tool, result, seconds)
        run = ToolRun(tool.call, result, self.turn, seconds)
        if tool.waits:
            self.waiting.add(id(run))
            return run
        tell = self.controls.tell
        if tell is not None:
            tell(ToolReturned(self.turn, tool.call, result, seconds))
        self.answered[tool.slot] = run
        return run

    def _known(self, slot: int) -> ToolRun | None:
        """Return the run of the call in `slot` if it ran before the run paused (a resume)."""
        known = self.done.pop(slot, None)
        if known is not None:
            self.answered[slot] = known
        return known

    # --- running ----------------------------------------------------------------------------

    def run(self, calls: Sequence[ToolCall]) -> list[ToolResult]:
        """Run `calls` one after another in this thread; one result each, in order."""
        slots: list[ToolRun | None] = [None] * len(calls)
        self.inflight = (calls, slots)
        for index, call in enumerate(calls):
            slot = self._slot(call)
            known = self._known(slot) if self.done else None
            if known is not None:
                slots[index] = known
                continue
            tool = self._step(call, slot, self.timeout())
            answer = self._answered(tool, self.controls.before_tool(tool))
            seconds = 0.0
            if answer is None:
                with as_step(tool_step(self.turn, slot)):  # `current_step()` while it runs
                    answer, seconds = self.runner.run(call, self.timeout(), self.key(call, slot))
            slots[index] = self._after(tool, answer, seconds)
        return self._landed(slots)

    async def arun(self, calls: Sequence[ToolCall]) -> list[ToolResult]:
        """Run `calls` concurrently (sync tools in threads); one result each, in call order."""
        import asyncio  # here, not at module level: `import stopkit` stays light

        timeout = self.timeout()
        slots: list[ToolRun | None] = [None] * len(calls)
        self.inflight = (calls, slots)

        async def one(index: int, call: ToolCall) -> None:
            slot = self._slot(call)
            known = self._known(slot) if self.done else None
            if known is not None:
                slots[index] = known
                return
            tool = self._step(call, slot, timeout)
            answer = self._answered(tool, await self.controls.abefore_tool(tool))
            seconds = 0.0
            if answer is None:
                try:
                    with as_step(tool_step(self.turn, slot)):
                        key = self.key(call, slot)
                        answer, seconds = await self.runner.arun(call, self.timeout(), key)
                except INTERRUPTS as exc:  # raised in a task of its own, it would skip us
                    raise _Interrupted(exc) from None
            slots[index] = self._after(tool, answer, seconds)

        try:
            if len(calls) == 1:
                await one(0, calls[0])
            elif calls:
                tasks = [asyncio.ensure_future(one(i, call)) for i, call in enumerate(calls)]
                try:
                    await asyncio.gather(*tasks)
                except BaseException:  # cancelled or interrupted: stop the tools still running
                    # and let them unwind (bounded: a tool may ignore its cancellation), so
                    # their finally blocks run before the run is reported.
                    for task in tasks:
                        task.cancel()
                    await asyncio.wait(tasks, timeout=CANCEL_GRACE)
                    raise
        except _Interrupted as interrupted:
            raise interrupted.error from None
        return self._landed(slots)

    def _landed(self, slots: list[ToolRun | None]) -> list[ToolResult]:
        """Keep the runs of a batch that ran to its end; return its results in call order.

        The placeholder runs of the calls waiting for a person are given to the handler only.
        """
        self.inflight = None
        runs = [run for run in slots if run is not None]
        results = [run.result for run in runs]
        waiting = self.waiting
        # In call order (in `arun`, the events came in completion order).
        self.runs.extend(run for run in runs if id(run) not in waiting)
        return results

    def answer_cut(self, adapter: Adapter | None) -> list[Any]:
        """Answer every call of the turn a run was cut short in; return the messages to append.

        A run is cut short by a cancellation, a `KeyboardInterrupt` or a `SystemExit`.

        Every call of the tool request being handled gets a result: its own when it finished,
        else a `cancelled` error result (not kept: a rerun runs it). The reply and those
        results are returned, so the transcript stays one the provider accepts.
        """
        if self.inflight is not None:
            calls, slots = self.inflight
            self.inflight = None
            for call, run in zip(calls, slots, strict=True):
                self.runs.append(run if run is not None else self._cancelled(call))
        stop, self.pending = self.pending, None
        if stop is None or adapter is None or not stop.tool_calls:
            return []
        done: dict[str, list[ToolResult]] = {}
        for run in self.runs:
            if run.turn == self.turn:
                done.setdefault(run.call.id, []).append(run.result)
        results: list[ToolResult] = []
        for call in stop.tool_calls:
            mine = done.get(call.id)
            if mine:
                results.append(mine.pop(0))
                continue
            cancelled = self._cancelled(call)
            self.runs.append(cancelled)
            results.append(cancelled.result)
        return [*as_list(adapter.assistant_message(stop)), *adapter.tool_results(stop, results)]

    def _cancelled(self, call: ToolCall) -> ToolRun:
        """Answer a call the run was cut short before it finished (or started) `cancelled`."""
        tool = ToolStep(self.turn, self._slot(call), call, kept=False)
        return self._after(tool, error_result(call, CANCELLED), 0.0)
