"""The state of one loop run (`Run`): its transcript, bounds, model calls and outcome.

`drive` (in `_engine.py`) steps a `Run`. Every turn's model call — a resume and the summing-up
call included — starts in `Run.model_turn`, and every try of it (the retries) is made by
`Run.call_model`: the places for a step boundary, a hook or a span around a model call. Every
tool call goes through the run's `ToolExecutor` likewise. While telemetry is on, the run's
observer (`_observe.py`) is told of each of those steps, of the decisions and of the ending.

A durable run (`journal=`) has a `Recorder`: `call_model` replays a model step it finds
recorded (no call is made) and records the reply of a live one, before it is used.

The run's controls are parts of it: its budget's `Tally` (each reply added in `model_turn`,
checked in `out_of_bounds`), its `Compactor` (before each turn's call), `before_model_call`
(before each try, in `attempts`; not for a replayed call) and its executor's `ToolGate`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import suppress
from typing import Any

from stopkit._adapter import Adapter
from stopkit._errors import JournalError, ModelCallError, UnsupportedReply
from stopkit._logsafe import clip
from stopkit._stop import Stop, StopReason, ToolCall, Usage, add_usage
from stopkit.loop import _observe
from stopkit.loop._approval import ToolGate, awaiting
from stopkit.loop._budget import Tally
from stopkit.loop._compaction import Compactor
from stopkit.loop._detector import LoopDetector
from stopkit.loop._executor import ToolExecutor
from stopkit.loop._handlers import DEFAULT_HANDLERS, user_message
from stopkit.loop._hooks import ModelCallContext, ask_before_call
from stopkit.loop._requests import CallModel, Request, Sleep
from stopkit.loop._retry import retry_delay
from stopkit.loop._runner import ToolRunner, deadline_passed, describe
from stopkit.loop._settings import LoopSettings
from stopkit.loop._start import starting_messages, unshaped_prompt
from stopkit.loop._streams import Streamed, read_reply, read_stream
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
from stopkit.loop.journal._codec import reply_json
from stopkit.loop.journal._names import CURRENT_STEP, model_step
from stopkit.loop.journal._recorder import Recorder
from stopkit.loop.journal._replies import recordable

__all__ = ["APPEND_ON_FINISH", "Run", "log_escalation"]

logger = logging.getLogger("stopkit.loop")

# The endings that leave recorded steps unreplayed on purpose (any other ending with a recorded
# step left over means the code took another path: a JournalMismatch).
_PARTIAL = frozenset({Termination.CANCELLED, Termination.NEEDS_ATTENTION})
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
        self.emit = settings.on_event
        self.deadline_at = (
            None if settings.deadline is None else time.monotonic() + settings.deadline
        )
        journal = settings.journal
        self.recorder = None if journal is None else Recorder(journal, settings.run_id or "")
        make = _observe.factory  # the run's one check of whether telemetry is on
        self.obs = obs = None if make is None else make(settings)
        # The controls' events go to `on_event` and to the observer alike.
        self.tell = tell = _observe.telling(self.emit, obs)
        self.gate = ToolGate(settings.approve, settings.before_tool_call, settings.approvals,
                             self.deadline_at, tell)  # fmt: skip
        self.tools = ToolExecutor(runner, settings.tool_timeout, self.deadline_at, self.emit,
                                  self.recorder, settings.run_id, self.gate, obs)  # fmt: skip
        self.tally = Tally(settings.budget, tell)
        self.compactor = None if settings.compact_at_tokens is None else Compactor(settings, tell)
        # How the run ended, beyond its termination: the hook that stopped it; the calls it
        # waits on, and what resuming it needs (set by the engine).
        self.stopped_by: HookStopped | None = None
        self.pending_calls: tuple[ToolCall, ...] = ()
        self.paused: Any = None
        # Set on a run resumed at a turn's handler: the overrides of that turn's model call.
        self.resuming: Mapping[str, Any] | None = None
        self.on_text: Callable[[str], None] | None = None if self.emit is None else self.report_text
        self.ended = False
        self.unsupported = False  # the last reply was none stopkit can read
        self.wasted: Usage | None = None  # those of the replies thrown away

    @property
    def runs(self) -> list[ToolRun]:
        """Every tool call handled so far, in order."""
        return self.tools.runs

    # --- bounds -----------------------------------------------------------------------------

    def out_of_bounds(self) -> Termination | None:
        if deadline_passed(self.deadline_at):
            return Termination.DEADLINE
        if self.turn >= self.settings.max_turns:
            return Termination.MAX_TURNS
        if self.tally.budget is not None and self.tally.exceeded(self.turn + 1):
            return Termination.BUDGET_EXCEEDED
        return None

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
        self, overrides: Mapping[str, Any], messages: list[Any]
    ) -> Generator[Request, Any, Stop]:
        """Start the next turn with its model call; return the reply's `Stop`.

        Every model call of a run starts here (the summing-up call too): the place for a step
        boundary or a span around one.
        """
        self.turn += 1
        if self.emit is not None:
            self.emit(TurnStarted(self.turn, overrides))
        stop = yield from self.call_model(overrides, messages)
        self.last_stop = stop
        self.tally.add(self.turn, stop)  # the run's usage, and its budget
        if self.emit is not None:
            self.emit(ModelReplied(self.turn, stop))
        return stop

    def call_model(
        self, overrides: Mapping[str, Any], messages: list[Any]
    ) -> Generator[Request, Any, Stop]:
        """Make one model call (retrying under the loop's policy); return the reply's `Stop`.

        The step `model_call_<turn>`: replayed from the journal when recorded there, else made
        (`current_step()` names it meanwhile) and recorded. Raises `ModelCallError` when the
        call failed and no retry is left.
        """
        recorder = self.recorder
        known = self.adapter  # what a rerun knows when it reads this step back
        if recorder is not None:
            recorded = recorder.model(self.turn, messages, overrides)
            if recorded is not None:
                return self.replayed(recorded)
        outer = CURRENT_STEP.get()
        CURRENT_STEP.set(model_step(self.turn))
        try:
            reply = yield from self.attempts(overrides, messages)
        finally:
            CURRENT_STEP.set(outer)
        stop = self.normalize(reply)
        if self.obs is not None:
            self.obs.model_replied(stop, type(reply) is Streamed)
        if recorder is not None:
            if not self.unsupported:  # kept so that a rerun reads it to this `stop`, or refused
                recorder.record_model(self.turn, recordable(reply, stop, known))
                return stop
            # No JSON form either: the run ends as unknown now, and a rerun makes this call again.
            with suppress(JournalError):
                recorder.record_model(self.turn, reply_json(reply))
        return stop

    def attempts(
        self, overrides: Mapping[str, Any], messages: list[Any]
    ) -> Generator[Request, Any, Any]:
        """Make the model call until a try returns (the retries); return what it returned."""
        attempt = 0
        keep = self.recorder is not None
        hook = self.settings.before_model_call
        obs = self.obs
        while True:
            attempt += 1
            if hook is not None:
                ctx = ModelCallContext(
                    turn=self.turn,
                    attempt=attempt,
                    messages=messages,
                    overrides=overrides,
                    spent=self.tally.spent,
                    settings=self.settings,
                )
                yield from ask_before_call(hook, ctx, self.deadline_at, self.tell)
            if obs is not None:
                obs.model_call(self.turn, attempt, messages, overrides, self.adapter)
            try:
                return (
                    yield CallModel(
                        messages, overrides, self.turn, attempt, self.adapter, self.on_text, keep
                    )
                )
            except Exception as exc:  # thrown in by the shell: what call_model raised
                if obs is not None:
                    obs.model_failed(exc)
                delay, why = retry_delay(self.settings.retry, exc, attempt, self.deadline_at)
                if self.emit is not None:
                    self.emit(ModelCallFailed(self.turn, exc, attempt, delay))
                if delay is None:
                    self.tools.pending = None
                    outcome = self.finish(Termination.MODEL_ERROR)
                    why += unshaped_prompt(self.prompt, self.adapter)
                    raise ModelCallError(outcome, attempt, why) from exc
                logger.warning(
                    "stopkit: the model call of turn %d failed (attempt %d: %s); "
                    "retrying in %.2f s",
                    self.turn,
                    attempt,
                    clip(describe(exc)),
                    delay,
                )
                yield Sleep(delay)

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
        if self.emit is not None:
            self.emit(TextDelta(self.turn, text))

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
        if self.obs is not None:
            self.obs.discarded(stop, retry)

    # --- ending -----------------------------------------------------------------------------

    def escalate(self, stop: Stop, reason: str | None) -> Escalation:
        if reason is None:
            reason = stop.reason.value + (f" ({stop.detail})" if stop.detail else "")
        escalation = Escalation(reason, stop, self.turn, self.input, tuple(self.transcript))
        self.escalation = escalation
        self.on_escalate(escalation)
        if self.obs is not None:
            self.obs.escalated(escalation)
        if self.emit is not None:
            self.emit(Escalated(self.turn, escalation))
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
        if self.recorder is not None:
            self.recorder.finish(
                termination.value, self.why(text), replayed_all=termination not in _PARTIAL
            )
        if self.obs is not None:
            self.obs.ended(outcome)
        if self.emit is not None:
            self.emit(LoopEnded(termination, self.turn, len(runs), text == "", outcome))
        return outcome

    def why(self, text: str) -> str:
        """Say why the run ended, for its journal row: what stopped it, else its final text."""
        if self.escalation is not None:
            return self.escalation.reason
        if self.stopped_by is not None:
            return self.stopped_by.reason
        if self.pending_calls:
            return awaiting(self.pending_calls)
        return text
