"""`PostgresJournal`: a journal on a PostgreSQL server, for workers on several machines.

psycopg 3 (`pip install 'stopkit[postgres]'`), imported when a `PostgresJournal` is made, never
by `import stopkit`. The tables (`stopkit_meta`, `stopkit_runs`, `stopkit_steps`) go into the
connection's current schema, beside any other tables there; creating them is serialized by an
advisory lock, so workers starting together do not race. Times come from the server's clock.

Like `SqliteJournal`, it waits by default for a step to reach the server, not the server's
WAL (`synchronous_commit = off` for its own session): a step survives the worker being
killed, and a server crash loses at most the last fraction of a second of steps (which are
then made again, as a step cut by a crash is). The start of a non-idempotent call is the
exception: a second run of that call may do harm, so its commit always waits for the WAL
(`SET LOCAL synchronous_commit = on`; everything committed before it is then kept too).
`durable=True` waits for the WAL at every step.

The connection is the journal's own, in this process: after a server restart (or any lost
connection) the next transaction opens a new one, and so does the first one in a child process
forked with the journal open (the parent's connection stays the parent's). A transaction that
outlasts `timeout` (a server that stopped answering) fails with `JournalError`: the server
cancels a statement past it (`statement_timeout`), and the watchdog (`_watchdog.py`) drops a
connection whose server says nothing at all.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from stopkit.loop.journal._errors import JournalError
from stopkit.loop.journal._sql import Execute, SqlJournal
from stopkit.loop.journal._watchdog import WATCHDOG

__all__ = ["PostgresJournal"]

# Any constant: the advisory lock that serializes creating the schema.
_SCHEMA_LOCK = 0x570B_1C17


def _where(dsn: str) -> str:
    """Name the server and database of `dsn` for messages, without its password."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        parts = conninfo_to_dict(dsn)
    except Exception:  # an unparsable DSN: psycopg's connect says why
        return "a PostgreSQL database"
    host = parts.get("host") or "localhost"
    return f"postgresql://{host}:{parts.get('port') or 5432}/{parts.get('dbname') or ''}"


class PostgresJournal(SqlJournal):
    """A journal in a PostgreSQL database (psycopg 3), shared by workers on many machines.

    Args:
        dsn: A libpq connection string or URL (`postgresql://user@host/db`).
        lease_seconds: How long a run's lease lasts without renewal (the heartbeat renews it
            every third of that): how soon a dead worker's run can be resumed elsewhere.
        connect_timeout: Seconds to wait for the server when connecting.
        timeout: Seconds one journal transaction may take (a step's write, a renewal) before
            it fails with `JournalError`: a server that stops answering cannot hold a run, nor
            its heartbeat, for longer.
        durable: Wait for each step to reach the server's WAL (`synchronous_commit = on`),
            surviving a server crash too, at the cost of a disk flush per step. (The start of
            a non-idempotent call waits for it either way.)

    Raises:
        ImportError: psycopg is not installed (`pip install 'stopkit[postgres]'`).
        JournalError: The server cannot be reached; `JournalUnreadable` / `JournalTooNew` when
            its stopkit tables are not ours or are newer (nothing is changed).

    Example:
        >>> journal = PostgresJournal("postgresql://agent@db/agents")  # doctest: +SKIP
    """

    NOW = "extract(epoch from clock_timestamp())::double precision"
    PLACEHOLDER = "%s"
    SHARED = True
    LOCK_ROW = " FOR UPDATE"

    def __init__(
        self,
        dsn: str,
        *,
        lease_seconds: float = 30.0,
        connect_timeout: float = 10.0,
        timeout: float = 10.0,
        durable: bool = False,
    ) -> None:
        try:
            import psycopg
        except ImportError:
            raise ImportError(
                "PostgresJournal needs psycopg 3: pip install 'stopkit[postgres]'"
            ) from None
        if isinstance(timeout, bool) or not isinstance(timeout, int | float):
            raise TypeError(f"timeout must be a number, not {timeout!r}")
        if not timeout > 0:
            raise ValueError(f"timeout must be positive, not {timeout!r}")
        super().__init__(_where(dsn), lease_seconds)
        self._errors = psycopg.Error
        self._dsn = dsn
        self._connect_timeout = max(1, round(connect_timeout))
        self._timeout = float(timeout)
        self._durable = durable
        self._pid = os.getpid()
        self._inherited: list[Any] = []  # a forked child's copies of its parent's connection
        self._cut: Any = None  # the connection the watchdog dropped, if it did
        self._connection = self._connect()
        try:
            self._prepare()
        except BaseException:
            self._connection.close()
            raise

    def _connect(self) -> Any:
        """Open a connection with the journal's session settings; `JournalError` when none."""
        import psycopg

        try:
            connection = psycopg.connect(
                self._dsn, autocommit=True, connect_timeout=self._connect_timeout
            )
        except psycopg.Error as exc:
            raise JournalError(f"cannot connect to {self.where}: {exc}") from None
        try:
            # Set either way: the server's own default may be off.
            connection.execute(f"SET synchronous_commit = {'on' if self._durable else 'off'}")
            connection.execute(f"SET statement_timeout = {round(self._timeout * 1000)}")
        except psycopg.Error as exc:
            connection.close()
            raise JournalError(f"cannot set up a session on {self.where}: {exc}") from None
        return connection

    def _do(self, work: Callable[[Execute], Any]) -> Any:
        if self._pid != os.getpid():  # a forked child: the connection and the lock are the
            # parent's (its lock may have been held by one of its threads when it forked)
            self._inherited.append(self._connection)  # never used, nor closed, here
            self._lock = threading.Lock()
            self._connection = self._connect()
            self._pid = os.getpid()
        return super()._do(work)

    def close(self) -> None:
        """Close the connection (the journal cannot be used afterwards)."""
        if self._pid == os.getpid():  # in a forked child, it is still the parent's
            super().close()

    def _live(self) -> Any:
        """Return the connection, a new one when the old was lost (a restart, the watchdog)."""
        connection = self._connection
        if connection.broken or connection is self._cut:
            with contextlib.suppress(Exception):  # it is gone either way
                connection.close()
            self._connection = connection = self._connect()
        return connection

    def _cut_off(self, connection: Any) -> None:
        """Drop `connection` (the watchdog's cut): its waiting transaction fails at once."""
        self._cut = connection
        with socket.socket(fileno=os.dup(connection.fileno())) as sock:
            sock.shutdown(socket.SHUT_RDWR)

    @contextmanager
    def _transaction(self) -> Iterator[Execute]:
        connection = self._live()
        try:
            # A second more than the server's own bound: a server that answers cancels the
            # statement itself, and keeps the connection.
            with (
                WATCHDOG.watching(self._timeout + 1.0, lambda: self._cut_off(connection)),
                connection.transaction(),
                connection.cursor() as cursor,
            ):
                yield cursor.execute
        except self._errors as exc:
            if connection is self._cut:
                why = f"the server did not answer within {self._timeout:g} s"
                raise JournalError(f"the journal at {self.where} failed: {why}") from exc
            raise JournalError(f"the journal at {self.where} failed: {exc}") from exc

    def _commit_survives_crash(self, execute: Execute) -> None:
        execute("SET LOCAL synchronous_commit = on", ())

    def _columns(self, execute: Execute) -> list[tuple[str, str | None]]:
        execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
        # Only ours: another app's tables beside them are its business.
        rows: list[tuple[str, str | None]] = execute(
            "SELECT t.table_name, c.column_name FROM information_schema.tables t "
            "LEFT JOIN information_schema.columns c ON c.table_schema = t.table_schema "
            "AND c.table_name = t.table_name WHERE t.table_schema = current_schema() "
            "AND t.table_name LIKE 'stopkit\\_%%'",
            (),
        ).fetchall()
        return rows
