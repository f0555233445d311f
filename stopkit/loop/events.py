"""What a loop run produces: `Termination`, `Outcome`, `Escalation`, `ToolRun`, and the events.

Plain frozen dataclasses with slots: an event is built on every step of a run, so it must cost
next to nothing; nothing here is serialized by pydantic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from stopkit._stop import Stop, ToolCall, ToolResult, Usage

__all__ = [
    "BudgetWarning",
    "Compacted",
    "Escalated",
    "Escalation",
    "HookStopped",
    "LoopEnded",
    "LoopEvent",
    "ModelCallFailed",
    "ModelReplied",
    "Outcome",
    "Spent",
    "Termination",
    "TextDelta",
    "ToolCalled",
    "ToolDeferred",
    "ToolDenied",
    "ToolReturned",
    "ToolRun",
    "TurnStarted",
    "UsageUnknown",
]


class Termination(StrEnum):
    """Which path ended a loop run: a closed set whose values are stable, serialized API.

    The first five follow the last reply's `StopReason`; the next four are the safety nets;
    the next two end a run that did not finish: `model_error` (only on `ModelCallError.outcome`)
    and `cancelled` (only on the `LoopEnded` event of a run cancelled or interrupted);
    `needs_attention` ends a durable run that must not go on by itself; the last three are the
    loop's controls: the `budget`, a hook, and a tool call waiting for a person's approval.

    Example:
        >>> Termination("max_turns") is Termination.MAX_TURNS
        True
    """

    COMPLETED = "completed"
    """The model finished its turn (or a handler finished the run on purpose)."""
    STOP_SEQUENCE = "stop_sequence"
    """A caller-supplied stop sequence matched."""
    OUTPUT_LIMIT = "output_limit"
    """The answer was cut by a token ceiling and the policy gave up; `text` is the partial text."""
    FILTERED = "filtered"
    """The reply was refused, filtered or blocked; it was escalated, never retried."""
    UNKNOWN = "unknown"
    """The stop was unrecognized, error-like or missing; it was escalated."""
    MAX_TURNS = "max_turns"
    """The run made `max_turns` model calls."""
    DEADLINE = "deadline"
    """The wall-clock `deadline` passed."""
    LOOP_DETECTED = "loop_detected"
    """The model asked for the same tool with the same arguments too often."""
    PAUSE_LIMIT = "pause_limit"
    """The provider paused the turn more often than `max_pauses`."""
    MODEL_ERROR = "model_error"
    """`call_model` raised and no retry was left (the outcome of a `ModelCallError`)."""
    CANCELLED = "cancelled"
    """The `arun_loop` task was cancelled, or a `KeyboardInterrupt` or `SystemExit` ended the run
    (the outcome on its `LoopEnded` event; the exception then propagates)."""
    NEEDS_ATTENTION = "needs_attention"
    """A resumed durable run found a call of a non-idempotent tool (`stopkit.tool(idempotent=
    False)`) that started before the crash and has no recorded result: it may or may not have
    happened. The run stops before running anything of that turn; `escalation.reason` names the
    step, and the journal keeps the run as `needs_attention` until a person settles the call."""
    BUDGET_EXCEEDED = "budget_exceeded"
    """The run spent its `budget` (tokens or cost): ended before the model call past it, with
    the partial outcome and the last reply's text, as for `max_turns`."""
    STOPPED_BY_HOOK = "stopped_by_hook"
    """`before_model_call`, `before_tool_call` or `approve` raised: `Outcome.stopped_by` says
    which, with the exception."""
    AWAITING_APPROVAL = "awaiting_approval"
    """`approve` deferred a tool call (`stopkit.loop.Defer`): `Outcome.pending_calls` wait for a
    person's decision; `stopkit.resume_loop(outcome, approvals=...)` continues the run."""


@dataclass(frozen=True, slots=True)
class ToolRun:
    """One tool call the loop handled, with the result the model was sent for it."""

    call: ToolCall
    """The call, as the model asked for it."""
    result: ToolResult
    """The result the model was sent for it (an error result when it did not run)."""
    turn: int
    """The model call (1-based) whose reply asked for it."""
    seconds: float
    """How long running it took (0.0 for a call that was not run)."""


@dataclass(frozen=True, slots=True)
class Escalation:
    """A reply the loop would not act on by itself, handed to `on_escalate` and kept on `Outcome`.

    Example:
        >>> def on_escalate(escalation: Escalation) -> None:  # doctest: +SKIP
        ...     review_queue.put((escalation.reason, escalation.input))
    """

    reason: str
    """What was escalated and why, in words (e.g. `filtered (refusal)`)."""
    stop: Stop
    """The escalated reply's `Stop` (its `raw` is the reply)."""
    turn: int
    """The model call (1-based) whose reply was escalated."""
    input: Sequence[Any]
    """The starting messages of the run, as given (a `str` prompt: its user message)."""
    messages: Sequence[Any]
    """The transcript at the time (without the escalated reply)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a loop run: the answer, why the run ended, and everything that happened.

    Example:
        >>> outcome = stopkit.run_loop(call_model, messages, tools=tools)  # doctest: +SKIP
        >>> if outcome.ok:  # doctest: +SKIP
        ...     print(outcome.text)
    """

    text: str
    """The final answer; else the last reply's text, salvaged (partial when truncated)."""
    termination: Termination
    """Which path ended the run."""
    stop: Stop | None
    """The last `Stop` (None when the run ended before any model call)."""
    turns: int
    """How many model calls were made (retries and the summing-up call included)."""
    messages: list[Any]
    """The transcript, never holding a truncated, filtered or unknown reply nor a pending call."""
    escalation: Escalation | None = None
    """What was escalated, when the run ended by escalating a reply."""
    tool_runs: tuple[ToolRun, ...] = ()
    """Every tool call handled, in order, with its result."""
    usage: Usage | None = None
    """The tokens of every reply of the run added up (`Usage + Usage`), discarded ones too:
    what the run cost. Counted as the adapter's wire format counts (see `Usage`); None when
    no reply said any count."""
    wasted_usage: Usage | None = None
    """The part of `usage` spent on replies the loop threw away: a reply a handler retried
    (`Retry`, e.g. a truncated one retried with a higher `max_tokens`) and a summing-up call's
    reply that could not be used. None when no discarded reply said any count."""
    pending_calls: tuple[ToolCall, ...] = ()
    """The calls waiting for a person's decision (`awaiting_approval`), in the reply's order."""
    stopped_by: HookStopped | None = None
    """The hook that stopped the run (`stopped_by_hook`), with what it raised."""
    usage_unknown: int = 0
    """How many replies did not say their input or output tokens. Not 0: `usage` adds up only
    what the replies said, so it is less than the run cost."""
    _paused: Any = field(default=None, compare=False, repr=False)
    """What `resume_loop` continues a run awaiting approval from (internal)."""

    @property
    def ok(self) -> bool:
        """Say whether the run ended with a full answer (`completed` or `stop_sequence`)."""
        return self.termination in (Termination.COMPLETED, Termination.STOP_SEQUENCE)


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """A model call is about to be made."""

    turn: int
    """The model call (1-based) about to be made."""
    overrides: Mapping[str, Any]
    """The overrides it is made with."""


@dataclass(frozen=True, slots=True)
class ModelReplied:
    """The model replied; `stop` says why it stopped."""

    turn: int
    """The model call (1-based) that replied."""
    stop: Stop
    """The reply's `Stop`."""


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the reply's visible text, as a streamed reply arrives (in order)."""

    turn: int
    """The model call (1-based) whose reply it is part of."""
    text: str
    """The new piece of text."""


@dataclass(frozen=True, slots=True)
class ModelCallFailed:
    """`call_model` raised; `retry_in` is the backoff before the next attempt (None: none left)."""

    turn: int
    """The model call (1-based) that failed."""
    error: BaseException
    """What `call_model` raised."""
    attempt: int
    """Which attempt of this call failed (1 for the first)."""
    retry_in: float | None
    """Seconds until the next attempt; None when no attempt is left."""


@dataclass(frozen=True, slots=True)
class ToolCalled:
    """A tool call is about to run (or be answered with an error when it cannot run)."""

    turn: int
    """The model call (1-based) whose reply asked for it."""
    call: ToolCall
    """The call about to run."""


@dataclass(frozen=True, slots=True)
class ToolReturned:
    """A tool call has its result."""

    turn: int
    """The model call (1-based) whose reply asked for it."""
    call: ToolCall
    """The call that ran."""
    result: ToolResult
    """Its result, as the model is sent it."""
    seconds: float
    """How long running it took (0.0 for a call that was not run)."""


@dataclass(frozen=True, slots=True)
class Escalated:
    """A reply was escalated to `on_escalate`."""

    turn: int
    """The model call (1-based) whose reply was escalated."""
    escalation: Escalation
    """What was escalated, as `on_escalate` receives it."""


@dataclass(frozen=True, slots=True)
class LoopEnded:
    """The run ended."""

    termination: Termination
    """Which path ended the run."""
    turn: int
    """The last model call's number (0 when none was made)."""
    tool_calls: int
    """How many tool calls were handled in the whole run."""
    text_empty: bool
    """Whether the final text is empty."""
    outcome: Outcome | None = field(default=None, compare=False, repr=False)
    """The run's `Outcome`: the only place a cancelled run's transcript is reported."""


@dataclass(frozen=True, slots=True)
class Spent:
    """What a run has spent so far, as its replies reported it (the `budget`'s tally).

    Example:
        >>> Spent(tokens=1200, cost=0.0, unknown=0).tokens
        1200
    """

    tokens: int
    """Input plus output tokens of every reply, counted as each wire format reports them."""
    cost: float
    """What `Budget.cost` made of the replies' usage (0.0 without a `cost`)."""
    unknown: int
    """How many replies did not say their input or output tokens: spend not counted."""


@dataclass(frozen=True, slots=True)
class BudgetWarning:
    """The run has spent `warn_at` of its budget (emitted once per run)."""

    turn: int
    """The model call about to be made."""
    spent: Spent
    """What the run has spent so far."""
    max_tokens: int | None
    """The budget's token limit (None: no token limit)."""
    max_cost: float | None
    """The budget's cost limit (None: no cost limit)."""


@dataclass(frozen=True, slots=True)
class UsageUnknown:
    """A reply did not say what it cost: its `missing` counts are not in the budget's tally."""

    turn: int
    """The model call (1-based) whose reply it is."""
    stop: Stop
    """The reply's `Stop`."""
    missing: tuple[str, ...]
    """The `Usage` fields the reply left unsaid (`input_tokens`, `output_tokens`)."""


@dataclass(frozen=True, slots=True)
class Compacted:
    """`compact` replaced the transcript before a model call: the sizes before and after."""

    turn: int
    """The model call the compacted transcript is sent to."""
    messages_before: int
    """How many messages the transcript held before."""
    messages_after: int
    """How many messages `compact` returned."""
    tokens_before: int
    """What passed `compact_at_tokens`: the estimate, else the last reply's prompt tokens."""
    tokens_after: int | None
    """The estimate of the new transcript (`estimate_tokens`); None without one."""


@dataclass(frozen=True, slots=True)
class ToolDenied:
    """`approve` denied a call: it is answered with the error result `denied: <reason>`."""

    turn: int
    """The model call (1-based) whose reply asked for it."""
    call: ToolCall
    """The denied call."""
    reason: str
    """Why, as `approve` said it (sent to the model)."""


@dataclass(frozen=True, slots=True)
class ToolDeferred:
    """`approve` deferred a call to a person: the run ends `awaiting_approval` after the turn."""

    turn: int
    """The model call (1-based) whose reply asked for it."""
    call: ToolCall
    """The deferred call."""
    reason: str | None
    """Why, as `stopkit.loop.Defer` said it (None: no reason given)."""


@dataclass(frozen=True, slots=True)
class HookStopped:
    """A hook raised to stop the run: `before_model_call`, `before_tool_call` or `approve`.

    Example:
        >>> stopped = HookStopped(3, "before_model_call", RuntimeError("quota spent"), None)
        >>> stopped.reason
        'before_model_call raised RuntimeError: quota spent'
    """

    turn: int
    """The model call (1-based) the run was at."""
    hook: str
    """Which hook: `before_model_call`, `before_tool_call` or `approve`."""
    error: BaseException
    """What the hook raised (kept as raised)."""
    call: ToolCall | None
    """The tool call it was asked about (None for `before_model_call`)."""

    @property
    def reason(self) -> str:
        """Say which hook stopped the run and with what, in words."""
        try:
            text = str(self.error)
        except Exception:  # a broken __str__ must not hide which hook stopped the run
            text = ""
        error = f"{type(self.error).__name__}: {text}" if text else type(self.error).__name__
        return f"{self.hook} raised {error}"


LoopEvent = (
    TurnStarted
    | TextDelta
    | ModelReplied
    | ModelCallFailed
    | ToolCalled
    | ToolReturned
    | Escalated
    | LoopEnded
    | BudgetWarning
    | UsageUnknown
    | Compacted
    | ToolDenied
    | ToolDeferred
    | HookStopped
)
"""Every event `on_event` can receive."""
