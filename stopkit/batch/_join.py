"""Joining results to the batch's request file, in constant memory.

The results' join keys (custom_id, key, recordId; the line number where a line has none) go
into an on-disk index (SQLite, from the standard library) built from the report's entry lists;
the request file is then streamed once, in its own order, so neither file is ever held in
memory and the results may come in any order (Anthropic's and Bedrock's do).
"""

from __future__ import annotations

import os
import re
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

from stopkit._json import loads_strict
from stopkit.batch._errors import BatchUsageError
from stopkit.batch._lines import MAX_LINE_SIZE, bounded_lines, document_items, unique
from stopkit.batch._record import BAD_LINES, RequestOutcome
from stopkit.batch._report import Entry, Group, Report
from stopkit.batch._requests import COMPATIBLE, format_of, key_of
from stopkit.batch._results import read_object

__all__ = [
    "ResultIndex",
    "is_requests_document",
    "join",
    "request_lines",
    "requests_document",
    "result_index",
]

#: Groups never indexed: the join's own, and lines that could not be read (they have no id).
_NOT_RESULTS = frozenset({RequestOutcome.NO_INPUT, RequestOutcome.NO_RESULT}) | BAD_LINES
#: What a request line of no known shape reads as when it is no results line either.
_NOT_A_RESULT = frozenset({RequestOutcome.UNKNOWN_SHAPE, RequestOutcome.NO_BODY})


# What became of a result's line in the join (the index's `seen` column).
_UNSEEN, _JOINED, _CONFLICT, _CONFLICT_TAKEN = 0, 1, 2, 3


class ResultIndex:
    """Every result's join key, on disk (SQLite): key -> its lines, and whether a request took it.

    A key may be on several results lines. Each is indexed, so that none is lost, and such a key
    is a conflict: its lines are listed as `duplicate_id` (in line order) when the index is
    built, and none of them joins a request or is resubmitted, whatever their groups. A filtered
    reply and a truncated one under one id cannot both say what became of the request, and the
    order the audit met them in (its groups) is no order of the file.
    """

    def __init__(self, report: Report, path: str) -> None:
        self.db = db = sqlite3.connect(path)
        db.execute("PRAGMA journal_mode = OFF")  # a scratch file: nothing to recover after a crash
        db.execute("PRAGMA synchronous = OFF")
        db.execute(
            "CREATE TABLE result (key TEXT, grp INTEGER, id TEXT, file TEXT, line INTEGER,"
            " seen INTEGER)"
        )
        self.groups = groups = [g for g in report.counts if g.outcome not in _NOT_RESULTS]
        self.keyless: set[str] = set()
        """The files with lines without ids (joined by line number)."""

        def rows() -> Iterator[tuple[Any, ...]]:
            for number, group in enumerate(groups):
                for entry in report.entries(group):
                    if entry.id is None:
                        self.keyless.add(entry.file)
                    yield entry.key, number, entry.id, entry.file, entry.line

        with db:
            db.executemany(f"INSERT INTO result VALUES (?, ?, ?, ?, ?, {_UNSEEN})", rows())
            db.execute("CREATE INDEX result_key ON result (key)")  # built once, after the rows
            db.execute(
                f"UPDATE result SET seen = {_CONFLICT} WHERE key IN"
                " (SELECT key FROM result GROUP BY key HAVING COUNT(*) > 1)"
            )
        conflicts = (
            f"SELECT id, file, line FROM result WHERE seen = {_CONFLICT} ORDER BY line, rowid"
        )
        for result in db.execute(conflicts):
            report.add_entry(Group(None, RequestOutcome.DUPLICATE_ID), Entry(*result))

    def conflicted(self, key: str) -> bool:
        """Whether `key` is on several results lines."""
        found = self.db.execute("SELECT seen FROM result WHERE key = ? LIMIT 1", (key,)).fetchone()
        return found is not None and found[0] in (_CONFLICT, _CONFLICT_TAKEN)

    def take(self, key: str) -> tuple[Group, Entry] | bool:
        """Join a request to its result: the result's group and entry, or whether it had one.

        False: no result, or one a request with the same key took already (a request line
        given twice); True: the key's results conflict (the request is answered, by them).
        """
        found = self.db.execute(
            "SELECT rowid, grp, id, file, line, seen FROM result WHERE key = ? ORDER BY rowid"
            " LIMIT 1",
            (key,),
        ).fetchone()
        if found is None or found[-1] in (_JOINED, _CONFLICT_TAKEN):
            return False
        rowid, group, *result, seen = found
        if seen == _CONFLICT:
            self.db.execute(f"UPDATE result SET seen = {_CONFLICT_TAKEN} WHERE key = ?", (key,))
            return True
        self.db.execute(f"UPDATE result SET seen = {_JOINED} WHERE rowid = ?", (rowid,))
        return self.groups[group], Entry(*result)

    def untaken(self) -> Iterator[Entry]:
        """The results no request took, in the order they were indexed."""
        unseen = (
            f"SELECT id, file, line FROM result WHERE seen IN ({_UNSEEN}, {_CONFLICT})"
            " ORDER BY rowid"
        )
        for result in self.db.execute(unseen):
            yield Entry(*result)

    def close(self) -> None:
        """Close the index (its file goes with the report's spill folder)."""
        self.db.close()


def result_index(report: Report) -> ResultIndex:
    """Index the report's results by join key (see `ResultIndex`), in its spill folder."""
    return ResultIndex(report, os.path.join(report.spill_dir, f"join-{uuid.uuid4().hex}.db"))


_NOT_JSON = object()
_TOO_LONG = object()


def requests_document(path: str, max_line_size: int = MAX_LINE_SIZE) -> list[Any] | None:
    """The requests of a Message Batches create body (`{"requests": [...]}`), else None.

    That is the form Anthropic's API takes (`anthropic.types.messages.BatchCreateParams`);
    a JSON Lines file of `{"custom_id", "params"}` lines is read line by line instead.
    """

    def pick(doc: Any) -> list[Any] | None:
        found = doc.get("requests") if type(doc) is dict else None
        return found if type(found) is list else None

    return document_items(path, pick, max_line_size)


_FIRST_KEY = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"([^"]*)"')


def is_requests_document(path: str | os.PathLike[str]) -> bool:
    """Whether a request file is a `{"requests": [...]}` document (by its first key only)."""
    with open(path, "rb") as f:
        found = _FIRST_KEY.match(f.read(4096))
    return found is not None and found[1] == b"requests"


def request_lines(path: str, max_line_size: int = MAX_LINE_SIZE) -> Iterator[tuple[int, Any]]:
    """Yield (line number, parsed request) of a request file; `_NOT_JSON` for a bad line.

    A line longer than `max_line_size` bytes is not read (nor held whole): `_TOO_LONG`.
    """
    items = requests_document(path, max_line_size)
    if items is not None:
        yield from enumerate(items, 1)
        return
    with open(path, "rb") as f:
        for number, (raw, _) in enumerate(bounded_lines(f, max_line_size), 1):
            if raw is None:
                yield number, _TOO_LONG
                continue
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte order mark
            if raw.isspace():
                continue
            try:
                yield number, loads_strict(raw)
            except ValueError:
                yield number, _NOT_JSON


def join(
    report: Report, inputs: Sequence[str | os.PathLike[str]]
) -> Iterator[tuple[Group, str, dict[str, Any], Entry]]:
    """Stream the request files; yield (result group, format, request line, result entry).

    Every request is matched to its result by id; an id on several request lines joins once
    (the first), so no request is sent twice and no line is lost: the others are listed with
    the lines no id joins. An id on several results lines is a conflict (see `ResultIndex`):
    its request joins none of them. When the iterator is exhausted, the report
    holds two more groups: `no_result` (requests no result answers) and `no_input` (results
    with no request). A request file named twice is read once. Request lines that are not
    JSON, of no known shape, or longer than the report's `max_line_size`, are counted as bad
    lines of their file. A request file in
    another provider's format, or a results file given as the request file, raises
    `BatchUsageError`.
    """
    if "vertex" in report.formats:  # no id, and no promised order: nothing to join on
        raise BatchUsageError(
            "Vertex AI results carry each request (their `request` field) in no promised "
            "order: give no --input for them"
        )
    allowed = set().union(*(COMPATIBLE.get(name, set()) for name in report.formats))
    index = result_index(report)
    try:
        if len(index.keyless) > 1:
            raise BatchUsageError(
                "results lines without ids are matched to requests by line number, which needs "
                "one results file; these have lines without ids: "
                + ", ".join(sorted(index.keyless))
            )
        for path in unique(inputs):  # a file named twice: its requests would not join again
            for number, line in request_lines(path, report.max_line_size):
                fmt = _request_format(report, allowed, Entry(None, path, number), line)
                if fmt is None:
                    continue
                key = key_of(line, fmt, number)
                taken = index.take(key)
                if taken is False:  # no result, or the request's id came before
                    request_id = None if key.startswith("#") else key
                    report.add_entry(
                        Group(None, RequestOutcome.NO_RESULT), Entry(request_id, path, number)
                    )
                elif taken is not True:  # True: its results conflict, listed already
                    yield taken[0], fmt, line, taken[1]
        for result in index.untaken():
            report.add_entry(Group(None, RequestOutcome.NO_INPUT), result)
    finally:
        index.close()


def _request_format(report: Report, allowed: set[str], place: Entry, line: Any) -> str | None:
    """The format of one request line; None for a bad line (counted in the report as one).

    A results line, or a request line of a format the results cannot answer, is the wrong
    file: `BatchUsageError`.
    """
    if line is _NOT_JSON or line is _TOO_LONG:
        bad = RequestOutcome.NOT_JSON if line is _NOT_JSON else RequestOutcome.LINE_TOO_LONG
        report.add_entry(Group(None, bad), place)
        return None
    fmt = format_of(line)
    if fmt is None:
        if read_object(line, place.line).outcome not in _NOT_A_RESULT:
            raise BatchUsageError(
                f"{place.file}:{place.line} is a results line, not a request line: give the "
                "batch's request file"
            )
        report.add_entry(Group(None, RequestOutcome.UNKNOWN_SHAPE), place)
        return None
    if allowed and fmt not in allowed:
        results = ", ".join(sorted(report.formats))
        raise BatchUsageError(
            f"{place.file}:{place.line} is a {fmt} request line, but the results are "
            f"{results}: give the batch's own request file"
        )
    return fmt
