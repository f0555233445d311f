"""The `Journal` protocol a durable run writes to, and the records it keeps.

A journal keeps runs (one row each: its status and its lease) and their steps (one row each:
the request and, once known, the result, both as JSON text). `SqliteJournal` and
`PostgresJournal` are the built-in ones; any object with these methods will do.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, runtime_checkable

__all__ = ["Journal", "RunInfo", "RunStatus", "StepRecord"]


class RunStatus(StrEnum):
    """Where a journaled run stands; the values are stable, stored API."""

    RUNNING = "running"
    """A worker holds its lease, or held it until it died (the lease then expires)."""
    FINISHED = "finished"
    """The run ended (its `termination` says how) and replays to the same `Outcome`."""
    FAILED = "failed"
    """The model call failed with no retry left (`ModelCallError`); a rerun resumes it."""
    NEEDS_ATTENTION = "needs_attention"
    """A non-idempotent tool call started and has no result: a person must check it."""
    INTERRUPTED = "interrupted"
    """The run was cancelled or interrupted; a rerun resumes it."""
    AWAITING_APPROVAL = "awaiting_approval"
    """`approve` deferred a tool call: a rerun with `approvals=` (or `resume_loop`) goes on."""


@dataclass(frozen=True, slots=True)
class StepRecord:
    """One step of a run as the journal keeps it."""

    name: str
    """`model_call_<turn>` or `tool_call_<turn>_<slot>`."""
    request: str
    """JSON: for a model call the messages' digest and the overrides, for a tool call the
    call (id, name, the arguments' digest)."""
    result: str | None
    """JSON: the reply (`{"reply": ...}` or a stream's `{"events": [...]}`), or the tool's
    result (`{"content", "is_error", "value"}`); None: started, no result yet."""
    recorded_at: float
    """Unix time the step was last written."""


@dataclass(frozen=True, slots=True)
class RunInfo:
    """One run as the journal keeps it."""

    run_id: str
    """The run's id (the `run_id=` it was started with)."""
    status: RunStatus
    """Where the run stands (running, finished, failed, waiting for a person, ...)."""
    termination: str | None
    """How it ended (a `Termination` value), once it has."""
    detail: str
    """Its final text, or why it stopped."""
    owner: str | None
    """The worker holding its lease (host:pid:nonce), None when none does."""
    lease_until: float | None
    """When its lease runs out (Unix seconds, the database's clock); None when released."""
    created_at: float
    """When the run was first started (Unix seconds, the database's clock)."""
    updated_at: float
    """When the run last recorded anything (Unix seconds, the database's clock)."""
    steps: int
    """How many steps are recorded."""


@runtime_checkable
class Journal(Protocol):
    """Where a durable run records its steps. Every method is safe to call from any thread.

    The loop calls `acquire` when a run starts (raising `RunLocked` when another live worker
    holds it), `steps` to read what was recorded, `record` for each step (renewing the lease;
    `RunLocked` when it was lost), `renew` from a heartbeat while a call is running, and
    `release` when the run ends.
    """

    lease_seconds: float
    """How long a lease lasts without renewal: how soon a dead worker's run can be taken."""

    def acquire(self, run_id: str, owner: str) -> None:
        """Take the run's lease for `owner` (creating the run); `RunLocked` when held."""
        ...

    def renew(self, run_id: str, owner: str) -> bool:
        """Extend `owner`'s lease; False when `owner` no longer holds it."""
        ...

    def steps(self, run_id: str) -> list[StepRecord]:
        """Return the run's recorded steps, in the order they were first written."""
        ...

    def record(self, run_id: str, owner: str, step: StepRecord) -> None:
        """Write (or complete) a step, renewing the lease; `RunLocked` when `owner` lost it."""
        ...

    def release(
        self, run_id: str, owner: str, status: RunStatus, termination: str | None, detail: str
    ) -> None:
        """Record how the run stands and give its lease up."""
        ...

    def runs(self) -> list[RunInfo]:
        """Return every run, the most recently updated first."""
        ...

    def run(self, run_id: str) -> RunInfo | None:
        """Return the run, or None when there is none by that id."""
        ...

    def delete(self, run_id: str) -> bool:
        """Delete the run and its steps; False when there was none. Refused while leased."""
        ...

    def close(self) -> None:
        """Close the connection (the journal can not be used afterwards)."""
        ...
