"""Scale: a generated 1,000,000-line results file is audited in constant memory.

Memory is measured in a fresh interpreter (its peak RSS from getrusage, before and after), so
the test runner's own allocations do not count. No time is asserted: speed is measured in
benchmarks/ (see benchmarks/README.md, "Batch audit").
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

LINES = 1_000_000
MAX_GROWTH_MB = 50

# One chat completion line per request; the outcome mix of a real batch: mostly completed,
# some truncated, a few filtered, expired and rate-limited, and every id different.
_OK = (
    '{{"id": "batch_req_{i}", "custom_id": "req-{i}", "response": {{"status_code": 200, '
    '"request_id": "req_{i}", "body": {{"id": "chatcmpl-{i}", "object": "chat.completion", '
    '"created": 1717000000, "model": "gpt-4o-mini-2024-07-18", "choices": [{{"index": 0, '
    '"message": {{"role": "assistant", "content": "Answer number {i}, in a sentence or two of '
    'text.", "refusal": null}}, "finish_reason": "{finish}"}}], "usage": {{"prompt_tokens": 31, '
    '"completion_tokens": 12, "total_tokens": 43}}}}}}, "error": null}}\n'
)
_EXPIRED = (
    '{{"id": "batch_req_{i}", "custom_id": "req-{i}", "response": null, "error": {{"code": '
    '"batch_expired", "message": "This request could not be executed before the completion '
    'window expired."}}}}\n'
)


def _generate(path: Path) -> None:
    finishes = ["stop"] * 90 + ["length"] * 6 + ["content_filter"] * 2
    with path.open("w") as f:
        for i in range(LINES):
            k = i % 100
            f.write(_EXPIRED.format(i=i) if k >= 98 else _OK.format(i=i, finish=finishes[k]))


_MEASURE = """
import io, json, os, resource, sys
from stopkit.batch import audit, write_json

def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux

small, big = sys.argv[1], sys.argv[2]
with audit([small]) as warm:  # imports, adapters and caches loaded before the baseline
    write_json(warm, io.StringIO())
before = peak_mb()
with audit([big]) as report, open(os.devnull, "w") as sink:
    write_json(report, sink)  # every id streamed back from disk
    lines, counts = report.lines, {g.label: n for g, n in report.groups}
print(json.dumps({"growth_mb": peak_mb() - before, "lines": lines, "counts": counts}))
"""


def test_a_million_lines_in_constant_memory(tmp_path: Path) -> None:
    """Auditing 1,000,000 lines (and writing every id as JSON) grows peak RSS by <= 50 MB."""
    big, small = tmp_path / "big.jsonl", tmp_path / "small.jsonl"
    _generate(big)
    with big.open() as f:
        small.write_text(f.readline())
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(small), str(big)],
        capture_output=True, text=True, check=True, timeout=900,
    )  # fmt: skip
    result = json.loads(done.stdout)
    assert result["lines"] == LINES
    assert result["counts"] == {
        "completed": 900_000, "output_limit/max_tokens": 60_000, "filtered/safety": 20_000,
        "expired": 20_000,
    }  # fmt: skip
    print(f"peak RSS growth over {LINES:,} lines: {result['growth_mb']:.1f} MB")
    assert result["growth_mb"] <= MAX_GROWTH_MB, result


_MEASURE_LONG = """
import json, resource, sys
from stopkit.batch import audit, RequestOutcome

def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux

small, big = sys.argv[1], sys.argv[2]
audit([small]).close()  # imports, adapters and caches loaded before the baseline
before = peak_mb()
with audit([big], max_line_size=1 << 20) as report:
    too_long = [e.line for g in report.counts if g.outcome is RequestOutcome.LINE_TOO_LONG
                for e in report.entries(g)]
    lines = report.lines
print(json.dumps({"growth_mb": peak_mb() - before, "lines": lines, "too_long": too_long}))
"""


def test_a_line_over_the_bound_is_never_held_whole(tmp_path: Path) -> None:
    """A 200 MB line under a 1 MiB bound is counted as too long; peak RSS grows by <= 50 MB."""
    big, small = tmp_path / "big.jsonl", tmp_path / "small.jsonl"
    first = _OK.format(i=0, finish="stop")
    small.write_text(first)
    with big.open("w") as f:
        f.write(first)
        f.write(first[:-60] + "x" * 200_000_000 + first[-60:])
        f.write(first)
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE_LONG, str(small), str(big)],
        capture_output=True, text=True, check=True, timeout=900,
    )  # fmt: skip
    result = json.loads(done.stdout)
    assert (result["lines"], result["too_long"]) == (3, [2])
    assert result["growth_mb"] <= MAX_GROWTH_MB, result
