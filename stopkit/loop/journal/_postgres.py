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
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from stopkit._errors import JournalError
from stopkit.loop.journal._sql import Execute, SqlJournal

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
        connect_timeout: Seconds to wait for the server.
        durable: Wait for each step to reach the server's WAL (`synchronous_commit = on`),
            surviving a server crash too, at the cost of a disk flush per step. (The start of
            a non-idempotent call waits for it either way.)

    Raises:
        ImportError: psycopg is not installed (`pip install 'stopkit[postgres]'`).
        JournalError: The server cannot be reached; `JournalUnreadable` / `JournalTooNew` when
            its stopkit tables are not ours or are newer (nothing is changed).

    Example:
        >>> journal = stopkit.PostgresJournal("postgresql://agent@db/agents")  # doctest: +SKIP
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
        durable: bool = False,
    ) -> None:
        try:
            import psycopg
        except ImportError:
            raise ImportError(
                "PostgresJournal needs psycopg 3: pip install 'stopkit[postgres]'"
            ) from None
        super().__init__(_where(dsn), lease_seconds)
        self._errors = psycopg.Error
        try:
            self._connection = psycopg.connect(
                dsn, autocommit=True, connect_timeout=max(1, round(connect_timeout))
            )
        except psycopg.Error as exc:
            raise JournalError(f"cannot connect to {self.where}: {exc}") from None
        try:
            # Set either way: the server's own default may be off.
            commits = "on" if durable else "off"
            self._connection.execute(f"SET synchronous_commit = {commits}")
            self._prepare()
        except BaseException:
            self._connection.close()
            raise

    @contextmanager
    def _transaction(self) -> Iterator[Execute]:
        connection = self._connection
        try:
            with connection.transaction(), connection.cursor() as cursor:
                yield cursor.execute
        except self._errors as exc:
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
