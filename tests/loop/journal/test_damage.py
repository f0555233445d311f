"""Damaged journal rows are refused as `JournalUnreadable`, naming the run and the step.

A row changed by hand, by another program or by a bad disk (a result that is not what stopkit
records, a step name stopkit never makes, an unknown status, a dropped column) is never read
as something else and never raises a raw `TypeError`/`KeyError`/driver error: a rerun raises
`JournalUnreadable` naming what is damaged, and `stopkit runs list/show` print one line and exit
2. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest

import stopkit
import stopkit.loop.journal
from stopkit.cli import main
from tests.loop.journal._scenario import Trace, TurnModel, record_tool

RUN = "hurt-1"


def execute(store: str, statement: str) -> None:
    """Run one statement on the store behind stopkit's back (as another program would)."""
    kind, _, where = store.partition(":")
    if kind == "sqlite":
        with sqlite3.connect(where) as db:
            db.execute(statement)
        return
    import psycopg

    with psycopg.connect(where, autocommit=True) as db:
        db.execute(statement)  # type: ignore[arg-type] -- a test's own literal statement


def owner_of(store: str) -> Any:
    """The holder of `RUN`'s lease, read behind stopkit's back."""
    kind, _, where = store.partition(":")
    statement = f"SELECT owner FROM stopkit_runs WHERE run_id = '{RUN}'"
    if kind == "sqlite":
        with sqlite3.connect(where) as db:
            return db.execute(statement).fetchone()[0]
    import psycopg

    with psycopg.connect(where, autocommit=True) as db:
        row = db.execute(statement).fetchone()  # type: ignore[arg-type] -- a test's literal
        return None if row is None else row[0]


def go(journal: Any) -> stopkit.Outcome:
    """Two tool turns of one call each, then the answer, under `RUN`."""
    trace = Trace()
    tools = {"record": record_tool(trace)}
    return stopkit.run_loop(TurnModel(trace, turns=2), "Record.", tools=tools, journal=journal,
                            run_id=RUN)  # fmt: skip


STEP = "UPDATE stopkit_steps SET {} WHERE name = '{}'"
DAMAGE = [
    # (what is damaged, the statement, the words the error holds, the commands that fail)
    ("tool-result-a-list", STEP.format("result = '[1, 2]'", "tool_call_1_0"),
     "step tool_call_1_0: its result is a list", ("show", "rerun")),
    ("tool-result-without-content", STEP.format("""result = '{"is_error": false}'""",
                                                "tool_call_2_0"),
     "step tool_call_2_0: its result has no 'content'", ("show", "rerun")),
    ("model-step-without-reply", STEP.format("""result = '{"usage": 1}'""", "model_call_2"),
     "step model_call_2: its result holds neither a reply nor", ("show", "rerun")),
    ("result-not-json", STEP.format("result = '{not json'", "model_call_1"),
     "step model_call_1: its result is not JSON", ("show", "rerun")),
    ("request-not-json", STEP.format("request = 'nope'", "model_call_3"),
     "step model_call_3: its request is not JSON", ("show", "rerun")),
    ("impossible-name", STEP.format("name = 'tool_call_one'", "tool_call_1_0"),
     "step 'tool_call_one' is no step stopkit makes", ("show", "rerun")),
    ("unknown-status", "UPDATE stopkit_runs SET status = 'exploded'",
     "run 'hurt-1': its status 'exploded' is none stopkit knows", ("list", "show", "rerun")),
    ("dropped-column", "ALTER TABLE stopkit_runs DROP COLUMN termination",
     "stopkit_runs table is not ours (it has no termination)", ("list", "show", "rerun")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("statement", "words", "failing"), [d[1:] for d in DAMAGE], ids=[d[0] for d in DAMAGE]
)
def test_a_damaged_row_is_refused_naming_the_run_and_step(
    store: str, open_journal: Callable[..., Any], capsys: pytest.CaptureFixture[str],
    statement: str, words: str, failing: tuple[str, ...],
) -> None:  # fmt: skip
    """A rerun raises `JournalUnreadable` (its lease given up); `runs list/show` exit 2."""
    first = open_journal()
    assert go(first).termination is stopkit.Termination.COMPLETED
    first.close()
    execute(store, statement)
    where = store.partition(":")[2]
    if "rerun" in failing:
        with pytest.raises(stopkit.loop.journal.JournalUnreadable, match=re.escape(words)):
            go(open_journal())
        if "column" not in words:  # refused after taking the lease: given up again
            assert owner_of(store) is None
    for command in ("list", "show"):
        args = ["runs", command, "--journal", where, *([RUN] if command == "show" else [])]
        status = main(args)
        captured = capsys.readouterr()
        if command in failing:
            assert status == 2
            assert captured.err.count("\n") == 1, captured.err
            assert words in captured.err
            assert captured.err.startswith("stopkit: cannot use ")
        else:
            assert status == 0, captured.err
