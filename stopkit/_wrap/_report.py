"""What a wrapped client does with each reply's `Stop`s: `on_stop`, then `raise_on`.

Every watched form ends here with the `Stop` of each choice (`n > 1`: one per choice, in
order). `on_stop` is called for each; then, if any `Stop`'s reason is in `raise_on`, the typed
error of the first such one is raised. An exception raised by `on_stop` propagates as it is,
with the reply attached (`.stopkit_reply`, and the `Stop` at hand as `.stopkit_stop`), so that
a callback that fails never loses the reply it was looking at.

A stream its caller closed before its end (`close()`, a `break` out of `with`) stopped on
purpose: its `Stop`s (`unknown`/`stream_incomplete`) go to `on_stop` with a note saying so
(`CLOSED`), and are never raised on. One that ended short by itself (the connection) is.

openai's parse helpers raise `LengthFinishReasonError` / `ContentFilterFinishReasonError`
instead of returning a reply cut by `length` or `content_filter`; the completion they carry is
reported like any reply, and with that reason in `raise_on` the stopkit error is raised from
the SDK's (its `__cause__`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from stopkit._errors import StopReasonError, error_for
from stopkit._normalize import normalize_all, reply_of
from stopkit._stop import Stop, StopReason
from stopkit._wrap._observe import CURRENT, CallObserver

__all__ = [
    "CLOSED",
    "FINISH_REASON_ERRORS",
    "Settings",
    "caller_closed",
    "finish_reason_stops",
    "read_raise_on",
    "stops_of",
]

# Source: openai/_exceptions.py; matched by name so that openai is not imported.
FINISH_REASON_ERRORS = frozenset({"LengthFinishReasonError", "ContentFilterFinishReasonError"})


CLOSED = "the caller closed the stream before its end: stopped on purpose, not raised on"
"""The note on each `Stop` of a stream its caller closed before the terminal event."""


def caller_closed(stops: Sequence[Stop]) -> tuple[Stop, ...]:
    """Return the `Stop`s of a stream its caller closed: each one cut short noted `CLOSED`."""
    return tuple(
        stop.model_copy(update={"notes": (*stop.notes, CLOSED)})
        if stop.detail == "stream_incomplete"
        else stop
        for stop in stops
    )


def read_raise_on(raise_on: Iterable[StopReason | str] | StopReason | str) -> frozenset[StopReason]:
    """Return `raise_on` as reasons; a value that is none raises `ValueError` naming them all."""
    if isinstance(raise_on, str):
        raise_on = (raise_on,)
    reasons = set()
    for reason in raise_on:
        try:
            reasons.add(StopReason(reason))
        except ValueError:
            valid = ", ".join(repr(r.value) for r in StopReason)
            raise ValueError(
                f"raise_on: {reason!r} is not a stop reason; the reasons are {valid}"
            ) from None
    return frozenset(reasons)


def stops_of(reply: Any, adapter: str | None) -> tuple[Stop, ...]:
    """Return the `Stop` of each choice of `reply`, read with the named adapter.

    None: the adapter that recognizes it. A boto3 InvokeModel response is read by its body
    (an unread copy is left in its place).
    """
    return normalize_all(reply_of(reply), adapter=adapter)


def finish_reason_stops(exc: BaseException, adapter: str) -> tuple[Stop, ...] | None:
    """Return the `Stop`s of the completion an openai finish-reason error carries, else None."""
    if type(exc).__name__ not in FINISH_REASON_ERRORS:
        return None
    completion = getattr(exc, "completion", None)
    if completion is None:  # the SDK's type allows it; it always sets one in practice
        return None
    return stops_of(completion, adapter)


class Settings:
    """One wrapped client's `on_stop` and `raise_on`, shared by all its watched forms."""

    __slots__ = ("client", "on_stop", "raise_on")

    def __init__(
        self,
        on_stop: Callable[[Stop], object] | None,
        raise_on: frozenset[StopReason],
        client: Any = None,
    ) -> None:
        self.on_stop = on_stop
        self.raise_on = raise_on
        self.client = client
        """The client given to `wrap` (telemetry reads its own settings)."""

    def report(
        self,
        stops: Sequence[Stop],
        reply: Any,
        *,
        may_raise: bool = True,
        cause: BaseException | None = None,
        streamed: bool = False,
        call: CallObserver | None = None,
        error: BaseException | None = None,
    ) -> None:
        """Hand each `Stop` to `on_stop`, then raise the first one's error that `raise_on` names.

        `cause` is the SDK error the `Stop`s were read from: the stopkit error is raised from it.
        The call's telemetry observer (`call`, else the current one) hears of the `Stop`s first
        (and of `error`, what broke the stream they were read from).
        """
        if call is None:
            call = CURRENT.get()
        if call is not None:
            call.replied(stops, streamed, error)
        if self.on_stop is not None:
            for stop in stops:
                try:
                    self.on_stop(stop)
                except Exception as exc:
                    exc.stopkit_reply = reply  # type: ignore[attr-defined]
                    exc.stopkit_stop = stop  # type: ignore[attr-defined]
                    exc.add_note("stopkit: raised by on_stop; the reply is on .stopkit_reply")
                    raise
        if may_raise:
            error = self.error(stops)
            if error is not None:
                raise error from cause

    def error(self, stops: Sequence[Stop]) -> StopReasonError | None:
        """Return the typed error of the first `Stop` whose reason is in `raise_on`, if any.

        A `Stop` its caller closed the stream of (noted `CLOSED`) is none.
        """
        for stop in stops:
            if stop.reason in self.raise_on and CLOSED not in stop.notes:
                return error_for(stop)
        return None
