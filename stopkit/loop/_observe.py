"""The loop's telemetry: the switch, what an observer of a run is told, and the control.

`stopkit.otel.instrument()` sets `factory`; every run asks it once, when it starts, for its
observer, and keeps None while nothing is instrumented: then the run has no `Telemetry`
control, and its points cost nothing. With one, the observer is told at the points
(`_controls.py`): each try of a model call and its reply, each tool call (with its turn and
slot; not those a durable run replays: the journal answers them first) and its result, the
engine's decisions (a reply discarded, a pause resumed), the run's events (a failed try, an
escalation, the controls' events, the end), and a run that raised. An observer must never
raise; `stopkit.otel`'s catches everything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from stopkit._adapter import Adapter
from stopkit._stop import Stop, ToolCall, ToolResult
from stopkit.loop._controls import Control, ModelCall, ToolStep
from stopkit.loop._streams import Streamed
from stopkit.loop.events import (
    BudgetWarning,
    Compacted,
    Escalated,
    Escalation,
    HookStopped,
    LoopEnded,
    LoopEvent,
    ModelCallFailed,
    Outcome,
    ToolDeferred,
    ToolDenied,
    UsageUnknown,
)

if TYPE_CHECKING:
    from stopkit.loop._settings import LoopSettings

__all__ = ["CONTROL_EVENTS", "RunObserver", "Telemetry", "factory"]

#: The events the controls emit: the observer's `control` is told of each.
CONTROL_EVENTS = frozenset(
    {BudgetWarning, UsageUnknown, Compacted, ToolDenied, ToolDeferred, HookStopped}
)


class RunObserver(Protocol):
    """What one run tells its observer, in the order it happens."""

    def model_call(
        self,
        turn: int,
        attempt: int,
        messages: Sequence[Any],
        overrides: Mapping[str, Any],
        adapter: Adapter | None,
    ) -> None:
        """A try of the model call of `turn` starts: `call_model(messages, **overrides)` next."""

    def model_failed(self, error: BaseException) -> None:
        """The try raised `error` (retried or not: the run says next)."""

    def model_replied(self, stop: Stop, streamed: bool) -> None:
        """The try's reply was read: `stop` (`streamed`: it came as a stream)."""

    def tool_call(self, turn: int, slot: int, call: ToolCall) -> None:
        """The tool call in `slot` of `turn`'s reply is about to run (or be answered)."""

    def tool_result(self, turn: int, slot: int, result: ToolResult) -> None:
        """The tool call in `slot` of `turn` has its result."""

    def discarded(self, stop: Stop, retry: tuple[Mapping[str, Any], ...] | None) -> None:
        """The reply `stop` was thrown away: retried, or unusable.

        A handler retried it (`retry`: the call's old and new overrides), or (None) it was a
        summing-up reply that could not be the answer.
        """

    def resumed(self, stop: Stop, pauses: int) -> None:
        """The paused reply `stop` is resumed (the `pauses`-th resume of the run)."""

    def escalated(self, escalation: Escalation) -> None:
        """A reply was escalated."""

    def control(self, event: LoopEvent) -> None:
        """A control acted: `event` is what `on_event` gets too.

        One of `BudgetWarning`, `UsageUnknown`, `Compacted`, `ToolDenied`, `ToolDeferred`,
        `HookStopped`.
        """

    def ended(self, outcome: Outcome) -> None:
        """The run ended with `outcome` (cancelled and interrupted runs too)."""

    def failed(self, error: BaseException) -> None:
        """The run raised `error` before it could end (a handler or callback that raised)."""


factory: Callable[[LoopSettings], RunObserver | None] | None = None
"""Makes each run's observer; set while instrumented (`stopkit.otel.instrument`)."""


class Telemetry(Control):
    """A run's observer as a control: each point tells it what happened."""

    def __init__(self, observer: RunObserver) -> None:
        self.observer = observer

    def before_try(self, call: ModelCall) -> None:
        self.observer.model_call(call.turn, call.attempt, call.messages, call.overrides,
                                 call.adapter)  # fmt: skip

    def replied(self, call: ModelCall, stop: Stop) -> None:
        if not call.replayed:
            self.observer.model_replied(stop, type(call.reply) is Streamed)

    def before_tool(self, tool: ToolStep) -> None:
        self.observer.tool_call(tool.turn, tool.slot, tool.call)

    def after_tool(self, tool: ToolStep, result: ToolResult, seconds: float) -> None:
        self.observer.tool_result(tool.turn, tool.slot, result)

    def discarded(self, stop: Stop, retry: tuple[Mapping[str, Any], ...] | None) -> None:
        self.observer.discarded(stop, retry)

    def resumed(self, stop: Stop, pauses: int) -> None:
        self.observer.resumed(stop, pauses)

    def told(self, event: LoopEvent) -> None:
        match event:
            case ModelCallFailed():
                self.observer.model_failed(event.error)
            case Escalated():
                self.observer.escalated(event.escalation)
            case LoopEnded(outcome=Outcome() as outcome):
                self.observer.ended(outcome)
            case _ if type(event) in CONTROL_EVENTS:
                self.observer.control(event)

    def failed(self, error: BaseException) -> None:
        self.observer.failed(error)
