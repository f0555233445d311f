"""The journal's tables, their version, and how a database is found to be ours (or refused).

Three tables, named so that they can sit in a database shared with other data:
`stopkit_meta` (the format and the schema version), `stopkit_runs` (one row per run: status,
lease) and `stopkit_steps` (one row per step: request and result as JSON text). The schema is
versioned: a journal written by a newer stopkit, another program's database or tables of our
names with other columns are refused with a `JournalUnreadable`, and nothing in them is changed.

A run's `detail` (its final text) is kept as it is, unless it holds what a store cannot keep (a
NUL, which PostgreSQL's TEXT refuses; a lone UTF-16 surrogate, which UTF-8 cannot encode): then
it is kept as a JSON string after U+FFFF, a noncharacter no real text starts with (so a text
that does start with it is kept so too). It reads back as it was, from either store.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from stopkit._json_out import escape_surrogates
from stopkit.loop.journal._errors import JournalTooNew, JournalUnreadable

__all__ = ["FORMAT", "SCHEMA_VERSION", "TABLES", "Execute", "check", "create", "read_text",
           "stored_text"]  # fmt: skip

FORMAT = "stopkit-journal"
SCHEMA_VERSION = 1

Execute = Callable[[str, tuple[Any, ...]], Any]
"""Runs one statement in the open transaction; returns the cursor."""

# Each table's columns, then its constraints: what `create` makes and `check` expects.
_DEFINITIONS = {
    "stopkit_meta": ("key TEXT PRIMARY KEY", "value TEXT NOT NULL"),
    "stopkit_runs": (
        "run_id TEXT PRIMARY KEY", "status TEXT NOT NULL", "termination TEXT",
        "detail TEXT NOT NULL", "owner TEXT", "lease_until DOUBLE PRECISION",
        "created_at DOUBLE PRECISION NOT NULL", "updated_at DOUBLE PRECISION NOT NULL",
    ),
    "stopkit_steps": (
        "run_id TEXT NOT NULL", "seq INTEGER NOT NULL", "name TEXT NOT NULL",
        "request TEXT NOT NULL", "result TEXT", "recorded_at DOUBLE PRECISION NOT NULL",
        "PRIMARY KEY (run_id, name)",
    ),
}  # fmt: skip
TABLES = tuple(_DEFINITIONS)
"""The names of the journal's tables."""
_COLUMNS = {
    name: frozenset(part.split()[0] for part in parts if not part.startswith("PRIMARY KEY ("))
    for name, parts in _DEFINITIONS.items()
}

# What a text column cannot keep as is: a NUL, a lone surrogate, or the mark itself first.
_UNKEEPABLE = re.compile("\x00|[\ud800-\udfff]|^\uffff")
_KEPT_AS_JSON = "\uffff"


def check(execute: Execute, tables: dict[str, set[str]], where: str) -> bool:
    """Say whether our schema is in `tables` (False: there are none); refuse anything else.

    `tables`: the tables there, each with its columns (in a shared database, only ours).
    """
    if "stopkit_meta" not in tables:
        if tables:
            raise JournalUnreadable(
                where, f"it holds other tables ({', '.join(sorted(tables)[:5])})"
            )
        return False
    _check_columns(tables, where, "stopkit_meta")
    rows = dict(execute("SELECT key, value FROM stopkit_meta", ()).fetchall())
    if rows.get("format") != FORMAT:
        raise JournalUnreadable(where, "its stopkit_meta table is not ours")
    try:
        version = int(rows.get("schema_version", ""))
    except ValueError:
        raise JournalUnreadable(where, "its schema version is unreadable") from None
    if version > SCHEMA_VERSION:  # a newer schema may have other columns: said first
        raise JournalTooNew(where, version, SCHEMA_VERSION)
    missing = set(TABLES) - set(tables)
    if missing:
        raise JournalUnreadable(where, f"its tables {sorted(missing)} are gone")
    _check_columns(tables, where, "stopkit_runs", "stopkit_steps")
    return True


def _check_columns(tables: dict[str, set[str]], where: str, *names: str) -> None:
    """Refuse a table of one of our names that lacks a column of ours (another app's)."""
    for name in names:
        missing = _COLUMNS[name] - tables[name]
        if missing:
            raise JournalUnreadable(
                where, f"its {name} table is not ours (it has no {', '.join(sorted(missing))})"
            )


def create(execute: Execute) -> None:
    """Create the tables in an empty database, with the format and the schema version."""
    for name, parts in _DEFINITIONS.items():
        execute(f"CREATE TABLE {name} ({', '.join(parts)})", ())
    execute(
        "INSERT INTO stopkit_meta (key, value) VALUES (?, ?), (?, ?)",
        ("format", FORMAT, "schema_version", str(SCHEMA_VERSION)),
    )


def stored_text(text: str) -> str:
    r"""Return `text` as a text column keeps it: as it is, or as JSON after the mark.

    Example:
        >>> stored_text("done"), stored_text("nul \x00")
        ('done', '\uffff"nul \\u0000"')
    """
    if _UNKEEPABLE.search(text) is None:
        return text
    return _KEPT_AS_JSON + escape_surrogates(json.dumps(text, ensure_ascii=False))


def read_text(kept: str) -> str:
    """Return the text `stored_text` kept (a text from before the mark existed: as it is)."""
    if kept.startswith(_KEPT_AS_JSON):
        try:
            text = json.loads(kept[1:])
        except ValueError:
            return kept
        if isinstance(text, str):
            return text
    return kept
