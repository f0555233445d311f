"""The docs' "Batch results" report is the command's own output on the batch it describes.

The README shows an excerpt of that report: its lines, in order, are lines of the page's.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from stopkit.cli import main

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "batch.md"
README = ROOT / "README.md"
RESULTS = "msgbatch_01HkcTjaV5uDC8jWR4ZsDV8d_results.jsonl"


def _write_batch(folder: Path) -> None:
    """The page's batch: 20,000 Anthropic requests, results shuffled (seeded, so fixed)."""
    rng = random.Random(42)
    rows, requests = [], []
    error = {"type": "error", "request_id": None}
    for i in range(20000):
        cid = f"doc-{i + 1:05d}"
        requests.append({"custom_id": cid, "params": {
            "model": "claude-haiku-4-5-20251001", "max_tokens": 1024,
            "system": [{"type": "text", "text": "Summarize...",
                        "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": "..."}]}})  # fmt: skip
        r = rng.random()

        def message(stop: str, out: int, cid: str = cid, i: int = i) -> dict[str, object]:
            usage = {"input_tokens": rng.randint(300, 900), "output_tokens": out,
                     "cache_read_input_tokens": 2048, "cache_creation_input_tokens": 0}  # fmt: skip
            return {"custom_id": cid, "result": {"type": "succeeded", "message": {
                "id": f"msg_{i}", "type": "message", "role": "assistant",
                "model": "claude-haiku-4-5-20251001", "content": [{"type": "text", "text": "..."}],
                "stop_reason": stop, "stop_sequence": None, "usage": usage}}}  # fmt: skip

        if r < 0.9465:
            rows.append(message("end_turn", rng.randint(150, 700)))
        elif r < 0.9871:
            rows.append(message("max_tokens", 1024))
        elif r < 0.9874:
            rows.append(message("refusal", rng.randint(20, 60)))
        elif r < 0.9897:
            kind, text = ("overloaded_error", "Overloaded") if r < 0.9895 else (
                "invalid_request_error", "prompt is too long")  # fmt: skip
            failed = {**error, "error": {"type": kind, "message": text}}
            rows.append({"custom_id": cid, "result": {"type": "errored", "error": failed}})
        else:
            rows.append({"custom_id": cid, "result": {"type": "expired"}})
    rng.shuffle(rows)
    for name, lines in ((RESULTS, rows), ("requests.jsonl", requests)):
        (folder / name).write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_the_pages_report_is_real(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run on that batch, `stopkit batch` prints exactly the report the page shows."""
    text = PAGE.read_text()
    command = re.search(r"```sh\n(stopkit batch [^\n]+)\n```", text)
    shown = re.search(r"```text\n(stopkit batch: .*?)```", text, re.S)
    assert command is not None
    assert shown is not None
    _write_batch(tmp_path)
    monkeypatch.chdir(tmp_path)
    code = main(command[1].split()[1:])
    assert capsys.readouterr().out == shown[1]
    assert code == 1  # 46 errored requests
    assert len((tmp_path / "retry.jsonl").read_text().splitlines()) == 1048


def test_the_readme_excerpt_is_the_pages_report() -> None:
    """The README's report runs the page's command, and each line is the page's, in order."""
    page = PAGE.read_text()
    command = re.search(r"```sh\n(stopkit batch [^\n]+)\n```", page)
    shown = re.search(r"```text\n(stopkit batch: .*?)```", page, re.S)
    excerpt = re.search(
        r"<!-- batch-excerpt:[^>]*-->\n```text\n\$ ([^\n]+)\n(.*?)```", README.read_text(), re.S
    )
    assert command is not None
    assert shown is not None
    assert excerpt is not None
    assert excerpt[1] == command[1]
    report = iter(shown[1].splitlines())
    for line in excerpt[2].splitlines():
        assert line in report, line  # consumes the report up to the line: order is kept
