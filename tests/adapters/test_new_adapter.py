"""Adding a provider, tried for real: a throwaway built-in adapter passes every cross-adapter suite.

The test copies the checkout, adds an `acme` wire format the way CONTRIBUTING's checklist says
(its rules, its reader and adapter class, its registry line, its row in tests/_adapters.py, its
payload cases, its docs page) and runs the suites that read the one registry of adapters over
it. `ADDED` and `EDITS` are the whole of what a new provider takes: if a suite needed one more
table keyed by adapter name, this test would fail until that table moved into the registry row
(or the adapter). CONTRIBUTING quotes its count of files and lines (checked below).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_RULES = '''\
"""Acme's rules: the `halt` table (Acme's API reference, "halt"; a throwaway wire format)."""

from __future__ import annotations

from stopkit._stop import StopReason
from stopkit.adapters._reading import Verdict
from stopkit.adapters._rules import Rules

__all__ = ["HALTS", "RULES"]

HALTS: dict[str, Verdict] = {
    "DONE": (StopReason.COMPLETED, None),
    "CALLS": (StopReason.TOOL_REQUEST, None),
    "CUT": (StopReason.OUTPUT_LIMIT, "max_tokens"),
    "BLOCKED": (StopReason.FILTERED, "safety"),
}
"""`halt` -> (reason, detail)."""

RULES = Rules("acme", "halt", HALTS)
'''

_ADAPTER = '''\
"""The Acme adapter: `{"acme": 1, "halt", "model", "id", "output": {"text", "calls"}}`.

Example:
    >>> AcmeAdapter().normalize({"acme": 1, "halt": "DONE", "output": {"text": "Hi"}}).text
    'Hi'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stopkit._stop import Stop, ToolResult
from stopkit.adapters import _openai_chat_turns
from stopkit.adapters._acme_rules import HALTS, RULES
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._calls import tool_call
from stopkit.adapters._reading import Reading, identify
from stopkit.adapters._wire import listed, wire

__all__ = ["HALTS", "AcmeAdapter", "read"]


def read(reply: Any) -> Reading:
    """Read one Acme reply into its facts."""
    fields = wire(reply)
    reading = Reading(reply, fields.get("halt"))
    identify(reading, fields.get("model"), fields.get("id"))
    output = wire(fields.get("output"))
    text = output.get("text")
    reading.text = text if type(text) is str else ""
    reading.calls = [
        tool_call(said.get("id"), said.get("tool"), said.get("args"))
        for said in map(wire, listed(output.get("calls")))
    ]
    return reading


class AcmeAdapter(BaseAdapter):
    """Reads Acme replies; continues them with Chat-shaped messages, as Acme takes them."""

    name = "acme"
    rules = RULES
    read = staticmethod(read)
    detect_keys = ("acme",)

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is an Acme reply (`"acme": 1`)."""
        return type(reply) is dict and reply.get("acme") == 1

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the reply as a Chat-shaped assistant message."""
        return _openai_chat_turns.assistant_message(stop)

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one Chat-shaped `tool` message per result."""
        return _openai_chat_turns.tool_results(stop, results)
'''

_ROW = '''\
    Builtin(
        "acme",
        "acme",
        (),
        lambda r: ("halt",),
        lambda e: False,  # Acme does not stream
        transcript=transcripts.CHAT,
        duplicates=Duplicates(
            lambda: dup.payload("acme", "duplicate_ids.json"),
            lambda: dup.payload("acme", "done.json"),
            dup.by_role_tool("tool_call_id"),
            ("Paris",),
            (("dup", ""), ("dup", "")),
        ),
    ),
'''

_PAGE = '''\
# Acme

The `acme` adapter reads Acme's replies (a throwaway wire format).

<!-- generated: reason-table acme -->
<!-- generated:end -->

<!-- generated: tested-with httpx -->
<!-- generated:end -->
'''


def _case(about: str, reply: dict[str, object], expect: dict[str, object]) -> str:
    expect = {"raw_reason": reply["halt"], "provider": "acme", **expect}
    body = {"about": about, "source": "Acme's API reference", "reply": reply, "expect": expect}
    return json.dumps(body, indent=2) + "\n"


def _reply(
    halt: str, text: str = "", calls: tuple[dict[str, object], ...] = ()
) -> dict[str, object]:
    output = {"text": text, "calls": list(calls)}
    return {"acme": 1, "id": "acme-1", "model": "acme-large", "halt": halt, "output": output}


def _call(call_id: str, city: str) -> dict[str, object]:
    return {"id": call_id, "tool": "get_weather", "args": {"city": city}}


#: The files a new provider adds (path -> text).
ADDED = {
    "stopkit/adapters/_acme_rules.py": _RULES,
    "stopkit/adapters/acme.py": _ADAPTER,
    "docs/providers/acme.md": _PAGE,
    "tests/payloads/acme/done.json": _case(
        "DONE: completed.", _reply("DONE", "Sunny."), {"reason": "completed", "text": "Sunny."}
    ),
    "tests/payloads/acme/calls.json": _case(
        "CALLS with a call: a tool request.",
        _reply("CALLS", calls=(_call("c1", "Paris"),)),
        {"reason": "tool_request", "n_tool_calls": 1},
    ),
    "tests/payloads/acme/done_with_calls.json": _case(
        "DONE with a call pending: a tool request, whatever halt says.",
        _reply("DONE", calls=(_call("c1", "Paris"),)),
        {"reason": "tool_request", "notes": ["treated as tool_request"]},
    ),
    "tests/payloads/acme/cut.json": _case(
        "CUT: the token ceiling.", _reply("CUT", "Once"), {"reason": "output_limit",
                                                            "detail": "max_tokens"},
    ),
    "tests/payloads/acme/blocked.json": _case(
        "BLOCKED: filtered.", _reply("BLOCKED"), {"reason": "filtered", "detail": "safety"}
    ),
    "tests/payloads/acme/duplicate_ids.json": _case(
        "Two calls under one id: a tool request (the loop runs the first only).",
        _reply("CALLS", calls=(_call("dup", "Paris"), _call("dup", "Tokyo"))),
        {"reason": "tool_request", "n_tool_calls": 2},
    ),
}

#: The lines a new provider adds to files that exist (path -> (the line it goes after, lines)).
EDITS = {
    "stopkit/_registry.py": (
        '    "cohere.v1": "stopkit.adapters.cohere_v1:CohereV1Adapter",\n',
        '    "acme": "stopkit.adapters.acme:AcmeAdapter",\n',
    ),
    "tests/_adapters.py": ("BUILTINS: tuple[Builtin, ...] = (\n", _ROW),
    "mkdocs.yml": ("      - Ollama: providers/ollama.md\n", "      - Acme: providers/acme.md\n"),
}

#: The suites that read the registry of adapters, run over the new one (`-k acme` where they
#: are parametrized by adapter; whole where they check every row).
SUITES = [
    ("tests/test_registry.py", None),
    ("tests/test_detect_keys.py", None),
    ("tests/adapters/test_payload_table.py", "acme"),
    ("tests/adapters/test_properties_adapters.py", "acme"),
    ("tests/adapters/test_stop_fields.py", "acme"),
    ("tests/loop/test_executor.py", "acme"),
    ("tests/loop/test_transcripts.py", None),
    ("tests/otel/test_names.py", None),
    ("tests/test_docs.py", "reason_table or provider or generated"),
]


def _added_lines() -> int:
    return sum(text.count("\n") for text in ADDED.values()) + sum(
        new.count("\n") for _, new in EDITS.values()
    )


def test_what_a_new_adapter_takes() -> None:
    """A new provider takes the files and lines CONTRIBUTING quotes (kept in step by this test)."""
    files = len(ADDED) + len(EDITS)
    said = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert f"{files} files ({len(ADDED)} new), {_added_lines()} lines" in said


@pytest.mark.skipif(os.name != "posix", reason="copies the checkout and runs pytest in it")
def test_a_throwaway_adapter_passes_every_cross_adapter_suite(tmp_path: Path) -> None:
    """The new adapter, added as the checklist says, passes each suite that reads the registry."""
    for part in ("stopkit", "tests", "docs", "requirements"):
        shutil.copytree(ROOT / part, tmp_path / part,
                        ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))  # fmt: skip
    for name in ("pyproject.toml", "mkdocs.yml", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    for path, text in ADDED.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    for path, (anchor, new) in EDITS.items():
        old = (tmp_path / path).read_text(encoding="utf-8")
        assert anchor in old, f"{path} no longer holds the line a new adapter goes after"
        (tmp_path / path).write_text(old.replace(anchor, anchor + new, 1), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "HYPOTHESIS_PROFILE": "ci"}
    regenerate = [sys.executable, "-m", "tests.test_docs"]  # the docs' generated blocks
    subprocess.run(regenerate, cwd=tmp_path, env=env, check=True, capture_output=True)
    for suite, select in SUITES:
        command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", suite]
        if select is not None:
            command += ["-k", select]
        done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{suite}:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}"
        assert " passed" in done.stdout, f"{suite} ran nothing for acme:\n{done.stdout[-500:]}"
