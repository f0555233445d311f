"""The stopkit pytest plugin in other people's test runs: cheap when unused, old pytest too.

Timings are measured in benchmarks/ (plugin_start.py), not asserted here; what is checked is
why the plugin is cheap: importing it loads nothing of stopkit.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

import stopkit
from stopkit.testing import Payload, assert_stop, load_payloads

ROOT = Path(__file__).resolve().parent.parent
SUITE = Path(__file__).parent / "plugin_suite"


def test_importing_the_plugin_loads_no_module_of_stopkit() -> None:
    """Importing the plugin (pytest does at every start) brings in only stopkit's package shell."""
    code = (
        "import sys, json, pytest\n"
        "before = set(sys.modules)\n"
        "import stopkit.pytest_plugin\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    shell = ["stopkit", "stopkit._lazy", "stopkit._moved"]  # the package, its table of moved names
    assert json.loads(out) == [*shell, "stopkit.pytest_plugin"]


def test_notes_in_a_payload_folder_are_skipped() -> None:
    """A README.txt beside the payloads is prose, not a stream: the folder reads without it."""
    assert (SUITE / "payloads" / "README.txt").exists()
    assert [p.name for p in load_payloads(SUITE / "payloads")] == ["reply.json", "stream.txt"]


class _RepliesOnly:
    """An adapter that reads replies only: it has no `stream()`."""

    name = "replies-only"

    def detects(self, reply: Any) -> bool:
        return True

    def normalize(self, reply: Any) -> stopkit.Stop:
        return stopkit.Stop(reason=stopkit.StopReason.COMPLETED, provider=self.name, raw=reply)


def test_a_stream_payload_needs_an_adapter_that_streams() -> None:
    """A stream payload checked with an adapter lacking `stream()` fails saying just that."""
    stream = Payload(Path("cut.stream.json"), events=[{"type": "ping"}])
    with pytest.raises(stopkit.UnsupportedReply, match=r"has no stream\(\)") as caught:
        assert_stop(stream, adapter=_RepliesOnly(), reason="completed")
    assert "cut.stream.json is a stream" in str(caught.value)
    assert_stop(Payload(None, reply={"a": 1}), adapter=_RepliesOnly(), reason="completed")


def test_the_declared_lower_bounds_are_the_ones_ci_runs() -> None:
    """`stopkit[pytest]` declares the lowest pytest and pluggy, and CI runs the plugin on them."""
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["pytest"]
    bounds = dict(re.fullmatch(r"(\w+)>=([\d.]+)", item).groups() for item in extra)  # type: ignore[union-attr]
    assert set(bounds) == {"pytest", "pluggy"}
    ci = (ROOT / ".ci" / "run").read_text()
    for name, version in bounds.items():
        assert re.search(rf"{name}=={re.escape(version)}(\.0)*\b", ci), (name, version)
