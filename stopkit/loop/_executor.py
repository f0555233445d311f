"""The tool executor of one run: runs a turn's calls, records them, answers them when cut short.

A run owns one `ToolExecutor` (composed, not inherited); a handler reaches it only through
`ctx.run_tools()` / `ctx.arun_tools()`. Every tool call, in `run_loop` and `arun_loop` alike,
passes through `_before` (may answer it without running it) and `_after` (records its result),
with its turn and its slot (its place in the reply): the one place where a step boundary
(`tool_call_<turn>_<slot>`), a hook or a span around a tool call belongs: the run's observer
(`_observe.py`), while telemetry is on, is told there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from stopkit._adapter import Adapter
from stopkit._logsafe import clip
from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.loop._observe import RunObserver
from stopkit.loop._runner import CANCEL_GRACE, CANCELLED, INTERRUPTS, ToolRunner, error_result
from stopkit.loop.events import LoopEvent, ToolCalled, ToolReturned, ToolRun
from stopkit.loop.handlers import as_list

__all__ = ["ToolExecutor", "error_kind"]


# What each kind of error result the loop writes begins with, and its `error_kind`.
_KINDS = (
    ("not run: ", "not_run"),
    ("unknown tool ", "unknown_tool"),
    ("timed out after ", "timeout"),
    (CANCELLED, "cancelled"),
    ("the tool returned a ", "unencodable_result"),
)


def error_kind(result: ToolResult) -> str | None:
    """Return a short, stable name for why a tool call failed; None when it did not fail.

    The exception's class name when the tool raised (`LookupError`); `not_run` when the loop
    answered the call without running it (cut off, bad arguments, past the deadline, a
    repeated id, not a tool request), `unknown_tool`, `timeout`, `cancelled`,
    `unencodable_result`; `_OTHER` for an error result made elsewhere (a handler's own).

    Example:
        >>> error_kind(error_result(ToolCall(id="1", name="f"), "timed out after 2 s"))
        'timeout'
    """
    if not result.is_error:
        return None
    content = result.content
    for start, kind in _KINDS:
        if content.startswith(start):
            return kind
    name = content.partition(": ")[0]  # `describe`: "Type: message", or "Type"
    return name if name.isidentifier() else "_OTHER"


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
        obs: RunObserver | None = None,
    ) -> None:
        self.runner = runner
        self.obs = obs
        self.tool_timeout = tool_timeout
        self.deadline_at = deadline_at
        self.emit = emit
        self.turn = 0
        self.runs: list[ToolRun] = []
        # The reply being handled: its calls' slots (their places in it), the slots of calls
        # repeating an earlier call's id, and how many calls not of the reply were run.
        self.stop: Stop | None = None
        self.slot_of: dict[int, int] = {}
        self.repeated: frozenset[int] = frozenset()
        self.extra = 0
        # For a run cut short: the tool request being handled, and the calls running right now.
        self.pending: Stop | None = None
        self.inflight: tuple[Sequence[ToolCall], list[ToolRun | None]] | None = None

    def handling(self, turn: int, stop: Stop) -> None:
        """Say which reply the calls run next belong to: its handler is about to be called."""
        self.turn = turn
        self.stop = stop
        self.pending = stop if stop.reason is StopReason.TOOL_REQUEST else None
        calls = stop.tool_calls
        self.slot_of = {id(call): slot for slot, call in enumerate(calls)}
        self.repeated = _repeated(calls) if len(calls) > 1 else frozenset()
        self.extra = 0

    def _slot(self, call: ToolCall) -> int:
        """Return the call's place in the reply; a call made by a handler gets the next free one."""
        slot = self.slot_of.get(id(call))
        if slot is None:
            slot = len(self.slot_of) + self.extra
            self.extra += 1
        return slot

    def timeout(self) -> float | None:
        """Return the seconds the next call may take: `tool_timeout`, cut by the deadline."""
        timeout = self.tool_timeout
        if self.deadline_at is not None:
            left = self.deadline_at - time.monotonic()
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
            return error_result(call, "not run: the run's deadline has passed")
        return None

    def _after(self, call: ToolCall, slot: int, result: ToolResult, seconds: float) -> ToolRun:
        """Record the result of the call in `slot` of this turn."""
        if self.obs is not None:
            self.obs.tool_result(self.turn, slot, result)
        if self.emit is not None:
            self.emit(ToolReturned(self.turn, call, result, seconds))
        return ToolRun(call, result, self.turn, seconds)

    # --- running ----------------------------------------------------------------------------

    def run(self, calls: Sequence[ToolCall]) -> list[ToolResult]:
        """Run `calls` one after another in this thread; one result each, in order."""
        runner = self.runner
        slots: list[ToolRun | None] = [None] * len(calls)
        self.inflight = (calls, slots)
        for index, call in enumerate(calls):
            timeout = self.timeout()
            slot = self._slot(call)
            result = self._before(call, slot, timeout)
            seconds = 0.0
            if result is None:
                result, seconds = runner.run(call, timeout)
            slots[index] = self._after(call, slot, result, seconds)
        return self._landed(slots)

    async def arun(self, calls: Sequence[ToolCall]) -> list[ToolResult]:
        """Run `calls` concurrently (sync tools in threads); one result each, in call order."""
        import asyncio  # here, not at module level: `import stopkit` stays light

        runner = self.runner
        timeout = self.timeout()
        slots: list[ToolRun | None] = [None] * len(calls)
        self.inflight = (calls, slots)

        async def one(index: int, call: ToolCall) -> None:
            slot = self._slot(call)
            result = self._before(call, slot, timeout)
            seconds = 0.0
            if result is None:
                try:
                    result, seconds = await runner.arun(call, timeout)
                except INTERRUPTS as exc:  # raised in a task of its own, it would skip us
                    raise _Interrupted(exc) from None
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
        """Record a batch that ran to its end; return its results in call order."""
        self.inflight = None
        runs = [run for run in slots if run is not None]
        self.runs.extend(runs)  # in call order (in `arun`, the events came in completion order)
        return [run.result for run in runs]

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
                if run is None:
                    run = self._after(call, self._slot(call), error_result(call, CANCELLED), 0.0)
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
            self.runs.append(self._after(call, self._slot(call), result, 0.0))
            results.append(result)
        return [*as_list(adapter.assistant_message(stop)), *adapter.tool_results(stop, results)]
