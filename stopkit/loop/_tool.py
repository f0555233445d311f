"""`stopkit.tool`: what the loop should know about a tool beyond its signature.

`idempotent=False` marks a tool whose second run may do harm (a card charged twice, an email
sent twice). In a durable run (`journal=`) such a call is recorded as started before it runs;
a run that crashed after the start and before the result stops with
`Termination.NEEDS_ATTENTION` on resume instead of running it again. A tool whose signature
has a parameter named `idempotency_key` receives a key unique to the call and stable across
resumes: `<run id>/tool_call_<turn>_<slot>` (the run id: `run_id=`, else one made per run).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar, overload

__all__ = [
    "KEY_PARAMETER",
    "ToolOptions",
    "keep_time",
    "options_of",
    "timed_by_itself",
    "tool",
    "wants_key",
]

F = TypeVar("F", bound=Callable[..., Any])

KEY_PARAMETER = "idempotency_key"
"""The parameter through which a tool asks for its call's idempotency key."""

_ATTRIBUTE = "__stopkit_tool__"
_TIMED = "__stopkit_timed__"


@dataclass(frozen=True, slots=True)
class ToolOptions:
    """What `stopkit.tool` marked a tool with."""

    idempotent: bool = True
    """Whether running the same call twice is harmless."""


_DEFAULT = ToolOptions()


@overload
def tool(fn: F, /, *, idempotent: bool = True) -> F: ...
@overload
def tool(fn: None = None, /, *, idempotent: bool = True) -> Callable[[F], F]: ...
def tool(fn: Any = None, /, *, idempotent: bool = True) -> Any:
    """Mark a tool for the loop; `idempotent=False`: a second run of one call may do harm.

    Used bare (`@stopkit.tool`) or with options. The function is returned as it is, marked
    (a callable that takes no attributes, such as a bound method, is wrapped).

    Example:
        >>> @stopkit.tool(idempotent=False)  # doctest: +SKIP
        ... def charge(amount: int, idempotency_key: str) -> str:
        ...     return payments.charge(amount, key=idempotency_key)
    """
    if type(idempotent) is not bool:
        raise TypeError(f"idempotent must be a bool, not {idempotent!r}")
    options = ToolOptions(idempotent=idempotent)

    def mark(target: Any) -> Any:
        if not callable(target):
            raise TypeError(f"stopkit.tool marks a callable, not {target!r}")
        try:
            setattr(target, _ATTRIBUTE, options)
            return target
        except (AttributeError, TypeError):  # a bound method, a builtin: wrap it
            pass
        if inspect.iscoroutinefunction(target):

            @functools.wraps(target)
            async def awrapped(*args: Any, **kwargs: Any) -> Any:
                return await target(*args, **kwargs)

            wrapped: Any = awrapped
        else:

            @functools.wraps(target)
            def wrapped(*args: Any, **kwargs: Any) -> Any:
                return target(*args, **kwargs)

        setattr(wrapped, _ATTRIBUTE, options)
        return wrapped

    return mark if fn is None else mark(fn)


def options_of(fn: Any) -> ToolOptions:
    """Return what `fn` was marked with (the defaults for an unmarked tool)."""
    options = getattr(fn, _ATTRIBUTE, None)
    return options if isinstance(options, ToolOptions) else _DEFAULT


def wants_key(fn: Any) -> bool:
    """Say whether `fn` takes a parameter named `idempotency_key`."""
    try:
        return KEY_PARAMETER in inspect.signature(fn).parameters
    except (TypeError, ValueError):  # no signature to read (some builtins)
        return False


def keep_time(
    fn: Any, timed: Callable[..., Any], atimed: Callable[..., Awaitable[Any]] | None = None
) -> None:
    """Mark `fn` as keeping its timeout itself: the loop calls `timed(timeout, **arguments)`.

    For a tool whose every run is recorded by something else (a DBOS step): its timeout is
    then inside the record, and what the run saw (a timeout) is what a recovery replays, not
    a result the tool gave after it. `timed` raises `TimedOut(timeout)` past the timeout.
    Such a tool is replayed by running the loop again: one that takes an idempotency key needs
    a `run_id=` that every recovery repeats (`LoopSettings` refuses a run without one).
    `atimed`: the same, awaited on the event loop by `arun_loop` (else `timed` runs there as
    any tool of its kind does).
    """
    setattr(fn, _TIMED, (fn, timed, atimed or timed))


def timed_by_itself(fn: Any, *, awaited: bool) -> Callable[..., Any] | None:
    """Return how `fn` runs within a timeout itself (`keep_time`), or None.

    `awaited`: the one `arun_loop` awaits. Only `fn`'s own mark counts: a wrapper that copied
    it (`functools.wraps` copies the attributes) runs as any tool does, its own code included.
    """
    mark = getattr(fn, _TIMED, None)
    if isinstance(mark, tuple) and len(mark) == 3 and mark[0] is fn:
        timed: Callable[..., Any] = mark[2] if awaited else mark[1]
        return timed
    return None
