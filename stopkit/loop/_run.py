"""The state of one loop run (`Run`): its transcript, bounds, model calls, controls and outcome.

`drive` (in `_engine.py`) steps a `Run`. Every turn's model call — a resume and the summing-up
call included — starts in `Run.model_turn`, and every try of it (the retries) is made in
`Run.attempts`; every tool call goes through the run's `ToolExecutor`. The run's controls
(`_controls.py`: the journal, approvals, the budget, compaction, the hooks, retries,
telemetry) are one list, built once from the settings (`_controls_of`, the one place that
names them), and told at the points of those steps; the run's events go to `on_event` and to
the controls that listen.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

from stopkit._adapter import Adapter
from stopkit._errors import ModelCallError, UnsupportedReply
from stopkit._logsafe import clip
from stopkit._stop import Stop, StopReason, ToolCall, Usage, add_usage
from stopkit.loop import _observe
from stopkit.loop._approval import ToolGate
from stopkit.loop._budget import BudgetCheck, Tally
from stopkit.loop._compaction import Compactor
from stopkit.loop._controls import Control, Controls, Halt, ModelCall
from stopkit.loop._detector import LoopDetector
from stopkit.loop._executor import ToolExecutor
from stopkit.loop._handlers import DEFAULT_HANDLERS, user_message
from stopkit.loop._hooks import BeforeModelCall
from stopkit.loop._journaled import Journaled
from stopkit.loop._requests import CallModel, Request, Sleep
from stopkit.loop._retry import Retrying
from stopkit.loop._runner import ToolRunner, deadline_passed, describe
from stopkit.loop._settings import LoopSettings
from stopkit.loop._start import starting_messages, unshaped_prompt
from stopkit.loop._streams import Streamed, read_reply, read_stream, reading_with
from stopkit.loop.events import (
    Escalated,
    Escalation,
    HookStopped,
    LoopEnded,
    ModelCallFailed,
    ModelReplied,
    Outcome,
    Termination,
    TextDelta,
    ToolRun,
    TurnStarted,
)
from stopkit.loop.journal._errors import JournalError
from stopkit.loop.journal._names import as_step, model_step

__all__ = ["APPEND_ON_FINISH", "Run", "log_escalation"]

logger = logging.getLogger("stopkit.loop")

# Only a complete final reply joins the transcript when the run finishes on it.
APPEND_ON_FINISH = (StopReason.COMPLETED, StopReason.STOP_SEQUENCE)


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


def _controls_of(
    settings: LoopSettings, runner: ToolRunner, tally: Tally, deadline_at: float | None
) -> list[Control]:
    """Return the controls the settings ask for, in the order each point is called in.

    Compaction before the journal (a model step's request is the compacted transcript); the
    journal before telemetry and approvals (a recorded call is neither observed nor asked
    about); the hook before telemetry (its time is not the model call's).
    """
    controls: list[Control] = []
    if settings.compact_at_tokens is not None:
        controls.append(Compactor(settings))
    if settings.journal is not None:
        controls.append(Journaled(settings.journal, settings.run_id or "", runner.idempotent))
    if settings.before_model_call is not None:
        controls.append(BeforeModelCall(settings.before_model_call, settings, tally, deadline_at))
    make = _observe.factory  # the run's one check of whether telemetry is on
    observer = None if make is None else make(settings)
    if observer is not None:
        controls.append(_observe.Telemetry(observer))
    if settings.budget is not None:
        controls.append(BudgetCheck(settings.budget, tally))
    if settings.approve is not None or settings.before_tool_call is not None or settings.approvals:
        controls.append(ToolGate(settings.approve, settings.before_tool_call,
                                 settings.approvals, deadline_at))  # fmt: skip
    if settings.retry is not None:
        controls.append(Retrying(settings.retry, deadline_at))
    return controls


class Run:
    """The state of one run; `drive` steps it. Holds no reference to the shells."""

    def __init__(
        self,
        settings: LoopSettings,
        runner: ToolRunner,
        messages: Sequence[Any] | str,
        *,
        is_async: bool,
        origin: Any = None,
    ) -> None:
        self.settings = settings
        # What a run awaiting approval is resumed with: the `Loop`, and the messages as given.
        self.origin = origin
        self.given = messages
        self.handlers = settings.handlers or DEFAULT_HANDLERS
        self.on_escalate = settings.on_escalate or log_escalation
        self.is_async = is_async
        self.adapter: Adapter | None = settings.adapter  # type: ignore[assignment]
        # A str prompt is one user message: in the adapter's shape once it is known.
        self.prompt = messages if isinstance(messages, str) else None
        self.transcript: list[Any] = starting_messages(messages, self.adapter)
        self.input = tuple(self.transcript)
        self.base: Mapping[str, Any] = settings.call_overrides
        self.next_overrides: Mapping[str, Any] = self.base
        self.tried: list[Mapping[str, Any]] = []
        self.turn = 0
        self.pauses = 0
        self.repeats = 0
        self.previous: StopReason | None = None  # the reason the reply before this one had
        self.last_stop: Stop | None = None
        self.detector = LoopDetector(settings)
        self.loop_detected = self.detector.detected
        self.escalation: Escalation | None = None
        self.deadline_at = (
            None if settings.deadline is None else time.monotonic() + settings.deadline
        )
        budget = settings.budget
        self.tally = Tally(None if budget is None else budget.cost)
        self.controls = Controls(
            _controls_of(settings, runner, self.tally, self.deadline_at), settings.on_event
        )
        self.tell = self.controls.tell  # the run's events: to `on_event` and the controls
        self.tools = ToolExecutor(
            runner, settings.tool_timeout, self.deadline_at, self.controls, settings.run_id
        )
        # How the run ended, beyond its termination: the hook that stopped it; the control
        # that ended it at a handler; the calls it waits on, and what resuming it needs.
        self.stopped_by: HookStopped | None = None
        self.halted: Halt | None = None
        self.pending_calls: tuple[ToolCall, ...] = ()
        self.paused: Any = None
        # Set on a run resumed at a turn's handler: the overrides of that turn's model call.
        self.resuming: Mapping[str, Any] | None = None
        # A streamed reply's text goes to `on_event` (`TextDelta`) as it arrives.
        self.on_text: Callable[[str], None] | None = (
            None if settings.on_event is None else self.report_text
        )
        self.ended = False
        self.unsupported = False  # the last reply was none stopkit can read
        self.wasted: Usage | None = None  # those of the replies thrown away

    @property
    def runs(self) -> list[ToolRun]:
        """Every tool call handled so far, in order."""
        return self.tools.runs

    # --- bounds -----------------------------------------------------------------------------

    def out_of_bounds(self) -> Termination | None:
        """Say what ends the run before its next model call: a safety net, or a control."""
        if deadline_passed(self.deadline_at):
            return Termination.DEADLINE
        if self.turn >= self.settings.max_turns:
            return Termination.MAX_TURNS
        return self.controls.bound(self.turn + 1)

    def cut_short(self) -> None:
        """Close a run cut short (cancelled, interrupted); report it on `LoopEnded`.

        Every call of the tool request being handled gets a result (its own, or `cancelled`)
        and joins the transcript with the reply, so the transcript stays one the provider
        accepts. A run that has ended already is left as it is.
        """
        if self.ended:
            return
        self.transcript.extend(self.tools.answer_cut(self.adapter))
        self.finish(Termination.CANCELLED)

    # --- model calls ------------------------------------------------------------------------

    def model_turn(
        self, overrides: Mapping[str, Any], messages: list[Any], *, summing_up: bool = False
    ) -> Generator[Request, Any, Stop]:
        """Start the next turn with its model call; return the reply's `Stop`.

        Every model call of a run starts here (the summing-up call too).
        """
        self.turn += 1
        tell = self.tell
        if tell is not None:
            tell(TurnStarted(self.turn, overrides))
        call = ModelCall(self.turn, messages, overrides, self.adapter, summing_up)
        stop = yield from self.call_model(call)
        self.last_stop = stop
        self.tally.add(stop)  # what the run spent
        if tell is not None:
            tell(ModelReplied(self.turn, stop))
        return stop

    def call_model(self, call: ModelCall) -> Generator[Request, Any, Stop]:
        """Make one model call (retrying as the controls say); return the reply's `Stop`.

        The step `model_call_<turn>`: replayed when a control gives its reply (a journal's
        record), else made (`current_step()` names it meanwhile, `reader()` the adapter that
        will read its reply). Raises `ModelCallError` when the call failed and no retry is left.
        """
        recorded = self.controls.before_call(call)
        if recorded is not None:
            call.replayed = True
            stop = self.replayed(recorded)
        else:
            with as_step(model_step(call.turn)), reading_with(self.adapter):
                call.reply = yield from self.attempts(call)
            stop = self.normalize(call.reply)
            call.unreadable = self.unsupported
        self.controls.replied(call, stop)
        return stop

    def attempts(self, call: ModelCall) -> Generator[Request, Any, Any]:
        """Make the model call until a try returns (the retries); return what it returned.

        A `JournalError` the call raises (a DBOS model step that does not replay, or whose
        reply cannot be kept) is no failed call: never retried, it is raised as it is, as a
        journal's own is (not as a `ModelCallError`), by `run_loop` and `resume_loop` alike.
        """
        keep = self.controls.keeps_events
        while True:
            call.attempt += 1
            yield from self.controls.before_try(call)
            try:
                return (
                    yield CallModel(call.messages, call.overrides, call.turn, call.attempt,
                                    self.adapter, self.on_text, keep)
                )  # fmt: skip
            except JournalError:  # a DBOS model step that does not replay: the journal's word
                raise
            except Exception as exc:  # thrown in by the shell: what call_model raised
                delay = self.failed_try(call, exc)
                yield Sleep(delay)

    def failed_try(self, call: ModelCall, exc: Exception) -> float:
        """Return the wait before the next try of `call`, as the controls say; else give up.

        Giving up ends the run (`model_error`) and raises `ModelCallError` from `exc`.
        """
        decided = self.controls.retry(call, exc)
        delay = None if decided is None or isinstance(decided, str) else decided
        if self.tell is not None:
            self.tell(ModelCallFailed(call.turn, exc, call.attempt, delay))
        if delay is None:
            why = decided if isinstance(decided, str) else f"{type(exc).__name__}; no retry policy"
            self.tools.pending = None
            outcome = self.finish(Termination.MODEL_ERROR)
            why += unshaped_prompt(self.prompt, self.adapter)
            raise ModelCallError(outcome, call.attempt, why) from exc
        logger.warning(
            "stopkit: the model call of turn %d failed (attempt %d: %s); retrying in %.2f s",
            call.turn,
            call.attempt,
            clip(describe(exc)),
            delay,
        )
        return delay

    def replayed(self, recorded: Any) -> Stop:
        """Return the `Stop` of a recorded reply, read by the adapter as a live one is."""
        events = recorded.get("events")
        if events is not None:
            return self.streamed(read_stream(events, self.adapter, self.on_text))
        return self.normalize(recorded["reply"])

    def normalize(self, reply: Any) -> Stop:
        """Return the `Stop` of a reply; one stopkit cannot read gives an `unsupported_reply` one.

        Not readable: a value no adapter detects (text, a dict of no known shape), or, once the
        adapter is known, a reply its `detects` refuses (another provider's). The run then ends
        as `unknown` (see `drive`), with everything done so far kept.
        """
        if type(reply) is Streamed:
            return self.streamed(reply)
        try:
            adapter, stop = read_reply(reply, self.adapter)
        except UnsupportedReply as exc:
            return self.unreadable(exc.reply, exc)
        if self.adapter is None:
            self.adopt(adapter)
        return stop

    def streamed(self, streamed: Streamed) -> Stop:
        """Return the `Stop` of a streamed reply the shell has read."""
        if streamed.error is not None:
            return self.unreadable(streamed.raw, streamed.error)
        if self.adapter is None and streamed.adapter is not None:
            self.adopt(streamed.adapter)
        assert streamed.stop is not None
        return streamed.stop

    def adopt(self, adapter: Adapter) -> Adapter:
        """Take the adapter the first reply named; a `str` prompt now takes its shape."""
        self.adapter = adapter
        if self.prompt is not None:
            self.transcript[0] = user_message(adapter, self.prompt)
        return adapter

    def report_text(self, text: str) -> None:
        """Report a piece of a streamed reply's text (`TextDelta`)."""
        if self.tell is not None:
            self.tell(TextDelta(self.turn, text))

    def unreadable(self, reply: Any, error: UnsupportedReply) -> Stop:
        """Return the `Stop` standing for a reply stopkit cannot read, and log it at WARNING."""
        logger.warning(
            "stopkit: call_model returned %s at turn %d; ending the run as unknown",
            clip(str(error), 600),
            self.turn,
        )
        self.unsupported = True
        return Stop(
            reason=StopReason.UNKNOWN,
            provider=self.adapter.name if self.adapter is not None else "none",
            detail="unsupported_reply",
            notes=(str(error),),
            raw=reply,
        )

    def discard(self, stop: Stop, retry: tuple[Mapping[str, Any], ...] | None = None) -> None:
        """Count a reply thrown away: retried (`retry`: the old and new overrides), or unusable."""
        self.wasted = add_usage(self.wasted, stop.usage)
        self.controls.discarded(stop, retry)

    # --- ending -----------------------------------------------------------------------------

    def escalate(self, stop: Stop, reason: str | None) -> Escalation:
        if reason is None:
            reason = stop.reason.value + (f" ({stop.detail})" if stop.detail else "")
        escalation = Escalation(reason, stop, self.turn, self.input, tuple(self.transcript))
        self.escalation = escalation
        self.on_escalate(escalation)
        if self.tell is not None:
            self.tell(Escalated(self.turn, escalation))
        return escalation

    def finish(self, termination: Termination, text: str | None = None) -> Outcome:
        """Return the outcome as it stands (no summing-up call), and report `LoopEnded`."""
        self.ended = True
        if text is None:
            text = self.last_stop.text if self.last_stop is not None else ""
        runs = self.tools.runs
        outcome = Outcome(
            text,
            termination,
            self.last_stop,
            self.turn,
            self.transcript,
            self.escalation,
            tuple(runs),
            self.tally.usage,
            self.wasted,
            pending_calls=self.pending_calls,
            stopped_by=self.stopped_by,
            usage_unknown=self.tally.unknown,
            _paused=self.paused,
        )
        self.controls.ended(outcome, self.why(text))
        if self.tell is not None:
            self.tell(LoopEnded(termination, self.turn, len(runs), text == "", outcome))
        return outcome

    def why(self, text: str) -> str:
        """Say why the run ended, in words: what stopped it, else its final text."""
        if self.escalation is not None:
            return self.escalation.reason
        if self.stopped_by is not None:
            return self.stopped_by.reason
        if self.halted is not None:
            return self.halted.reason
        return text
