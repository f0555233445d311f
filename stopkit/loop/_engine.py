"""The engine of a loop run: `drive`, the whole logic of a run as one generator.

`drive(run)` yields a typed request (`_requests.py`) for what it needs done — `CallModel`,
`RunHandler`, `Sleep` — and gets the result sent back (what a model call raised is thrown back
in). `Loop.run` and `Loop.arun` are the thin sync and async shells that carry the requests out,
so the two cannot drift apart, and a turn costs a few generator steps, not a copy of the
transcript. The run's state and its model calls are in `_run.py`.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from typing import Any

from stopkit._logsafe import clip, redact
from stopkit._stop import StopReason
from stopkit.loop._requests import Request, RunHandler
from stopkit.loop._run import APPEND_ON_FINISH, Run
from stopkit.loop.events import Outcome, Termination
from stopkit.loop.handlers import Continue, Escalate, Finish, LoopContext, Retry, as_list

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
    """Run the conversation to its end, yielding `CallModel`, `RunHandler` and `Sleep`.

    A durable run first takes its lease in the journal (`RunLocked` when a live worker holds
    it), and gives it up however the run ends.
    """
    recorder = run.recorder
    if recorder is None:
        return (yield from _turns(run))
    recorder.open()
    try:
        return (yield from _turns(run))
    finally:
        recorder.close()


def _turns(run: Run) -> Generator[Request, Any, Outcome]:
    """Take turns until a handler, a bound or a failure ends the run."""
    settings = run.settings
    handlers = run.handlers
    transcript = run.transcript
    previous: StopReason | None = None
    while True:
        bound = run.out_of_bounds()
        if bound is not None:
            return (yield from run.end(bound))
        overrides = run.next_overrides
        stop = yield from run.model_turn(overrides, transcript)
        if run.unsupported:  # no reply to act on: end, keeping what was done
            run.escalate(stop, None)
            return (yield from run.end(Termination.UNKNOWN))
        reason = stop.reason
        run.repeats = run.repeats + 1 if reason is previous else 0
        previous = reason
        if reason is StopReason.PAUSED and run.pauses >= settings.max_pauses:
            return (yield from run.end(Termination.PAUSE_LIMIT))
        if reason is StopReason.TOOL_REQUEST:
            # No call runs whose result the model could never be sent: the reply stays pending
            # (not appended) and its text is salvaged.
            bound = run.out_of_bounds()
            if bound is not None:
                return (yield from run.end(bound))
            if run.loop_detected(stop):
                return (yield from run.end(Termination.LOOP_DETECTED))
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
            settings=settings,
            is_async=run.is_async,
            _tools=run.tools,
        )
        run.tools.handling(run.turn, stop)
        if run.tools.attention is not None:  # a resumed run: a call that may have happened
            run.tools.pending = None
            run.escalate(stop, run.tools.attention)
            return (yield from run.end(Termination.NEEDS_ATTENTION))
        action = yield RunHandler(handlers[reason], ctx)
        run.tools.pending = None
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
                    "stopkit: a %s handler retried with overrides already tried (%s); "
                    "ending the run",
                    reason.value,
                    clip(redact(retried)),
                )
                return (yield from run.end(_TERMINATION_FOR[reason]))
            run.tried.append(overrides)
            run.discard(stop, (overrides, retried))
            run.base = {**run.base, **action.overrides}
            run.next_overrides = retried
        elif kind is Finish:
            # A final reply joins the transcript only when complete and with no unanswered call.
            if reason in APPEND_ON_FINISH and not stop.tool_calls:
                transcript.extend(as_list(run.adapter.assistant_message(stop)))
            termination = action.termination or _TERMINATION_FOR[reason]
            return (yield from run.end(termination, action.text))
        elif kind is Escalate:
            run.escalate(stop, action.reason)
            return (yield from run.end(action.termination or _TERMINATION_FOR[reason]))
        else:
            raise TypeError(
                f"the {reason.value} handler returned {action!r}; a handler returns "
                "Continue, Retry, Finish or Escalate"
            )
