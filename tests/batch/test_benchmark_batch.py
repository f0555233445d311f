"""Keep the batch benchmark honest: its generated files read as the mix it claims (no timing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.batch import PROFILES, generate
from stopkit.batch import audit


@pytest.mark.parametrize("profile", list(PROFILES))
def test_generated_results_are_the_claimed_mix(tmp_path: Path, profile: str) -> None:
    """Of every 100 lines: 90 finished, 6 cut off, 2 filtered, 2 that did not run."""
    providers, length = PROFILES[profile]
    path = tmp_path / "results.jsonl"
    generate(path, 600, providers, length)
    with audit([path]) as report:
        by_label: dict[str, int] = {}
        for group, n in report.groups:
            label = group.label.split("/")[0].split(" ")[0]
            by_label[label] = by_label.get(label, 0) + n
        assert set(report.formats) == {
            {"chat": "openai", "anthropic": "anthropic", "gemini": "gemini"}[p] for p in providers
        }
    failed = by_label.pop("expired", 0) + by_label.pop("errored", 0)
    assert (by_label, failed) == ({"completed": 540, "output_limit": 36, "filtered": 12}, 12)
