"""The one protocol the loop's controls plug in by: `Control`, its named points, and `Controls`.

A control is one module with one `Control` subclass that overrides the points it needs: the
journal (`_journaled.py`), tool approvals (`_approval.py`), the budget (`_budget.py`),
compaction (`_compaction.py`), the `before_model_call` hook (`_hooks.py`), retries
(`_retry.py`) and telemetry (`_observe.py`). A run (`_run.py`) holds its controls in one list,
in `Controls`, and calls the points at the steps of DESIGN §5; no control imports the engine,
and the engine names no control. The points, in the order a run meets them:

```
open()                        the run starts (a journal takes its lease)
bound(turn)                   may the model call of `turn` be made? a limit (the budget) says no
before_call(call)             before a turn's model call: change the transcript (compaction), or
                              give the reply instead of calling (a journal replays it)
before_try(call)              before each try of it (a hook, asked through the shells; telemetry)
retry(call, error)            a try raised: wait and try again, or give up saying why
replied(call, stop)           after the reply was read (record it, count it, observe it)
before_handler(ctx)           the reply's handler acts next: a control may end the run first
before_tool(tool)             before a tool call: answer it instead of running it (a journal's
                              record, a denial, a deferral), or observe it
starting(tool)                the tool call runs now (a journal marks a risky call started)
after_tool(tool, result, s)   the tool call has its result (record it, observe it)
after_handler()               the handler returned: a control may end the run (stopped, waiting)
discarded(stop, retry)        a reply was thrown away (retried, or unusable)
resumed(stop, pauses)         a paused reply is resumed
told(event)                   every event of the run, as `on_event` gets it
ended(outcome, why)           the run ended with `outcome`
failed(error)                 the run raised `error` before it could end
close()                       the run is over, however it ended (a journal gives its lease up)
carry(old)                    a run resumed after approvals goes on from the paused run's control
```

A point no control overrides costs nothing: `Controls` keeps, per point, only the controls that
override it. A control's events go to the run's channel (`Control.tell`, set by `Controls`):
`on_event` and every control's `told`.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stopkit._adapter import Adapter
from stopkit._stop import Stop, ToolCall, ToolResult
from stopkit.loop.events import HookStopped, LoopEvent, Outcome, Termination

__all__ = ["Control", "Controls", "EndRun", "Halt", "ModelCall", "ToolStep"]

Tell = Callable[[LoopEvent], Any]
# The steps a point may take through the shells (`_requests.Request`: a hook to call, a wait),
# and what a handler is given (`handlers.LoopContext`): typed loosely, as this module sits below
# both (they import the controls' modules).
Steps = Generator[Any, Any, None]
Context = Any


@dataclass(slots=True)
class ModelCall:
    """One turn's model call, as its points see it."""

    turn: int
    messages: list[Any]
    """What it is sent: the transcript itself (a turn's call), or a copy with one more message
    (the summing-up call)."""
    overrides: Mapping[str, Any]
    adapter: Adapter | None
    """The adapter the run knew before the call (None: it is read off the reply)."""
    summing_up: bool = False
    """The opt-in tool-less call after an empty final answer (`synthesize_on_empty_final`)."""
    attempt: int = 0
    """Which try is being made (1 for the first)."""
    replayed: bool = False
    """No call was made: a control gave the reply (a journal's record)."""
    reply: Any = None
    """What `call_model` returned (a `Streamed` for a stream); None when replayed."""
    unreadable: bool = False
    """The reply is none stopkit can read: the run ends as `unknown`."""


@dataclass(slots=True)
class ToolStep:
    """One tool call of a turn, as its points see it: `tool_call_<turn>_<slot>`."""

    turn: int
    slot: int
    """The call's place in the reply."""
    call: ToolCall
    refused: ToolResult | None = None
    """The run's own answer when the call cannot run (not a tool request, an id the reply
    repeats, the deadline passed): no control is asked whether it may."""
    kept: bool = True
    """Whether the call's answer is its result (False: a halted, deferred or cut call, which
    no journal keeps: a rerun asks about it again)."""
    waits: bool = False
    """The call waits for a person: its answer is a placeholder its handler sees, no more."""


@dataclass(frozen=True, slots=True)
class Halt:
    """How a control ends the run at a handler (`before_handler`, `after_handler`)."""

    termination: Termination
    reason: str
    """Why, in words (what a journal keeps as the run's detail)."""
    escalate: bool = False
    """Hand the reply to `on_escalate` with `reason` first (a call that needs attention)."""
    stopped_by: HookStopped | None = None
    pending: tuple[ToolCall, ...] = ()
    """The calls the run waits on a person for: the run can be resumed (`resume_loop`)."""


class EndRun(Exception):
    """Raised by a control inside a model call to end the run there (internal).

    `made`: whether a try of this turn's model call was made already (a retry's hook).
    """

    def __init__(
        self, termination: Termination, stopped: HookStopped | None, *, made: bool
    ) -> None:
        super().__init__(termination.value)
        self.termination = termination
        self.stopped = stopped
        self.made = made


class Control:
    """A control of a run: each point is a no-op here; a control overrides what it needs."""

    keeps_events = False
    """Whether the run keeps a stream's events for it (a journal records them)."""
    tell: Tell | None = None
    """The run's event channel (`on_event` and the controls' `told`), set by `Controls`."""

    def open(self) -> None:
        """The run starts, before its first step."""

    def bound(self, turn: int) -> Termination | None:
        """Return why the model call of `turn` may not be made (None: it may)."""
        return None

    def before_call(self, call: ModelCall) -> Any:
        """Before a turn's model call; return a recorded reply to use instead (None: call)."""
        return None

    def before_try(self, call: ModelCall) -> Steps | None:
        """Before each try of the model call: None, or the steps to take first (`yield from`)."""
        return None

    def retry(self, call: ModelCall, error: Exception) -> float | str | None:
        """A try raised: seconds to wait before the next, or why not (None: not mine to say)."""
        return None

    def replied(self, call: ModelCall, stop: Stop) -> None:
        """The model call's reply was read as `stop` (replayed or made)."""

    def before_handler(self, ctx: Context) -> Halt | None:
        """The handler of `ctx.stop` acts next; return a `Halt` to end the run instead."""
        return None

    def before_tool(self, tool: ToolStep) -> ToolResult | None:
        """Before a tool call: return its answer to give it instead of running it (None: run)."""
        return None

    async def abefore_tool(self, tool: ToolStep) -> ToolResult | None:
        """`before_tool` in `arun_loop` (a control whose question may be async overrides it)."""
        return self.before_tool(tool)

    def starting(self, tool: ToolStep) -> None:
        """The tool call runs now."""

    def after_tool(self, tool: ToolStep, result: ToolResult, seconds: float) -> None:
        """The tool call has its `result` (it ran `seconds`; 0.0 when it was answered)."""

    def after_handler(self) -> Halt | None:
        """The handler returned its action; return a `Halt` to end the run instead."""
        return None

    def discarded(self, stop: Stop, retry: tuple[Mapping[str, Any], ...] | None) -> None:
        """The reply `stop` was thrown away: retried, or not usable.

        `retry`: the call's old and new overrides; None: a summing-up reply that cannot be
        the answer.
        """

    def resumed(self, stop: Stop, pauses: int) -> None:
        """The paused reply `stop` is resumed (the `pauses`-th resume of the run)."""

    def told(self, event: LoopEvent) -> None:
        """An event of the run (what `on_event` gets)."""

    def ended(self, outcome: Outcome, why: str) -> None:
        """The run ended with `outcome`; `why` says how in words (what stopped it, or its text)."""

    def failed(self, error: BaseException) -> None:
        """The run raised `error` before it could end (a handler or a callback that raised)."""

    def close(self) -> None:
        """The run is over, however it ended (also when it raised)."""

    def carry(self, old: Control) -> None:
        """Go on from `old`, this control of the paused run this resumed run continues."""


_POINTS = (
    "open", "bound", "before_call", "before_try", "retry", "replied", "before_handler",
    "before_tool", "starting", "after_tool", "after_handler", "discarded",
    "resumed", "told", "ended", "failed", "close",
)  # fmt: skip


class Controls:
    """A run's controls in their order, each point calling the controls that override it.

    Example:
        >>> Controls([], None).bound(1) is None
        True
    """

    def __init__(self, controls: Sequence[Control], on_event: Tell | None) -> None:
        self.all = tuple(controls)
        at: dict[str, tuple[Any, ...]] = {
            point: tuple(
                getattr(c, point) for c in self.all
                if getattr(type(c), point) is not getattr(Control, point)
            )
            for point in _POINTS
        }  # fmt: skip
        self._at = at
        self.keeps_events = any(c.keeps_events for c in self.all)
        listeners = [*at["told"], *([] if on_event is None else [on_event])]
        self.tell: Tell | None = _channel(listeners)
        for control in self.all:
            control.tell = self.tell
        # An async-aware before_tool where a control has one, else its sync one.
        self._abefore_tool: tuple[tuple[Callable[[ToolStep], Any], bool], ...] = tuple(
            (c.abefore_tool, True) if type(c).abefore_tool is not Control.abefore_tool
            else (c.before_tool, False)
            for c in self.all
            if type(c).before_tool is not Control.before_tool
            or type(c).abefore_tool is not Control.abefore_tool
        )  # fmt: skip

    def open(self) -> None:
        for point in self._at["open"]:
            point()

    def bound(self, turn: int) -> Termination | None:
        return _first(self._at["bound"], turn)  # type: ignore[no-any-return]

    def before_call(self, call: ModelCall) -> Any:
        return _first(self._at["before_call"], call)

    def before_try(self, call: ModelCall) -> Steps:
        for point in self._at["before_try"]:
            steps = point(call)
            if steps is not None:
                yield from steps

    def retry(self, call: ModelCall, error: Exception) -> float | str | None:
        return _first(self._at["retry"], call, error)  # type: ignore[no-any-return]

    def replied(self, call: ModelCall, stop: Stop) -> None:
        for point in self._at["replied"]:
            point(call, stop)

    def before_handler(self, ctx: Context) -> Halt | None:
        return _first(self._at["before_handler"], ctx)  # type: ignore[no-any-return]

    def before_tool(self, tool: ToolStep) -> ToolResult | None:
        return _first(self._at["before_tool"], tool)  # type: ignore[no-any-return]

    async def abefore_tool(self, tool: ToolStep) -> ToolResult | None:
        for point, awaited in self._abefore_tool:
            answer = (await point(tool)) if awaited else point(tool)
            if answer is not None:
                return answer  # type: ignore[no-any-return]
        return None

    def starting(self, tool: ToolStep) -> None:
        for point in self._at["starting"]:
            point(tool)

    def after_tool(self, tool: ToolStep, result: ToolResult, seconds: float) -> None:
        for point in self._at["after_tool"]:
            point(tool, result, seconds)

    def after_handler(self) -> Halt | None:
        return _first(self._at["after_handler"])  # type: ignore[no-any-return]

    def discarded(self, stop: Stop, retry: tuple[Mapping[str, Any], ...] | None) -> None:
        for point in self._at["discarded"]:
            point(stop, retry)

    def resumed(self, stop: Stop, pauses: int) -> None:
        for point in self._at["resumed"]:
            point(stop, pauses)

    def ended(self, outcome: Outcome, why: str) -> None:
        for point in self._at["ended"]:
            point(outcome, why)

    def failed(self, error: BaseException) -> None:
        for point in self._at["failed"]:
            point(error)

    def close(self) -> None:
        for point in self._at["close"]:
            point()

    def carry(self, old: Controls) -> None:
        """Let each control go on from its counterpart (the same kind) in the paused run."""
        paused = {type(control): control for control in old.all}
        for control in self.all:
            before = paused.get(type(control))
            if before is not None:
                control.carry(before)


def _first(points: tuple[Any, ...], *args: Any) -> Any:
    """Return the first answer a point gives (None: none did): the later ones are not asked."""
    for point in points:
        answer = point(*args)
        if answer is not None:
            return answer
    return None


def _channel(listeners: list[Tell]) -> Tell | None:
    """Return what tells an event to every listener, in order (None: nobody listens)."""
    if not listeners:
        return None
    if len(listeners) == 1:
        return listeners[0]

    def tell(event: LoopEvent) -> None:
        for listener in listeners:
            listener(event)

    return tell
