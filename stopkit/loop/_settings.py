"""`LoopSettings`: every setting of a loop in one frozen object, checked once when it is built.

This dataclass is the one list of the loop's settings: `Loop`, `run_loop` and `arun_loop` take
its fields as keywords (their signatures are copied from it by `keywords_of`), the
engine reads it, and a handler sees it as `ctx.settings`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Concatenate, ParamSpec, TypeVar

from stopkit._adapter import Adapter
from stopkit._registry import get_adapter
from stopkit._stop import StopReason, ToolCall
from stopkit.loop._approval import Approval, check_approvals
from stopkit.loop._budget import Budget
from stopkit.loop._retry import RetryPolicy
from stopkit.loop._tool import timed_by_itself, wants_key
from stopkit.loop.events import Escalation, LoopEvent
from stopkit.loop.journal._errors import InvalidRunId
from stopkit.loop.journal._protocol import Journal

__all__ = ["LoopSettings", "check_handlers", "keywords_of"]

P = ParamSpec("P")
A = TypeVar("A")
B = TypeVar("B")
R = TypeVar("R")

# A handler takes a `LoopContext`; typed loosely here because the context holds these
# settings (stopkit.loop._handlers imports this module, so this one cannot name it).
_AnyHandler = Callable[[Any], Any]

# The settings that are callables (or None).
_CALLABLES = (
    "compact",
    "estimate_tokens",
    "on_event",
    "on_escalate",
    "before_model_call",
    "before_tool_call",
    "approve",
)

# The least value of each bounded setting.
_LEAST = {
    "max_turns": 0,
    "max_pauses": 0,
    "loop_threshold": 1,
    "loop_window": 1,
    "max_argument_bytes": 2,
    "max_argument_depth": 1,
    "max_tokens_cap": 1,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopSettings:
    """The settings of a loop: what `Loop`, `run_loop` and `arun_loop` take as keywords.

    Built once per `Loop` and checked then: a bad value raises `ValueError` or `TypeError`
    naming the setting. Mappings given are copied into read-only ones, an adapter name is
    resolved to the adapter. A handler reads them as `ctx.settings`.

    Example:
        >>> LoopSettings(max_turns=20).max_turns
        20
    """

    tools: Mapping[str, Callable[..., Any]] | None = None
    """Name -> callable (sync or async), called with the call's arguments as keywords."""
    handlers: Mapping[Any, _AnyHandler] | None = None
    """One handler per `StopReason`; None: `DEFAULT_HANDLERS`."""
    adapter: str | Adapter | None = None
    """An adapter or its name; None: detected from the first reply."""
    overrides: Mapping[str, Any] | None = None
    """Overrides for every model call (a handler's `Retry` adds to them)."""
    max_turns: int = 100
    """Most model calls in a run (retries and resumes count)."""
    deadline: float | None = None
    """Wall-clock seconds for the run, checked between steps and enforced around tool calls."""
    tool_timeout: float | None = None
    """Seconds one tool call may run before it gets a timeout error result."""
    max_pauses: int = 10
    """Most resumes of paused replies in a run."""
    max_tokens: int | None = None
    """The output ceiling sent as the `max_tokens` override of every call (a retry doubles
    it); None: `call_model`'s own, read off a cut reply when a retry needs it."""
    max_tokens_cap: int = 32_768
    """The highest `max_tokens` a retry may ask for."""
    compact: Callable[[list[Any]], Sequence[Any]] | None = None
    """`compact(messages) -> messages`: called before the model call that passes
    `compact_at_tokens`, and once (the last resort) when the context window is full."""
    compact_at_tokens: int | None = None
    """Compact before a model call once the conversation passes this many tokens: the last
    reply's prompt tokens (cached ones included), or `estimate_tokens(messages)` (needs
    `compact`)."""
    estimate_tokens: Callable[[list[Any]], int] | None = None
    """`estimate_tokens(messages) -> int`: the conversation's size for `compact_at_tokens`,
    instead of the last reply's prompt tokens (a tokenizer, or characters / 4)."""
    loop_threshold: int = 3
    """How many identical calls (tool name and arguments) make a loop."""
    loop_window: int = 10
    """How many recent calls loop detection looks at."""
    synthesize_on_empty_final: bool = False
    """On an empty final answer, make one tool-less call asking the model to sum up."""
    on_event: Callable[[LoopEvent], Any] | None = None
    """Receives every `LoopEvent` (a streamed reply's text too, as `TextDelta` events)."""
    on_escalate: Callable[[Escalation], Any] | None = None
    """Receives every `Escalation`; None: log it at WARNING."""
    retry: RetryPolicy | None = None
    """How a model call that raises is retried; None: never."""
    max_argument_bytes: int = 1_000_000
    """The largest tool-call arguments (bytes of JSON) passed to a tool."""
    max_argument_depth: int = 64
    """The deepest nesting of tool-call arguments passed to a tool (the object is level 1)."""
    journal: Journal | None = None
    """Where a durable run records its steps (`SqliteJournal`, `PostgresJournal`); with it,
    `run_id` is required, and a rerun of the same id replays what was recorded."""
    run_id: str | None = None
    """The durable run's id: the same id resumes the run (a non-empty str, at most 200 chars)."""
    budget: Budget | None = None
    """What the run may spend (`stopkit.loop.Budget`: tokens, cost), checked before each model
    call."""
    before_model_call: Callable[[Any], Any] | None = None
    """`before_model_call(ctx)` (sync, or async in `arun_loop`) before each try of a model call,
    given a `ModelCallContext`: a rate limiter's `acquire` fits here. Raising stops the run
    (`stopped_by_hook`); the time it takes counts against the `deadline`."""
    before_tool_call: Callable[[ToolCall, Any], Any] | None = None
    """`before_tool_call(call, ctx)` (sync, or async in `arun_loop`) before each tool call that
    runs, given the handler's `LoopContext`. Raising stops the run (`stopped_by_hook`)."""
    approve: Callable[[ToolCall], Approval | Awaitable[Approval]] | None = None
    """`approve(call)` before each tool call: True runs it, False or a str denies it (answered
    `denied: ...`), `stopkit.loop.Defer()` leaves it to a person (the run ends
    `awaiting_approval`)."""
    approvals: Mapping[str, bool | str] | None = None
    """Decisions given ahead, by call id (True, False or a str), each used once before asking
    `approve`: how a journaled run awaiting approval is resumed by a rerun of its `run_id`."""

    def __post_init__(self) -> None:
        _check_numbers(self)
        _check_journal(self.journal, self.run_id)
        _check_kinds(self)
        _check_compaction(self.compact, self.compact_at_tokens, self.estimate_tokens)
        # Frozen copies: a settings object shared by many runs cannot change under them.
        _set = object.__setattr__
        tools = _checked_tools(self.tools)
        _check_keys(tools, self.run_id)
        _set(self, "tools", MappingProxyType(tools))
        _set(self, "overrides", MappingProxyType(dict(self.overrides or {})))
        if self.adapter is not None:
            _set(self, "adapter", get_adapter(self.adapter))
        if self.handlers is not None:
            _set(self, "handlers", MappingProxyType(check_handlers(self.handlers)))
        if self.approvals is not None:
            _set(self, "approvals", MappingProxyType(check_approvals(self.approvals)))

    @property
    def call_overrides(self) -> Mapping[str, Any]:
        """The overrides every model call starts from: `overrides`, and `max_tokens` when set.

        Example:
            >>> dict(LoopSettings(overrides={"temperature": 0}, max_tokens=300).call_overrides)
            {'temperature': 0, 'max_tokens': 300}
        """
        overrides = self.overrides or {}
        if self.max_tokens is None:
            return overrides
        return MappingProxyType({**overrides, "max_tokens": self.max_tokens})


def _check_numbers(settings: LoopSettings) -> None:
    """Refuse a bounded setting that is no int or below its least value, and a bad ceiling."""
    for name, least in _LEAST.items():
        value = getattr(settings, name)
        if type(value) is not int or value < least:
            raise ValueError(f"{name} must be an int of at least {least}, not {value!r}")
    _check_max_tokens(settings.max_tokens, settings.overrides)


def _check_kinds(settings: LoopSettings) -> None:
    """Refuse a policy or a budget of another type, and a hook that is not callable."""
    if settings.retry is not None and not isinstance(settings.retry, RetryPolicy):
        raise TypeError(f"retry must be a stopkit.loop.RetryPolicy or None, not {settings.retry!r}")
    if settings.budget is not None and not isinstance(settings.budget, Budget):
        raise TypeError(f"budget must be a stopkit.loop.Budget or None, not {settings.budget!r}")
    for hook in _CALLABLES:
        value = getattr(settings, hook)
        if value is not None and not callable(value):
            raise TypeError(f"{hook} must be callable or None, not {value!r}")


def _checked_tools(tools: Mapping[str, Callable[..., Any]] | None) -> dict[str, Any]:
    """Return the tools as a dict, refusing a name that is no str or a tool not callable."""
    checked = {} if tools is None else dict(tools)
    for name, tool in checked.items():
        if type(name) is not str or not callable(tool):
            raise TypeError(f"tools maps names (str) to callables; got {name!r}: {tool!r}")
    return checked


def _check_keys(tools: Mapping[str, Callable[..., Any]], run_id: str | None) -> None:
    """Refuse a run without `run_id=` whose tool, a DBOS step, takes an idempotency key.

    Such a tool's runs are replayed by running the loop again (a recovery; it keeps its time
    itself: `keep_time`), and its key is `<run id>/tool_call_<turn>_<slot>`: a run id made
    anew each time the loop runs would give the call a recovery makes again another key.
    """
    if run_id is not None:
        return
    for name, tool in tools.items():
        if timed_by_itself(tool, awaited=False) is not None and wants_key(tool):
            raise ValueError(
                f"tool {name!r} is a DBOS step (tool_steps) that takes an idempotency_key, "
                "'<run id>/tool_call_<turn>_<slot>': without run_id= the run id is made anew "
                "each time the workflow runs, so a recovery would give a cut call a new key; "
                "pass a run_id= that every recovery repeats (run_id=DBOS.workflow_id, with a "
                "suffix of its own for each further loop of the workflow), or run the loop with "
                "stopkit.loop.journal.dbos.run_loop, which does"
            )


def _check_compaction(compact: Any, at: Any, estimate: Any) -> None:
    """Refuse a threshold that is no positive int, or one (or an estimate) without its partner."""
    if at is None:
        if estimate is not None:
            raise ValueError("estimate_tokens measures for compact_at_tokens: set that too")
        return
    if type(at) is not int or at < 1:
        raise ValueError(f"compact_at_tokens must be an int of at least 1, not {at!r}")
    if compact is None:
        raise ValueError("compact_at_tokens needs compact=: the function that compacts")


def _check_max_tokens(max_tokens: Any, overrides: Mapping[str, Any] | None) -> None:
    """Refuse a ceiling that is no positive int, and one given twice (two numbers to keep)."""
    if max_tokens is None:
        return
    if type(max_tokens) is not int or max_tokens < 1:
        raise ValueError(f"max_tokens must be an int of at least 1 or None, not {max_tokens!r}")
    if overrides and "max_tokens" in overrides:
        raise ValueError(
            "max_tokens is given twice (max_tokens= and overrides={'max_tokens': ...}); "
            "pass max_tokens= only: it goes with every call"
        )


def _check_journal(journal: Any, run_id: Any) -> None:
    """Refuse a run id that is not a usable str, and a journal without one (or not a journal)."""
    if run_id is not None:
        if type(run_id) is not str:
            raise InvalidRunId(run_id, f"got a {type(run_id).__name__} ({run_id!r:.80})")
        if not run_id or len(run_id) > 200 or not run_id.isprintable():
            raise InvalidRunId(run_id, f"got {run_id!r:.80}")
    if journal is None:
        return
    if not isinstance(journal, Journal):
        raise TypeError(
            f"journal must be a stopkit Journal (SqliteJournal, PostgresJournal), not {journal!r}"
        )
    if run_id is None:
        raise ValueError("a journaled run needs run_id=: the id a rerun resumes it by")


def check_handlers(handlers: Mapping[Any, _AnyHandler]) -> dict[StopReason, _AnyHandler]:
    """Return the table keyed by `StopReason`, raising if a reason lacks a callable handler.

    Example:
        >>> check_handlers({})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: the handler table has no handler for: tool_request, ...
    """
    missing = [reason.value for reason in StopReason if reason not in handlers]
    if missing:
        raise ValueError(
            f"the handler table has no handler for: {', '.join(missing)}; merge yours into "
            "the defaults: {**stopkit.loop.DEFAULT_HANDLERS, StopReason.X: my_handler}"
        )
    table: dict[StopReason, _AnyHandler] = {}
    for reason in StopReason:
        handler = handlers[reason]
        if not callable(handler):
            raise TypeError(f"the handler for {reason.value} is not callable: {handler!r}")
        table[reason] = handler
    extra = [key for key in handlers if key not in table]
    if extra:
        raise ValueError(f"the handler table has keys that are not stop reasons: {extra!r}")
    return table


def keywords_of(
    settings: Callable[P, object],
) -> Callable[[Callable[Concatenate[A, B, ...], R]], Callable[Concatenate[A, B, P], R]]:
    """Give a function taking `**settings` the keyword parameters of `settings` (a class).

    For type checkers through `ParamSpec` (a misspelt or mistyped setting is an error), and
    at run time through `__signature__` (`help(run_loop)` lists every setting).

    Example:
        >>> @keywords_of(LoopSettings)
        ... def run(call_model, messages, /, **settings): ...
    """

    def decorate(fn: Callable[Concatenate[A, B, ...], R]) -> Callable[Concatenate[A, B, P], R]:
        own = inspect.signature(fn)
        keywords = inspect.signature(settings).parameters.values()
        fixed = [p for p in own.parameters.values() if p.kind is not p.VAR_KEYWORD]
        fn.__signature__ = own.replace(parameters=[*fixed, *keywords])  # type: ignore[attr-defined]
        return fn

    return decorate
