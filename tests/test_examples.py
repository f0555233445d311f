"""The examples in examples/ run offline, as a user would run them, and show what they claim."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

#: example -> lines its output must contain
EXPECTED = {
    "quickstart.py": [
        "anthropic tool call  tool_request",
        "openai forced tool   tool_request  raw='stop'",
        "gemini STOP + call   tool_request  raw='STOP'",
        "anthropic truncated  output_limit",
        "openai refusal       filtered",
        "new provider value   unknown       raw='budget_exhausted'",
    ],
    "existing_loop.py": [
        "turn 1: tool_request (finish_reason 'stop')",
        "turn 2: output_limit (finish_reason 'length')",
        "answer: Order A-1042 shipped yesterday and arrives Thursday.",
    ],
    "wrap_client.py": [
        "on_stop: tool_request (raw 'tool_use')",
        "Message ['text', 'tool_use']",
        "raised TruncatedReply; partial text kept on the Stop: 'Paris is'",
    ],
    "own_adapter.py": ["5 passed"],
    "durable_dbos.py": [
        "tool: charge the card (key order-1042/tool_call_3_0)",
        "result: completed: Order 1042 is on its way.",
    ],
}


def test_every_example_is_checked() -> None:
    """Each example script has its expectations here (or its own test, named in the set)."""
    # loop_offline.py is run by test_loop, batch_dask.py by tests/batch/test_dask_example.py.
    scripts = {p.name for p in EXAMPLES.glob("*.py")} - {"loop_offline.py", "batch_dask.py"}
    assert scripts == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs_offline(name: str) -> None:
    """The example exits 0 in a fresh interpreter and prints what it is there to show."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        capture_output=True, text=True, timeout=120, cwd=EXAMPLES.parent,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    for line in EXPECTED[name]:
        assert line in done.stdout, f"{name}: {line!r} not in:\n{done.stdout}"


def test_own_adapter_needs_only_stopkit_and_pytest() -> None:
    """`python examples/own_adapter.py` passes with no pytest plugin but stopkit's loaded.

    As in an environment where only stopkit and pytest are installed: no pytest-asyncio, so
    no configuration of this repository may be needed.
    """
    import os

    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTEST_PLUGINS": "stopkit.pytest_plugin"}  # fmt: skip
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "own_adapter.py")],
        capture_output=True, text=True, timeout=120, cwd=EXAMPLES.parent, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 passed" in done.stdout
