"""The engine of a loop run: its state (`_Run`) and its steps (`_drive`).

`_drive` is a generator holding the whole logic of a run. It yields what it needs done, a model
call `(_CALL, overrides, messages)`, a handler run `(_HANDLE, handler, ctx)` or a backoff wait
`(_SLEEP, seconds)`, and gets the result sent back (a model call's exception is thrown back in);
`Loop.run` and `Loop.arun` (in `_loop.py`) are the thin sync and async shells that do it. So the
two entry points cannot drift apart, and a turn costs a few generator steps, not a copy of the
transcript.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter, deque
from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, Any

from stopkit._errors import ModelCallError
from stopkit._handlers import (
    Continue,
    Escalate,
    Finish,
    LoopContext,
    Retry,
    _as_list,
    user_message,
)
from stopkit._logsafe import clip, redact
from stopkit._normalize import _decode, detect
from stopkit._outcome import (
    Escalated,
    Escalation,
    LoopEnded,
    ModelCallFailed,
    ModelReplied,
    Outcome,
    Termination,
    ToolRun,
    TurnStarted,
)
from stopkit._run_tools import ToolTurns
from stopkit._stop import Stop, StopReason, ToolCall
from stopkit._tools import _describe, _size_of

if TYPE_CHECKING:
    from stopkit._loop import Loop

__all__ = ["SYNTHESIZE_PROMPT", "Request", "log_escalation"]

logger = logging.getLogger("stopkit.loop")

SYNTHESIZE_PROMPT = (
    "Your last reply was empty. Sum up what you did and found so far, as your final answer "
    "to the user. Do not call any tools."
)
"""What the opt-in summing-up call (`synthesize_on_empty_final`) asks the model."""

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
# Only a complete final reply joins the transcript when the run finishes on it.
_APPEND_ON_FINISH = (StopReason.COMPLETED, StopReason.STOP_SEQUENCE)
# The endings after which the summing-up call may be made (never after a filtered or unknown
# reply, a truncated one, or a passed deadline).
_SYNTHESIZE_AFTER = frozenset(
    {
        Termination.COMPLETED,
        Termination.STOP_SEQUENCE,
        Termination.MAX_TURNS,
        Termination.LOOP_DETECTED,
        Termination.PAUSE_LIMIT,
    }
)

_CALL = 0
_HANDLE = 1
_SLEEP = 2


Request = tuple[Any, ...]


def log_escalation(escalation: Escalation) -> None:
    """Log an escalation at WARNING: the default `on_escalate`."""
    stop = escalation.stop
    logger.warning(
        "stopkit: escalated at turn %d: %s (provider %s, raw %s)",
        escalation.turn,
        escalation.reason,
        stop.provider,
        clip(stop.raw_reason),
    )


def _call_key(call: ToolCall, max_bytes: int, max_depth: int) -> tuple[str, str]:
    """Return what makes two calls the same for loop detection: name and arguments as JSON.

    The arguments are model-made, of any shape: only a structure within the loop's argument
    bounds is serialized (a cycle, or one list shared 2**60 times, must not hang the run).
    """
    raw = call.arguments_json
    size, depth = _size_of(call.arguments, max_bytes, max_depth)
    if size <= max_bytes and depth <= max_depth:
        try:
            return call.name, json.dumps(call.arguments, sort_keys=True, default=str)
        except Exception:  # a str() that raises, a key that is no str
            pass
    return call.name, raw if type(raw) is str else clip(call.arguments, 4000)


class _Run(ToolTurns):
    """The state of one run; `_drive` steps it, the context's tool methods feed it."""

    def __init__(self, loop: Loop, messages: Sequence[Any], *, is_async: bool) -> None:
        self.loop = loop
        self.is_async = is_async
        self.input = tuple(messages)
        self.transcript: list[Any] = list(messages)
        self.adapter = loop.adapter
        self.base: dict[str, Any] = loop.overrides
        self.next_overrides: dict[str, Any] = loop.overrides
        self.tried: list[dict[str, Any]] = []
        self.turn = 0
        self.pauses = 0
        self.repeats = 0
        self.last_stop: Stop | None = None
        self.runs: list[ToolRun] = []
        self.history: deque[tuple[str, str]] = deque(maxlen=loop.loop_window)
        self.escalation: Escalation | None = None
        self.emit = loop.on_event
        self.deadline_at = None if loop.deadline is None else time.monotonic() + loop.deadline
        # For a cancelled run: the tool request being handled, and the calls running right now.
        self.pending: Stop | None = None
        self.inflight: tuple[Sequence[ToolCall], list[ToolRun | None]] | None = None

    # --- bounds -----------------------------------------------------------------------------

    def out_of_bounds(self) -> Termination | None:
        if self.deadline_at is not None and time.monotonic() >= self.deadline_at:
            return Termination.DEADLINE
        if self.turn >= self.loop.max_turns:
            return Termination.MAX_TURNS
        return None

    def loop_detected(self, stop: Stop) -> bool:
        """Say whether running this reply's calls repeats one too often; else record them."""
        bounds = (self.loop.max_argument_bytes, self.loop.max_argument_depth)
        keys = [_call_key(call, *bounds) for call in stop.runnable_tool_calls]
        if not keys:
            return False
        window = [*self.history, *keys][-self.loop.loop_window :]
        counts = Counter(window)
        if any(counts[key] >= self.loop.loop_threshold for key in keys):
            return True
        self.history.extend(keys)
        return False

    def cancelled(self) -> None:
        """Close the run after its `arun` task was cancelled; report it on `LoopEnded`.

        Every call of the tool request being handled gets a result (its own, or `cancelled`)
        and joins the transcript with the reply, so the transcript stays one the provider
        accepts.
        """
        self.answer_cancelled()
        self.finish(Termination.CANCELLED)

    # --- model calls ------------------------------------------------------------------------

    def call_model(
        self, overrides: dict[str, Any], messages: list[Any]
    ) -> Generator[Request, Any, Stop]:
        """Make one model call (retrying under the loop's policy); return the reply's `Stop`.

        Raises `ModelCallError` when the call failed and no retry is left.
        """
        attempt = 0
        while True:
            attempt += 1
            try:
                reply = yield (_CALL, overrides, messages)
            except Exception as exc:  # thrown in by the shell: what call_model raised
                delay, why = self.retry_delay(exc, attempt)
                if self.emit is not None:
                    self.emit(ModelCallFailed(self.turn, exc, attempt, delay))
                if delay is None:
                    self.pending = None
                    outcome = self.finish(Termination.MODEL_ERROR)
                    raise ModelCallError(outcome, attempt, why) from exc
                logger.warning(
                    "stopkit: the model call of turn %d failed (attempt %d: %s); "
                    "retrying in %.2f s",
                    self.turn,
                    attempt,
                    clip(_describe(exc)),
                    delay,
                )
                yield (_SLEEP, delay)
                continue
            return self.normalize(reply)

    def retry_delay(self, exc: Exception, attempt: int) -> tuple[float | None, str]:
        """Return the wait before retrying after failed try `attempt` (None: give up), and why."""
        name = type(exc).__name__
        policy = self.loop.retry
        if policy is None:
            return None, f"{name}; no retry policy"
        delay = policy.delay(exc, attempt)
        if delay is None:
            if attempt >= policy.attempts:
                return None, f"{name}; all {policy.attempts} attempts used"
            return None, f"{name}; not retried by the policy"
        if self.deadline_at is not None and time.monotonic() + delay >= self.deadline_at:
            return None, f"{name}; the deadline leaves no time to retry"
        return delay, ""

    # --- ending -----------------------------------------------------------------------------

    def normalize(self, reply: Any) -> Stop:
        reply = _decode(reply)
        adapter = self.adapter
        if adapter is None:
            adapter = self.adapter = detect(reply)
        return adapter.normalize(reply)

    def escalate(self, stop: Stop, reason: str | None) -> Escalation:
        if reason is None:
            reason = stop.reason.value + (f" ({stop.detail})" if stop.detail else "")
        escalation = Escalation(reason, stop, self.turn, self.input, tuple(self.transcript))
        self.escalation = escalation
        self.loop.on_escalate(escalation)
        if self.emit is not None:
            self.emit(Escalated(self.turn, escalation))
        return escalation

    def finish(self, termination: Termination, text: str | None = None) -> Outcome:
        """Return the outcome as it stands (no summing-up call), and report `LoopEnded`."""
        if text is None:
            text = self.last_stop.text if self.last_stop is not None else ""
        outcome = Outcome(
            text,
            termination,
            self.last_stop,
            self.turn,
            self.transcript,
            self.escalation,
            tuple(self.runs),
        )
        if self.emit is not None:
            self.emit(LoopEnded(termination, self.turn, len(self.runs), text == "", outcome))
        return outcome

    def end(
        self, termination: Termination, text: str | None = None
    ) -> Generator[Request, Any, Outcome]:
        if text is None:
            text = self.last_stop.text if self.last_stop is not None else ""
        if (
            text == ""
            and self.loop.synthesize_on_empty_final
            and termination in _SYNTHESIZE_AFTER
            and self.adapter is not None
        ):
            text = yield from self.synthesize()
        if text == "":
            logger.info(
                "stopkit: the run ended with an empty final answer "
                "(termination %s, turn %d, %d tool calls)",
                termination.value,
                self.turn,
                len(self.runs),
            )
        return self.finish(termination, text)

    def synthesize(self) -> Generator[Request, Any, str]:
        """Make the one extra, tool-less call asking the model to sum up; return its text."""
        assert self.adapter is not None
        messages = [*self.transcript, user_message(self.adapter, SYNTHESIZE_PROMPT)]
        # `tool_choice="none"` is the documented override meaning "no tool may be called".
        overrides = {**self.base, "tool_choice": "none"}
        self.turn += 1
        if self.emit is not None:
            self.emit(TurnStarted(self.turn, overrides))
        stop = yield from self.call_model(overrides, messages)
        self.last_stop = stop
        if self.emit is not None:
            self.emit(ModelReplied(self.turn, stop))
        if stop.reason not in _APPEND_ON_FINISH or stop.tool_calls:
            return ""
        messages.extend(_as_list(self.adapter.assistant_message(stop)))
        self.transcript[:] = messages
        return stop.text


def _drive(run: _Run) -> Generator[Request, Any, Outcome]:
    """Run the conversation; yield `(_CALL, overrides, messages)` and `(_HANDLE, handler, ctx)`."""
    loop = run.loop
    handlers = loop.handlers
    transcript = run.transcript
    previous: StopReason | None = None
    while True:
        bound = run.out_of_bounds()
        if bound is not None:
            return (yield from run.end(bound))
        run.turn += 1
        overrides = run.next_overrides
        if run.emit is not None:
            run.emit(TurnStarted(run.turn, overrides))
        stop = yield from run.call_model(overrides, transcript)
        run.last_stop = stop
        if run.emit is not None:
            run.emit(ModelReplied(run.turn, stop))
        reason = stop.reason
        run.repeats = run.repeats + 1 if reason is previous else 0
        previous = reason
        if reason is StopReason.PAUSED and run.pauses >= loop.max_pauses:
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
            stop,
            transcript,
            run.turn,
            overrides,
            run.adapter,
            run.input,
            run.repeats,
            run.pauses,
            loop,
            run.is_async,
            run,
        )
        if reason is StopReason.TOOL_REQUEST:
            run.pending = stop
        action = yield (_HANDLE, handlers[reason], ctx)
        run.pending = None
        kind = type(action)
        if kind is Continue:
            if action.replace:
                transcript[:] = action.messages
            else:
                transcript.extend(action.messages)
            if reason is StopReason.PAUSED:
                run.pauses += 1
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
            run.base = {**run.base, **action.overrides}
            run.next_overrides = retried
        elif kind is Finish:
            # A final reply joins the transcript only when complete and with no unanswered call.
            if reason in _APPEND_ON_FINISH and not stop.tool_calls:
                transcript.extend(_as_list(run.adapter.assistant_message(stop)))
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
