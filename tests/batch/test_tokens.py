"""Token totals: each reply's `Stop.usage` summed per model and group, and for replies to redo."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from stopkit import StopReason, UnsupportedReply, normalize
from stopkit.batch import Group, RequestOutcome, audit, render_text, write_json
from stopkit.batch._tokens import FIELDS
from tests.batch._fixtures import ALL, CLAUDE, anthropic_ok, message, write_jsonl


def _body(line: dict[str, Any]) -> Any:
    """The reply body of a results line of any format.

    The test's own reading of the shapes, kept apart from stopkit.batch on purpose: an oracle.
    """
    if "result" in line:
        return line["result"].get("message")
    if "modelOutput" in line:
        return line["modelOutput"]
    response = line.get("response")
    if isinstance(response, dict) and "body" in response:
        return response["body"]
    return response if response is not None else line if "candidates" in line else None


def _expected(lines: list[dict[str, Any]]) -> dict[str, int | None]:
    """Oracle: every readable reply's `stopkit.normalize(body).usage`, summed by field."""
    sums: dict[str, int | None] = dict.fromkeys(FIELDS)
    counted = 0
    for line in lines:
        body = _body(line)
        try:
            usage = normalize(body).usage if isinstance(body, dict) and body else None
        except UnsupportedReply:  # a body no adapter reads has no usage to count
            usage = None
        if usage is None:
            continue
        counted += 1
        for name in FIELDS:
            value = getattr(usage, name)
            if value is not None:
                sums[name] = (sums[name] or 0) + value
    return {**sums, "lines": counted or None}


def test_totals_are_the_sum_of_each_replys_usage(tmp_path: Path) -> None:
    """Over every documented line, the totals equal the sum of `normalize(body).usage`."""
    lines = [c.line for cases in ALL.values() for c in cases]
    with audit([write_jsonl(tmp_path / "r.jsonl", lines)]) as report:
        totals = report.token_totals()
    assert totals == _expected(lines)


def _anthropic_batch(tmp_path: Path) -> Path:
    usage = {"input_tokens": 100, "output_tokens": 50, "cache_read_input_tokens": 1000,
             "cache_creation_input_tokens": 200}  # fmt: skip
    lines = [
        anthropic_ok("a-1", message("end_turn", usage=usage)),
        anthropic_ok("a-2", message("max_tokens", usage={**usage, "output_tokens": 1024})),
        anthropic_ok("a-3", message("max_tokens", usage={**usage, "output_tokens": 1024})),
        anthropic_ok("a-4", message("end_turn", model="claude-sonnet-4-20250514", usage=usage)),
        {"custom_id": "a-5", "result": {"type": "expired"}},
    ]
    return write_jsonl(tmp_path / "anthropic.jsonl", lines)


def test_totals_per_model_group_and_to_redo(tmp_path: Path) -> None:
    """Sums per model and per group; the replies to redo are the cut-off ones."""
    with audit([_anthropic_batch(tmp_path)]) as report:
        assert report.token_totals() == {
            "input_tokens": 400, "output_tokens": 2148, "reasoning_tokens": None,
            "cache_read_tokens": 4000, "cache_write_tokens": 800, "total_tokens": None, "lines": 4,
        }  # fmt: skip
        redo = report.token_totals(redo=True)
        assert redo is not None
        assert (redo["input_tokens"], redo["output_tokens"], redo["lines"]) == (200, 2048, 2)
        claude = report.token_totals(model=CLAUDE)
        assert claude is not None
        assert claude["lines"] == 3
        truncated = Group(CLAUDE, RequestOutcome.REPLIED, StopReason.OUTPUT_LIMIT, "max_tokens")
        assert report.tokens[truncated][:2] == [200, 2048]


def test_tokens_survive_a_merge_and_a_process_pool(tmp_path: Path) -> None:
    """Merged reports (and `jobs=2`) add up token sums like one pass does."""
    path = _anthropic_batch(tmp_path)
    lines = path.read_text() * 3000  # big enough to be split into chunks
    big = tmp_path / "big.jsonl"
    big.write_text(lines)
    with audit([big]) as one, audit([big], jobs=2) as two:
        assert two.tokens == one.tokens
        total = one.token_totals()
        assert total is not None
        assert total["input_tokens"] == 400 * 3000


def test_tokens_in_the_text_and_json_reports(tmp_path: Path) -> None:
    """The text report has a token table with the figure to redo; the JSON has the sums."""
    with audit([_anthropic_batch(tmp_path)]) as report:
        text, doc = io.StringIO(), io.StringIO()
        render_text(report, text)
        write_json(report, doc)
    assert "tokens (as each provider counts)" in text.getvalue()
    assert "spent on replies to redo" in text.getvalue()
    data = json.loads(doc.getvalue())
    assert data["tokens"]["output_tokens"] == 2148
    assert data["tokens_to_redo"]["output_tokens"] == 2048
    [claude] = [m for m in data["models"] if m["model"] == CLAUDE]
    assert claude["tokens"]["lines"] == 3
    [cut] = [g for g in claude["groups"] if g["reason"] == "output_limit"]
    assert cut["tokens"]["output_tokens"] == 2048
