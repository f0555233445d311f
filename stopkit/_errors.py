"""The exceptions stopkit raises.

```
StopkitError
├── UnsupportedReply        normalize() got something that is not a reply it can read
├── AdapterNotFound         an adapter name that is not registered
├── NoRecording             ReplayTransport has no recorded exchange for a request
├── ModelCallError          the loop's call_model raised (carries .outcome, the cause chained)
├── AlreadyResumed          an Outcome awaiting approval that was resumed already (a ValueError too)
├── JournalError            a durable run's journal cannot be used as asked
│   ├── JournalMismatch     a replayed step's request differs from the recorded one (.step)
│   ├── JournalUnreadable   not a stopkit journal: corrupt, foreign (.path)
│   │   └── JournalTooNew   written by a newer stopkit (.version)
│   ├── RunLocked           another worker holds the run's lease (.run_id, .owner)
│   └── InvalidRunId        a run id that is not a non-empty str (a TypeError too)
└── StopReasonError         a reply whose Stop the caller asked to raise on (carries .stop)
    ├── TruncatedReply      output_limit
    ├── FilteredReply       filtered
    ├── PausedReply         paused
    └── UnknownStopReason   unknown
```

`NoRecording` is also an `httpx.TransportError`, so it lives beside `ReplayTransport` in
`stopkit.record._replay` (this module imports no httpx).
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
    "InvalidRunId",
    "JournalError",
    "JournalMismatch",
    "JournalTooNew",
    "JournalUnreadable",
    "ModelCallError",
    "PausedReply",
    "RunLocked",
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


class JournalError(StopkitError):
    """A durable run's journal cannot be used as asked; the message says why."""


class JournalMismatch(JournalError):
    """A replayed step's request is not the one recorded: the code or the prompt changed.

    `step` names the step (`model_call_3`, `tool_call_3_0`); `recorded` and `now` are the two
    requests as the journal keeps them. Nothing in the journal is changed.

    Example:
        >>> raise JournalMismatch("model_call_2", "the messages differ", {}, {})
        Traceback (most recent call last):
        ...
        stopkit._errors.JournalMismatch: step model_call_2 does not replay: the messages differ
    """

    def __init__(self, step: str, why: str, recorded: Any, now: Any) -> None:
        self.step = step
        self.recorded = recorded
        self.now = now
        super().__init__(f"step {step} does not replay: {why}")


class JournalUnreadable(JournalError):
    """The journal at `path` is not one stopkit can use: corrupt, or another program's data."""

    def __init__(self, path: str, why: str) -> None:
        self.path = path
        super().__init__(f"cannot use {path} as a stopkit journal: {why}; it was left unchanged")


class JournalTooNew(JournalUnreadable):
    """The journal was written by a newer stopkit (its schema `version` is past this one's)."""

    def __init__(self, path: str, version: int, supported: int) -> None:
        self.version = version
        super().__init__(
            path,
            f"its schema is version {version}, this stopkit reads up to version {supported} "
            "(upgrade stopkit)",
        )


class RunLocked(JournalError):
    """Another worker holds the run's lease; `owner` names it, `seconds_left` its lease.

    A lease is renewed while its worker runs; a worker that died loses it when it expires
    (`lease_seconds=` of the journal), or at once when it was a process of the same machine.
    `stopkit runs unlock RUN_ID` breaks a lease by hand.
    """

    def __init__(self, run_id: str, owner: str | None, seconds_left: float | None) -> None:
        self.run_id = run_id
        self.owner = owner
        self.seconds_left = seconds_left
        left = "" if seconds_left is None else f" (its lease has {seconds_left:.1f} s left)"
        wait = "its lease runs out" if seconds_left is None else f"{seconds_left:.0f} s"
        super().__init__(
            f"run {run_id!r} is being run by {owner or 'another worker'}{left}; if that worker "
            f"died, retry in {wait} (a journal with a shorter lease_seconds= frees a dead "
            f"worker's runs sooner), or break its lease: stopkit runs unlock {run_id}"
        )


class InvalidRunId(JournalError, TypeError):
    """A run id that is not a non-empty `str` of at most 200 characters."""

    def __init__(self, run_id: Any, why: str) -> None:
        self.run_id = run_id
        super().__init__(f"run_id must be a non-empty str of at most 200 characters: {why}")


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
