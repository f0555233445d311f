"""The engine of a loop run: `drive`, the whole logic of a run as one generator.

`drive(run)` yields a typed request (`_requests.py`) for what it needs done — `CallModel`,
`RunHandler`, `Sleep` — and gets the result sent back (what a model call raised is thrown back
in). `Loop.run` and `Loop.arun` are the thin sync and async shells that carry the requests out,
so the two cannot drift apart, and a turn costs a few generator steps, not a copy of the
transcript. The run's state and its model calls are in `_run.py`.
"""

from __future__ import annotations

import logging
from collections.abc import Generator, Mapping
from typing import Any

from stopkit._logsafe import clip, redact
from stopkit._stop import Stop, StopReason
from stopkit.loop._ending import end
from stopkit.loop._handlers import Continue, Escalate, Finish, LoopContext, Retry, as_list
from stopkit.loop._hooks import EndRun
from stopkit.loop._requests import Request, RunHandler
from stopkit.loop._resume import Paused
from stopkit.loop._run import APPEND_ON_FINISH, Run
from stopkit.loop.events import Outcome, Termination

__all__ = ["drive"]

logger = logging.getLogger("stopkit.loop")

# The reason a plain `Finish`/`Escalate` ends with, unless the handler says otherwise.
_TERMINATION_FOR: dict[StopReason, Termination] = {
    StopReason.TOOL_REQUEST: Termination.COMPLETED,
    StopReason.COMPLETED: Termination.COMPLETED,
    StopReason.OUTPUT_LIMIT: Termination.OUTPUT_LIMIT,
    StopReason.FILTERED: Termination.FILTERED,
    StopReason.PAUSED: Termination.COMPLETED,
    StopReason.STOP_SEQUENCE: Termination.STOP_SEQUENCE,
    StopReason.UNKNOWN: Termination.UNKNOWN,
}


def drive(run: Run) -> Generator[Request, Any, Outcome]:
    """Run the conversation to its end, yielding `CallModel`, `RunHandler`, `CallHook`, `Sleep`.

    A durable run first takes its lease in the journal (`RunLocked` when a live worker holds
    it), and gives it up however the run ends. A run resumed after approvals (`run.resuming`)
    starts at the handler of the turn it paused in.
    """
    recorder = run.recorder
    if recorder is not None:
        recorder.open()
    try:
        return (yield from _turns(run))
    except EndRun as ended:  # a hook (or the deadline) ended the run inside a model call
        return _ended_early(run, ended)
    finally:
        if recorder is not None:
            recorder.close()


def _ended_early(run: Run, ended: EndRun) -> Outcome:
    """Return the outcome of a run a hook or the deadline ended inside a model call."""
    if not ended.made:  # the call of this turn was never made
        run.turn -= 1
    run.tools.pending = None
    run.stopped_by = ended.stopped
    return run.finish(ended.termination)


def _turns(run: Run) -> Generator[Request, Any, Outcome]:
    """Take turns until a handler, a bound or a failure ends the run."""
    settings = run.settings
    transcript = run.transcript
    if run.resuming is not None:
        assert run.last_stop is not None
        outcome = yield from _handle(run, run.last_stop, run.resuming)
        if outcome is not None:
            return outcome
    while True:
        bound = run.out_of_bounds()
        if bound is not None:
            return (yield from end(run, bound))
        if run.compactor is not None:
            run.compactor.before_call(run.turn + 1, transcript, run.last_stop)
        overrides = run.next_overrides
        stop = yield from run.model_turn(overrides, transcript)
        if run.unsupported:  # no reply to act on: end, keeping what was done
            run.escalate(stop, None)
            return (yield from end(run, Termination.UNKNOWN))
        reason = stop.reason
        run.repeats = run.repeats + 1 if reason is run.previous else 0
        run.previous = reason
        if reason is StopReason.PAUSED and run.pauses >= settings.max_pauses:
            return (yield from end(run, Termination.PAUSE_LIMIT))
        if reason is StopReason.TOOL_REQUEST:
            # No call runs whose result the model could never be sent: the reply stays pending
            # (not appended) and its text is salvaged.
            bound = run.out_of_bounds()
            if bound is not None:
                return (yield from end(run, bound))
            if run.loop_detected(stop):
                return (yield from end(run, Termination.LOOP_DETECTED))
        outcome = yield from _handle(run, stop, overrides)
        if outcome is not None:
            return outcome


def _handle(
    run: Run, stop: Stop, overrides: Mapping[str, Any]
) -> Generator[Request, Any, Outcome | None]:
    """Let the reason's handler act on the reply; return the outcome when the run ends."""
    transcript = run.transcript
    reason = stop.reason
    assert run.adapter is not None
    ctx = LoopContext(
        stop=stop,
        messages=transcript,
        turn=run.turn,
        overrides=overrides,
        adapter=run.adapter,
        input=run.input,
        repeats=run.repeats,
        pauses=run.pauses,
        settings=run.settings,
        is_async=run.is_async,
        _tools=run.tools,
    )
    run.tools.handling(run.turn, stop, ctx)
    if run.tools.attention is not None:  # a resumed run: a call that may have happened
        run.tools.pending = None
        run.escalate(stop, run.tools.attention)
        return (yield from end(run, Termination.NEEDS_ATTENTION))
    action = yield RunHandler(run.handlers[reason], ctx)
    run.tools.pending = None
    stopped = run.gate.stopped
    if stopped is not None:  # a hook stopped it: the reply stays pending, its text salvaged
        run.stopped_by = stopped
        return (yield from end(run, Termination.STOPPED_BY_HOOK))
    deferred = run.gate.deferred
    if deferred:  # calls wait for a person: the handler's action waits with them
        run.pending_calls = tuple(deferred)
        run.paused = Paused(run, overrides, dict(run.tools.answered))
        return run.finish(Termination.AWAITING_APPROVAL)
    kind = type(action)
    if kind is Continue:
        if action.replace:
            transcript[:] = action.messages
        else:
            transcript.extend(action.messages)
        if reason is StopReason.PAUSED:
            run.pauses += 1
            if run.obs is not None:
                run.obs.resumed(stop, run.pauses)
        run.tried.clear()
        run.next_overrides = {**run.base, **action.overrides} if action.overrides else run.base
    elif kind is Retry:
        retried = {**overrides, **action.overrides}
        if retried == overrides or retried in run.tried:
            logger.warning(
                "stopkit: a %s handler retried with overrides already tried (%s); ending the run",
                reason.value,
                clip(redact(retried)),
            )
            return (yield from end(run, _TERMINATION_FOR[reason]))
        run.tried.append(overrides)
        run.discard(stop, (overrides, retried))
        run.base = {**run.base, **action.overrides}
        run.next_overrides = retried
    elif kind is Finish:
        # A final reply joins the transcript only when complete and with no unanswered call.
        if reason in APPEND_ON_FINISH and not stop.tool_calls:
            transcript.extend(as_list(run.adapter.assistant_message(stop)))
        termination = action.termination or _TERMINATION_FOR[reason]
        return (yield from end(run, termination, action.text))
    elif kind is Escalate:
        run.escalate(stop, action.reason)
        return (yield from end(run, action.termination or _TERMINATION_FOR[reason]))
    else:
        raise TypeError(
            f"the {reason.value} handler returned {action!r}; a handler returns "
            "Continue, Retry, Finish or Escalate"
        )
    return None
