"""The report: counts by model, outcome, reason and detail; every id; merging; exit status."""

from __future__ import annotations

import io
import json
import pickle
import sys
from pathlib import Path

import pytest

from stopkit import StopReason
from stopkit.batch import (
    Entry,
    Group,
    Record,
    Report,
    RequestOutcome,
    audit,
    exit_status,
    write_json,
)
from stopkit.batch._spill import Spill
from tests.batch._fixtures import ALL, ANTHROPIC, CLAUDE, GPT, OPENAI, many, write_jsonl


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """One file holding every documented line of every provider, then two bad lines."""
    path = write_jsonl(tmp_path / "mixed.jsonl", [c.line for cases in ALL.values() for c in cases])
    with path.open("a") as f:
        f.write("oops\n{}")
    return path


def _by_label(report: Report, model: str | None = "*") -> dict[str, int]:
    return {g.label: n for g, n in report.groups if model == "*" or g.model == model}


def test_counts_by_model_reason_and_detail(mixed: Path) -> None:
    """Each model's lines are counted by reason and detail; errors by code; bad lines apart."""
    report = audit([mixed])
    total = sum(len(cases) for cases in ALL.values()) + 2
    assert report.lines == total == sum(report.counts.values())
    assert _by_label(report, GPT) == {
        "tool_request": 1, "completed": 1, "output_limit/max_tokens": 1, "filtered/refusal": 1,
        "filtered/safety": 1, "unknown/unrecognized": 1,
    }  # fmt: skip
    assert _by_label(report, CLAUDE) == {
        "tool_request": 1, "completed": 1, "output_limit/max_tokens": 1, "filtered/refusal": 1,
        "paused/server_tool_limit": 1, "stop_sequence": 1,
    }  # fmt: skip
    unknown_model = _by_label(report, None)
    assert unknown_model["errored invalid_request_error"] == 2  # OpenAI's 400 and Anthropic's
    assert unknown_model["expired"] == 2
    assert unknown_model["canceled"] == 2
    assert (unknown_model["not_json"], unknown_model["unknown_shape"]) == (1, 1)
    assert report.formats == {fmt: len(cases) for fmt, cases in ALL.items()}


def test_every_line_is_listed_in_its_group_in_file_order(mixed: Path) -> None:
    """A group lists every line: by id where the line has one, else as file:line."""
    report = audit([mixed])
    expired = Group(None, RequestOutcome.EXPIRED)
    assert list(report.ids(expired)) == ["o-13", "a-10"]
    [bad] = [g for g in report.counts if g.outcome is RequestOutcome.NOT_JSON]
    n = sum(len(cases) for cases in ALL.values()) + 1
    assert list(report.entries(bad)) == [Entry(None, str(mixed), n)]
    assert list(report.ids(bad)) == [f"{mixed}:{n}"]


def test_count_filters_on_group_fields(mixed: Path) -> None:
    """`count` sums the groups whose fields match (any model when no model is given)."""
    report = audit([mixed])
    assert report.count(outcome=RequestOutcome.REPLIED, reason=StopReason.OUTPUT_LIMIT) == 9
    assert report.count(model=CLAUDE, reason=StopReason.OUTPUT_LIMIT) == 1
    assert report.count() == report.lines


def test_chunks_merged_equal_one_pass(tmp_path: Path) -> None:
    """Reports of two files merged give the counts and ids of one report over both."""
    a = write_jsonl(tmp_path / "a.jsonl", [c.line for c in OPENAI])
    b = write_jsonl(tmp_path / "b.jsonl", [c.line for c in ANTHROPIC])
    whole = audit([a, b])
    merged = audit([a])
    merged.merge(audit([b]))
    assert merged.counts == whole.counts
    assert merged.files == whole.files == [str(a), str(b)]
    for group in whole.counts:
        assert list(merged.ids(group)) == list(whole.ids(group))


def test_audit_reads_folders_and_each_file_once(tmp_path: Path) -> None:
    """From Python too, a folder is its results files and a file named twice is read once."""
    (tmp_path / "in").mkdir()
    a = write_jsonl(tmp_path / "in" / "a.jsonl", [c.line for c in OPENAI])
    b = write_jsonl(tmp_path / "in" / "b.jsonl", [c.line for c in ANTHROPIC])
    once = audit([a, b])
    for named in ([a, a, b], [tmp_path / "in"], [a, tmp_path / "in", b]):
        report = audit(named)
        assert report.counts == once.counts
        assert report.files == [str(a), str(b)]


def test_jobs_give_the_report_of_one_process(tmp_path: Path) -> None:
    """`jobs=2` (a process pool over line-aligned chunks) gives the very report of `jobs=1`."""
    lines = many(ANTHROPIC, 3000)
    path = write_jsonl(tmp_path / "big.jsonl", lines)
    assert path.stat().st_size > 2 << 20  # big enough to be split
    one, two = audit([path]), audit([path], jobs=2)
    assert two.counts == one.counts
    assert two.lines == one.lines == len(lines)
    for group in one.counts:
        assert list(two.entries(group)) == list(one.entries(group))


def test_workers_are_spawned_while_another_thread_runs(tmp_path: Path) -> None:
    """With a thread alive a fork could deadlock: workers are spawned, and report the same."""
    import threading

    from stopkit.batch._audit import _context

    lines = many(ANTHROPIC, 3000)
    path = write_jsonl(tmp_path / "big.jsonl", lines)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert _context().get_start_method() == "spawn"
        with audit([path], jobs=2) as two, audit([path]) as one:
            assert two.counts == one.counts
            group = Group(CLAUDE, RequestOutcome.REPLIED, StopReason.OUTPUT_LIMIT, "max_tokens")
            assert list(two.ids(group)) == list(one.ids(group))
    finally:
        stop.set()
        thread.join()


def test_workers_are_forked_on_linux_when_this_is_the_only_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With no other thread alive, Linux forks (stopkit is imported already); elsewhere, spawn.

    The count of live threads is pinned: threads other tests leave running (an exporter's,
    a pool's) must not decide this test.
    """
    import threading

    from stopkit.batch._audit import _context

    monkeypatch.setattr(threading, "active_count", lambda: 1)
    expected = "fork" if sys.platform == "linux" else "spawn"
    assert _context().get_start_method() == expected
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert _context().get_start_method() == "spawn"


def test_a_report_crosses_processes_with_its_entries(mixed: Path) -> None:
    """A pickled report (as a pool or a cluster ships it) keeps its counts and its entries."""
    report = audit([mixed], spill_dir=mixed.parent)
    copy = pickle.loads(pickle.dumps(report))
    assert copy.counts == report.counts
    group = Group(None, RequestOutcome.EXPIRED)
    assert list(copy.ids(group)) == list(report.ids(group))


@pytest.mark.parametrize("text", ["plain", "with\nnewline", "back\\slash\\n", "cr\r", "é ✓ \0"])
def test_spill_keeps_any_id_exactly(tmp_path: Path, text: str) -> None:
    """An id with newlines, backslashes or any character reads back exactly."""
    spill = Spill(tmp_path)
    spill.add("k", text)
    spill.add("k", "next")
    assert [text for text, _ in spill.read("k")] == [text, "next"]


def test_the_default_spill_directory_goes_with_the_report() -> None:
    """A report made without `spill_dir` removes its temporary directory when closed."""
    report = Report()
    report.add(Record(1, RequestOutcome.EXPIRED, "anthropic", "a"))
    directory = Path(report.spill_dir)
    assert directory.is_dir()
    report.close()
    assert not directory.exists()


@pytest.mark.parametrize(
    ("record", "status"),
    [
        (Record(1, RequestOutcome.REPLIED, reason=StopReason.COMPLETED), 0),
        (Record(1, RequestOutcome.REPLIED, reason=StopReason.OUTPUT_LIMIT), 0),
        (Record(1, RequestOutcome.REPLIED, reason=StopReason.FILTERED), 0),
        (Record(1, RequestOutcome.EXPIRED), 0),
        (Record(1, RequestOutcome.CANCELED), 0),
        (Record(1, RequestOutcome.EMBEDDING), 0),
        (Record(1, RequestOutcome.REPLIED, reason=StopReason.UNKNOWN), 1),
        (Record(1, RequestOutcome.ERRORED, code="overloaded_error"), 1),
        (Record(1, RequestOutcome.UNREADABLE), 1),
        (Record(1, RequestOutcome.NO_BODY), 0),
        (Record(1, RequestOutcome.NOT_JSON), 1),
        (Record(1, RequestOutcome.UNKNOWN_SHAPE), 1),
        (Record(1, RequestOutcome.TRUNCATED_LINE), 1),
    ],
)
def test_exit_status_fails_on_unknown_errored_or_unreadable(record: Record, status: int) -> None:
    """Like `stopkit normalize`: 1 when a line is unknown, errored or unreadable, else 0."""
    report = Report()
    report.add(record)
    assert exit_status(report) == status
    report.close()


def test_json_report_lists_every_id_and_parses(mixed: Path) -> None:
    """`write_json` writes one document: overall counts, each model's groups with all ids."""
    report = audit([mixed])
    out = io.StringIO()
    write_json(report, out)
    data = json.loads(out.getvalue())
    assert data["lines"] == report.lines
    assert data["exit_status"] == 1
    ids = [i for m in data["models"] for g in m["groups"] for i in g["ids"]]
    assert len(ids) == report.lines
    by_model = {m["model"]: m for m in data["models"]}
    truncated = [g for g in by_model[GPT]["groups"] if g["reason"] == "output_limit"]
    assert truncated == [
        {"outcome": "replied", "reason": "output_limit", "detail": "max_tokens",
         "label": "output_limit/max_tokens", "lines": 1, "tokens": truncated[0]["tokens"],
         "ids": ["o-2"]}
    ]  # fmt: skip
    assert sum(g["lines"] for g in data["overall"]) == report.lines
    assert data["resubmit"] is None
