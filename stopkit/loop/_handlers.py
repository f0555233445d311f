"""The handler table: one handler per `StopReason`, the actions they return, the default policies.

Exported from `stopkit.loop` (the actions, `LoopContext`, `DEFAULT_HANDLERS`, the alternatives
`finish_truncated` and `ask_for_shorter`); the default policies are reached through
`DEFAULT_HANDLERS[reason]`.

A handler takes a `LoopContext` and returns one action of a closed set:

```
Continue(messages)     append these messages (or replace the transcript) and call the model again
Retry(overrides)       call again with the same messages and changed call overrides
Finish(text)           end the run
Escalate(reason)       hand the reply to `on_escalate`, then end the run
```

In `arun_loop` a handler may be async (return an awaitable action). `DEFAULT_HANDLERS` covers every
reason; override one by merging: `{**stopkit.loop.DEFAULT_HANDLERS, StopReason.FILTERED: mine}`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, TypeAlias

from stopkit._adapter import Adapter
from stopkit._counting import output_tokens
from stopkit._logsafe import clip
from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.loop._settings import LoopSettings, check_handlers
from stopkit.loop.events import Termination

__all__ = [
    "DEFAULT_HANDLERS",
    "SHORTER_PROMPT",
    "Action",
    "Continue",
    "Escalate",
    "Finish",
    "Handler",
    "LoopContext",
    "Retry",
    "ToolRunning",
    "as_list",
    "ask_for_shorter",
    "check_handlers",
    "escalate_filtered",
    "escalate_unknown",
    "finish_truncated",
    "finish_with_text",
    "plain_user_message",
    "resume_paused",
    "retry_with_more_tokens",
    "run_tool_calls",
    "user_message",
]

logger = logging.getLogger("stopkit.loop")

#: Longest rendering of a raw stop value in a log line: the value comes from the wire.
MAX_LOGGED_RAW = 200

SHORTER_PROMPT = (
    "Your previous answer was cut off because it exceeded the output limit. "
    "Answer again, more briefly."
)
"""What `ask_for_shorter` sends the model."""


@dataclass(frozen=True, slots=True)
class Continue:
    """Append `messages` to the transcript (replace it when `replace=True`) and call again."""

    messages: Sequence[Any]
    """The messages to append (with `replace=True`: the new transcript)."""
    overrides: Mapping[str, Any] | None = None
    """Overrides merged into the next call only (a resume's); None: none."""
    replace: bool = False
    """Replace the transcript with `messages` instead of appending them."""


@dataclass(frozen=True, slots=True)
class Retry:
    """Discard this reply and call again with the same messages and these overrides merged in.

    The merged overrides stay in force for the rest of the run (a raised `max_tokens` stays
    raised). Retrying with overrides already tried for the same messages ends the run instead.
    """

    overrides: Mapping[str, Any]
    """The overrides to merge in, e.g. `{"max_tokens": 2048}`."""


@dataclass(frozen=True, slots=True)
class Finish:
    """End the run; `text` defaults to the reply's text, `termination` to the reply's reason."""

    text: str | None = None
    """The run's final text; None: the reply's text."""
    termination: Termination | None = None
    """How the run ended; None: the termination the reply's reason gives."""


@dataclass(frozen=True, slots=True)
class Escalate:
    """Hand the reply to `on_escalate` (with the original input), then end the run."""

    reason: str | None = None
    """What is escalated, in words; defaults to the stop reason and its detail."""
    termination: Termination | None = None
    """How the run ended; None: the termination the reply's reason gives."""


Action: TypeAlias = Continue | Retry | Finish | Escalate
"""The closed set of actions a handler may return."""


class ToolRunning(Protocol):
    """What a `LoopContext` runs tool calls with: the run's tool executor."""

    def run(self, calls: Sequence[ToolCall]) -> list[ToolResult]:
        """Run `calls` one after another; one result each, in order."""
        ...

    async def arun(self, calls: Sequence[ToolCall]) -> list[ToolResult]:
        """Run `calls` concurrently; one result each, in order."""
        ...


@dataclass(slots=True, kw_only=True)
class LoopContext:
    """What a handler sees: the reply's `Stop`, the transcript, the turn, the loop's settings.

    `messages` is the live transcript: read it, never mutate it (return a `Continue` instead).
    """

    stop: Stop
    """The reply's `Stop`: the reason this handler was called for."""
    messages: Sequence[Any]
    """The transcript so far (the reply is not in it yet)."""
    turn: int
    """The model call (1-based) whose reply this is."""
    overrides: Mapping[str, Any]
    """The overrides that call was made with."""
    adapter: Adapter
    """The adapter that read the reply: it builds the provider's messages."""
    input: Sequence[Any]
    """The run's starting messages, as given (a `str` prompt: its user message)."""
    repeats: int
    """How many replies in a row before this one stopped for the same reason."""
    pauses: int
    """How many paused replies the run has resumed so far."""
    settings: LoopSettings
    """The loop's settings (`max_tokens`, `max_tokens_cap`, `compact`, `tools`, ...)."""
    is_async: bool
    """Whether the run is an `arun_loop` one (where a handler may be async)."""
    _tools: ToolRunning = field(repr=False)

    def run_tools(self, calls: Sequence[ToolCall] | None = None) -> list[ToolResult]:
        """Run `calls` (default: every call of the reply) one after another; one result each.

        Only the calls of a tool request run: under any other stop each call gets a `not run`
        error result. So does a call with `complete=False`, one repeating the id of an earlier
        call of the reply, an unknown tool, a failure or a timeout. In `arun_loop` use
        `await ctx.arun_tools()` instead.
        """
        if self.is_async:
            raise TypeError("in arun_loop, use `await ctx.arun_tools()`")
        return self._tools.run(self.stop.tool_calls if calls is None else calls)

    async def arun_tools(self, calls: Sequence[ToolCall] | None = None) -> list[ToolResult]:
        """Run `calls` (default: every call of the reply) concurrently; one result each, in order.

        The same calls run as with `run_tools`; in `run_loop` they run one after another.
        """
        return await self._tools.arun(self.stop.tool_calls if calls is None else calls)

    def continue_with_results(self, results: Sequence[ToolResult]) -> Continue:
        """Return the `Continue` appending this reply and its tool results, provider-formatted."""
        stop = self.stop
        adapter = self.adapter
        return Continue(
            [*as_list(adapter.assistant_message(stop)), *adapter.tool_results(stop, results)]
        )

    def user_message(self, text: str) -> Any:
        """Return a user message saying `text`, in the provider's format."""
        return user_message(self.adapter, text)


Handler: TypeAlias = Callable[[LoopContext], Action | Awaitable[Action]]
"""A handler: takes the context, returns an action (an awaitable one in `arun_loop`)."""


def as_list(messages: Any) -> list[Any]:
    """Return `messages` as a list: an adapter may return one message or a list of them.

    Example:
        >>> as_list({"role": "user", "content": "hi"})
        [{'role': 'user', 'content': 'hi'}]
    """
    return messages if isinstance(messages, list) else [messages]


def user_message(adapter: Adapter, text: str) -> Any:
    """Return a user message saying `text` in `adapter`'s format.

    The adapter's own `user_message(text)` when it has one (an optional member of the
    `Adapter` protocol: every built-in adapter has it); else `{"role": "user", "content": text}`.

    Example:
        >>> user_message(stopkit.get_adapter("gemini"), "Go on.")  # doctest: +SKIP
        {'role': 'user', 'parts': [{'text': 'Go on.'}]}
    """
    build = getattr(adapter, "user_message", None)
    if build is None:
        return plain_user_message(text)
    return build(text)


def plain_user_message(text: str) -> dict[str, Any]:
    """Return `{"role": "user", "content": text}`: the user message when no adapter says better.

    Example:
        >>> plain_user_message("Go on.")
        {'role': 'user', 'content': 'Go on.'}
    """
    return {"role": "user", "content": text}


def _clip(value: Any) -> str:
    return clip(value, MAX_LOGGED_RAW)


# --- the default policies -------------------------------------------------------------------


def run_tool_calls(ctx: LoopContext) -> Action | Awaitable[Action]:
    """Run every call of the turn and continue with the reply and one result per call.

    The default for `tool_request`. Calls run one after another in `run_loop`, concurrently in
    `arun_loop` (where this returns an awaitable). A call with `complete=False` is never run: it
    gets an error result, like a call that raises, times out or names an unknown tool.

    Example:
        >>> async def audited(ctx):  # wrapping the default in arun_loop  # doctest: +SKIP
        ...     action = run_tool_calls(ctx)
        ...     return await action if inspect.isawaitable(action) else action
    """
    if not ctx.stop.tool_calls:
        logger.warning(
            "stopkit: %s reply is a tool request without tool calls; ending the run",
            ctx.stop.provider,
        )
        return Finish(termination=Termination.UNKNOWN)
    if ctx.is_async:
        return _arun_tool_calls(ctx)
    return ctx.continue_with_results(ctx.run_tools())


async def _arun_tool_calls(ctx: LoopContext) -> Action:
    return ctx.continue_with_results(await ctx.arun_tools())


def finish_with_text(ctx: LoopContext) -> Action:
    """Finish with the reply's text. The default for `completed` and `stop_sequence`.

    Example:
        >>> handlers = {**DEFAULT_HANDLERS, StopReason.PAUSED: finish_with_text}  # no resuming
    """
    return Finish()


def finish_truncated(ctx: LoopContext) -> Action:
    """Finish at once as truncated (`output_limit`), the partial text on the outcome only.

    Example:
        >>> handlers = {**DEFAULT_HANDLERS, StopReason.OUTPUT_LIMIT: finish_truncated}
    """
    return Finish(termination=Termination.OUTPUT_LIMIT)


def _compact_or_finish(ctx: LoopContext) -> Action:
    """A full context window: compact once when a `compact` hook is set, else finish."""
    compact = ctx.settings.compact
    if compact is not None and ctx.repeats == 0:
        return Continue(compact(list(ctx.messages)), replace=True)
    return Finish(termination=Termination.OUTPUT_LIMIT)


def retry_with_more_tokens(ctx: LoopContext) -> Action:
    """Retry once with a doubled output ceiling (capped by `max_tokens_cap`); cut again, finish.

    The default for `output_limit`. The ceiling doubled is the call's `max_tokens` override
    (the loop's `max_tokens` setting goes with every call); when the loop knows none, the one
    `call_model` used by default is read off the cut reply: the output tokens it reports (its
    thinking included), which a reply cut at its ceiling spent whole. With neither, or at the
    cap, it finishes as truncated at once. When the context window (not the output ceiling)
    was hit, a bigger `max_tokens` cannot help: it calls the loop's `compact` hook once if
    there is one, else finishes.

    Example:
        >>> DEFAULT_HANDLERS[StopReason.OUTPUT_LIMIT] is retry_with_more_tokens
        True
    """
    stop = ctx.stop
    if stop.detail == "context_window":
        return _compact_or_finish(ctx)
    if ctx.repeats:
        return Finish(termination=Termination.OUTPUT_LIMIT)
    current = ctx.overrides.get("max_tokens")
    if current is None and stop.usage is not None:
        current = output_tokens(stop.provider, stop.usage)
    if type(current) is not int or current <= 0:
        logger.info(
            "stopkit: reply cut at the output limit, and neither the loop (max_tokens=) nor "
            "the reply (its output tokens) says the ceiling; finishing as truncated"
        )
        return Finish(termination=Termination.OUTPUT_LIMIT)
    raised = min(current * 2, ctx.settings.max_tokens_cap)
    if raised <= current:
        return Finish(termination=Termination.OUTPUT_LIMIT)
    return Retry({"max_tokens": raised})


def ask_for_shorter(ctx: LoopContext) -> Action:
    """Ask the model once for a shorter answer (the cut reply is dropped); cut again, finish.

    The request is the adapter's own user message saying `SHORTER_PROMPT`.

    Example:
        >>> handlers = {**DEFAULT_HANDLERS, StopReason.OUTPUT_LIMIT: ask_for_shorter}
    """
    if ctx.repeats or ctx.stop.detail == "context_window":
        return Finish(termination=Termination.OUTPUT_LIMIT)
    return Continue([ctx.user_message(SHORTER_PROMPT)])


def escalate_filtered(ctx: LoopContext) -> Action:
    """Escalate and finish; never retry. The default for `filtered`.

    Example:
        >>> handlers = {**DEFAULT_HANDLERS, StopReason.UNKNOWN: escalate_filtered}  # no log line
    """
    return Escalate()


def escalate_unknown(ctx: LoopContext) -> Action:
    """Log the raw stop value at WARNING, escalate and finish. The default for `unknown`.

    Example:
        >>> DEFAULT_HANDLERS[StopReason.UNKNOWN] is escalate_unknown
        True
    """
    stop = ctx.stop
    logger.warning(
        "stopkit: %s reply stopped with an unknown value %s (detail %s) at turn %d; escalating",
        stop.provider,
        _clip(stop.raw_reason),
        stop.detail,
        ctx.turn,
    )
    return Escalate()


def resume_paused(ctx: LoopContext) -> Action:
    """Resume a paused turn the way the provider requires (`adapter.resume`). The `paused` default.

    The loop bounds resumes (`max_pauses`); an adapter without `resume` gets its reply appended
    as is and the model called again. A reply the adapter cannot resume (its `resume` raises
    `ValueError`) is escalated and ends the run as `unknown`.

    Example:
        >>> DEFAULT_HANDLERS[StopReason.PAUSED] is resume_paused
        True
    """
    resume = getattr(ctx.adapter, "resume", None)
    if resume is None:
        return Continue(as_list(ctx.adapter.assistant_message(ctx.stop)))
    try:
        messages, overrides = resume(ctx.stop)
    except ValueError as exc:  # e.g. a continuation without its token: nothing to resume from
        return Escalate(f"paused, cannot resume: {exc}", termination=Termination.UNKNOWN)
    return Continue(messages, overrides=overrides or None)


DEFAULT_HANDLERS: Mapping[StopReason, Handler] = MappingProxyType(
    {
        StopReason.TOOL_REQUEST: run_tool_calls,
        StopReason.COMPLETED: finish_with_text,
        StopReason.OUTPUT_LIMIT: retry_with_more_tokens,
        StopReason.FILTERED: escalate_filtered,
        StopReason.PAUSED: resume_paused,
        StopReason.STOP_SEQUENCE: finish_with_text,
        StopReason.UNKNOWN: escalate_unknown,
    }
)
"""The default handler of every reason (read-only; merge into a dict to override one)."""
