"""Tool permissions: `approve(call)` and `before_tool_call(call, ctx)` before each call runs.

`ToolGate` is the control: asked about every tool call the run would run (`before_tool`; not
the calls answered before it: a recorded one, a repeated id, a passed deadline). First the
decision: one given ahead in `approvals` (by call id, used once), else `approve(call)` —
`True` runs it, `False` or a `str` denies it (the call is answered `denied: ...`, its siblings
still run), `Defer()` leaves it to a person (the run ends `awaiting_approval` once the turn's
other calls are done: `after_handler`). Then, for a call that will run, the
`before_tool_call` hook. A hook or `approve` that raises stops the run (`stopped_by_hook`):
the call and those not started yet are answered `not run` (not the calls' results, so a
journal does not keep them and a rerun asks again).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from stopkit._stop import ToolCall, ToolResult
from stopkit.loop._controls import Context, Control, Halt, ToolStep
from stopkit.loop._runner import DEADLINE_PASSED, deadline_passed, error_result, seconds_left
from stopkit.loop.events import HookStopped, Termination, ToolDeferred, ToolDenied

__all__ = ["Approval", "Defer", "ToolGate", "awaiting", "check_approvals"]


@dataclass(frozen=True, slots=True)
class Defer:
    """What `approve` returns to leave a tool call to a person: the run stops and waits.

    The run ends with `Termination.AWAITING_APPROVAL` once the turn's other calls are done,
    `Outcome.pending_calls` listing the calls waiting; `stopkit.resume_loop(outcome,
    approvals={call_id: True | False | "why not"})` goes on from there.

    Example:
        >>> def approve(call):
        ...     return Defer("moves money") if call.name == "transfer" else True
    """

    reason: str | None = None
    """Why a person must decide (for the `ToolDeferred` event and whoever reviews it)."""


Approval: TypeAlias = bool | str | Defer
"""What `approve(call)` returns: True (run it), False or a str (deny it, saying why), Defer()."""

_ASK = object()  # no decision given ahead: ask `approve`


def check_approvals(approvals: Any, name: str = "approvals") -> dict[str, bool | str]:
    """Return `approvals` as a dict of call id -> True, False or a str; raise on anything else.

    Example:
        >>> check_approvals({"call_1": True, "call_2": "not on Fridays"})
        {'call_1': True, 'call_2': 'not on Fridays'}
    """
    if not isinstance(approvals, Mapping):
        raise TypeError(f"{name} must map call ids to True, False or a str, not {approvals!r}")
    checked: dict[str, bool | str] = {}
    for call_id, decision in approvals.items():
        if type(call_id) is not str or type(decision) not in (bool, str):
            raise TypeError(
                f"{name} maps call ids (str) to True (run it), False or a str (deny it, saying "
                f"why); got {call_id!r}: {decision!r}"
            )
        checked[call_id] = decision
    return checked


def awaiting(calls: Sequence[ToolCall]) -> str:
    """Say which calls a run waits on a person for.

    Example:
        >>> awaiting([ToolCall(id="t1", name="transfer", arguments={})])
        'awaiting approval of transfer (t1)'
    """
    return "awaiting approval of " + ", ".join(f"{call.name} ({call.id})" for call in calls)


def _sync(value: Any, hook: str) -> Any:
    """Return what a hook returned in `run_loop`, refusing an awaitable (an async hook)."""
    if inspect.isawaitable(value):
        close = getattr(value, "close", None)
        if close is not None:
            close()  # no "coroutine was never awaited" warning
        raise TypeError(f"{hook} is async: use `await stopkit.arun_loop(...)`")
    return value


class ToolGate(Control):
    """Decides, per tool call of a run, whether it runs: `approve`, `approvals`, the hook.

    Told of the handler about to act (`before_handler`: its context, for the hook), asked per
    call (`before_tool`, `abefore_tool` in `arun_loop`), it ends the run once the handler
    returned (`after_handler`) when a hook stopped it or a call waits for a person.
    """

    def __init__(
        self,
        approve: Callable[[ToolCall], Any] | None,
        before_tool_call: Callable[[ToolCall, Any], Any] | None,
        approvals: Mapping[str, bool | str] | None,
        deadline_at: float | None,
    ) -> None:
        self.approve = approve
        self.before = before_tool_call
        self.approvals = dict(approvals or {})  # used once each, then gone
        self.deadline_at = deadline_at
        self.turn = 0
        self.ctx: Any = None
        self.deferred: list[ToolCall] = []
        self.stopped: HookStopped | None = None

    def before_handler(self, ctx: Context) -> None:
        """Take the turn whose calls come next, and the context their hook is given."""
        self.turn = ctx.turn
        self.ctx = ctx
        self.deferred = []

    def after_handler(self) -> Halt | None:
        """End the run when a hook stopped it, or when calls wait for a person."""
        if self.stopped is not None:
            return Halt(Termination.STOPPED_BY_HOOK, self.stopped.reason, stopped_by=self.stopped)
        if self.deferred:
            pending = tuple(self.deferred)
            return Halt(Termination.AWAITING_APPROVAL, awaiting(pending), pending=pending)
        return None

    # --- the decision, sync and async --------------------------------------------------------

    def before_tool(self, tool: ToolStep) -> ToolResult | None:
        """Decide about a call in `run_loop`: None to run it, else its answer."""
        call = tool.call
        if tool.refused is not None:
            return None
        if self.stopped is not None:
            return self._halted(tool, self.stopped)
        decision = self.approvals.pop(call.id, _ASK)
        if decision is _ASK and self.approve is not None:
            try:
                decision = self.approve(call)
            except Exception as exc:
                return self._stop("approve", tool, exc)
            decision = _sync(decision, "approve")
        answer = self._answer(tool, decision)
        if answer is not None or self.before is None:
            return answer
        try:
            value = self.before(call, self.ctx)
        except Exception as exc:
            return self._stop("before_tool_call", tool, exc)
        _sync(value, "before_tool_call")
        return None

    async def abefore_tool(self, tool: ToolStep) -> ToolResult | None:
        """Decide about a call in `arun_loop` (hooks may be async, bounded by the deadline)."""
        call = tool.call
        if tool.refused is not None:
            return None
        if self.stopped is not None:
            return self._halted(tool, self.stopped)
        decision = self.approvals.pop(call.id, _ASK)
        if decision is _ASK and self.approve is not None:
            try:
                decision = await self._awaited(self.approve(call))
            except Exception as exc:
                return self._failed("approve", tool, exc)
        answer = self._answer(tool, decision)
        if answer is not None or self.before is None:
            return answer
        try:
            await self._awaited(self.before(call, self.ctx))
        except Exception as exc:
            return self._failed("before_tool_call", tool, exc)
        return None

    async def _awaited(self, value: Any) -> Any:
        """Await what a hook returned when it is awaitable, no longer than the deadline allows."""
        if not inspect.isawaitable(value):
            return value
        left = seconds_left(self.deadline_at)
        if left is None:
            return await value
        import asyncio  # here, not at module level: `import stopkit` stays light

        return await asyncio.wait_for(value, max(0.0, left))

    def _failed(self, hook: str, tool: ToolStep, exc: Exception) -> ToolResult:
        """Answer a call whose async hook raised, or ran into the deadline."""
        if isinstance(exc, TimeoutError) and deadline_passed(self.deadline_at):
            return error_result(tool.call, DEADLINE_PASSED)
        return self._stop(hook, tool, exc)

    # --- what a decision means ---------------------------------------------------------------

    def _answer(self, tool: ToolStep, decision: Any) -> ToolResult | None:
        """Turn a decision into the call's answer (None: it runs); not an `Approval`: TypeError."""
        call = tool.call
        if decision is True or decision is _ASK:
            return None
        if decision is False or type(decision) is str:
            reason = "not approved" if decision is False else decision
            if self.tell is not None:
                self.tell(ToolDenied(self.turn, call, reason))
            return error_result(call, f"denied: {reason}" if reason else "denied")
        if type(decision) is Defer:
            self.deferred.append(call)
            if self.tell is not None:
                self.tell(ToolDeferred(self.turn, call, decision.reason))
            tool.kept, tool.waits = False, True  # a placeholder, for its handler only
            return error_result(call, "not run: awaiting a person's approval")
        hint = " (an instance: Defer() or Defer('why'))" if decision is Defer else ""
        raise TypeError(
            f"approve returned {decision!r} for the call {call.name!r} (id {call.id!r}); it "
            "must return True (run it), False or a str (deny it, saying why), or "
            f"stopkit.loop.Defer(){hint} (leave it to a person)"
        )

    def _stop(self, hook: str, tool: ToolStep, exc: Exception) -> ToolResult:
        """Stop the run because `hook` raised about a call; answer the call `not run`."""
        stopped = HookStopped(self.turn, hook, exc, tool.call)
        if self.stopped is None:
            self.stopped = stopped
            if self.tell is not None:
                self.tell(stopped)
        return self._halted(tool, stopped)

    @staticmethod
    def _halted(tool: ToolStep, stopped: HookStopped) -> ToolResult:
        """Answer a call the stopped run leaves unrun, saying what stopped it (not kept)."""
        tool.kept = False
        return error_result(tool.call, f"not run: the run was stopped ({stopped.reason})")
