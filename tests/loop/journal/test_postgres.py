"""PostgresJournal against a real server: crashes, restarts, lost connections, foreign tables.

The tests that crash the server use one of their own (`crashable_server`), each in a schema of
its own; the rest use the shared one.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from typing import Any

import pytest

import stopkit
import stopkit.loop.journal
from stopkit import Termination
from tests.loop.journal._proxy import Proxy
from tests.loop.journal._scenario import FINAL, Trace, TurnModel, record_tool, summary
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
        journal = stopkit.loop.journal.PostgresJournal(dsn, lease_seconds=LEASE)
        try:
            return stopkit.run_loop(TurnModel(Trace(), turns=1), "Charge.",
                                    tools={"record": charge}, journal=journal, run_id="pay",
                                    on_escalate=lambda escalation: None)  # fmt: skip
        finally:
            journal.close()

    with pytest.raises(stopkit.loop.journal.JournalError):
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
    journal = stopkit.loop.journal.PostgresJournal(dsn, durable=True)
    trace = Trace()
    stopkit.run_loop(TurnModel(trace, turns=2), "Go.", tools={"record": record_tool(trace)},
                     journal=journal, run_id="kept")  # fmt: skip
    journal.close()
    crashable_server.crash()
    crashable_server.restart()
    with stopkit.loop.journal.PostgresJournal(dsn) as again:
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
    with pytest.raises(stopkit.loop.journal.JournalUnreadable, match="not ours"):
        stopkit.loop.journal.PostgresJournal(dsn)
    assert _schema_of(dsn) == before


def _wait_for(condition: Any, what: str) -> None:
    """Wait (10 s at most) until `condition()` holds."""
    for _ in range(1000):
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


def test_delete_holds_the_run_while_it_checks_the_lease(postgres_server: str) -> None:
    """A worker taking the run while `delete` is under way waits for it: a leased run stays.

    A trigger holds the delete between its lease check and its deletes (on an advisory lock
    the test holds), while another worker takes the run.
    """
    import psycopg

    dsn = fresh_schema(postgres_server)
    deleting = stopkit.loop.journal.PostgresJournal(dsn)
    taking = stopkit.loop.journal.PostgresJournal(dsn)
    deleting.acquire("r", "old-worker")
    deleting.record("r", "old-worker", stopkit.loop.journal.StepRecord("model_call_1", "{}",
                                                                       "{}", 0.0))  # fmt: skip
    deleting.release("r", "old-worker", stopkit.loop.journal.RunStatus.INTERRUPTED, None, "")
    key = int(time.time() * 1000) % 1_000_000_000
    with psycopg.connect(dsn, autocommit=True) as test:
        test.execute(
            "CREATE FUNCTION hold() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN PERFORM pg_advisory_xact_lock({key}); RETURN NULL; END $$"
        )
        test.execute("CREATE TRIGGER hold BEFORE DELETE ON stopkit_steps "
                     "FOR EACH STATEMENT EXECUTE FUNCTION hold()")  # fmt: skip
        test.execute("SELECT pg_advisory_lock(%s)", (key,))

        def waiting(event: str) -> int:
            return int(test.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND wait_event = %s AND datname = current_database()", (event,),
            ).fetchone()[0])  # fmt: skip

        results: dict[str, Any] = {}

        def run(name: str, work: Any) -> threading.Thread:
            def target() -> None:
                try:
                    results[name] = work()
                except Exception as exc:
                    results[name] = exc

            thread = threading.Thread(target=target)
            thread.start()
            return thread

        delete = run("delete", lambda: deleting.delete("r"))
        _wait_for(lambda: waiting("advisory") == 1, "the delete held after its check")
        take = run("acquire", lambda: taking.acquire("r", "new-worker"))
        _wait_for(lambda: "acquire" in results or waiting("transactionid") == 1,
                  "the other worker took the run or waits for the delete")  # fmt: skip
        test.execute("SELECT pg_advisory_unlock(%s)", (key,))
        delete.join(), take.join()
    assert results == {"delete": True, "acquire": None}
    info = deleting.run("r")
    assert info is not None, "the run the other worker holds was deleted"
    assert (info.owner, info.steps) == ("new-worker", 0)
    deleting.close(), taking.close()


def test_a_journal_reconnects_after_the_server_restarted(
    crashable_server: CrashableServer,
) -> None:
    """The connection a restart cut fails one transaction at most; the next one reconnects."""
    journal = stopkit.loop.journal.PostgresJournal(
        fresh_schema(crashable_server.dsn), lease_seconds=LEASE
    )
    trace = Trace()

    def go(run_id: str) -> stopkit.Outcome:
        return stopkit.run_loop(TurnModel(trace, turns=1), "Go.",
                                tools={"record": record_tool(trace)}, journal=journal,
                                run_id=run_id)  # fmt: skip

    assert go("before").text == FINAL
    crashable_server.crash()
    crashable_server.restart()
    with contextlib.suppress(stopkit.loop.journal.JournalError):  # the cut connection, found out
        journal.runs()
    assert go("after").text == FINAL
    assert "after" in [info.run_id for info in journal.runs()]
    journal.close()


def test_a_write_to_a_server_that_stopped_answering_fails_and_the_journal_goes_on_after(
    postgres_server: str,
) -> None:
    """The server stops answering mid-run: `JournalError` within the journal's `timeout`.

    The heartbeat's renewal waits no longer either; once the server answers again, the same
    journal reconnects.
    """
    proxy = Proxy(fresh_schema(postgres_server))
    journal = stopkit.loop.journal.PostgresJournal(proxy.dsn, lease_seconds=LEASE, timeout=1.0,
                                      connect_timeout=1.0)  # fmt: skip

    def record(turn: int, i: int) -> str:
        proxy.freeze()  # the server stops answering while the tool runs
        return "recorded"

    ended: list[BaseException | stopkit.Outcome] = []

    def go() -> None:
        try:
            ended.append(stopkit.run_loop(TurnModel(Trace(), turns=1), "Go.",
                                          tools={"record": record}, journal=journal,
                                          run_id="frozen"))  # fmt: skip
        except BaseException as exc:
            ended.append(exc)

    run = threading.Thread(target=go, daemon=True)
    run.start()
    run.join(60)
    assert ended, "the journal's write waited for the server for a minute"
    assert isinstance(ended[0], stopkit.loop.journal.JournalError)
    proxy.thaw()
    info = journal.run("frozen")
    assert info is not None
    assert [step.name for step in journal.steps("frozen")] == ["model_call_1"]
    journal.close()
    proxy.close()


@pytest.mark.parametrize("at", ["model 2", "tool 2.1"], ids=["in-a-model-call", "in-a-tool"])
def test_a_run_cut_by_a_server_crash_resumes_to_the_uninterrupted_outcome(
    crashable_server: CrashableServer, at: str
) -> None:
    """The server crashes mid-run; restarted, the rerun ends as a run nothing cut.

    The steps the crash took back (commits that did not wait for the WAL) are made again:
    every call at most twice.
    """
    dsn = fresh_schema(crashable_server.dsn)

    class Crashing(Trace):
        def add(self, line: str) -> None:
            super().add(line)
            if line == at and self.lines.count(line) == 1:  # the first time only
                crashable_server.crash()

    trace = Crashing()

    def run() -> stopkit.Outcome:
        with stopkit.loop.journal.PostgresJournal(dsn, lease_seconds=LEASE) as journal:
            return stopkit.run_loop(TurnModel(trace, turns=3, calls=2), "Go.",
                                    tools={"record": record_tool(trace)}, journal=journal,
                                    run_id="cut")  # fmt: skip

    whole_trace = Trace()
    whole = stopkit.run_loop(TurnModel(whole_trace, turns=3, calls=2), "Go.",
                             tools={"record": record_tool(whole_trace)})  # fmt: skip
    with pytest.raises(stopkit.loop.journal.JournalError):
        run()
    crashable_server.restart()
    _after_lease()
    assert summary(run()) == summary(whole)
    counts = Counter(trace.lines)
    assert set(counts) == set(whole_trace.lines)
    assert max(counts.values()) <= 2


@pytest.mark.parametrize(
    ("value", "error"),
    [("10", TypeError), (True, TypeError), (0, ValueError), (-1.5, ValueError)],
    ids=["text", "bool", "zero", "negative"],
)
def test_a_timeout_that_is_no_positive_number_is_refused(
    postgres_server: str, value: Any, error: type[Exception]
) -> None:
    """`timeout=` takes a positive number of seconds; anything else is refused, naming it."""
    with pytest.raises(error, match="timeout must be"):
        stopkit.loop.journal.PostgresJournal(postgres_server, timeout=value)
