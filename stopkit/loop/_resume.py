"""Resuming a run that waits for a person's approval: what it keeps, and the run it resumes as.

A run ends `awaiting_approval` when `approve` deferred a call. Its `Outcome` keeps a `Paused`
record: the run as it stood (transcript, counters, budget tally, loop detection, the tool runs)
when its handler returned, the overrides of the turn's model call, and the results of the
turn's calls that did run. `restore` builds the run that goes on from there: it starts at the
same turn's handler with the same reply — the model is not called again for it — answers the
calls that ran with their results, and decides the deferred ones by the approvals given. A
journaled run is resumed by a rerun of its `run_id` instead (the journal replays the turn), with
the approvals given ahead (`approvals=`).

A paused run is resumed once: `Paused.take` is the one resume, taken before the resumed run
is built (atomically: two threads, or two tasks of one event loop, cannot both take it); any
later resume of the outcome, or of a copy of it, raises `AlreadyResumed` and runs nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from stopkit._errors import AlreadyResumed
from stopkit.loop._approval import awaiting, check_approvals
from stopkit.loop._run import Run
from stopkit.loop.events import Outcome, Termination, ToolRun

__all__ = ["Paused", "paused_of", "restore"]


@dataclass(frozen=True, slots=True)
class Paused:
    """What a run awaiting approval is resumed from (kept on its `Outcome`, internal)."""

    run: Run
    """The run as it stood when it paused (never driven again: `restore` copies from it)."""
    overrides: Mapping[str, Any]
    """The overrides of the paused turn's model call (its handler's `ctx.overrides`)."""
    done: dict[int, ToolRun]
    """The calls of the paused turn that have their result, by slot."""
    resumed: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)
    """Held from the first resume on: the approvals of a paused run are used once."""

    def take(self) -> None:
        """Take the one resume of this paused run; `AlreadyResumed` when it was taken."""
        if not self.resumed.acquire(blocking=False):
            run = self.run
            journaled = run.settings.journal is not None
            raise AlreadyResumed(
                run.settings.run_id if journaled else None,
                [call.id for call in run.pending_calls],
                awaiting(run.pending_calls),
            )


def paused_of(outcome: Any, approvals: Any) -> tuple[Paused, dict[str, bool | str]]:
    """Return what `outcome` resumes from and the approvals, checked against its pending calls.

    Every pending call needs a decision (True, False or a str), and every decision a pending
    call: a `ValueError` names the ids that lack one or match none.

    Example:
        >>> paused, decisions = paused_of(outcome, {"toolu_1": True})  # doctest: +SKIP
    """
    if not isinstance(outcome, Outcome):
        raise TypeError(f"resume_loop takes the Outcome of a run, not {type(outcome).__name__}")
    if outcome.termination is not Termination.AWAITING_APPROVAL:
        raise ValueError(
            f"only a run awaiting approval can be resumed; this one ended "
            f"{outcome.termination.value}"
        )
    paused = outcome._paused
    if not isinstance(paused, Paused):
        raise ValueError(
            "this Outcome carries no run to resume (it was rebuilt or copied); a journaled "
            "run resumes by running its run_id again with approvals="
        )
    decisions = check_approvals(approvals)
    pending = [call.id for call in outcome.pending_calls]
    missing = [call_id for call_id in pending if call_id not in decisions]
    if missing:
        raise ValueError(
            f"approvals has no decision for the pending call(s) {', '.join(missing)}: give each "
            "True (run it), False or a str (deny it, saying why)"
        )
    unknown = [call_id for call_id in decisions if call_id not in pending]
    if unknown:
        raise ValueError(
            f"approvals names call(s) {', '.join(map(repr, unknown))} that are not pending "
            f"(pending: {', '.join(pending)})"
        )
    return paused, decisions


def restore(paused: Paused, approvals: Mapping[str, bool | str], *, is_async: bool) -> Run:
    """Return the run that goes on from `paused`, deciding its deferred calls by `approvals`.

    A journaled run is run again under its `run_id` (replaying the journal up to the paused
    turn), the approvals given ahead. Otherwise the new run starts as the paused one stood, at
    the paused turn's handler: a fresh `deadline`, everything else carried over. Raises
    `AlreadyResumed` when `paused` was resumed before.
    """
    paused.take()
    old = paused.run
    # The approvals given, ahead: each used once, before `approve` is asked.
    settings = replace(old.settings, approvals=approvals)
    new = Run(settings, old.tools.runner, old.given, is_async=is_async, origin=old.origin)
    if settings.journal is not None:
        return new
    new.adapter, new.prompt, new.input = old.adapter, None, old.input
    new.transcript[:] = old.transcript
    new.base, new.next_overrides, new.tried = old.base, old.next_overrides, list(old.tried)
    new.turn, new.pauses, new.repeats, new.previous = (
        old.turn,
        old.pauses,
        old.repeats,
        old.previous,
    )
    new.last_stop = old.last_stop
    new.detector.history.extend(old.detector.history)
    new.tally.carry(old.tally)  # what it cost so far
    new.wasted = old.wasted
    new.controls.carry(old.controls)
    tools = new.tools
    tools.runs = [run for run in old.tools.runs if run.turn != old.turn]
    tools._run_id = old.tools._run_id  # the same idempotency keys as the paused run's
    tools.resume(old.turn, paused.done)
    new.resuming = paused.overrides
    return new
