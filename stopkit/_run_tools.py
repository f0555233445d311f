"""The tool-running half of a loop run: run a turn's calls, and answer them when cancelled.

Mixed into `_Run` (in `_run.py`), whose `__init__` sets the attributes declared here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from stopkit._adapter import Adapter
from stopkit._handlers import _as_list
from stopkit._outcome import LoopEvent, ToolCalled, ToolReturned, ToolRun
from stopkit._stop import Stop, ToolCall, ToolResult
from stopkit._tools import CANCELLED, error_result

if TYPE_CHECKING:
    from stopkit._loop import Loop

__all__ = ["CANCEL_GRACE", "ToolTurns"]

#: Seconds a cancelled run waits for its cancelled async tools to unwind before re-raising.
CANCEL_GRACE = 1.0


class ToolTurns:
    """Runs the tool calls of a turn for a `_Run`, one by one or concurrently."""

    loop: Loop
    turn: int
    runs: list[ToolRun]
    transcript: list[Any]
    adapter: Adapter | None
    emit: Callable[[LoopEvent], Any] | None
    deadline_at: float | None
    # For a cancelled run: the tool request being handled, and the calls running right now.
    pending: Stop | None
    inflight: tuple[Sequence[ToolCall], list[ToolRun | None]] | None

    def tool_timeout(self) -> float | None:
        timeout = self.loop.tool_timeout
        if self.deadline_at is not None:
            left = self.deadline_at - time.monotonic()
            timeout = left if timeout is None else min(timeout, left)
        return timeout

    def _returned(self, call: ToolCall, result: ToolResult, seconds: float) -> ToolRun:
        if self.emit is not None:
            self.emit(ToolReturned(self.turn, call, result, seconds))
        return ToolRun(call, result, self.turn, seconds)

    def _skip(self, call: ToolCall, timeout: float | None) -> ToolResult | None:
        if self.emit is not None:
            self.emit(ToolCalled(self.turn, call))
        if timeout is not None and timeout <= 0:
            return error_result(call, "not run: the run's deadline has passed")
        return None

    def run_tools(self, calls: Sequence[ToolCall]) -> list[ToolResult]:
        results: list[ToolResult] = []
        runner = self.loop.runner
        for call in calls:
            timeout = self.tool_timeout()
            result = self._skip(call, timeout)
            seconds = 0.0
            if result is None:
                result, seconds = runner.run(call, timeout)
            self.runs.append(self._returned(call, result, seconds))
            results.append(result)
        return results

    async def arun_tools(self, calls: Sequence[ToolCall]) -> list[ToolResult]:
        import asyncio  # here, not at module level: `import stopkit` stays light

        runner = self.loop.runner
        timeout = self.tool_timeout()
        slots: list[ToolRun | None] = [None] * len(calls)
        self.inflight = (calls, slots)

        async def one(index: int, call: ToolCall) -> None:
            result = self._skip(call, timeout)
            seconds = 0.0
            if result is None:
                result, seconds = await runner.arun(call, timeout)
            slots[index] = self._returned(call, result, seconds)

        if len(calls) == 1:
            await one(0, calls[0])
        elif calls:
            tasks = [asyncio.ensure_future(one(i, call)) for i, call in enumerate(calls)]
            try:
                await asyncio.gather(*tasks)
            except asyncio.CancelledError:
                # gather has cancelled the tools still running: let them unwind (bounded, as a
                # tool may ignore its cancellation), so their finally blocks run before we report.
                await asyncio.wait(tasks, timeout=CANCEL_GRACE)
                raise
        self.inflight = None
        runs = [run for run in slots if run is not None]
        self.runs.extend(runs)  # in call order; the events came in completion order
        return [run.result for run in runs]

    def answer_cancelled(self) -> None:
        """Answer every call of the turn a cancelled run was handling (see `_Run.cancelled`).

        Every call of the tool request being handled gets a result: its own when it finished,
        else a `cancelled` error result; the reply and those results join the transcript, so
        the transcript stays one the provider accepts.
        """
        if self.inflight is not None:
            calls, slots = self.inflight
            self.inflight = None
            for call, run in zip(calls, slots, strict=True):
                if run is None:
                    run = self._returned(call, error_result(call, CANCELLED), 0.0)
                self.runs.append(run)
        stop, self.pending = self.pending, None
        if stop is not None and self.adapter is not None and stop.tool_calls:
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
                self.runs.append(self._returned(call, result, 0.0))
                results.append(result)
            self.transcript.extend(_as_list(self.adapter.assistant_message(stop)))
            self.transcript.extend(self.adapter.tool_results(stop, results))
