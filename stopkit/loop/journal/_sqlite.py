"""`SqliteJournal`: the embedded default journal, one SQLite file, nothing to start.

The standard library's `sqlite3`, in WAL mode: readers never wait for the writer, and several
processes on one machine can run (different) runs in the same file; a run's lease keeps two
of them off the same run. `synchronous=NORMAL` by default: a step survives the process being
killed; `durable=True` (`synchronous=FULL`) makes it survive a power cut too, at the cost of
a disk flush per step. Not for a network file system (SQLite's locks do not work there): use
`PostgresJournal` for workers on several machines.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from os import PathLike, fspath

from stopkit.loop.journal._errors import JournalError, JournalUnreadable
from stopkit.loop.journal._sql import Execute, SqlJournal

__all__ = ["SqliteJournal"]

#: How long a writer waits for another process's write to finish before giving up.
BUSY_TIMEOUT_MS = 10_000


class SqliteJournal(SqlJournal):
    """A journal in one SQLite file (created when missing), safe for several processes.

    Args:
        path: The file; created with its schema when it does not exist or is empty.
        lease_seconds: How long a run's lease lasts without renewal (the heartbeat renews it
            every third of that): how soon a dead worker's run can be resumed elsewhere.
        durable: Flush every step to disk (`synchronous=FULL`), surviving a power cut.

    Raises:
        JournalUnreadable: The file is no SQLite database, is damaged, or holds another
            program's tables (`JournalTooNew`: a newer stopkit's journal). It is not changed.

    Example:
        >>> journal = stopkit.loop.journal.SqliteJournal("runs.db")  # doctest: +SKIP
        >>> stopkit.run_loop(call_model, prompt, journal=journal, run_id="o-7")  # doctest: +SKIP
    """

    NOW = "((julianday('now') - 2440587.5) * 86400.0)"

    def __init__(
        self, path: str | PathLike[str], *, lease_seconds: float = 30.0, durable: bool = False
    ) -> None:
        where = fspath(path)
        super().__init__(where, lease_seconds)
        try:
            # isolation_level=None: we say BEGIN and COMMIT ourselves. One connection shared by
            # the threads of this process, behind the journal's lock.
            self._connection = sqlite3.connect(
                where, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1e3
            )
        except sqlite3.Error as exc:
            raise JournalUnreadable(where, f"it cannot be opened ({exc})") from None
        try:
            self._connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            # Refuse a file that is not ours before anything (WAL mode too) changes it.
            self._do(self._check)
            mode = self._connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode != "wal":
                raise JournalUnreadable(where, f"it cannot be put in WAL mode (it is {mode!r})")
            self._connection.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
            self._prepare()
        except sqlite3.DatabaseError as exc:
            self._connection.close()
            why = f"it is not a readable SQLite database ({exc})"
            raise JournalUnreadable(where, why) from None
        except BaseException:
            self._connection.close()
            raise

    @contextmanager
    def _transaction(self) -> Iterator[Execute]:
        connection = self._connection
        try:
            connection.execute("BEGIN IMMEDIATE")  # take the write lock now: no upgrade deadlock
        except sqlite3.ProgrammingError as exc:  # closed
            raise JournalError(f"the journal {self.where} is closed ({exc})") from None
        except sqlite3.OperationalError as exc:  # locked past the busy timeout
            raise JournalError(f"the journal {self.where} failed: {exc}") from exc
        try:
            yield connection.execute
        except sqlite3.OperationalError as exc:  # locked past the timeout, a column gone, ...
            connection.execute("ROLLBACK")
            raise JournalError(f"the journal {self.where} failed: {exc}") from exc
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")

    def _columns(self, execute: Execute) -> list[tuple[str, str | None]]:
        rows: list[tuple[str, str | None]] = execute(
            "SELECT m.name, c.name FROM sqlite_master m LEFT JOIN pragma_table_info(m.name) c "
            "WHERE m.type = 'table'",
            (),
        ).fetchall()
        return rows
