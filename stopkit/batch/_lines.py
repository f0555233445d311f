"""Reading results files: the pure per-line function, and files cut into line-aligned chunks.

A results file is JSON Lines, read line by line in constant memory. The one exception is a
Gemini batch whose requests were inlined: its responses come inside the batch job itself (one
JSON document, `inlinedResponses`), which is read whole; the Gemini API caps such a batch at
20 MB of requests (ai.google.dev/gemini-api/docs/batch-api, "Inline requests").

A line longer than the bound (`max_line_size`, `MAX_LINE_SIZE` by default) is never held whole:
it is read in pieces and dropped, and counted as a bad line (`line_too_long`) with its number.
"""

from __future__ import annotations

import itertools
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, NamedTuple

from stopkit._json import loads_strict
from stopkit.batch._errors import BatchUsageError
from stopkit.batch._record import Record, RequestOutcome
from stopkit.batch._results import read_object

__all__ = [
    "MAX_LINE_SIZE",
    "Chunk",
    "audit_line",
    "bounded_lines",
    "document_items",
    "inlined_items",
    "read_chunk",
    "results_files",
    "split",
    "unique",
]

_BOM = b"\xef\xbb\xbf"
#: Files smaller than this are never split: a process costs more than it saves.
_MIN_SPLIT = 1 << 20
#: The longest line read, in bytes (its line ending not counted): 64 MiB, far above any real
#: results line (a reply at the largest output ceilings, 128k tokens, is well under 2 MB of
#: JSON) and small enough that reading one, parsing it included, strains no machine.
MAX_LINE_SIZE = 64 << 20
#: How much of a line over the bound is read at a time, to skip it.
_PIECE = 1 << 20


def _to_line_end(f: IO[bytes]) -> int:
    """Read to the end of the line `f` stands in (in pieces: it may be any size); its bytes."""
    size = 0
    while True:
        piece = f.readline(_PIECE)
        size += len(piece)
        if not piece or piece.endswith(b"\n"):
            return size


def bounded_lines(f: IO[bytes], limit: int) -> Iterator[tuple[bytes | None, int]]:
    r"""Yield each line of `f` from where it stands, and its size in bytes.

    A line over `limit` bytes (its line ending not counted) is yielded as None: it is read in
    pieces and dropped, never held whole.

    Example:
        >>> list(bounded_lines(io.BytesIO(b"ab\nabcdef\n"), 3))  # doctest: +SKIP
        [(b'ab\n', 3), (None, 7)]
    """
    while True:
        raw = f.readline(limit + 1)
        if not raw:
            return
        if len(raw) <= limit or raw.endswith(b"\n"):
            yield raw, len(raw)
        else:
            yield None, len(raw) + _to_line_end(f)


def _too_long(number: int, size: int, limit: int) -> Record:
    return Record(
        number,
        RequestOutcome.LINE_TOO_LONG,
        message=f"the line is {size:,} bytes, over {limit:,} bytes (--max-line-size): not read",
    )


def audit_line(line: bytes | str, number: int = 0, *, unterminated: bool = False) -> Record:
    """Read one line of a batch results file, in any supported format, into a `Record`.

    Pure: a line in, a record out; it never raises for bad input. A line that is not JSON is
    `not_json`, or `truncated_line` when it is the file's last line and had no newline
    (`unterminated`): a download cut short.

    Example:
        >>> line = b'{"custom_id": "r1", "result": {"type": "succeeded", "message": {'
        >>> line += b'"type": "message", "content": [], "stop_reason": "max_tokens"}}}'
        >>> audit_line(line, 7).reason
        <StopReason.OUTPUT_LIMIT: 'output_limit'>
    """
    try:
        obj = loads_strict(line)
    except ValueError as exc:
        outcome = RequestOutcome.TRUNCATED_LINE if unterminated else RequestOutcome.NOT_JSON
        return Record(number, outcome, message=str(exc))
    return read_object(obj, number)


def inlined_items(doc: Any) -> list[Any] | None:
    """The inlined responses of a Gemini batch job document, or None when it holds none.

    Accepted: the REST batch operation (`metadata.output` or `response`), a
    `GenerateContentBatch` (`output`), its output (`inlinedResponses.inlinedResponses`), the
    google-genai `BatchJob` dumped to JSON (`dest.inlined_responses`), or a bare list of items.
    """
    if type(doc) is list:
        return doc if doc and all(type(i) is dict for i in doc) else None
    if type(doc) is not dict:
        return None
    for holder in (
        doc,
        doc.get("output"),
        doc.get("response"),
        (doc.get("metadata") or {}).get("output") if type(doc.get("metadata")) is dict else None,
        doc.get("dest"),
    ):
        if type(holder) is not dict:
            continue
        found = holder.get("inlinedResponses", holder.get("inlined_responses"))
        if type(found) is dict:  # REST: InlinedResponses {inlinedResponses: [...]}
            found = found.get("inlinedResponses")
        if type(found) is list:
            return found
    return None


def document_items(
    path: str, pick: Callable[[Any], list[Any] | None], max_line_size: int = MAX_LINE_SIZE
) -> list[Any] | None:
    """The items `pick` finds when the file is one JSON document, else None (JSON Lines).

    A document on one line, or pretty-printed over many, is read whole; a file whose first
    line is a complete JSON Lines record is left to the line reader, and so is a file with
    more lines after a first line that would pass for a document (they are lines, not junk),
    or whose first line does not parse and does not end as a pretty-printed one would, or is
    longer than `max_line_size` (the line reader counts it as too long).
    """
    with open(path, "rb") as f:
        first = f.readline(max_line_size + 1)
        if len(first) > max_line_size and not first.endswith(b"\n"):
            return None
        first = first.removeprefix(_BOM)
        if not first.lstrip().startswith((b"{", b"[")):
            return None
        try:
            found = pick(loads_strict(first))
        except ValueError:
            pass
        else:
            more = next((line for line in f if not line.isspace()), None)
            return found if more is None else None
        if b"\n" not in first:  # a single line that does not parse: not a document either
            return None
        # A pretty-printed document breaks its first line after `{`, `[` or `,`; any other
        # first line that does not parse is a bad JSON Lines line, and the file (gigabytes,
        # maybe) is not read whole to find that out.
        if not first.rstrip().endswith((b"{", b"[", b",")):
            return None
        f.seek(0)
        try:
            return pick(loads_strict(f.read().removeprefix(_BOM)))
        except ValueError:  # neither a document nor JSON Lines: the line reader says so
            return None


def _document(path: str, max_line_size: int) -> list[Any] | None:
    """The inlined responses when the file is one Gemini batch job document, else None."""
    return document_items(path, inlined_items, max_line_size)


class Chunk(NamedTuple):
    """A line-aligned byte range of one results file, the unit of work of `--jobs`.

    Its lines are numbered from 1 where it starts; merging reports in file order numbers them
    in the file (see `Report.merge`), so nothing reads the file ahead to count lines.

    Example:
        >>> Chunk("results.jsonl", 0, 1 << 20)  # doctest: +SKIP
    """

    path: str
    """The results file."""
    start: int = 0
    """Where the range starts (a byte offset at the start of a line)."""
    end: int = -1
    """Where the range ends (exclusive); -1 is the end of the file."""
    document: bool = False
    """The file is one batch job document (Gemini inlined responses), not JSON Lines."""
    max_line_size: int = MAX_LINE_SIZE
    """A line longer than this (bytes) is not read: it counts as `line_too_long`."""


#: What a results folder holds: OpenAI/Anthropic/Gemini/Vertex JSON Lines, Bedrock's
#: `.jsonl.out`, and a Gemini batch job document (`.json`). Bedrock's `manifest.json.out`
#: (a summary, not results) is left out by its suffix.
_SUFFIXES = (".jsonl", ".jsonl.out", ".ndjson", ".json")


def results_files(targets: Sequence[str | os.PathLike[str]]) -> list[str]:
    """The results files named: files as given, folders as every results file in them.

    A file named twice (again, or inside a folder also named) is listed once, where it first
    comes: read twice, its lines would count twice.

    Example:
        >>> results_files(["batch_1/"])  # doctest: +SKIP
        ['batch_1/errors.jsonl', 'batch_1/output.jsonl']
    """
    found: list[str] = []
    for target in targets:
        path = Path(target)
        if path.is_dir():
            found.extend(
                str(p)
                for p in sorted(path.rglob("*"))
                if p.is_file() and p.name.endswith(_SUFFIXES)
            )
        else:
            found.append(os.fspath(target))
    return unique(found)


def unique(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """The files named, each once, where it first comes (by the file, not its spelling).

    Raises `BatchUsageError` for a pipe or a device (`<(zcat out.jsonl.gz)`, `/dev/stdin`):
    a file's start is read more than once (to tell a document from JSON Lines), and a pipe
    would give those lines to the first reading only, losing them. A missing file is left to
    the reading, whose error names it.

    Example:
        >>> unique(["a.jsonl", "./a.jsonl", "b.jsonl"])
        ['a.jsonl', 'b.jsonl']
    """
    first: dict[str, str] = {}  # the file itself -> the first name it was given by
    for name in paths:
        try:
            mode = os.stat(name).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a folder: open() names it
            raise BatchUsageError(
                f"{os.fspath(name)} is not a regular file (a pipe or a device): it is read more "
                "than once; write it to a file first"
            )
        first.setdefault(os.path.realpath(name), os.fspath(name))
    return list(first.values())


def split(
    paths: Sequence[str | os.PathLike[str]], parts: int, *, max_line_size: int = MAX_LINE_SIZE
) -> list[Chunk]:
    """Cut files into about `parts` line-aligned chunks each (files under 1 MiB stay whole).

    Only the cut points are read (a seek and a line each): the work of reading is the chunks'.
    Their lines longer than `max_line_size` bytes are not read (`line_too_long`).

    Example:
        >>> [c.start for c in split(["results.jsonl"], 2)]  # doctest: +SKIP
        [0, 52428812]
    """
    chunks: list[Chunk] = []
    for raw_path in paths:
        path = os.fspath(raw_path)
        if _document(path, max_line_size) is not None:
            chunks.append(Chunk(path, document=True, max_line_size=max_line_size))
            continue
        size = os.path.getsize(path)
        if parts <= 1 or size < _MIN_SPLIT:
            chunks.append(Chunk(path, max_line_size=max_line_size))
            continue
        cuts = [0]
        with open(path, "rb") as f:
            for k in range(1, parts):
                f.seek(max(size * k // parts - 1, cuts[-1]))
                _to_line_end(f)  # to the start of the next line
                cuts.append(f.tell())
        cuts.append(size)
        chunks.extend(
            Chunk(path, a, b, max_line_size=max_line_size)
            for a, b in itertools.pairwise(cuts)
            if b > a
        )
    return chunks


class ChunkLines:
    """The records of a chunk's lines, in order; `lines` counts its lines once read through.

    Lines are numbered from 1 at the chunk's start; blank lines count but give no record.
    """

    def __init__(self, chunk: Chunk) -> None:
        self.chunk = chunk
        self.lines = 0

    def __iter__(self) -> Iterator[Record]:
        chunk = self.chunk
        limit = chunk.max_line_size
        if chunk.document:
            items = _document(chunk.path, limit) or []
            for i, item in enumerate(items, 1):  # a bare list may hold any format's lines
                yield read_object(item, i)
            self.lines = len(items)
            return
        line = 0
        with open(chunk.path, "rb") as f:
            f.seek(chunk.start)
            left = chunk.end - chunk.start if chunk.end >= 0 else -1
            lines = bounded_lines(f, limit)
            while left != 0:  # checked first: no line of the next chunk is read
                raw, size = next(lines, (b"", 0))
                if not size:
                    break
                left -= size if left > 0 else 0
                line += 1
                if raw is None:
                    yield _too_long(line, size, limit)
                    continue
                if line == 1 and chunk.start == 0:
                    raw = raw.removeprefix(_BOM)
                if not raw.isspace():
                    yield audit_line(raw, line, unterminated=not raw.endswith(b"\n"))
        self.lines = line


def read_chunk(chunk: Chunk) -> ChunkLines:
    """The records of every line of a chunk, in order (numbered from 1 at the chunk's start).

    Example:
        >>> [r.outcome for r in read_chunk(Chunk("results.jsonl"))][:2]  # doctest: +SKIP
        [<RequestOutcome.REPLIED: 'replied'>, <RequestOutcome.EXPIRED: 'expired'>]
    """
    return ChunkLines(chunk)
