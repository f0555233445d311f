"""The journals the tests run on: SQLite always; PostgreSQL on a real server.

The server: the one `.ci/run` started (`STOPKIT_TEST_POSTGRES_DSN`), else a throwaway cluster
started here when PostgreSQL's programs are installed. Without either, the PostgreSQL tests
skip, saying why; in CI (`STOPKIT_CI=1`) they fail instead. Each test gets a schema of its own.
The tests that crash a server get one of their own (`crashable_server`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import stopkit
import stopkit.loop.journal
from tests import _postgres


def unavailable(why: str) -> None:
    """Skip a test that needs a real component, or fail when CI must run it."""
    if os.environ.get("STOPKIT_CI"):
        pytest.fail(f"{why}; CI must run this test (STOPKIT_CI is set)")
    pytest.skip(why)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The DSN of a PostgreSQL server for the tests."""
    dsn = os.environ.get("STOPKIT_TEST_POSTGRES_DSN")
    try:
        import psycopg  # noqa: F401 -- only whether it is installed
    except ImportError:
        unavailable("psycopg is not installed (pip install 'stopkit[postgres]')")
    if dsn:
        yield dsn
        return
    # In /tmp, not pytest's tmp_path: the server runs as another user, who must reach it.
    where = tempfile.mkdtemp(prefix="stopkit-pg-")
    try:
        dsn = _postgres.start(where)
    except (RuntimeError, OSError) as exc:
        shutil.rmtree(where, ignore_errors=True)
        unavailable(f"no PostgreSQL server could be started: {exc}")
    yield dsn
    _postgres.stop(where)
    shutil.rmtree(where, ignore_errors=True)


class CrashableServer:
    """A PostgreSQL server the tests started, which a test may crash and restart."""

    def __init__(self, where: str, dsn: str) -> None:
        self.where = where
        self.dsn = dsn

    def crash(self) -> None:
        """Stop the server at once, as a crash would (what is not in its WAL files is lost)."""
        _postgres.crash(self.where)

    def restart(self) -> None:
        """Start it again: it recovers from its WAL files."""
        _postgres.restart(self.where)


@pytest.fixture
def crashable_server(crashable_cluster: CrashableServer) -> Iterator[CrashableServer]:
    """A server of the tests' own, to crash: never the shared one; running again after the test."""
    yield crashable_cluster
    if not _postgres.running(crashable_cluster.where):
        crashable_cluster.restart()


@pytest.fixture(scope="session")
def crashable_cluster() -> Iterator[CrashableServer]:
    """The cluster behind `crashable_server`, started once.

    Its WAL writer waits 10 s between writes (the default is 200 ms), so a commit that does not
    wait for the WAL (`synchronous_commit = off`) is lost to a crash within that time every
    time: what a crash at an unlucky moment does in production.
    """
    try:
        import psycopg  # noqa: F401 -- only whether it is installed
    except ImportError:
        unavailable("psycopg is not installed (pip install 'stopkit[postgres]')")
    where = tempfile.mkdtemp(prefix="stopkit-pg-crash-")
    try:
        # fsync off: a crash here stops the server's processes, not the machine, so what was
        # written to the files is kept; the commits themselves wait as they would in production.
        settings = {"fsync": "off", "wal_writer_delay": "10s"}
        dsn = _postgres.start(where, fast=False, settings=settings)
    except (RuntimeError, OSError) as exc:
        shutil.rmtree(where, ignore_errors=True)
        unavailable(f"no PostgreSQL server could be started: {exc}")
    yield CrashableServer(where, dsn)
    _postgres.stop(where)
    shutil.rmtree(where, ignore_errors=True)


def fresh_schema(server: str, **settings: str) -> str:
    """Create a schema of its own for one test; return a DSN whose tables go there.

    `settings`: the session's defaults (`synchronous_commit="off"`), set through the DSN.
    """
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    joiner = "&" if "?" in server else "?"
    options = "%20".join(f"-c{name}%3D{value}" for name, value in
                         {"search_path": schema, **settings}.items())  # fmt: skip
    return f"{server}{joiner}options={options}"


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A journal's address, `sqlite:<path>` or `postgres:<dsn>`, empty, for one test."""
    if request.param == "sqlite":
        yield f"sqlite:{tmp_path / 'journal.db'}"
    else:
        yield f"postgres:{fresh_schema(request.getfixturevalue('postgres_server'))}"


@pytest.fixture
def open_journal(store: str) -> Iterator[Callable[..., Any]]:
    """Open the store (as a worker in another process would); every one is closed after."""
    opened: list[Any] = []

    def open_(lease_seconds: float = 30.0) -> Any:
        kind, _, where = store.partition(":")
        journal: Any = (
            stopkit.loop.journal.SqliteJournal(where, lease_seconds=lease_seconds)
            if kind == "sqlite"
            else stopkit.loop.journal.PostgresJournal(where, lease_seconds=lease_seconds)
        )
        opened.append(journal)
        return journal

    yield open_
    for journal in opened:
        journal.close()


@pytest.fixture
def journal(open_journal: Callable[..., Any]) -> Any:
    """A journal on the store."""
    return open_journal()
