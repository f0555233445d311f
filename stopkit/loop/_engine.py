"""The engine of a loop run: `drive`, DESIGN §5 as one generator.

Per turn: call the model (`Run.model_turn`: the call, then its reply normalized), dispatch on
the reply's reason (its handler), act on the action the handler returns (continue, retry,
finish, escalate); the safety nets (`max_turns`, the deadline, loop detection, the pause
limit) end a run cleanly. The run's controls (`_controls.py`) are told at the points of each
step by the run; the engine names none of them.

`drive(run)` yields a typed request (`_requests.py`) for what it needs done — `CallModel`,
`RunHandler`, `CallHook`, `Sleep` — and gets the result sent back (what a model call raised is
thrown back in). `Loop.run` and `Loop.arun` are the thin sync and async shells that carry the
requests out, so the two cannot drift apart, and a turn costs a few generator steps, not a
copy of the transcript. The run's state and its model calls are in `_run.py`.
"""

from __future__ import annotations

import logging
from collections.abc import Generator, Mapping
from typing import Any

from stopkit._logsafe import clip, redact
from stopkit._stop import Stop, StopReason
from stopkit.loop._controls import EndRun, Halt
from stopkit.loop._ending import end
from stopkit.loop._handlers import Continue, Escalate, Finish, LoopContext, Retry, as_list
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

    The controls open with the run (a durable run takes its lease in the journal: `RunLocked`
    when a live worker holds it) and close however it ends. A run resumed after approvals
    (`run.resuming`) starts at the handler of the turn it paused in.
    """
    controls = run.controls
    controls.open()
    try:
        return (yield from _turns(run))
    except EndRun as ended:  # a hook (or the deadline) ended the run inside a model call
        return _ended_early(run, ended)
    finally:
        controls.close()


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
    """Let the reason's handler act on the reply; return the outcome when the run ends.

    A control may end the run before the handler acts (a call that needs attention) or once
    it returned (a hook stopped the run, calls wait for a person): a `Halt`.
    """
    ctx = _context(run, stop, overrides)
    run.tools.handling(run.turn, stop)
    halt = run.controls.before_handler(ctx)
    action: Any = None
    if halt is None:
        action = yield RunHandler(run.handlers[stop.reason], ctx)
        halt = run.controls.after_handler()
    run.tools.pending = None
    if halt is not None:
        return (yield from _halted(run, stop, overrides, halt))
    return (yield from _act(run, stop, overrides, action))


def _context(run: Run, stop: Stop, overrides: Mapping[str, Any]) -> LoopContext:
    """Return what the handler of `stop` is given."""
    assert run.adapter is not None
    return LoopContext(
        stop=stop,
        messages=run.transcript,
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


def _halted(
    run: Run, stop: Stop, overrides: Mapping[str, Any], halt: Halt
) -> Generator[Request, Any, Outcome]:
    """End the run as a control said; the reply stays pending (not appended), its text salvaged.

    A run whose calls wait for a person can be resumed: the handler's action waits with them.
    """
    run.halted = halt
    run.stopped_by = halt.stopped_by
    if halt.pending:
        run.pending_calls = halt.pending
        run.paused = Paused(run, overrides, dict(run.tools.answered))
        return run.finish(halt.termination)
    if halt.escalate:
        run.escalate(stop, halt.reason)
    return (yield from end(run, halt.termination))


def _act(
    run: Run, stop: Stop, overrides: Mapping[str, Any], action: Any
) -> Generator[Request, Any, Outcome | None]:
    """Carry out the handler's action; return the outcome when it ends the run."""
    kind = type(action)
    reason = stop.reason
    if kind is Continue:
        _continue(run, stop, action)
        return None
    if kind is Retry:
        return (yield from _retry(run, stop, overrides, action))
    if kind is Finish:
        # A final reply joins the transcript only when complete and with no unanswered call.
        if reason in APPEND_ON_FINISH and not stop.tool_calls:
            assert run.adapter is not None
            run.transcript.extend(as_list(run.adapter.assistant_message(stop)))
        termination = action.termination or _TERMINATION_FOR[reason]
        return (yield from end(run, termination, action.text))
    if kind is Escalate:
        run.escalate(stop, action.reason)
        return (yield from end(run, action.termination or _TERMINATION_FOR[reason]))
    raise TypeError(
        f"the {reason.value} handler returned {action!r}; a handler returns "
        "Continue, Retry, Finish or Escalate"
    )


def _continue(run: Run, stop: Stop, action: Continue) -> None:
    """Append the action's messages (or replace the transcript with them); call again."""
    if action.replace:
        run.transcript[:] = action.messages
    else:
        run.transcript.extend(action.messages)
    if stop.reason is StopReason.PAUSED:
        run.pauses += 1
        run.controls.resumed(stop, run.pauses)
    run.tried.clear()
    run.next_overrides = {**run.base, **action.overrides} if action.overrides else run.base


def _retry(
    run: Run, stop: Stop, overrides: Mapping[str, Any], action: Retry
) -> Generator[Request, Any, Outcome | None]:
    """Drop the reply and call again with the action's overrides merged in (they stay).

    Overrides already tried for these messages end the run instead: no retry goes round.
    """
    retried = {**overrides, **action.overrides}
    if retried == overrides or retried in run.tried:
        logger.warning(
            "stopkit: a %s handler retried with overrides already tried (%s); ending the run",
            stop.reason.value,
            clip(redact(retried)),
        )
        return (yield from end(run, _TERMINATION_FOR[stop.reason]))
    run.tried.append(overrides)
    run.discard(stop, (overrides, retried))
    run.base = {**run.base, **action.overrides}
    run.next_overrides = retried
    return None
