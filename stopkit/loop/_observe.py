"""The loop's telemetry switch: what an observer of a run is told, and when (internal).

`stopkit.otel.instrument()` sets `factory`; every run asks it once, when it starts, for its
observer, and keeps None while nothing is instrumented: then a run costs one check at its
start and one `is None` test per model call and per tool call, nothing more. The places that
tell the observer are the step boundaries: `Run.call_model` (each try of a model call),
`ToolExecutor._before`/`_after` (each tool call, with its turn and slot), the engine's
decisions (a retry, a resume), the controls' events (`telling`: the budget, compaction, the
hooks, approval), `Run.escalate`, `Run.finish` (the outcome), and the shells for a run that
raised. An observer must never raise; `stopkit.otel`'s catches everything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from stopkit._adapter import Adapter
from stopkit._stop import Stop, ToolCall, ToolResult
from stopkit.loop.events import Escalation, LoopEvent, Outcome

if TYPE_CHECKING:
    from stopkit.loop._settings import LoopSettings

__all__ = ["RunObserver", "factory", "telling"]


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


def telling(
    emit: Callable[[LoopEvent], Any] | None, obs: RunObserver | None
) -> Callable[[LoopEvent], Any] | None:
    """Return what tells a control's event to `on_event` and to the observer (None: no one).

    Example:
        >>> telling(None, None) is None
        True
    """
    if obs is None:
        return emit
    if emit is None:
        return obs.control

    def tell(event: LoopEvent) -> None:
        obs.control(event)
        emit(event)

    return tell
