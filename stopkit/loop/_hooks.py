"""`before_model_call`: what the hook is given (`ModelCallContext`), and how a run ends early.

`BeforeModelCall` is the control: the run asks it before each try of a model call
(`before_try`), and it asks the hook through the shells (`CallHook`), so an async hook is
awaited in `arun_loop`; a replayed model call (a journaled run's) is not asked about: no call
is made. A hook that raises stops the run (`stopped_by_hook`); one that outlasts the run's
`deadline` ends it there. Either way the run ends from inside its model call, by raising
`EndRun`.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stopkit.loop._budget import Tally
from stopkit.loop._controls import Control, EndRun, ModelCall
from stopkit.loop._requests import CallHook, Request
from stopkit.loop._runner import deadline_passed, seconds_left
from stopkit.loop._settings import LoopSettings
from stopkit.loop.events import HookStopped, LoopEvent, Spent, Termination

__all__ = ["BeforeModelCall", "ModelCallContext", "ask_before_call"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelCallContext:
    """What `before_model_call(ctx)` is given: the call about to be made and the run so far.

    Example:
        >>> async def before_model_call(ctx):  # a rate limiter, e.g. aiolimiter  # doctest: +SKIP
        ...     await limiter.acquire()
    """

    turn: int
    """The model call (1-based) about to be made."""
    attempt: int
    """Which try of it (1 for the first; more under a `RetryPolicy`)."""
    messages: Sequence[Any]
    """The messages it will be sent (read them; do not change them)."""
    overrides: Mapping[str, Any]
    """The overrides it will be made with."""
    spent: Spent
    """What the run has spent so far, as its replies reported it."""
    settings: LoopSettings
    """The loop's settings."""


class BeforeModelCall(Control):
    """The `before_model_call` hook as a control: asked before each try of a model call."""

    def __init__(
        self,
        hook: Callable[[ModelCallContext], Any],
        settings: LoopSettings,
        tally: Tally,
        deadline_at: float | None,
    ) -> None:
        self.hook = hook
        self.settings = settings
        self.tally = tally  # what the run has spent, for the hook to see
        self.deadline_at = deadline_at

    def before_try(self, call: ModelCall) -> Generator[Request, Any, None]:
        ctx = ModelCallContext(
            turn=call.turn,
            attempt=call.attempt,
            messages=call.messages,
            overrides=call.overrides,
            spent=self.tally.spent,
            settings=self.settings,
        )
        return ask_before_call(self.hook, ctx, self.deadline_at, self.tell)


def ask_before_call(
    hook: Callable[[ModelCallContext], Any],
    ctx: ModelCallContext,
    deadline_at: float | None,
    emit: Callable[[LoopEvent], Any] | None,
) -> Generator[Request, Any, None]:
    """Ask `before_model_call` before a try of a model call; raise `EndRun` when the run ends.

    It ends the run by raising (`stopped_by_hook`), or by outlasting the deadline (its time is
    the run's: `deadline`).
    """
    made = ctx.attempt > 1
    left = seconds_left(deadline_at)
    try:
        yield CallHook(hook, (ctx,), "before_model_call", left)
    except Exception as exc:  # thrown in by the shell: what the hook raised
        if not (isinstance(exc, TimeoutError) and deadline_passed(deadline_at)):
            stopped = HookStopped(ctx.turn, "before_model_call", exc, None)
            if emit is not None:
                emit(stopped)
            raise EndRun(Termination.STOPPED_BY_HOOK, stopped, made=made) from exc
    if deadline_passed(deadline_at):
        raise EndRun(Termination.DEADLINE, None, made=made)
