"""wrap's telemetry switch: each watched call told to an observer, while one is set (internal).

`stopkit.otel.instrument()` sets `factory`. A watched method then makes an observer per call
(`observed`, the one check per call while nothing is instrumented) and makes it `CURRENT`
while the SDK method runs: the reply reported during the call, or the stream, raw response or
helper created during it (they keep it), tells that observer how the call ended
(`Settings.report`). An observer must never raise; `stopkit.otel`'s catches everything.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, Protocol

from stopkit._stop import Stop

__all__ = ["CURRENT", "CallObserver", "factory", "observed"]


class CallObserver(Protocol):
    """What one watched call tells its observer."""

    def returned(self) -> None:
        """The SDK method returned (a stream it returned may still be read)."""

    def replied(
        self, stops: Sequence[Stop], streamed: bool, error: BaseException | None = None
    ) -> None:
        """The reply was read: one `Stop` per choice (`streamed`: it came as a stream).

        `error`: what broke the stream before its end (the `Stop`s are what was read of it).
        """

    def failed(self, error: BaseException) -> None:
        """The SDK method raised `error`."""

    def unread(self, end_ns: int) -> None:
        """The call's reply will never be read: a raw response dropped without `parse()`.

        `end_ns`: when the call returned (`time.time_ns()`), the end of the call.
        """


factory: Callable[[str, Mapping[str, Any], Any, int | None], CallObserver | None] | None = None
"""Makes a call's observer from its adapter, keywords, the wrapped client and (when the call
began earlier) its start time in ns; set while instrumented (`stopkit.otel.instrument`)."""

CURRENT: ContextVar[CallObserver | None] = ContextVar("stopkit_wrap_call", default=None)
"""The observer of the watched call running in this context."""


class _Observing:
    """The observer of one call, `CURRENT` while the SDK method runs; told how the call went."""

    __slots__ = ("observer", "token")

    def __init__(self, adapter: str, kwargs: Mapping[str, Any], client: Any) -> None:
        make = factory
        self.observer = None if make is None else make(adapter, kwargs, client, None)
        self.token = None if self.observer is None else CURRENT.set(self.observer)

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: BaseException | None, trace: object) -> None:
        observer = self.observer
        if observer is None:
            return
        if error is not None:
            observer.failed(error)
        CURRENT.reset(self.token)  # type: ignore[arg-type]
        observer.returned()


def observed(method: Callable[..., Any], adapter: str, client: Any) -> Callable[..., Any]:
    """Return `method` with each call told to the telemetry observer, while one is set."""
    if inspect.iscoroutinefunction(method):

        @functools.wraps(method)
        async def acall(*args: Any, **kwargs: Any) -> Any:
            if factory is None:  # not instrumented: the one check
                return await method(*args, **kwargs)
            with _Observing(adapter, kwargs, client):
                return await method(*args, **kwargs)

        return acall

    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        if factory is None:  # not instrumented: the one check
            return method(*args, **kwargs)
        with _Observing(adapter, kwargs, client):
            return method(*args, **kwargs)

    return call
