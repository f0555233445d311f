"""Running a sync callable in a daemon thread of its own, waited for from sync or async code.

Used for sync tools (with a timeout, or in `arun_loop`) and for a sync `call_model` in
`arun_loop`. A thread per call, never a pool such as asyncio's default executor: a call that
never returns must not keep the process alive (`asyncio.run()` and interpreter exit wait for a
pool's threads), and must not hold a pool slot that a later call would queue behind (its
timeout running while it waits). The timeout counts from the moment the callable starts, and
a result that has arrived is never dropped. What the callable raised comes back as a value,
not as a future's exception, so every exception is delivered (`StopIteration` cannot be set on
an asyncio future). The callable runs in a copy of the caller's `contextvars` context, as
`asyncio.to_thread` does: what the loop sets there (the current step) is seen by the callable.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["Captured", "TimedOut", "acall_in_thread", "call_in_thread", "capture"]

Captured = tuple[bool, Any]
"""`(True, value)` when the callable returned, `(False, exception)` when it raised."""


class TimedOut(Exception):
    """The callable did not finish within its timeout (it goes on running in its thread).

    `seconds` is the timeout it had: kept with the error, so that a record of it (a DBOS
    step's checkpoint) says what the run said.
    """

    def __init__(self, seconds: float | None = None) -> None:
        super().__init__(seconds)
        self.seconds = seconds


def capture(fn: Callable[[], Any]) -> Captured:
    """Call `fn()`; return `(True, value)`, or `(False, exception)` for whatever it raised."""
    try:
        return True, fn()
    except BaseException as exc:  # handed to the waiting side, which decides
        return False, exc


def call_in_thread(fn: Callable[[], Any], timeout: float | None) -> Captured:
    """Run `fn()` in a daemon thread; wait at most `timeout` seconds from its start.

    Raises `TimedOut` when it has not finished by then.

    Example:
        >>> call_in_thread(lambda: 6 * 7, timeout=5)
        (True, 42)
    """
    box: list[Captured] = []
    started = threading.Event()
    done = threading.Event()
    context = contextvars.copy_context()

    def target() -> None:
        started.set()
        box.append(context.run(capture, fn))
        done.set()

    threading.Thread(target=target, daemon=True, name="stopkit-call").start()
    started.wait()
    if not done.wait(timeout) and not box:
        raise TimedOut(timeout)
    return box[0]


async def acall_in_thread(fn: Callable[[], Any], timeout: float | None) -> Captured:
    """Run `fn()` in a daemon thread without blocking the event loop; wait at most `timeout`.

    Raises `TimedOut` when it has not finished `timeout` seconds after it started. Cancelling
    the awaiting task stops the wait, not the thread: its result is then dropped.

    Example:
        >>> await acall_in_thread(lambda: 6 * 7, timeout=5)  # doctest: +SKIP
        (True, 42)
    """
    import asyncio  # here, not at module level: `import stopkit` stays light

    loop = asyncio.get_running_loop()
    started: asyncio.Future[None] = loop.create_future()
    done: asyncio.Future[Captured] = loop.create_future()

    def settle(future: asyncio.Future[Any], value: Any) -> None:
        if not future.done():  # the waiting task may have been cancelled meanwhile
            future.set_result(value)

    def report(future: asyncio.Future[Any], value: Any) -> None:
        # A closed event loop raises RuntimeError: nobody waits any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, future, value)

    context = contextvars.copy_context()

    def target() -> None:
        report(started, None)
        report(done, context.run(capture, fn))

    threading.Thread(target=target, daemon=True, name="stopkit-call").start()
    await started
    if timeout is not None and not done.done():
        await asyncio.wait((done,), timeout=timeout)
        if not done.done():
            raise TimedOut(timeout)
    return await done
