"""The tool executor of one run: runs a turn's calls, records them, answers them when cut short.

A run owns one `ToolExecutor` (composed, not inherited); a handler reaches it only through
`ctx.run_tools()` / `ctx.arun_tools()`. Every tool call, in `run_loop` and `arun_loop` alike,
passes through `_before` (may answer it without running it) and `_after` (records its result),
with its turn and its slot (its place in the reply): the one place where a step boundary
(`tool_call_<turn>_<slot>`), a hook or a span around a tool call belongs: the run's observer
(`_observe.py`), while telemetry is on, is told there (of calls that run or are answered, not
of calls a durable run replays from its journal).

In a durable run (`recorder`), `_before` answers a call recorded in the journal with its
recorded result, `_starting` records that a non-idempotent call is starting; `_after` records
the result before the model is sent it.

Between `_before` and the call, the run's `ToolGate` (`_approval.py`) decides whether it runs:
`approve`, the decisions given ahead, `before_tool_call`. A call it defers gets a placeholder
result for the handler and joins no record: the run then waits for a person (`deferred`); nor
does a call a stopped run leaves unrun (a rerun asks the hooks about it again). A
run resumed after that answers the calls of the paused turn that had run with their results
(`resume`), without running them again.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any

from stopkit._adapter import Adapter
from stopkit._logsafe import clip
from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.loop._approval import DEADLINE_PASSED, Deferred, Halted, ToolGate, Verdict
from stopkit.loop._handlers import as_list
from stopkit.loop._observe import RunObserver
from stopkit.loop._runner import (
    CANCEL_GRACE,
    CANCELLED,
    INTERRUPTS,
    ToolRunner,
    deadline_passed,
    error_result,
    seconds_left,
)
from stopkit.loop.events import LoopEvent, ToolCalled, ToolReturned, ToolRun
from stopkit.loop.journal._names import CURRENT_STEP, tool_step
from stopkit.loop.journal._recorder import Recorder

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
        emit: Callable[[LoopEvent], Any] | None,
        recorder: Recorder | None = None,
        run_id: str | None = None,
        gate: ToolGate | None = None,
        obs: RunObserver | None = None,
    ) -> None:
        self.runner = runner
        self.gate = ToolGate(None, None, None, deadline_at, emit) if gate is None else gate
        self.obs = obs
        self.tool_timeout = tool_timeout
        self.deadline_at = deadline_at
        self.emit = emit
        self.recorder = recorder
        self._run_id = run_id
        # Set by `handling` when a resumed run finds a non-idempotent call of this turn that
        # started and has no result: the words saying so (the run then stops).
        self.attention: str | None = None
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
        # those a resumed run answers without running them again (`resume`).
        self.answered: dict[int, ToolRun] = {}
        self.done: dict[int, ToolRun] = {}
        self.done_turn = 0

    def resume(self, turn: int, done: dict[int, ToolRun]) -> None:
        """Answer the calls of `turn` that ran before the run paused with their results."""
        self.done_turn = turn
        self.done = dict(done)

    def handling(self, turn: int, stop: Stop, ctx: Any = None) -> None:
        """Say which reply the calls run next belong to: its handler (given `ctx`) is next."""
        self.gate.handling(turn, ctx)
        self.answered = {}
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
        recorder = self.recorder
        if recorder is not None and self.pending is not None:
            self.attention = recorder.attention(turn)

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

    def _before(self, call: ToolCall, slot: int, timeout: float | None) -> ToolResult | None:
        """Announce the call in `slot` of this turn; return its result when it is not to be run.

        Not run: a call of a reply that is not a tool request (a handler's `run_tools()` under
        `unknown` or a cut reply), a call repeating the id of an earlier call of the reply
        (every call answered once: the later one with this error), a call past the deadline.
        """
        if self.emit is not None:
            self.emit(ToolCalled(self.turn, call))
        recorder = self.recorder
        if recorder is not None:
            recorded = recorder.tool(self.turn, slot, call)
            if recorded is not None:
                return recorded
        if self.obs is not None:
            self.obs.tool_call(self.turn, slot, call)
        stop = self.stop
        if stop is not None and stop.reason is not StopReason.TOOL_REQUEST:
            return error_result(call, f"not run: the reply stopped as {stop.reason.value}")
        if slot in self.repeated:
            return error_result(
                call, f"not run: an earlier call of this reply has the same id ({clip(call.id)})"
            )
        if timeout is not None and timeout <= 0:
            return error_result(call, DEADLINE_PASSED)
        return None

    def _judged(self, call: ToolCall, slot: int, verdict: Verdict) -> ToolRun | ToolResult | None:
        """Return what the gate's verdict on `call` means for it; None: it runs now.

        A deferred call gets its placeholder run (for its handler only), a call the stopped
        run leaves unrun its answer: neither is recorded, a rerun asks about them again. The
        gate's hooks take time: a call they took past the deadline is not run.
        """
        if isinstance(verdict, Deferred):
            if self.obs is not None:  # its span ends now: the run will wait for a person
                self.obs.tool_result(self.turn, slot, verdict.result)
            return ToolRun(call, verdict.result, self.turn, 0.0)
        if isinstance(verdict, Halted):
            return self._after(call, slot, verdict.result, 0.0, done=False)
        if verdict is not None:
            return verdict
        if deadline_passed(self.deadline_at):
            return error_result(call, DEADLINE_PASSED)
        return None

    def _starting(self, recorder: Recorder, call: ToolCall, slot: int) -> None:
        """Record that a non-idempotent call of a durable run is starting."""
        if not self.runner.idempotent(call.name):
            recorder.start_tool(self.turn, slot, call)

    def _after(
        self, call: ToolCall, slot: int, result: ToolResult, seconds: float, *, done: bool = True
    ) -> ToolRun:
        """Record the result of the call in `slot` of this turn (`done=False`: it was cut)."""
        if done and self.recorder is not None:
            self.recorder.record_tool(self.turn, slot, call, result, seconds)
        if self.obs is not None:
            self.obs.tool_result(self.turn, slot, result)
        if self.emit is not None:
            self.emit(ToolReturned(self.turn, call, result, seconds))
        run = ToolRun(call, result, self.turn, seconds)
        self.answered[slot] = run
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
        runner = self.runner
        gate = self.gate
        slots: list[ToolRun | None] = [None] * len(calls)
        self.inflight = (calls, slots)
        for index, call in enumerate(calls):
            slot = self._slot(call)
            known = self._known(slot) if self.done else None
            if known is not None:
                slots[index] = known
                continue
            timeout = self.timeout()
            result = self._before(call, slot, timeout)
            if result is None and gate.active:
                judged = self._judged(call, slot, gate.check(call))
                if isinstance(judged, ToolRun):  # deferred, or halted: answered, not recorded
                    slots[index] = judged
                    continue
                result, timeout = judged, self.timeout()  # what the hooks left of it
            seconds = 0.0
            if result is None:
                if self.recorder is not None:
                    self._starting(self.recorder, call, slot)
                outer = CURRENT_STEP.get()
                CURRENT_STEP.set(tool_step(self.turn, slot))
                try:
                    result, seconds = runner.run(call, timeout, self.key(call, slot))
                finally:
                    CURRENT_STEP.set(outer)
            slots[index] = self._after(call, slot, result, seconds)
        return self._landed(slots)

    async def arun(self, calls: Sequence[ToolCall]) -> list[ToolResult]:
        """Run `calls` concurrently (sync tools in threads); one result each, in call order."""
        import asyncio  # here, not at module level: `import stopkit` stays light

        runner = self.runner
        gate = self.gate
        timeout = self.timeout()
        slots: list[ToolRun | None] = [None] * len(calls)
        self.inflight = (calls, slots)

        async def one(index: int, call: ToolCall) -> None:
            slot = self._slot(call)
            known = self._known(slot) if self.done else None
            if known is not None:
                slots[index] = known
                return
            result = self._before(call, slot, timeout)
            left = timeout
            if result is None and gate.active:
                judged = self._judged(call, slot, await gate.acheck(call))
                if isinstance(judged, ToolRun):  # deferred, or halted: answered, not recorded
                    slots[index] = judged
                    return
                result, left = judged, self.timeout()  # what the hooks left of it
            seconds = 0.0
            if result is None:
                if self.recorder is not None:
                    self._starting(self.recorder, call, slot)
                outer = CURRENT_STEP.get()
                CURRENT_STEP.set(tool_step(self.turn, slot))
                try:
                    result, seconds = await runner.arun(call, left, self.key(call, slot))
                except INTERRUPTS as exc:  # raised in a task of its own, it would skip us
                    raise _Interrupted(exc) from None
                finally:
                    CURRENT_STEP.set(outer)
            slots[index] = self._after(call, slot, result, seconds)

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
        """Record a batch that ran to its end; return its results in call order.

        The placeholder runs of the calls deferred to a person are given to the handler only.
        """
        self.inflight = None
        runs = [run for run in slots if run is not None]
        results = [run.result for run in runs]
        deferred = self.gate.deferred
        if deferred:
            waiting = {id(call) for call in deferred}
            runs = [run for run in runs if id(run.call) not in waiting]
        self.runs.extend(runs)  # in call order (in `arun`, the events came in completion order)
        return results

    def answer_cut(self, adapter: Adapter | None) -> list[Any]:
        """Answer every call of the turn a run was cut short in; return the messages to append.

        A run is cut short by a cancellation, a `KeyboardInterrupt` or a `SystemExit`.

        Every call of the tool request being handled gets a result: its own when it finished,
        else a `cancelled` error result. The reply and those results are returned, so the
        transcript stays one the provider accepts.
        """
        if self.inflight is not None:
            calls, slots = self.inflight
            self.inflight = None
            for call, run in zip(calls, slots, strict=True):
                if run is None:  # not recorded: a rerun runs it
                    result = error_result(call, CANCELLED)
                    run = self._after(call, self._slot(call), result, 0.0, done=False)
                self.runs.append(run)
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
            result = error_result(call, CANCELLED)
            self.runs.append(self._after(call, self._slot(call), result, 0.0, done=False))
            results.append(result)
        return [*as_list(adapter.assistant_message(stop)), *adapter.tool_results(stop, results)]
