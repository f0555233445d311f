"""The audit's result: counts by model x outcome x reason x detail, and every line's id.

A `Report` is also the accumulator: `add` one record at a time, `merge` the reports of other
chunks (from other processes or machines). Counts live in memory (a few dozen groups); the
entries of each group go to a `Spill` on disk, so memory stays flat in the number of lines.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from collections.abc import Iterator
from typing import Any, NamedTuple

from stopkit import StopReason
from stopkit._json import loads_strict
from stopkit._json_out import compact_line
from stopkit.batch import _tokens
from stopkit.batch._lines import MAX_LINE_SIZE, Chunk
from stopkit.batch._record import BAD_LINES, Record, RequestOutcome
from stopkit.batch._spill import Spill
from stopkit.batch._tokens import Sums

__all__ = ["Entry", "Group", "Report", "failing", "group_of", "needs_review"]

_OUTCOME_ORDER = {o: i for i, o in enumerate(RequestOutcome)}
_REPLIED, _ERRORED = RequestOutcome.REPLIED, RequestOutcome.ERRORED
_REASON_ORDER = {r: i for i, r in enumerate(StopReason)}
#: The spill key of the requests that results lines echo (Vertex, Bedrock).
_REQUESTS = ("requests",)


class Group(NamedTuple):
    """The lines of a report that share a model, an outcome, a stop reason and a detail.

    Example:
        >>> cut = Group("gpt-4o", RequestOutcome.REPLIED, StopReason.OUTPUT_LIMIT, "max_tokens")
        >>> cut.label
        'output_limit/max_tokens'
    """

    model: str | None
    """The model the lines name (None: they name none)."""
    outcome: RequestOutcome
    """What became of the lines' requests."""
    reason: StopReason | None = None
    """The replies' stop reason (`replied` groups only)."""
    detail: str | None = None
    """`Stop.detail` of a reply; the error code of an errored request."""

    @property
    def label(self) -> str:
        """The group in a few words: `output_limit/max_tokens`, `errored 429`, `expired`."""
        if self.outcome is RequestOutcome.REPLIED and self.reason is not None:
            return self.reason.value + (f"/{self.detail}" if self.detail else "")
        if self.detail:
            return f"{self.outcome.value} {self.detail}"
        return self.outcome.value

    def sort_key(self) -> tuple[Any, ...]:
        """Models by name (unknown last), then outcomes and reasons in their enums' order."""
        reason = -1 if self.reason is None else _REASON_ORDER[self.reason]
        return (
            self.model is None,
            self.model or "",
            _OUTCOME_ORDER[self.outcome],
            reason,
            self.detail or "",
        )


def group_of(record: Record) -> Group:
    """The group a record counts in (bad lines have no model)."""
    if record.outcome is RequestOutcome.REPLIED:
        return Group(record.model, RequestOutcome.REPLIED, record.reason, record.detail)
    if record.outcome is RequestOutcome.ERRORED:
        return Group(record.model, RequestOutcome.ERRORED, None, record.code)
    if record.outcome in BAD_LINES:
        return Group(None, record.outcome)
    return Group(record.model, record.outcome)


class Entry(NamedTuple):
    """One line of a group: the request's id, or where the line is when it has none.

    Example:
        >>> str(Entry(None, "results.jsonl", 7)), Entry(None, "results.jsonl", 7).key
        ('results.jsonl:7', '#7')
    """

    id: str | None
    """The request's id, as the batch sent it (None: the line has none)."""
    file: str
    """The results file the line is in."""
    line: int
    """The line's number in its file (1-based)."""

    @property
    def key(self) -> str:
        """What joins it to its request: the id, else `#<line>` (matched by position)."""
        return self.id if self.id is not None else f"#{self.line}"

    def __str__(self) -> str:
        return self.id if self.id is not None else f"{self.file}:{self.line}"


def _encode(entry: Entry) -> str:
    # "=" line NUL id; "@" line NUL file: a line with no id (or a bad line) is kept by place.
    if entry.id is not None:
        return f"={entry.line}\0{entry.id}"
    return f"@{entry.line}\0{entry.file}"


def _decode(text: str, shift: int = 0) -> Entry:
    line, _, rest = text[1:].partition("\0")
    if text[0] == "=":
        return Entry(rest, "", int(line) + shift)
    return Entry(None, rest, int(line) + shift)


_OUT_OF_ORDER = (
    "{}: the report holds this file up to byte {}, not a chunk starting at byte {}: "
    "merge (or add) a file's chunks in order, from its first"
)


def _may_redo(group: Group) -> bool:
    """Whether a resubmission could take the line: any outcome but a reply that finished."""
    return group.outcome is not RequestOutcome.REPLIED or group.reason is StopReason.OUTPUT_LIMIT


class Report:
    """What became of every line of a batch's results files, by model and group.

    Build one with `stopkit.batch.audit`, or `add` records yourself; `merge` combines the
    reports of chunks audited apart. `spill_dir` is where the entry lists go (a temporary
    directory, removed with the report, by default).

    Example:
        >>> report = stopkit.batch.audit(["results.jsonl"])  # doctest: +SKIP
        >>> report.count(  # doctest: +SKIP
        ...     outcome=RequestOutcome.REPLIED, reason=StopReason.OUTPUT_LIMIT
        ... )
        1204
    """

    def __init__(
        self, spill_dir: str | os.PathLike[str] | None = None, *, keep_requests: bool = False
    ) -> None:
        # Directories this report removes when closed or collected: its own temporary one, and
        # those of the reports merged into it (their entry lists now belong to this one).
        self._owned: list[weakref.finalize[Any, Any]] = []
        if spill_dir is None:
            spill_dir = tempfile.mkdtemp(prefix="stopkit-batch-")
            self._owned.append(weakref.finalize(self, shutil.rmtree, spill_dir, True))
        self.spill_dir = os.fspath(spill_dir)
        self.keep_requests = keep_requests
        """Keep the requests results lines echo (Vertex, Bedrock) for a resubmission."""
        self.files: list[str] = []
        self.lines = 0
        self.counts: dict[Group, int] = {}
        self.formats: dict[str, int] = {}
        """Lines read per results format (`openai`, `anthropic`, ...)."""
        self.tokens: dict[Group, Sums] = {}
        """Token sums per group, from the replies' `Stop.usage` (see `_tokens`)."""
        self.resubmission: Any = None
        """What `resubmit` wrote, once it has run (a `Resubmission`)."""
        self.max_line_size = MAX_LINE_SIZE
        """The longest line read, in bytes (`audit`'s bound): request files are read with it."""
        self._spill = Spill(self.spill_dir)
        self._file = ""
        # file -> [first byte, end byte (-1: the end of the file), lines] of the part of the
        # file this report holds: chunks numbered from 1 are numbered in their file on merge.
        self._spans: dict[str, list[int]] = {}

    def begin_chunk(self, chunk: Chunk) -> None:
        """Say which chunk the records added next come from (see `end_chunk`).

        Raises ValueError when the report holds part of the chunk's file that it does not follow.
        """
        span = self._spans.get(chunk.path)
        if span is None:
            self._spans[chunk.path] = span = [chunk.start, chunk.start, 0]
            self.files.append(chunk.path)
        elif span[1] != chunk.start:
            raise ValueError(_OUT_OF_ORDER.format(chunk.path, span[1], chunk.start))
        self._file = chunk.path
        self._spill.begin(chunk.path, span[2])

    def end_chunk(self, chunk: Chunk, lines: int) -> None:
        """Say that the chunk's `lines` lines have all been added."""
        span = self._spans[chunk.path]
        span[1] = chunk.end
        span[2] += lines

    def add(self, record: Record) -> None:
        """Count one record in its group and keep its entry (the hot path of an audit)."""
        # A plain tuple equal to the record's Group finds it in the dicts (NamedTuples hash and
        # compare as tuples), so a Group is built once per group, not once per line.
        outcome = record.outcome
        if outcome is _REPLIED:
            key: tuple[Any, ...] = (record.model, outcome, record.reason, record.detail)
        elif outcome is _ERRORED:
            key = (record.model, outcome, None, record.code)
        else:
            key = group_of(record)
        counts: dict[Any, int] = self.counts  # looked up by tuples equal to their Group keys
        n = counts.get(key)
        if n is None:
            key = group_of(record)
            counts[key] = 1  # a Group, built for the group's first line
        else:
            counts[key] = n + 1  # the dict keeps its Group key
        self.lines += 1
        fmt = record.format
        if fmt is not None:
            self.formats[fmt] = self.formats.get(fmt, 0) + 1
        usage = record.usage
        if usage is not None:
            tokens: dict[Any, Sums] = self.tokens
            found = tokens.get(key)
            if found is None:
                tokens[group_of(record)] = _tokens.add(None, usage)
            else:
                _tokens.add(found, usage)
        rid = record.id
        entry = f"={record.line}\0{rid}" if rid is not None else f"@{record.line}\0{self._file}"
        self._spill.add(key, entry)
        if self.keep_requests and _may_redo(group_of(record)):
            # Kept with no request too: a line to redo that echoed none is listed, not lost.
            echoed = [entry, list(key), record.request]
            self._spill.add(_REQUESTS, compact_line(echoed).decode())

    def add_entry(self, group: Group, entry: Entry) -> None:
        """Count one line found by a later pass (e.g. the join with the request file)."""
        self.counts[group] = self.counts.get(group, 0) + 1
        self._add_numbered(group, entry)

    def add_skipped(self, cause: str, entry: Entry) -> None:
        """Keep a line a resubmission held back, under its cause (see `Resubmission`)."""
        self._add_numbered(("skipped", cause), entry)

    def _add_numbered(self, key: Any, entry: Entry) -> None:
        if self._spill.source is not None:  # an entry numbered in its file already: no shift
            self._spill.begin(None)
        self._spill.add(key, _encode(entry))

    def skipped_ids(self, cause: str) -> Iterator[str]:
        """Yield the lines a resubmission held back for `cause`, as text (id or file:line)."""
        for text, shift in self._spill.read(("skipped", cause)):
            yield str(_decode(text, shift))

    def merge(self, other: Report) -> None:
        """Add another report's counts and entries after this one's.

        Merge the reports of a file's chunks in file order, starting with its first: each
        chunk numbers its lines from 1, and is numbered in the file here. ValueError otherwise.
        """
        shifts: dict[str, int] = {}
        for path, (start, end, lines) in other._spans.items():
            span = self._spans.get(path)
            if span is None:
                if start != 0:
                    raise ValueError(_OUT_OF_ORDER.format(path, 0, start))
                self._spans[path] = [start, end, lines]
                self.files.append(path)
            elif span[1] != start:
                raise ValueError(_OUT_OF_ORDER.format(path, span[1], start))
            else:
                shifts[path] = span[2]
                span[1], span[2] = end, span[2] + lines
        self.lines += other.lines
        for group, n in other.counts.items():
            self.counts[group] = self.counts.get(group, 0) + n
        for name, n in other.formats.items():
            self.formats[name] = self.formats.get(name, 0) + n
        for group, sums in other.tokens.items():
            self.tokens[group] = _tokens.merge(self.tokens.get(group), sums)
        self._spill.extend(other._spill, shifts)
        for cleanup in other._owned:
            detached = cleanup.detach()
            if detached is not None:
                _, func, args, kwargs = detached
                self._owned.append(weakref.finalize(self, func, *args, **kwargs))
        other._owned = []

    @property
    def groups(self) -> list[tuple[Group, int]]:
        """Every group with its count, models by name, then outcome, reason and detail."""
        return sorted(self.counts.items(), key=lambda item: item[0].sort_key())

    def count(self, **fields: Any) -> int:
        """How many lines are in the groups whose fields equal `fields` (all lines if none).

        Example:
            >>> report.count(outcome=RequestOutcome.EXPIRED)  # doctest: +SKIP
            3
        """
        return sum(
            n for g, n in self.counts.items() if all(getattr(g, k) == v for k, v in fields.items())
        )

    def token_totals(self, *, redo: bool = False, **fields: Any) -> dict[str, int | None] | None:
        """Token sums of the groups whose fields equal `fields` (None: no usage reported).

        `redo=True` keeps only the replies that need redoing (cut off: `output_limit`).

        Example:
            >>> report.token_totals(redo=True)  # doctest: +SKIP
            {'input_tokens': 40120, 'output_tokens': 98304, ..., 'lines': 96}
        """
        return _tokens.as_dict(
            _tokens.total(
                sums
                for g, sums in self.tokens.items()
                if all(getattr(g, k) == v for k, v in fields.items())
                and (not redo or g.reason is StopReason.OUTPUT_LIMIT)
            )
        )

    def entries(self, group: Group) -> Iterator[Entry]:
        """Yield the entries of a group's lines, in file order (read back from disk)."""
        for text, shift in self._spill.read(group):
            yield _decode(text, shift)

    def ids(self, group: Group) -> Iterator[str]:
        """Yield each line of a group as text: its id, or `file:line` when it has none."""
        for entry in self.entries(group):
            yield str(entry)

    def echoed_requests(self) -> Iterator[tuple[Entry, Group, Any]]:
        """Yield the kept echoed requests: (entry, group, the request in its input form or None)."""
        for text, shift in self._spill.read(_REQUESTS):
            encoded, group, request = loads_strict(text)
            model, outcome, reason, detail = group
            yield (
                _decode(encoded, shift),
                Group(
                    model,
                    RequestOutcome(outcome),
                    None if reason is None else StopReason(reason),
                    detail,
                ),
                request,
            )

    def close(self) -> None:
        """Remove the entry lists this report owns (else done when it is garbage-collected)."""
        if self._owned:
            self._spill.drop()
        else:
            self._spill.close()
        for cleanup in self._owned:
            cleanup()
        self._owned = []

    def __enter__(self) -> Report:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(vars(self))
        state["_owned"] = []  # a copy in another process never owns the directory
        return state


#: Groups that make `stopkit batch` exit 1: unknown stops, errors, lines it could not read, and
#: what the join found wrong (a result with no request, a request with no result, conflicts).
_FAILING = frozenset(
    {
        RequestOutcome.ERRORED,
        RequestOutcome.UNREADABLE,
        RequestOutcome.NO_INPUT,
        RequestOutcome.NO_RESULT,
        RequestOutcome.DUPLICATE_ID,
    }
    | BAD_LINES
)
#: Replies that need nothing more: their groups' ids are listed only in the JSON report.
_FINE = frozenset({StopReason.COMPLETED, StopReason.STOP_SEQUENCE, StopReason.TOOL_REQUEST})


def failing(group: Group) -> bool:
    """Whether the group makes the audit fail (exit 1): unknown, errored or unreadable lines."""
    return group.outcome in _FAILING or group.reason is StopReason.UNKNOWN


def needs_review(group: Group) -> bool:
    """Whether the group's lines need a look: anything but finished replies and embeddings."""
    if group.outcome is RequestOutcome.REPLIED:
        return group.reason not in _FINE
    return group.outcome is not RequestOutcome.EMBEDDING
