"""The loop driver with the cohere and ollama adapters: a tool round trip and a truncation each.

Skipped where the loop driver (`stopkit.run_loop`, `stopkit.testing.ScriptedModel`) is absent.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import stopkit
from tests._payloads import PAYLOADS

testing = pytest.importorskip("stopkit.testing", reason="the loop driver is not in this checkout")
if not hasattr(stopkit, "run_loop"):
    pytest.skip("the loop driver is not in this checkout", allow_module_level=True)


def _reply(folder: str, name: str) -> dict[str, Any]:
    reply: dict[str, Any] = json.loads((PAYLOADS / folder / name).read_text())["reply"]
    return reply


ROUND_TRIPS = [
    pytest.param(
        "cohere",
        "tool_call.json",
        "complete.json",
        {
            "weather": lambda location: {"temp_c": 18},
            "cityAttractions": lambda city: "Golden Gate Park",
        },
        id="cohere",
    ),
    pytest.param(
        "ollama",
        "stop_tool_calls.json",
        "stop.json",
        {"weather": lambda city: {"temp_c": 3}, "search": lambda query: "7pm"},
        id="ollama",
    ),
]


@pytest.mark.parametrize(("folder", "tool_file", "final_file", "tools"), ROUND_TRIPS)
def test_tool_round_trip(folder: str, tool_file: str, final_file: str, tools: Any) -> None:
    """Both calls run, the transcript holds the assistant message and one result per call."""
    model = testing.ScriptedModel([_reply(folder, tool_file), _reply(folder, final_file)])
    outcome = stopkit.run_loop(model, [{"role": "user", "content": "hi"}], tools=tools)
    adapter = stopkit.get_adapter(folder)
    first = stopkit.normalize(_reply(folder, tool_file))
    final = stopkit.normalize(_reply(folder, final_file))
    assert outcome.termination.value == "completed"
    assert outcome.text == final.text
    # user, the assistant's tool request, one result per call, the final answer
    second_call = list(model.calls[1].messages)
    assert second_call[0] == {"role": "user", "content": "hi"}
    assert second_call[1:2] == adapter.assistant_message(first)
    results = second_call[2:]
    assert [m["role"] for m in results] == ["tool", "tool"]
    if folder == "cohere":
        assert [m["tool_call_id"] for m in results] == [c.id for c in first.tool_calls]
    else:
        assert [m["tool_name"] for m in results] == [c.name for c in first.tool_calls]


@pytest.mark.parametrize(
    ("folder", "cut_file", "final_file"),
    [("cohere", "max_tokens.json", "complete.json"), ("ollama", "length.json", "stop.json")],
)
def test_truncation_is_retried_with_a_raised_ceiling(
    folder: str, cut_file: str, final_file: str
) -> None:
    """A truncated reply is not appended; the call is retried once with a higher max_tokens."""
    model = testing.ScriptedModel([_reply(folder, cut_file), _reply(folder, final_file)])
    outcome = stopkit.run_loop(model, [{"role": "user", "content": "hi"}], max_tokens=100)
    assert outcome.termination.value == "completed"
    assert model.calls[1].overrides.get("max_tokens", 0) > 100
    truncated = stopkit.normalize(_reply(folder, cut_file)).text
    assert all(m.get("content") != truncated for m in model.calls[1].messages)
