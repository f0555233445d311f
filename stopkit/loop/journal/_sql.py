"""What `SqliteJournal` and `PostgresJournal` share: every statement, the leases.

The tables and how a database is found to be ours are in `_schema.py`.

Leases: a run is taken by one worker at a time (`acquire`, one atomic upsert), renewed with
every step and by the loop's heartbeat, and given up when the run ends. A worker that died
stops renewing, so its lease expires after `lease_seconds` and another worker may take over.
Times are read from the database's clock, so workers on machines whose clocks differ agree.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Self

from stopkit.loop.journal._errors import RunLocked
from stopkit.loop.journal._owner import dead_here
from stopkit.loop.journal._protocol import RunInfo, RunStatus, StepRecord
from stopkit.loop.journal._rows import run_info
from stopkit.loop.journal._schema import TABLES, Execute, check, create, stored_text

__all__ = ["Execute", "SqlJournal"]

logger = logging.getLogger("stopkit.loop")

_RUN_COLUMNS = (
    "r.run_id, r.status, r.termination, r.detail, r.owner, r.lease_until, r.created_at, "
    "r.updated_at, (SELECT COUNT(*) FROM stopkit_steps s WHERE s.run_id = r.run_id)"
)


class SqlJournal:
    """A `Journal` on a SQL database; subclasses open the connection and run transactions.

    A subclass sets `NOW` (the SQL for the database's clock, in Unix seconds) and
    `PLACEHOLDER`, and implements `_transaction` (a context manager giving an `Execute`,
    committing at its end) and `_columns` (the tables that exist, with their columns).
    """

    NOW = ""
    PLACEHOLDER = "?"
    #: Whether a database holding tables of its own is still ours to add tables to.
    SHARED = False
    #: What locks the row a statement reads until the transaction ends ("": the transaction
    #: holds the whole database already, as SQLite's `BEGIN IMMEDIATE` does).
    LOCK_ROW = ""

    def __init__(self, where: str, lease_seconds: float) -> None:
        if isinstance(lease_seconds, bool) or not isinstance(lease_seconds, int | float):
            raise TypeError(f"lease_seconds must be a number, not {lease_seconds!r}")
        if not lease_seconds > 0:
            raise ValueError(f"lease_seconds must be positive, not {lease_seconds!r}")
        self.where = where
        self.lease_seconds = float(lease_seconds)
        self._lock = threading.Lock()

    _connection: Any
    """The subclass's open connection (sqlite3's or psycopg's)."""

    def close(self) -> None:
        """Close the connection (the journal cannot be used afterwards)."""
        with self._lock:
            self._connection.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.where!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- for subclasses ---------------------------------------------------------------------

    def _transaction(self) -> AbstractContextManager[Execute]:
        raise NotImplementedError

    def _columns(self, execute: Execute) -> list[tuple[str, str | None]]:
        """Return (table, column) for each column of each table there (None: it has none)."""
        raise NotImplementedError

    def _tables(self, execute: Execute) -> dict[str, set[str]]:
        """Return the tables there, each with its columns."""
        tables: dict[str, set[str]] = {}
        for table, column in self._columns(execute):
            columns = tables.setdefault(table, set())
            if column is not None:
                columns.add(column)
        return tables

    def _commit_survives_crash(self, execute: Execute) -> None:
        """Make this transaction's commit wait until a crash of the database cannot undo it.

        For a commit a side effect depends on: the start of a non-idempotent call (and the
        tables' creation, which every later step needs). SQLite's commit is in the file when
        it returns (a crash of the process keeps it; a power cut is `durable=True`'s), so
        this does nothing there.
        """

    def _sql(self, statement: str) -> str:
        statement = statement.replace("{now}", self.NOW)
        return statement if self.PLACEHOLDER == "?" else statement.replace("?", self.PLACEHOLDER)

    def _do(self, work: Callable[[Execute], Any]) -> Any:
        """Run `work` in one transaction, holding the lock (one connection, many threads)."""
        with self._lock, self._transaction() as execute:

            def run(statement: str, params: tuple[Any, ...] = ()) -> Any:
                return execute(self._sql(statement), params)

            return work(run)

    # --- the schema ---------------------------------------------------------------------------

    def _check(self, execute: Execute) -> bool:
        """Say whether our schema is there (False: the database is empty); refuse the rest."""
        tables = self._tables(execute)
        if self.SHARED:  # other programs' tables beside ours are expected
            tables = {name: tables[name] for name in TABLES if name in tables}
        return check(execute, tables, self.where)

    def _prepare(self) -> None:
        """Check the schema, creating it in an empty database; refuse anything else."""

        def prepare(execute: Execute) -> None:
            if not self._check(execute):
                self._commit_survives_crash(execute)  # every later step depends on it
                create(execute)

        self._do(prepare)

    # --- leases -------------------------------------------------------------------------------

    def _locked(self, execute: Execute, run_id: str) -> RunLocked:
        row = execute(
            "SELECT owner, lease_until - {now} FROM stopkit_runs WHERE run_id = ?", (run_id,)
        ).fetchone()
        owner, left = (row[0], row[1]) if row else (None, None)
        return RunLocked(run_id, owner, None if left is None else max(float(left), 0.0))

    def acquire(self, run_id: str, owner: str) -> None:
        """Take the run's lease for `owner`, creating the run; `RunLocked` when it is held.

        A lease held by a worker process of this machine that is gone (killed) is taken over
        at once; any other holder's lease must run out (or be broken: `unlock`). An existing
        run's row is left as it stands (status, ending, times) until its first step is
        recorded: a rerun refused before it records anything changes nothing.
        """

        def acquire(execute: Execute) -> None:
            row = execute(
                "INSERT INTO stopkit_runs (run_id, status, termination, detail, owner, "
                "lease_until, created_at, updated_at) VALUES (?, ?, NULL, '', ?, {now} + ?, "
                "{now}, {now}) ON CONFLICT (run_id) DO UPDATE SET owner = excluded.owner, "
                "lease_until = excluded.lease_until WHERE stopkit_runs.owner IS NULL "
                "OR stopkit_runs.owner = excluded.owner "
                "OR stopkit_runs.lease_until < excluded.updated_at RETURNING owner",
                (run_id, RunStatus.RUNNING.value, owner, self.lease_seconds),
            ).fetchone()
            if row is None:
                locked = self._locked(execute, run_id)
                if not (dead_here(locked.owner) and self._take(execute, run_id, locked, owner)):
                    raise locked

        self._do(acquire)

    def _take(self, execute: Execute, run_id: str, locked: RunLocked, owner: str) -> bool:
        """Take over the lease of a worker process of this machine that is gone (`_owner.py`)."""
        taken = execute(
            "UPDATE stopkit_runs SET owner = ?, lease_until = {now} + ? "
            "WHERE run_id = ? AND owner = ?",
            (owner, self.lease_seconds, run_id, locked.owner),
        ).rowcount
        if taken:
            logger.warning(
                "stopkit: run %r was held by %s, a process of this machine that is gone: "
                "its lease (%.1f s left) is taken over",
                run_id,
                locked.owner,
                locked.seconds_left or 0.0,
            )
        return bool(taken)

    def renew(self, run_id: str, owner: str) -> bool:
        """Extend `owner`'s lease; False when `owner` no longer holds it."""
        return bool(
            self._do(
                lambda execute: execute(
                    "UPDATE stopkit_runs SET lease_until = {now} + ? "
                    "WHERE run_id = ? AND owner = ?",
                    (self.lease_seconds, run_id, owner),
                ).rowcount
            )
        )

    def unlock(self, run_id: str, owner: str | None = None) -> bool:
        """Give the run's lease up, changing nothing else; say whether a lease was held.

        `owner`'s lease (a worker leaving a run it did not change), or with None whoever's:
        an operator breaking the lease of a worker known to be gone (`stopkit runs unlock`).
        That worker, were it still running, gets `RunLocked` at its next step.

        Example:
            >>> journal.unlock("order-1042")  # doctest: +SKIP
            True
        """
        held = "owner = ?" if owner is not None else "owner IS NOT NULL"
        return bool(
            self._do(
                lambda execute: execute(
                    f"UPDATE stopkit_runs SET owner = NULL, lease_until = NULL "
                    f"WHERE run_id = ? AND {held}",
                    (run_id,) if owner is None else (run_id, owner),
                ).rowcount
            )
        )

    def release(
        self, run_id: str, owner: str, status: RunStatus, termination: str | None, detail: str
    ) -> None:
        """Record how the run stands and give its lease up (a lease already lost stays lost)."""
        self._do(
            lambda execute: execute(
                "UPDATE stopkit_runs SET status = ?, termination = ?, detail = ?, owner = NULL, "
                "lease_until = NULL, updated_at = {now} WHERE run_id = ? AND owner = ?",
                (RunStatus(status).value, termination, stored_text(detail), run_id, owner),
            )
        )

    # --- steps --------------------------------------------------------------------------------

    def steps(self, run_id: str) -> list[StepRecord]:
        """Return the run's recorded steps, in the order they were first written."""
        rows = self._do(
            lambda execute: execute(
                "SELECT name, request, result, recorded_at FROM stopkit_steps "
                "WHERE run_id = ? ORDER BY seq",
                (run_id,),
            ).fetchall()
        )
        return [StepRecord(name, request, result, float(at)) for name, request, result, at in rows]

    def record(self, run_id: str, owner: str, step: StepRecord) -> None:
        """Write (or complete) a step and renew the lease; `RunLocked` when it was lost."""

        def record(execute: Execute) -> None:
            if step.result is None:  # a call that must not run twice is about to start
                self._commit_survives_crash(execute)
            renewed = execute(
                "UPDATE stopkit_runs SET lease_until = {now} + ?, updated_at = {now}, "
                "status = ? WHERE run_id = ? AND owner = ?",
                (self.lease_seconds, RunStatus.RUNNING.value, run_id, owner),
            ).rowcount
            if not renewed:
                raise self._locked(execute, run_id)
            execute(
                "INSERT INTO stopkit_steps (run_id, seq, name, request, result, recorded_at) "
                "VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM stopkit_steps "
                "WHERE run_id = ?), ?, ?, ?, {now}) ON CONFLICT (run_id, name) DO UPDATE SET "
                "request = excluded.request, result = excluded.result, "
                "recorded_at = excluded.recorded_at",
                (run_id, run_id, step.name, step.request, step.result),
            )

        self._do(record)

    # --- for operators ------------------------------------------------------------------------

    def runs(self) -> list[RunInfo]:
        """Return every run, the most recently updated first."""
        rows = self._do(
            lambda execute: execute(
                f"SELECT {_RUN_COLUMNS} FROM stopkit_runs r ORDER BY r.updated_at DESC", ()
            ).fetchall()
        )
        return [run_info(self.where, row) for row in rows]

    def run(self, run_id: str) -> RunInfo | None:
        """Return the run, or None when there is none by that id."""
        row = self._do(
            lambda execute: execute(
                f"SELECT {_RUN_COLUMNS} FROM stopkit_runs r WHERE r.run_id = ?", (run_id,)
            ).fetchone()
        )
        return None if row is None else run_info(self.where, row)

    def _unleased(self, execute: Execute, run_id: str) -> bool:
        """Raise `RunLocked` when a live worker holds the run; say whether the run exists.

        A lease of a worker process of this machine that is gone is no obstacle, as it is
        none to `acquire`. The run's row stays locked until the transaction ends: a worker
        taking the run meanwhile waits, and finds what this transaction left.
        """
        row = execute(
            "SELECT owner IS NOT NULL AND lease_until >= {now} FROM stopkit_runs "
            f"WHERE run_id = ?{self.LOCK_ROW}",
            (run_id,),
        ).fetchone()
        if row is not None and row[0]:
            locked = self._locked(execute, run_id)
            if not dead_here(locked.owner):
                raise locked
        return row is not None

    def delete(self, run_id: str) -> bool:
        """Delete the run and its steps; False when there was none. `RunLocked` while leased.

        Example:
            >>> journal.delete("order-1042")  # doctest: +SKIP
            True
        """

        def delete(execute: Execute) -> bool:
            if not self._unleased(execute, run_id):
                return False
            execute("DELETE FROM stopkit_steps WHERE run_id = ?", (run_id,))
            execute("DELETE FROM stopkit_runs WHERE run_id = ?", (run_id,))
            return True

        return bool(self._do(delete))

    def settle(
        self, run_id: str, step: str, content: str | None, *, is_error: bool = False
    ) -> None:
        """Settle a tool call that needs attention: give its result, or (None) let it run again.

        For a run that stopped with `needs_attention`: once a person has checked whether the
        call happened, `content` is the result the model is sent for it (the run replays it);
        `None` forgets that it started, so the rerun runs it. `RunLocked` while leased;
        `KeyError` when the run has no such step.

        Example:
            >>> journal.settle("order-7", "tool_call_3_0", "charged: r-77")  # doctest: +SKIP
        """
        from stopkit.loop.journal._codec import dumps

        def settle(execute: Execute) -> None:
            self._unleased(execute, run_id)
            if content is None:
                done = execute(
                    "DELETE FROM stopkit_steps WHERE run_id = ? AND name = ? AND result IS NULL",
                    (run_id, step),
                ).rowcount
            else:
                result = dumps({"content": content, "is_error": is_error, "value": content,
                                "seconds": 0.0})  # fmt: skip
                done = execute(
                    "UPDATE stopkit_steps SET result = ?, recorded_at = {now} "
                    "WHERE run_id = ? AND name = ? AND result IS NULL",
                    (result, run_id, step),
                ).rowcount
            if not done:
                raise KeyError(f"run {run_id!r} has no unsettled step {step!r}")

        self._do(settle)

