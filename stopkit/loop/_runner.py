"""Running one tool call: sync or async tools, timeouts, and failures turned into error results.

A tool call's name and arguments are written by the model: untrusted. The name is looked up in
the mapping the caller gave (a `Mapping` lookup, never an attribute of any object); the
arguments are passed as keywords, never evaluated, and refused when they are over the loop's
size or nesting bound. What the model sees for a failure is one line: the exception's type and
its message (never a traceback, never the chained causes), clipped to `MAX_ERROR_CHARS`. The
message is whatever the tool raised: a tool must not put credentials in its exception messages.
"""

from __future__ import annotations

import functools
import inspect
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pydantic_core import to_jsonable_python

from stopkit._logsafe import clip
from stopkit._stop import ToolCall, ToolResult
from stopkit.loop._arguments import argument_problem, fresh_copy
from stopkit.loop._threads import Captured, TimedOut, acall_in_thread, call_in_thread, capture
from stopkit.loop._tool import KEY_PARAMETER, options_of, timed_by_itself, wants_key

__all__ = [
    "CANCELLED",
    "CANCEL_GRACE",
    "DEADLINE_PASSED",
    "INTERRUPTS",
    "ToolRunner",
    "await_tool",
    "clip_error",
    "describe",
    "error_result",
    "is_async_callable",
    "tool_content",
]

#: Longest error text sent back to the model: an exception message can be a whole HTTP body.
MAX_ERROR_CHARS = 2000
#: Longest rendering of a tool name the model made up, in the error result it gets back.
MAX_NAME_CHARS = 100
#: The result of a call the run was cancelled before it finished (or started).
CANCELLED = "cancelled: the run was cancelled before this call finished"
#: The result of a call not run because the run's deadline had passed.
DEADLINE_PASSED = "not run: the run's deadline has passed"
#: Seconds a cancelled run waits for a cancelled async tool to unwind before going on.
CANCEL_GRACE = 1.0
#: What a tool may raise that stops the run instead of becoming the call's error result.
INTERRUPTS = (KeyboardInterrupt, SystemExit)

Tool = Callable[..., Any]


def tool_content(value: Any) -> str:
    """Return what the model sees for a tool's return value: a str as is, anything else as JSON.

    JSON through pydantic's own encoder (`pydantic_core.to_jsonable_python`): pydantic models,
    dataclasses, sets, tuples, datetimes, paths, enums, UUIDs, decimals and UTF-8 `bytes` are
    encoded the way pydantic encodes them. Raises `ValueError` naming the value's type when it
    cannot be encoded (an unknown type, a cycle, nesting too deep, a key that is no string).

    Example:
        >>> tool_content({"temp": 21, "tags": {"warm"}})
        '{"temp": 21, "tags": ["warm"]}'
    """
    if type(value) is str:
        return value
    try:
        return json.dumps(value, default=to_jsonable_python, ensure_ascii=False)
    except Exception as exc:  # an unknown type, a cycle, too deep (RecursionError), bad bytes
        raise ValueError(
            f"the tool returned a {type(value).__name__} that cannot be sent as JSON "
            f"({describe(exc)})"
        ) from None


def clip_error(message: str) -> str:
    """Return `message` cut to `MAX_ERROR_CHARS`: an exception message can be a whole HTTP body."""
    if len(message) > MAX_ERROR_CHARS:
        message = message[: MAX_ERROR_CHARS - 1] + "…"
    return message


def error_result(call: ToolCall, message: str) -> ToolResult:
    """Return the error result the model is sent for `call`."""
    # Not validated: the result carries the call's id as the adapter gave it (a custom
    # adapter's call may have none), and the loop's own values are of the right types.
    return ToolResult.model_construct(
        call_id=call.id,
        name=call.name,
        content=clip_error(message),
        is_error=True,
        value=None,
    )


def _ok_result(call: ToolCall, value: Any) -> ToolResult:
    try:
        content, is_error = tool_content(value), False
    except ValueError as exc:  # what the tool returned cannot be sent: say so, keep the value
        content, is_error = clip_error(str(exc)), True
    return ToolResult.model_construct(
        call_id=call.id,
        name=call.name,
        content=content,
        is_error=is_error,
        value=value,
    )


def _timed_out(call: ToolCall, timeout: float | None) -> ToolResult:
    return error_result(call, f"timed out after {timeout or 0:.3g} s")


def seconds_left(deadline_at: float | None) -> float | None:
    """Return the seconds left before `deadline_at` (a `time.monotonic()` time; None: none).

    Example:
        >>> seconds_left(None) is None
        True
    """
    return None if deadline_at is None else deadline_at - time.monotonic()


def deadline_passed(deadline_at: float | None) -> bool:
    """Say whether `deadline_at` (a `time.monotonic()` time; None: no deadline) has passed.

    Example:
        >>> deadline_passed(None)
        False
    """
    return deadline_at is not None and time.monotonic() >= deadline_at


def describe(exc: BaseException) -> str:
    """Return `Type: message` for an exception: what the model is sent, never a traceback."""
    name = type(exc).__name__
    try:
        text = str(exc)
    except Exception:  # a broken __str__ must not break the run
        text = "<its message cannot be shown>"
    if len(text) > MAX_ERROR_CHARS:
        text = text[:MAX_ERROR_CHARS]
    return f"{name}: {text}" if text else name


def is_async_callable(fn: Any) -> bool:
    """Say whether calling `fn` returns a coroutine (an async function or `async __call__`)."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__)


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _run_awaitable(awaitable: Awaitable[Any]) -> Any:
    """Run an async tool's awaitable to its end from sync code, on a fresh event loop.

    In a thread of its own when this thread already runs an event loop (a sync loop called
    from async code), since `asyncio.run` cannot nest.
    """
    import asyncio  # here, not at module level: `import stopkit` stays light

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(awaitable))
    ok, value = call_in_thread(lambda: asyncio.run(_await(awaitable)), None)
    if not ok:
        raise value
    return value


def _settled(value: Any) -> Any:
    """A sync tool's value, with an awaitable it returned (an async tool) run to its end."""
    return _run_awaitable(value) if inspect.isawaitable(value) else value


def _cancelling() -> bool:
    """Say whether the running task is being cancelled (rather than a tool raising it)."""
    import asyncio

    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _retrieve(task: Any) -> None:
    if not task.cancelled():
        task.exception()  # a tool left running after its timeout: no "never retrieved" log


async def await_tool(make: Callable[[], Awaitable[Any]], timeout: float | None) -> Captured:
    """Await an async tool (within `timeout`); return what it returned or raised, as a value.

    A `CancelledError` the tool raises itself is its outcome; one cancelling this task (the run
    is cancelled) cancels the tool and propagates. At the timeout the tool is cancelled but not
    waited for: one that ignores its cancellation cannot hold the run past its bounds.
    """
    import asyncio

    if timeout is None:
        try:
            return True, await make()
        except asyncio.CancelledError as exc:
            if _cancelling():
                raise
            return False, exc
        except BaseException as exc:  # the caller decides (an interrupt propagates there)
            return False, exc
    task = asyncio.ensure_future(make())
    try:
        await asyncio.wait((task,), timeout=timeout)
    except asyncio.CancelledError:  # the run is cancelled: so is the tool, given time to unwind
        task.cancel()
        await asyncio.wait((task,), timeout=CANCEL_GRACE)
        raise
    if not task.done():
        task.cancel()
        task.add_done_callback(_retrieve)
        raise TimedOut(timeout)
    try:
        return True, task.result()
    except BaseException as exc:  # its own CancelledError too: we never cancelled this task
        return False, exc


class ToolRunner:
    """Runs the tool calls of a loop: looks tools up by name; a call never raises but to interrupt.

    Every call gets a deep copy of its arguments: a tool that edits them (`items.sort()`) must
    not change the call, its `Stop`, or the tool call sent back to the provider. What a tool
    raises becomes its error result, except `KeyboardInterrupt` and `SystemExit`, which
    propagate (the loop reports the run as `cancelled` first).
    """

    def __init__(
        self,
        tools: Mapping[str, Tool],
        max_argument_bytes: int = 1_000_000,
        max_argument_depth: int = 64,
    ) -> None:
        self.tools = tools
        self.max_argument_bytes = max_argument_bytes
        self.max_argument_depth = max_argument_depth
        self._async: dict[str, bool] = {}
        self._keyed: dict[str, bool] = {}

    def idempotent(self, name: str) -> bool:
        """Say whether running the tool named `name` twice is harmless (`stopkit.tool`)."""
        tool = self.tools.get(name) if type(name) is str else None
        return tool is None or options_of(tool).idempotent

    def wants_key(self, name: str) -> bool:
        """Say whether the tool named `name` takes an `idempotency_key` (cached per name)."""
        known = self._keyed.get(name) if type(name) is str else False
        if known is None:
            tool = self.tools.get(name)
            known = self._keyed[name] = tool is not None and wants_key(tool)
        return known

    def _prepare(
        self, call: ToolCall, key: str | None = None
    ) -> tuple[Tool, dict[str, Any]] | ToolResult:
        """Return the call's tool and its own copy of the arguments, or why it is not run.

        `key`, when given, is passed as the `idempotency_key` argument (over any the model
        wrote).
        """
        if not call.complete:
            why = f" ({call.error})" if call.error else ""
            return error_result(
                call, f"not run: this call was cut off or its arguments were unparseable{why}"
            )
        # The caller's mapping, and only it: never getattr() on an object by a model's name.
        tool = self.tools.get(call.name) if type(call.name) is str else None
        if tool is None:
            known = ", ".join(sorted(self.tools)) or "none"
            return error_result(
                call,
                f"unknown tool {clip(call.name, MAX_NAME_CHARS)}; the available tools are: {known}",
            )
        problem = argument_problem(call, self.max_argument_bytes, self.max_argument_depth)
        if problem is not None:
            return error_result(call, problem)
        try:
            arguments = fresh_copy(call.arguments)
        except RecursionError:  # a max_argument_depth set past Python's recursion limit
            return error_result(call, "not run: the arguments are nested too deep to copy")
        if key is not None:
            arguments[KEY_PARAMETER] = key
        return tool, arguments

    def is_async(self, name: str, tool: Tool) -> bool:
        """Say whether the tool named `name` is a coroutine function (cached per name)."""
        known = self._async.get(name)
        if known is None:
            known = self._async[name] = is_async_callable(tool)
        return known

    def run(
        self, call: ToolCall, timeout: float | None, key: str | None = None
    ) -> tuple[ToolResult, float]:
        """Run one call in this thread (in a thread of its own when a timeout applies).

        Returns its result and how long it took; an error result on any failure. `key`: the
        call's idempotency key, for a tool that asks for one.
        """
        prepared = self._prepare(call, key)
        if isinstance(prepared, ToolResult):
            return prepared, 0.0
        tool, timeout = _timing(prepared[0], timeout, awaited=False)
        arguments = prepared[1]

        def invoke() -> Any:
            return _settled(tool(**arguments))

        start = time.perf_counter()
        try:
            outcome = capture(invoke) if timeout is None else call_in_thread(invoke, timeout)
        except TimedOut:
            return _timed_out(call, timeout), time.perf_counter() - start
        return _result(call, outcome), time.perf_counter() - start

    async def arun(
        self, call: ToolCall, timeout: float | None, key: str | None = None
    ) -> tuple[ToolResult, float]:
        """Run one call on the event loop (a sync tool in a thread of its own), within `timeout`.

        Returns its result and how long it took; an error result on any failure. `key`: the
        call's idempotency key, for a tool that asks for one.
        """
        prepared = self._prepare(call, key)
        if isinstance(prepared, ToolResult):
            return prepared, 0.0
        tool, timeout = _timing(prepared[0], timeout, awaited=True)
        arguments = prepared[1]
        start = time.perf_counter()
        try:
            if self.is_async(call.name, tool):
                outcome = await await_tool(lambda: tool(**arguments), timeout)
            else:
                outcome = await acall_in_thread(lambda: tool(**arguments), timeout)
                ok, value = outcome
                if ok and inspect.isawaitable(value):  # a sync callable returning a coroutine
                    outcome = await await_tool(lambda: value, timeout)
        except TimedOut:
            return _timed_out(call, timeout), time.perf_counter() - start
        return _result(call, outcome), time.perf_counter() - start


def _timing(tool: Tool, timeout: float | None, *, awaited: bool) -> tuple[Tool, float | None]:
    """Return what to call for `tool` and the timeout the runner keeps for it.

    A tool that keeps its timeout itself (a DBOS step: `timed_by_itself`) is given it, and
    the runner keeps none: its timeout is inside what it records.
    """
    timed = timed_by_itself(tool, awaited=awaited)
    if timed is None:
        return tool, timeout
    return functools.partial(timed, timeout), None


def _result(call: ToolCall, outcome: Captured) -> ToolResult:
    """Return the result for what a tool returned or raised; re-raise an interrupt."""
    ok, value = outcome
    if ok:
        return _ok_result(call, value)
    if isinstance(value, TimedOut):  # a tool that keeps its own timeout says it passed
        return _timed_out(call, value.seconds)
    if isinstance(value, INTERRUPTS):
        raise value
    return error_result(call, describe(value))
