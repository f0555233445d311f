"""The loop driver's entry points: `Loop`, `run_loop`, `arun_loop`.

A turn: call the model, read why it stopped, let that reason's handler decide. The logic lives
in `_run.py` as one generator; here are the sync and async shells that make the model calls and
run the handlers it asks for.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict, Unpack

from stopkit._adapter import Adapter
from stopkit._handlers import DEFAULT_HANDLERS, Handler, check_handlers
from stopkit._outcome import Escalation, LoopEvent, Outcome
from stopkit._registry import get_adapter
from stopkit._retry import RetryPolicy
from stopkit._run import _CALL, _SLEEP, SYNTHESIZE_PROMPT, _drive, _Run, log_escalation
from stopkit._tools import ToolRunner, is_async_callable

__all__ = ["SYNTHESIZE_PROMPT", "Loop", "LoopSettings", "arun_loop", "run_loop"]

logger = logging.getLogger("stopkit.loop")


class LoopSettings(TypedDict, total=False):
    """The keyword settings of `Loop`, `run_loop` and `arun_loop` (see `run_loop`)."""

    tools: Mapping[str, Callable[..., Any]] | None
    handlers: Mapping[Any, Handler]
    adapter: str | Adapter | None
    overrides: Mapping[str, Any] | None
    max_turns: int
    deadline: float | None
    tool_timeout: float | None
    max_pauses: int
    max_tokens: int | None
    max_tokens_cap: int
    compact: Callable[[list[Any]], Sequence[Any]] | None
    loop_threshold: int
    loop_window: int
    synthesize_on_empty_final: bool
    on_event: Callable[[LoopEvent], Any] | None
    on_escalate: Callable[[Escalation], Any] | None
    retry: RetryPolicy | None
    max_argument_bytes: int
    max_argument_depth: int


class Loop:
    """A configured agent loop; `run(messages)` / `await arun(messages)` drive one conversation.

    The handler table is checked here: a table missing a reason raises `ValueError` naming it.
    A `Loop` holds no per-run state: one can run many conversations, also at the same time.

    Args:
        call_model: `call_model(messages, **overrides)` returning a provider reply (an SDK
            object or the JSON dict); sync, or async for `arun`. `messages` is the live
            transcript: read it, do not keep or change it. The overrides it may receive:
            what `overrides` holds; `max_tokens` (the output ceiling to use: pass it as your
            provider's own parameter); `tool_choice="none"` (the summing-up call: no tool may
            be called); an adapter's resume overrides (`poll_response_id` for OpenAI
            Responses background mode, `continuation_token` for Gemini).
        tools: Name -> callable (sync or async), called with the call's arguments as keywords.
            A str return value is sent as is, anything else as JSON.
        handlers: One handler per `StopReason` (default `DEFAULT_HANDLERS`).
        adapter: An adapter or its name; default: detected from the first reply.
        overrides: Overrides for every call (a handler's `Retry` adds to them).
        max_turns: Most model calls in a run (retries and resumes count).
        deadline: Wall-clock seconds for the run, checked between steps and enforced around
            tool calls.
        tool_timeout: Seconds one tool call may take before it gets a timeout error result.
        max_pauses: Most resumes of paused replies in a run.
        max_tokens: The output ceiling `call_model` uses when no `max_tokens` override is
            given (what `retry_with_more_tokens` doubles).
        max_tokens_cap: The highest `max_tokens` a retry may ask for.
        compact: `compact(messages) -> messages`, called once when the context window is full.
        loop_threshold: How many identical calls (tool name and arguments) make a loop.
        loop_window: How many recent calls loop detection looks at.
        synthesize_on_empty_final: On an empty final answer, make one extra tool-less call
            asking the model to sum up, and use its text.
        on_event: Receives every `LoopEvent`.
        on_escalate: Receives every `Escalation` (default: log it at WARNING).
        retry: A `RetryPolicy` for model calls that raise (default None: no retry). When a
            call fails and no retry is left, the run raises `ModelCallError`, its `outcome`
            holding the transcript and tool runs so far and the exception as `__cause__`.
        max_argument_bytes: The largest tool-call arguments (bytes of JSON) passed to a tool;
            larger ones get an error result instead (default 1 MB).
        max_argument_depth: The deepest nesting of tool-call arguments passed to a tool (the
            arguments object is level 1); deeper ones get an error result (default 64).

    Cancellation: cancelling the task of `arun` cancels the tools it is running (an async tool
    at its next `await`; a sync tool already running in its worker thread cannot be stopped:
    it finishes in the background, its result dropped) and re-raises `CancelledError`. The
    messages passed in are never changed; the run's transcript, in which every call the model
    made has its result or a `cancelled` error result, is on the `outcome` of the last
    `LoopEnded` event `on_event` receives (termination `cancelled`).

    Example:
        >>> loop = stopkit.Loop(call_model, tools={"add": add}, max_turns=20)  # doctest: +SKIP
        >>> loop.run([{"role": "user", "content": "What is 2 + 3?"}]).text  # doctest: +SKIP
        '5'
    """

    def __init__(
        self,
        call_model: Callable[..., Any],
        *,
        tools: Mapping[str, Callable[..., Any]] | None = None,
        handlers: Mapping[Any, Handler] = DEFAULT_HANDLERS,
        adapter: str | Adapter | None = None,
        overrides: Mapping[str, Any] | None = None,
        max_turns: int = 100,
        deadline: float | None = None,
        tool_timeout: float | None = None,
        max_pauses: int = 10,
        max_tokens: int | None = None,
        max_tokens_cap: int = 32_768,
        compact: Callable[[list[Any]], Sequence[Any]] | None = None,
        loop_threshold: int = 3,
        loop_window: int = 10,
        synthesize_on_empty_final: bool = False,
        on_event: Callable[[LoopEvent], Any] | None = None,
        on_escalate: Callable[[Escalation], Any] | None = None,
        retry: RetryPolicy | None = None,
        max_argument_bytes: int = 1_000_000,
        max_argument_depth: int = 64,
    ) -> None:
        if not callable(call_model):
            raise TypeError(f"call_model must be callable, not {call_model!r}")
        for setting, value, least in (
            ("max_turns", max_turns, 0),
            ("max_pauses", max_pauses, 0),
            ("loop_threshold", loop_threshold, 1),
            ("loop_window", loop_window, 1),
            ("max_argument_bytes", max_argument_bytes, 2),
            ("max_argument_depth", max_argument_depth, 1),
        ):
            if value < least:
                raise ValueError(f"{setting} must be at least {least}, not {value!r}")
        if retry is not None and not isinstance(retry, RetryPolicy):
            raise TypeError(f"retry must be a stopkit.RetryPolicy or None, not {retry!r}")
        tools = {} if tools is None else tools
        for name, tool in tools.items():
            if type(name) is not str or not callable(tool):
                raise TypeError(f"tools maps names (str) to callables; got {name!r}: {tool!r}")
        self.call_model = call_model
        self.tools = tools
        self.handlers = check_handlers(handlers)
        self.adapter = None if adapter is None else get_adapter(adapter)
        self.overrides: dict[str, Any] = dict(overrides or {})
        self.max_turns = max_turns
        self.deadline = deadline
        self.tool_timeout = tool_timeout
        self.max_pauses = max_pauses
        self.max_tokens = max_tokens
        self.max_tokens_cap = max_tokens_cap
        self.compact = compact
        self.loop_threshold = loop_threshold
        self.loop_window = loop_window
        self.synthesize_on_empty_final = synthesize_on_empty_final
        self.on_event = on_event
        self.on_escalate = on_escalate if on_escalate is not None else log_escalation
        self.retry = retry
        self.max_argument_bytes = max_argument_bytes
        self.max_argument_depth = max_argument_depth
        self.runner = ToolRunner(tools, max_argument_bytes, max_argument_depth)

    def run(self, messages: Sequence[Any]) -> Outcome:
        """Drive the conversation to its end with a sync `call_model`; tools run one by one."""
        if is_async_callable(self.call_model):
            raise TypeError("call_model is async: use `await stopkit.arun_loop(...)`")
        steps = _drive(_Run(self, messages, is_async=False))
        value: Any = None
        try:
            request = steps.send(None)
            while True:
                kind = request[0]
                if kind == _CALL:
                    try:
                        value = self.call_model(request[2], **request[1])
                    except Exception as exc:  # the run decides: retry, or ModelCallError
                        request = steps.throw(exc)
                        continue
                    if inspect.isawaitable(value):
                        _discard(value)
                        raise TypeError(
                            "call_model returned an awaitable: use `await stopkit.arun_loop(...)`"
                        )
                elif kind == _SLEEP:
                    time.sleep(request[1])
                    value = None
                else:
                    value = request[1](request[2])
                    if inspect.isawaitable(value):
                        _discard(value)
                        raise TypeError(
                            f"the handler {request[1]!r} is async: use `await stopkit.arun_loop()`"
                        )
                request = steps.send(value)
        except StopIteration as done:
            outcome: Outcome = done.value
            return outcome
        finally:
            steps.close()

    async def arun(self, messages: Sequence[Any]) -> Outcome:
        """Drive the conversation to its end; `call_model`, handlers and tools may be async.

        The tool calls of one turn run concurrently (sync tools in worker threads). On
        cancellation see the class docstring: the transcript is on the `LoopEnded` event.
        """
        import asyncio  # here, not at module level: `import stopkit` stays light

        run = _Run(self, messages, is_async=True)
        steps = _drive(run)
        value: Any = None
        try:
            request = steps.send(None)
            while True:
                kind = request[0]
                if kind == _CALL:
                    try:
                        value = self.call_model(request[2], **request[1])
                        if inspect.isawaitable(value):
                            value = await value
                    except Exception as exc:  # the run decides: retry, or ModelCallError
                        request = steps.throw(exc)
                        continue
                elif kind == _SLEEP:
                    await asyncio.sleep(request[1])
                    value = None
                else:
                    value = request[1](request[2])
                    if inspect.isawaitable(value):
                        value = await value
                request = steps.send(value)
        except StopIteration as done:
            outcome: Outcome = done.value
            return outcome
        except asyncio.CancelledError:
            try:
                run.cancelled()
            except Exception:  # an on_event that raises must not turn a cancellation into it
                logger.exception("stopkit: reporting a cancelled run failed")
            raise
        finally:
            steps.close()


def _discard(awaitable: Any) -> None:
    close = getattr(awaitable, "close", None)
    if close is not None:
        close()  # no "coroutine was never awaited" warning


def run_loop(
    call_model: Callable[..., Any], messages: Sequence[Any], **settings: Unpack[LoopSettings]
) -> Outcome:
    """Run an agent loop to its end: call, read why the model stopped, act on it, repeat.

    Args:
        call_model: `call_model(messages, **overrides)` returning a provider reply (an SDK object
            or the JSON dict). Overrides it may receive: whatever `overrides=` holds; `max_tokens`
            (the output ceiling to use, raised after a truncation); `tool_choice="none"` (the
            summing-up call: no tool may be called); an adapter's resume overrides.
        messages: The starting messages, in the provider's format.
        **settings: The keyword settings of `Loop` (see there): `tools`, `handlers` (default
            `DEFAULT_HANDLERS`), `adapter` (default: detected from the first reply),
            `overrides`, `max_turns` (100), `deadline` (seconds), `tool_timeout` (seconds),
            `max_pauses` (10), `max_tokens`, `max_tokens_cap` (32768), `compact`,
            `loop_threshold` (3), `loop_window` (10), `synthesize_on_empty_final`, `on_event`,
            `on_escalate`, `retry` (a `RetryPolicy`; default none), `max_argument_bytes`
            (1 MB), `max_argument_depth` (64).

    Raises:
        ModelCallError: `call_model` raised and no retry was left; the run so far is on its
            `outcome`, the exception is its `__cause__`.

    Returns:
        The `Outcome`: text, termination, last stop, turns, transcript, escalation, tool runs.

    Example:
        >>> outcome = stopkit.run_loop(call_model, [{"role": "user", "content": "Hi"}],
        ...     tools={"get_weather": get_weather})  # doctest: +SKIP
        >>> outcome.termination, outcome.text  # doctest: +SKIP
        (<Termination.COMPLETED: 'completed'>, 'It is 21 °C in Paris.')
    """
    return Loop(call_model, **settings).run(messages)


async def arun_loop(
    call_model: Callable[..., Any], messages: Sequence[Any], **settings: Unpack[LoopSettings]
) -> Outcome:
    """Run an agent loop to its end, asynchronously; the calls of one turn run concurrently.

    Takes the same arguments as `run_loop`; `call_model`, tools and handlers may be sync or async.

    Example:
        >>> outcome = await stopkit.arun_loop(call_model, messages, tools=tools)  # doctest: +SKIP
    """
    return await Loop(call_model, **settings).arun(messages)
