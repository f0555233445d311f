"""The public surface: what `stopkit` exports, and what importing it costs."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import stopkit


def test_all_is_pinned_and_sorted() -> None:
    """`stopkit.__all__` is exactly the curated public API, sorted, and every name resolves."""
    expected = {
        "Adapter", "AdapterNotFound", "FilteredReply", "PausedReply", "Stop", "StopReason",
        "StopReasonError", "StopkitError", "StreamAccumulator", "ToolCall", "ToolResult",
        "TruncatedReply", "UnknownStopReason", "UnsupportedReply", "Usage", "__version__",
        "anormalize_stream", "detect", "get_adapter", "normalize", "normalize_all",
        "normalize_stream", "register_adapter", "registered_adapters", "unregister_adapter",
        "NoRecording", "RecordingTransport", "ReplayTransport", "wrap",
        # the loop driver
        "Action", "Continue", "DEFAULT_HANDLERS", "Escalate", "Escalated", "Escalation", "Finish",
        "Handler", "Loop", "LoopContext", "LoopEnded", "LoopEvent", "LoopSettings", "ModelReplied",
        "Outcome", "Retry", "Termination", "TextDelta", "ToolCalled", "ToolReturned", "ToolRun",
        "TurnStarted",
        "arun_loop", "ask_for_shorter", "escalate_filtered", "escalate_unknown",
        "finish_truncated", "finish_with_text", "resume_paused", "retry_with_more_tokens",
        "run_loop", "run_tool_calls",
        # the loop's failure handling
        "ModelCallError", "ModelCallFailed", "RetryPolicy",
        # durable runs
        "InvalidRunId", "Journal", "JournalError", "JournalMismatch", "JournalTooNew",
        "JournalUnreadable", "PostgresJournal", "RunLocked", "SqliteJournal", "tool",
        # the loop's controls: budget, compaction, hooks, permissions and approval
        "Budget", "BudgetWarning", "Compacted", "Defer", "HookStopped", "ModelCallContext",
        "Spent", "ToolDeferred", "ToolDenied", "UsageUnknown", "aresume_loop", "resume_loop",
        "AlreadyResumed",
    }  # fmt: skip
    assert set(stopkit.__all__) == expected
    assert list(stopkit.__all__) == sorted(stopkit.__all__)
    for name in stopkit.__all__:
        assert hasattr(stopkit, name), name


def test_adapters_all_is_every_public_name_it_defines() -> None:
    """`stopkit.adapters` exports the adapter-building parts, and nothing by accident."""
    import types

    import stopkit.adapters

    public = {
        name
        for name, value in vars(stopkit.adapters).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == set(stopkit.adapters.__all__)
    assert list(stopkit.adapters.__all__) == sorted(stopkit.adapters.__all__)


def test_stop_reason_values_are_the_closed_set() -> None:
    """The enum has exactly the seven documented, serialized values."""
    assert [r.value for r in stopkit.StopReason] == [
        "tool_request", "completed", "output_limit", "filtered", "paused", "stop_sequence",
        "unknown",
    ]  # fmt: skip


def test_import_loads_no_provider_sdk_nor_httpx() -> None:
    """`import stopkit` (and reading the registry) imports no provider SDK, framework nor httpx.

    The optional libraries are the ones ruff bans at module level (pyproject.toml), and httpx.
    """
    tidy = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())["tool"][
        "ruff"
    ]["lint"]["flake8-tidy-imports"]
    optional = [*tidy["banned-module-level-imports"], "httpx", "httpx2", "httpx_sse",
                "langchain_openai", "langchain_anthropic"]  # fmt: skip
    optional.remove("google")  # only google.genai: google is a namespace package
    assert {"boto3", "mistralai", "xai_sdk", "huggingface_hub"} <= set(optional)
    code = (
        "import sys, json, stopkit\n"
        "stopkit.registered_adapters()\n"
        f"optional = {optional!r}\n"
        "bad = sorted(m for m in sys.modules if any(m == o or m.startswith(o + '.')"
        " for o in optional))\n"
        "print(json.dumps(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    assert json.loads(out) == []


def test_stop_serializes_without_raw() -> None:
    """A Stop dumps to JSON without the raw reply, and its reason as the stable string."""
    stop = stopkit.Stop(
        reason=stopkit.StopReason.COMPLETED, provider="x", raw={"huge": "reply"}, text="hi"
    )
    dumped = json.loads(stop.model_dump_json())
    assert "raw" not in dumped
    assert dumped["reason"] == "completed"
