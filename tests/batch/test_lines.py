"""Reading results files: line numbers, chunks, bad and cut lines, Gemini batch job documents."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from stopkit.batch import Chunk, Report, RequestOutcome, audit_chunk, audit_line, split
from stopkit.batch._lines import inlined_items, read_chunk
from tests.batch._fixtures import ANTHROPIC, GEMINI_CASES, gemini_response, write_jsonl


def _records(path: Path, parts: int = 1) -> list[tuple[int, str, str | None]]:
    """Every record of the file's chunks, numbered in the file (chunks count from 1)."""
    found, before = [], 0
    for chunk in split([path], parts):
        lines = read_chunk(chunk)
        found.extend((r.line + before, r.outcome.value, r.id) for r in lines)
        before += lines.lines
    return found


def test_lines_are_numbered_and_blank_lines_skipped(tmp_path: Path) -> None:
    """Records carry their 1-based line number; blank lines count as lines but give no record."""
    path = tmp_path / "r.jsonl"
    lines = [json.dumps(c.line) for c in ANTHROPIC[:3]]
    path.write_text(f"{lines[0]}\n\n{lines[1]}\n  \n{lines[2]}\n")
    assert _records(path) == [(1, "replied", "a-1"), (3, "replied", "a-2"), (5, "replied", "a-3")]


def test_bad_lines_are_listed_by_number_and_the_cut_end_is_a_truncated_line(tmp_path: Path) -> None:
    """Not-JSON and unknown lines keep their numbers; a last line with no newline is a cut one."""
    path = tmp_path / "r.jsonl"
    good = json.dumps(ANTHROPIC[0].line)
    path.write_text(f'{good}\nnot json\n{{"what": 1}}\n{good}\n{good[:40]}')
    assert _records(path) == [
        (1, "replied", "a-1"),
        (2, "not_json", None),
        (3, "unknown_shape", None),
        (4, "replied", "a-1"),
        (5, "truncated_line", None),
    ]


def test_a_complete_last_line_without_newline_is_fine(tmp_path: Path) -> None:
    """Many files end without a newline: a last line that parses is an ordinary line."""
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(ANTHROPIC[0].line))
    assert _records(path) == [(1, "replied", "a-1")]


def test_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    """A UTF-8 byte order mark before the first line does not make it unreadable."""
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(ANTHROPIC[1].line).encode() + b"\n")
    assert _records(path) == [(1, "replied", "a-2")]


def test_chunks_cover_every_line_once_with_the_right_numbers(tmp_path: Path) -> None:
    """A file cut into chunks gives exactly the records, and line numbers, of a whole read."""
    path = tmp_path / "big.jsonl"
    lines = [dict(ANTHROPIC[i % len(ANTHROPIC)].line, custom_id=f"a-{i}") for i in range(12000)]
    write_jsonl(path, lines)
    with path.open("a") as f:
        f.write("garbage\n")
    whole = _records(path)
    chunks = split([path], 5)
    assert len(chunks) == 5
    assert chunks[0].start == 0
    assert all(a.end == b.start for a, b in itertools.pairwise(chunks))
    assert _records(path, 5) == whole
    assert whole[-1] == (12001, "not_json", None)
    first = next(iter(read_chunk(chunks[1])))
    assert first.line == 1  # a chunk numbers its own lines; merging numbers them in the file


def test_merging_numbers_chunks_in_their_file_and_refuses_another_order(tmp_path: Path) -> None:
    """Chunk reports merged in order give the file's line numbers; out of order, ValueError."""
    path = tmp_path / "big.jsonl"
    good = json.dumps(ANTHROPIC[0].line)
    path.write_text("".join(f"{good}\n" if i % 1000 else "oops\n" for i in range(1, 8001)))
    chunks = split([path], 3)
    parts = [audit_chunk(c) for c in chunks]
    merged = Report()
    for part in parts:
        merged.merge(part)
    [bad] = [g for g in merged.counts if g.outcome is RequestOutcome.NOT_JSON]
    assert [e.line for e in merged.entries(bad)] == list(range(1000, 8001, 1000))
    with pytest.raises(ValueError, match="in order"):
        Report().merge(parts[1])
    other = Report()
    other.merge(parts[0])
    with pytest.raises(ValueError, match="in order"):
        other.merge(parts[2])


def test_small_files_are_not_split(tmp_path: Path) -> None:
    """Under a mebibyte a file stays one chunk: a process costs more than it saves."""
    path = write_jsonl(tmp_path / "small.jsonl", [c.line for c in ANTHROPIC])
    assert split([path], 4) == [Chunk(str(path))]


def _inlined() -> list[dict[str, object]]:
    return [
        {"response": gemini_response("STOP"), "metadata": {"key": "k1"}},
        {"response": gemini_response("MAX_TOKENS")},
        {"error": {"code": 8, "message": "Resource exhausted"}},
    ]


_BATCH = "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch"
_INLINED = "inlinedResponses"

#: The places a batch job document holds its inlined responses (see `inlined_items`).
WRAPPERS = {
    "REST operation": lambda items: {
        "name": "batches/1",
        "done": True,
        "metadata": {"@type": _BATCH, "output": {_INLINED: {_INLINED: items}}},
    },
    "REST operation response": lambda items: {
        "name": "batches/1",
        "response": {"@type": _BATCH + "Output", _INLINED: {_INLINED: items}},
    },
    "batch output": lambda items: {_INLINED: {_INLINED: items}},
    "SDK BatchJob dump": lambda items: {"name": "batches/1", "dest": {"inlined_responses": items}},
    "bare list": lambda items: items,
}


@pytest.mark.parametrize("wrap", list(WRAPPERS.values()), ids=list(WRAPPERS))
@pytest.mark.parametrize("indent", [None, 2])
def test_gemini_inlined_responses_are_read_from_the_batch_job(
    tmp_path: Path, wrap: object, indent: int | None
) -> None:
    """A batch job document (minified or pretty) is read whole: one record per inlined item."""
    path = tmp_path / "batch.json"
    path.write_text(json.dumps(wrap(_inlined()), indent=indent))  # type: ignore[operator]
    [chunk] = split([path], 4)
    assert chunk.document
    records = list(read_chunk(chunk))
    assert [(r.line, r.id, r.outcome.value, r.detail, r.code) for r in records] == [
        (1, "k1", "replied", None, None),
        (2, None, "replied", "max_tokens", None),
        (3, None, "errored", None, "RESOURCE_EXHAUSTED"),
    ]


@pytest.mark.parametrize("indent", [None, 2])
def test_a_json_array_of_results_lines_is_read_as_those_lines(
    tmp_path: Path, indent: int | None
) -> None:
    """Results saved as one JSON array (not JSON Lines) are read in their own format."""
    path = tmp_path / "results.json"
    path.write_text(json.dumps([c.line for c in ANTHROPIC[:3]], indent=indent))
    assert _records(path) == [(1, "replied", "a-1"), (2, "replied", "a-2"), (3, "replied", "a-3")]
    assert {r.format for r in read_chunk(split([path], 1)[0])} == {"anthropic"}


def test_the_sdk_batch_job_dump_is_read() -> None:
    """google-genai's BatchJob dumped to JSON (snake_case) holds items the audit reads."""
    from google.genai import types

    job = types.BatchJob(
        name="batches/1",
        dest=types.BatchJobDestination(
            inlined_responses=[types.InlinedResponse.model_validate(i) for i in _inlined()]
        ),
    )
    items = inlined_items(job.model_dump(mode="json", exclude_none=True))
    assert items is not None
    records = [audit_line(json.dumps({"response": i["response"]}), 1) for i in items[:2]]
    assert [r.detail for r in records] == [None, "max_tokens"]


def test_a_pretty_printed_file_that_is_no_batch_job_reads_as_lines(tmp_path: Path) -> None:
    """A multi-line JSON document that is not a batch job is read as (bad) lines, not dropped."""
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"a": 1}, indent=2) + "\n")
    assert [r.outcome for r in read_chunk(split([path], 1)[0])] == [RequestOutcome.NOT_JSON] * 3


@pytest.mark.parametrize(
    "first",
    [
        '[{"x": 1}]',  # a list of objects, as a bare list of inlined items is
        json.dumps({"inlinedResponses": {"inlinedResponses": []}}),
        json.dumps(WRAPPERS["batch output"](_inlined())),
    ],
)
def test_a_first_line_that_looks_like_a_batch_job_does_not_hide_the_lines_after_it(
    tmp_path: Path, first: str
) -> None:
    """A JSON Lines file is a batch job document only if nothing follows its first line."""
    path = tmp_path / "r.jsonl"
    path.write_text(first + "\n" + "".join(json.dumps(c.line) + "\n" for c in ANTHROPIC[:2]))
    assert _records(path) == [
        (1, "unknown_shape", None),
        (2, "replied", "a-1"),
        (3, "replied", "a-2"),
    ]


@pytest.mark.parametrize(
    "first",
    [
        b'{"custom_id": "a-0", "result": {"type": "succ',  # cut inside a string
        b'{"custom_id": "a-0", "result":',  # cut after a colon
        b"{oops",
    ],
)
def test_a_bad_first_line_is_not_a_reason_to_read_the_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: bytes
) -> None:
    """A first line that is not JSON is a bad line: the file is still parsed a line at a time."""
    from stopkit.batch import _lines

    parsed: list[int] = []

    def loads(text: bytes | str) -> object:
        parsed.append(len(text))
        return json.loads(text)

    monkeypatch.setattr(_lines, "loads_strict", loads)
    lines = [first] + [json.dumps(c.line).encode() for c in ANTHROPIC[:3]]
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert [r[1] for r in _records(path)] == ["not_json", "replied", "replied", "replied"]
    assert max(parsed) <= max(len(line) for line in lines) + 1  # one line and its newline


def test_keyed_gemini_lines_read_from_a_file(tmp_path: Path) -> None:
    """A Gemini JSON Lines results file reads every documented line shape."""
    path = write_jsonl(tmp_path / "gemini.jsonl", [c.line for c in GEMINI_CASES])
    assert len(_records(path)) == len(GEMINI_CASES)


def _id(line: str) -> str:
    found: str = json.loads(line)["custom_id"]
    return found


def _long_line(size: int) -> str:
    """A results line of about `size` bytes: an answer that long."""
    line = dict(ANTHROPIC[0].line, custom_id="long")
    line["result"] = json.loads(json.dumps(line["result"]))
    line["result"]["message"]["content"] = [{"type": "text", "text": "x" * size}]
    return json.dumps(line)


@pytest.mark.parametrize("where", ["middle", "first", "last, unterminated"])
def test_a_line_over_the_bound_is_a_bad_line_and_the_audit_goes_on(
    tmp_path: Path, where: str
) -> None:
    """A line longer than `max_line_size` is `line_too_long` with its number; the rest is read."""
    good = [json.dumps(c.line) for c in ANTHROPIC[:3]]
    long = _long_line(5000)
    lines = {"middle": [good[0], long, good[1], good[2]], "first": [long, *good],
             "last, unterminated": [*good, long]}[where]  # fmt: skip
    path = tmp_path / "r.jsonl"
    ending = "" if where.endswith("unterminated") else "\n"
    path.write_text("\n".join(lines) + ending)
    [chunk] = split([path], 1, max_line_size=1000)
    records = list(read_chunk(chunk))
    assert [(r.line, r.outcome.value, r.id) for r in records] == [
        (i, "line_too_long", None) if line is long else (i, "replied", _id(line))
        for i, line in enumerate(lines, 1)
    ]
    assert "over 1,000 bytes" in (records[lines.index(long)].message or "")
    assert [r.outcome for r in read_chunk(split([path], 1)[0])] == [RequestOutcome.REPLIED] * 4


def test_chunks_cut_around_a_line_over_the_bound_read_like_the_whole_file(tmp_path: Path) -> None:
    """Split points that fall inside a long line skip it in pieces: the records are the same."""
    path = tmp_path / "big.jsonl"
    good = json.dumps(ANTHROPIC[0].line)
    path.write_text("".join(f"{good}\n" for _ in range(3000)) + _long_line(3_000_000) + "\n"
                    + "".join(f"{good}\n" for _ in range(3000)))  # fmt: skip

    def records(parts: int) -> list[tuple[int, str]]:
        found, before = [], 0
        for chunk in split([path], parts, max_line_size=100_000):
            lines = read_chunk(chunk)
            found.extend((r.line + before, r.outcome.value) for r in lines)
            before += lines.lines
        return found

    whole = records(1)
    assert whole[3000] == (3001, "line_too_long")
    assert len(whole) == 6001
    assert records(7) == whole
