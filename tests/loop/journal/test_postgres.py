"""PostgresJournal against a real server: crashes, restarts, lost connections, foreign tables.

The tests that crash the server use one of their own (`crashable_server`), each in a schema of
its own; the rest use the shared one.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

import stopkit
from stopkit import Termination
from tests.loop.journal._scenario import Trace, TurnModel, record_tool
from tests.loop.journal.conftest import CrashableServer, fresh_schema

LEASE = 1.0


def _after_lease() -> None:
    """Wait until a lease the dead run held has run out."""
    time.sleep(LEASE + 0.2)


def test_a_started_non_idempotent_call_survives_a_server_crash(
    crashable_server: CrashableServer,
) -> None:
    """The server crashes right after a charge: its start was kept, the rerun charges nothing.

    The start of a non-idempotent call is the one commit a side effect depends on: it waits
    for the server's WAL, so the crash cannot take it back.
    """
    dsn = fresh_schema(crashable_server.dsn)
    charges: list[str] = []

    @stopkit.tool(idempotent=False)
    def charge(turn: int, i: int, idempotency_key: str) -> str:
        charges.append(idempotency_key)
        if len(charges) == 1:  # the card is charged; the server dies before the result
            crashable_server.crash()
        return "charged"

    def run() -> stopkit.Outcome:
        journal = stopkit.PostgresJournal(dsn, lease_seconds=LEASE)
        try:
            return stopkit.run_loop(TurnModel(Trace(), turns=1), "Charge.",
                                    tools={"record": charge}, journal=journal, run_id="pay",
                                    on_escalate=lambda escalation: None)  # fmt: skip
        finally:
            journal.close()

    with pytest.raises(stopkit.JournalError):
        run()
    crashable_server.restart()
    _after_lease()
    outcome = run()
    assert outcome.termination is Termination.NEEDS_ATTENTION
    assert charges == ["pay/tool_call_1_0"]


def test_a_durable_journal_keeps_every_step_through_a_server_crash(
    crashable_server: CrashableServer,
) -> None:
    """`durable=True` waits for the WAL at every step, even where the server's default is off."""
    dsn = fresh_schema(crashable_server.dsn, synchronous_commit="off")
    journal = stopkit.PostgresJournal(dsn, durable=True)
    trace = Trace()
    stopkit.run_loop(TurnModel(trace, turns=2), "Go.", tools={"record": record_tool(trace)},
                     journal=journal, run_id="kept")  # fmt: skip
    journal.close()
    crashable_server.crash()
    crashable_server.restart()
    with stopkit.PostgresJournal(dsn) as again:
        info = again.run("kept")
        assert info is not None
        assert (info.status, info.steps) == (stopkit.loop.journal.RunStatus.FINISHED, 5)


OURS = (
    "CREATE TABLE stopkit_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); "
    "INSERT INTO stopkit_meta VALUES ('format', 'stopkit-journal'), ('schema_version', '1')"
)
FOREIGN = {
    "foreign-meta": "CREATE TABLE stopkit_meta (id SERIAL PRIMARY KEY, note TEXT); "
    "INSERT INTO stopkit_meta (note) VALUES ('another app''s')",
    "foreign-runs": f"{OURS}; CREATE TABLE stopkit_runs (run_id TEXT PRIMARY KEY, state TEXT); "
    "CREATE TABLE stopkit_steps (run_id TEXT, seq INTEGER, name TEXT, request TEXT, "
    "result TEXT, recorded_at DOUBLE PRECISION)",
    "foreign-steps": f"{OURS}; CREATE TABLE stopkit_runs (run_id TEXT PRIMARY KEY, "
    "status TEXT, termination TEXT, detail TEXT, owner TEXT, lease_until DOUBLE PRECISION, "
    "created_at DOUBLE PRECISION, updated_at DOUBLE PRECISION); "
    "CREATE TABLE stopkit_steps (id SERIAL PRIMARY KEY, payload JSONB)",
}


def _schema_of(dsn: str) -> list[tuple[Any, ...]]:
    """Every column of the schema's tables, and each table's rows: what must stay unchanged."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as connection:
        columns = connection.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = current_schema() ORDER BY 1, 2"
        ).fetchall()
        tables = sorted({row[0] for row in columns})
        rows = [(table, connection.execute(f"SELECT * FROM {table}").fetchall())
                for table in tables]  # fmt: skip
    return [*columns, *rows]


@pytest.mark.parametrize("tables", list(FOREIGN.values()), ids=list(FOREIGN))
def test_tables_of_our_names_that_are_not_ours_are_refused_at_open_and_left_unchanged(
    postgres_server: str, tables: str
) -> None:
    """Another app's `stopkit_meta`, or ours beside another app's runs or steps: refused."""
    import psycopg

    dsn = fresh_schema(postgres_server)
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(tables)
    before = _schema_of(dsn)
    with pytest.raises(stopkit.JournalUnreadable, match="not ours"):
        stopkit.PostgresJournal(dsn)
    assert _schema_of(dsn) == before
