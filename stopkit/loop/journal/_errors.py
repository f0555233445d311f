"""The errors of durable runs: a journal that cannot be used as asked, and why.

```
StopkitError               (stopkit._errors)
└── JournalError            a durable run's journal cannot be used as asked
    ├── JournalMismatch     a replayed step's request differs from the recorded one (.step)
    ├── JournalUnreadable   not a stopkit journal: corrupt, foreign (.path)
    │   └── JournalTooNew   written by a newer stopkit (.version)
    ├── RunLocked           another worker holds the run's lease (.run_id, .owner)
    └── InvalidRunId        a run id that is not a non-empty str (a TypeError too)
```

Public in `stopkit.loop.journal` (and, for now, `stopkit` itself). Like every stopkit error,
each one survives `pickle` (`StopkitError.__reduce__`).
"""

from __future__ import annotations

from typing import Any

from stopkit._errors import StopkitError

__all__ = [
    "InvalidRunId",
    "JournalError",
    "JournalMismatch",
    "JournalTooNew",
    "JournalUnreadable",
    "RunLocked",
]


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
        stopkit.loop.journal._errors.JournalMismatch: step model_call_2 does not replay: the messages differ
    """  # noqa: E501 -- a doctest's traceback line is as long as Python writes it

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
