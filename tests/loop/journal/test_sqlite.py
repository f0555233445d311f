"""SqliteJournal refuses what is not its own journal, and changes nothing in it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

import stopkit
import stopkit.loop.journal
from stopkit.loop.journal import JournalTooNew, JournalUnreadable


def _foreign(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        db.execute("INSERT INTO invoices VALUES (1, 9.5)")


def _newer(path: Path) -> None:
    stopkit.loop.journal.SqliteJournal(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE stopkit_meta SET value = '99' WHERE key = 'schema_version'")


def _garbage(path: Path) -> None:
    path.write_bytes(b"PK\x03\x04 this is a zip archive, not a database" * 50)


def _damaged(path: Path) -> None:
    stopkit.loop.journal.SqliteJournal(path).close()
    data = bytearray(path.read_bytes())
    data[0:16] = b"not SQLite here!"
    path.write_bytes(bytes(data))


def _not_ours(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE stopkit_meta (key TEXT PRIMARY KEY, value TEXT)")
        db.execute("INSERT INTO stopkit_meta VALUES ('format', 'someone-else')")


def _foreign_runs(path: Path) -> None:
    stopkit.loop.journal.SqliteJournal(path).close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE stopkit_runs")
        db.execute("CREATE TABLE stopkit_runs (run_id TEXT PRIMARY KEY, state TEXT)")


@pytest.mark.parametrize(
    ("make", "error", "words"),
    [
        (_foreign, JournalUnreadable, r"other tables \(invoices\)"),
        (_newer, JournalTooNew, "schema is version 99"),
        (_garbage, JournalUnreadable, "not a readable SQLite database"),
        (_damaged, JournalUnreadable, "not a readable SQLite database"),
        (_not_ours, JournalUnreadable, "stopkit_meta table is not ours"),
        (_foreign_runs, JournalUnreadable, "stopkit_runs table is not ours"),
    ],
    ids=["foreign", "newer-schema", "not-sqlite", "damaged", "other-meta", "other-runs"],
)
def test_a_file_that_is_not_a_usable_journal_is_refused_and_left_unchanged(
    tmp_path: Path, make: Any, error: type[Exception], words: str
) -> None:
    """Another program's database, a newer journal or a damaged file: an error, the file intact."""
    path = tmp_path / "journal.db"
    make(path)
    before = path.read_bytes()
    with pytest.raises(error, match=words) as raised:
        stopkit.loop.journal.SqliteJournal(path)
    assert isinstance(raised.value, stopkit.StopkitError)
    assert path.read_bytes() == before
    assert {p.name for p in tmp_path.iterdir()} <= {"journal.db", "journal.db-wal",
                                                    "journal.db-shm"}  # fmt: skip


def test_a_new_file_gets_the_current_schema(tmp_path: Path) -> None:
    """A missing file is created with the schema and its version, and opens again."""
    path = tmp_path / "new.db"
    stopkit.loop.journal.SqliteJournal(path).close()
    with sqlite3.connect(path) as db:
        meta = dict(db.execute("SELECT key, value FROM stopkit_meta").fetchall())
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    assert meta == {"format": "stopkit-journal", "schema_version": "1"}
    assert mode == "wal"
    stopkit.loop.journal.SqliteJournal(path).close()


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (42, stopkit.loop.journal.InvalidRunId),
        (b"run-1", stopkit.loop.journal.InvalidRunId),
        ("", stopkit.loop.journal.InvalidRunId),
        ("x" * 201, stopkit.loop.journal.InvalidRunId),
        ("line\nbreak", stopkit.loop.journal.InvalidRunId),
        (None, ValueError),
    ],
    ids=["int", "bytes", "empty", "too-long", "unprintable", "missing"],
)
def test_a_run_id_of_the_wrong_kind_is_refused_before_anything_runs(
    tmp_path: Path, value: Any, error: type[Exception]
) -> None:
    """A run id that is no non-empty printable str (or none at all) is refused at once."""
    journal = stopkit.loop.journal.SqliteJournal(tmp_path / "j.db")
    with pytest.raises(error, match="run_id"):
        stopkit.run_loop(lambda m, **o: pytest.fail("called"), "Hi", journal=journal,
                         run_id=value)  # fmt: skip
    assert journal.runs() == []
    assert issubclass(stopkit.loop.journal.InvalidRunId, TypeError)


def test_a_journal_that_is_no_journal_is_refused() -> None:
    """`journal=` takes a Journal; anything else is a TypeError naming it."""
    with pytest.raises(TypeError, match="journal must be"):
        stopkit.Loop(lambda m, **o: None, journal="runs.db", run_id="r")
