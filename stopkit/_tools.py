"""Running one tool call: sync or async tools, timeouts, and failures turned into error results.

What the model sees for a failure is one line (the exception's type and message, never a
traceback). A tool is looked up by name in the mapping the caller gave, and nowhere else.
"""

from __future__ import annotations

import inspect
import json
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from stopkit._stop import ToolCall, ToolResult

__all__ = ["ToolRunner", "error_result", "is_async_callable", "tool_content"]

#: Longest error text sent back to the model: an exception message can be a whole HTTP body.
MAX_ERROR_CHARS = 2000

Tool = Callable[..., Any]


def tool_content(value: Any) -> str:
    """Return what the model sees for a tool's return value: a str as is, anything else as JSON.

    Example:
        >>> tool_content({"temp": 21})
        '{"temp": 21}'
    """
    if type(value) is str:
        return value
    try:
        return json.dumps(value, default=str, ensure_ascii=False)
    except (TypeError, ValueError):  # a circular structure: its str() is the best left
        return str(value)


def error_result(call: ToolCall, message: str) -> ToolResult:
    """Return the error result the model is sent for `call`."""
    if len(message) > MAX_ERROR_CHARS:
        message = message[: MAX_ERROR_CHARS - 1] + "…"
    return ToolResult.model_construct(
        call_id=call.id, name=call.name, content=message, is_error=True, value=None
    )


def _ok_result(call: ToolCall, value: Any) -> ToolResult:
    return ToolResult.model_construct(
        call_id=call.id, name=call.name, content=tool_content(value), is_error=False, value=value
    )


def _timed_out(call: ToolCall, timeout: float | None) -> ToolResult:
    return error_result(call, f"timed out after {timeout or 0:.3g} s")


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def is_async_callable(fn: Any) -> bool:
    """Say whether calling `fn` returns a coroutine (an async function or `async __call__`)."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__)


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


class _TimedOut(Exception):
    pass


def _in_thread(tool: Tool, arguments: dict[str, Any], timeout: float | None) -> Any:
    """Run a tool in a daemon thread, waiting at most `timeout` seconds for it.

    A daemon thread, not a pool: a tool that never returns must not keep the process alive.
    """
    import asyncio  # here, not at module level: `import stopkit` stays light

    box: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            value = tool(**arguments)
            if inspect.isawaitable(value):
                value = asyncio.run(_await(value))
            box["value"] = value
        except BaseException as exc:  # handed to the waiting thread, which decides
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, daemon=True, name="stopkit-tool").start()
    if not done.wait(timeout):
        raise _TimedOut
    if "error" in box:
        raise box["error"]
    return box["value"]


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
    return _in_thread(lambda: awaitable, {}, None)


class ToolRunner:
    """Runs the tool calls of a loop: looks tools up by name, and never lets one raise."""

    def __init__(self, tools: Mapping[str, Tool]) -> None:
        self.tools = tools
        self._async: dict[str, bool] = {}

    def _lookup(self, call: ToolCall) -> tuple[Tool | None, ToolResult | None]:
        if not call.complete:
            why = f" ({call.error})" if call.error else ""
            return None, error_result(
                call, f"not run: this call was cut off or its arguments were unparseable{why}"
            )
        tool = self.tools.get(call.name) if type(call.name) is str else None
        if tool is None:
            known = ", ".join(sorted(self.tools)) or "none"
            return None, error_result(
                call, f"unknown tool {call.name!r}; the available tools are: {known}"
            )
        return tool, None

    def is_async(self, name: str, tool: Tool) -> bool:
        """Say whether the tool named `name` is a coroutine function (cached per name)."""
        known = self._async.get(name)
        if known is None:
            known = self._async[name] = is_async_callable(tool)
        return known

    def run(self, call: ToolCall, timeout: float | None) -> tuple[ToolResult, float]:
        """Run one call in this thread (in a helper thread when a timeout applies).

        Returns its result and how long it took; an error result on any failure.
        """
        tool, refused = self._lookup(call)
        if tool is None:
            assert refused is not None
            return refused, 0.0
        start = time.perf_counter()
        try:
            if timeout is not None:
                value = _in_thread(tool, call.arguments, timeout)
            else:
                value = tool(**call.arguments)
                if inspect.isawaitable(value):  # an async tool, in the sync loop
                    value = _run_awaitable(value)
        except _TimedOut:
            return _timed_out(call, timeout), time.perf_counter() - start
        except Exception as exc:
            return error_result(call, _describe(exc)), time.perf_counter() - start
        return _ok_result(call, value), time.perf_counter() - start

    async def arun(self, call: ToolCall, timeout: float | None) -> tuple[ToolResult, float]:
        """Run one call on the event loop (a sync tool in a worker thread), within `timeout`.

        Returns its result and how long it took; an error result on any failure.
        """
        import asyncio

        tool, refused = self._lookup(call)
        if tool is None:
            assert refused is not None
            return refused, 0.0
        is_async = self.is_async(call.name, tool)
        arguments = call.arguments

        async def invoke() -> tuple[bool, Any]:
            # Failures come back as values, so a TimeoutError raised by the tool itself is
            # not mistaken for our own timeout.
            try:
                if is_async:
                    value = await tool(**arguments)
                else:
                    value = await asyncio.to_thread(tool, **arguments)
                    if inspect.isawaitable(value):
                        value = await value
            except Exception as exc:
                return False, exc
            return True, value

        start = time.perf_counter()
        try:
            ok, value = await (invoke() if timeout is None else asyncio.wait_for(invoke(), timeout))
        except TimeoutError:
            return _timed_out(call, timeout), time.perf_counter() - start
        seconds = time.perf_counter() - start
        if not ok:
            return error_result(call, _describe(value)), seconds
        return _ok_result(call, value), seconds
