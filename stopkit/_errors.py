"""The exceptions stopkit raises.

```
StopkitError
├── UnsupportedReply        normalize() got something that is not a reply it can read
├── AdapterNotFound         an adapter name that is not registered
├── NoRecording             ReplayTransport has no recorded exchange for a request
├── ModelCallError          the loop's call_model raised (carries .outcome, the cause chained)
├── AlreadyResumed          an Outcome awaiting approval that was resumed already (a ValueError too)
├── JournalError            a durable run's journal cannot be used (stopkit.loop.journal)
└── StopReasonError         a reply whose Stop the caller asked to raise on (carries .stop)
    ├── TruncatedReply      output_limit
    ├── FilteredReply       filtered
    ├── PausedReply         paused
    └── UnknownStopReason   unknown
```

`NoRecording` is also an `httpx.TransportError`, so it lives beside `ReplayTransport` in
`stopkit.record._replay` (this module imports no httpx). The journal's errors (`JournalError`
and its kinds) live with the journal, in `stopkit.loop.journal` (its `_errors.py` draws them):
this module, at the bottom of the house, knows no subsystem.
"""

from __future__ import annotations

import reprlib
from collections.abc import Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

from stopkit._stop import Stop, StopReason

if TYPE_CHECKING:
    from stopkit.loop.events import Outcome

__all__ = [
    "AdapterNotFound",
    "AlreadyResumed",
    "FilteredReply",
    "ModelCallError",
    "PausedReply",
    "StopReasonError",
    "StopkitError",
    "TruncatedReply",
    "UnknownStopReason",
    "UnsupportedReply",
    "error_for",
]


class StopkitError(Exception):
    """The base of every error stopkit raises.

    Every one survives `pickle` (DBOS, multiprocessing and task queues keep errors pickled):
    an error is rebuilt from its message and attributes, not by calling its `__init__` again
    with the message alone (which takes other arguments).
    """

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild, (type(self), self.args), vars(self)


class UnsupportedReply(StopkitError, TypeError):
    """The input is not a reply of any shape the tried adapters can read."""

    def __init__(self, reply: Any, tried: Sequence[str], why: str = "") -> None:
        self.reply = reply
        self.tried = tuple(tried)
        shown = _describe(reply)
        message = f"not a reply stopkit can read: {shown}"
        if why:
            message += f" ({why})"
        message += f"; adapters tried: {', '.join(self.tried) or 'none'}"
        super().__init__(message)


class AdapterNotFound(StopkitError, LookupError):
    """No adapter is registered under the given name."""

    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name = name
        super().__init__(f"no adapter named {name!r}; known adapters: {', '.join(known)}")


class ModelCallError(StopkitError):
    """A loop's `call_model` raised, and no retry was left: the run so far is on `outcome`.

    The exception `call_model` raised is `__cause__`. `outcome.messages` is the transcript up
    to the failed call (consistent: every tool call in it has its result), `outcome.tool_runs`
    the tools already run, `outcome.termination` is `model_error`.

    Example:
        >>> try:  # doctest: +SKIP
        ...     outcome = stopkit.run_loop(call_model, messages, tools=tools)
        ... except stopkit.ModelCallError as exc:
        ...     save(exc.outcome.messages)  # resume later from here
    """

    def __init__(self, outcome: Outcome, attempts: int, why: str = "") -> None:
        self.outcome = outcome
        self.attempts = attempts
        cause = f" ({why})" if why else ""
        super().__init__(
            f"the model call of turn {outcome.turns} failed after {attempts} attempt"
            f"{'s' if attempts != 1 else ''}{cause}; the run so far is on .outcome"
        )

    @property
    def messages(self) -> list[Any]:
        """The transcript up to the failed call (`outcome.messages`)."""
        return self.outcome.messages


class AlreadyResumed(StopkitError, ValueError):
    """A run awaiting approval was resumed already: each approval is used once.

    `resume_loop` / `aresume_loop` go on from an `Outcome` once, however many times (or from
    however many threads and tasks at once) they are called with it: the first resume runs
    the approved calls, every other raises this before anything runs. `run_id` names a
    journaled run (None for a run without a journal); `pending` holds the ids of the calls
    the outcome waited on. To go on from where the resumed run stands, resume the `Outcome`
    that the first resume returned.
    """

    def __init__(self, run_id: str | None, pending: Sequence[str], waiting: str) -> None:
        self.run_id = run_id
        self.pending = tuple(pending)
        run = "this run" if run_id is None else f"run {run_id!r}"
        super().__init__(
            f"{run} {waiting} was resumed already: an approval is used once; go on from the "
            "Outcome that the first resume returned"
        )


class StopReasonError(StopkitError):
    """A reply stopped for a reason the caller asked to raise on; `stop` says why."""

    def __init__(self, stop: Stop) -> None:
        self.stop = stop
        raw = f" (raw {stop.raw_reason!r})" if stop.raw_reason is not None else ""
        detail = f", detail {stop.detail!r}" if stop.detail else ""
        super().__init__(f"{stop.provider} reply stopped with {stop.reason.value}{raw}{detail}")


class TruncatedReply(StopReasonError):
    """The reply was cut off by a token ceiling."""


class FilteredReply(StopReasonError):
    """The reply was refused, filtered or blocked."""


class PausedReply(StopReasonError):
    """The provider paused the turn; it must be resumed."""


class UnknownStopReason(StopReasonError):
    """The reply's stop value is unrecognized, error-like or missing."""


_BY_REASON: dict[StopReason, type[StopReasonError]] = {
    StopReason.OUTPUT_LIMIT: TruncatedReply,
    StopReason.FILTERED: FilteredReply,
    StopReason.PAUSED: PausedReply,
    StopReason.UNKNOWN: UnknownStopReason,
}


def error_for(stop: Stop) -> StopReasonError:
    """Return the typed error for a `Stop` (`StopReasonError` for reasons without their own)."""
    return _BY_REASON.get(stop.reason, StopReasonError)(stop)


def _rebuild(kind: type[StopkitError], args: tuple[Any, ...]) -> StopkitError:
    """Make a `kind` error with `args` without its `__init__` (pickle then sets its attributes)."""
    error = kind.__new__(kind, *args)
    error.args = args
    return error


def _describe(reply: Any, limit: int = 200) -> str:
    """Say what `reply` is in at most about `limit` characters, in time bounded by the limit.

    Only a bounded prefix of any text is ever looked at, and no `repr()` of the whole input is
    built (a 100 MB reply must not cost a 400 MB message).
    """
    if isinstance(reply, dict):
        keys = ", ".join(_SHORT.repr(k) for k in list(islice(reply, 12)))
        more = ", ..." if len(reply) > 12 else ""
        text = f"a dict with keys [{keys}{more}]"
        error = reply.get("error")
        if isinstance(error, dict | str):
            text += f" — an HTTP error envelope? error={_SHORT.repr(error)}"
        return text
    if isinstance(reply, str | bytes | bytearray):
        size = f" of {len(reply):,} characters" if len(reply) > limit else ""
        return f"{type(reply).__name__}{size} {_clip(repr(reply[:limit]), limit)}"
    kind = f"{type(reply).__module__}.{type(reply).__qualname__}"
    if reply is None or isinstance(reply, int | float | bool):
        return f"{kind} {reply!r}"
    if isinstance(reply, list | tuple):
        return f"{kind} of {len(reply)} items {_SHORT.repr(reply)}"
    return f"a {kind} object"


def _short_repr() -> reprlib.Repr:
    """A `repr` that looks at a bounded part of any container or string."""
    short = reprlib.Repr()
    short.maxlevel, short.maxdict, short.maxlist, short.maxtuple = 2, 4, 4, 4
    short.maxstring, short.maxother, short.maxlong = 80, 40, 40
    return short


_SHORT = _short_repr()


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
