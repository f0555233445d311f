"""What the loop's controls did is on the agent span: an event each, named `stopkit.<what>`.

The budget's warning and its end, a reply of unknown spend, a compaction, a denied or deferred
tool call and a hook that stopped the run; `on_event` gets the same events meanwhile.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from opentelemetry import trace

import stopkit
import stopkit.loop
from stopkit.loop import events
from stopkit.loop.events import LoopEvent
from stopkit.testing import ScriptedModel
from tests.loop._fake import FAKE, USER, add, call, reply
from tests.otel._telemetry import Node, Recorded

SPENT = {"usage": {"input_tokens": 10, "output_tokens": 5}}


def asking(*calls: dict[str, Any]) -> dict[str, Any]:
    return reply("tool_request", calls=list(calls), **SPENT)


def stopping(ctx: stopkit.loop.ModelCallContext) -> None:
    if ctx.turn == 2:
        raise PermissionError("quota spent")


def approve(call: stopkit.ToolCall) -> bool | str | stopkit.loop.Defer:
    return {"c1": True, "c2": "not on Fridays", "c3": stopkit.loop.Defer("a person looks")}[call.id]


CONTROLS = [
    (
        [asking(call("c1", a=1, b=1)), asking(call("c2", a=2, b=2)), reply("completed", "4")],
        {"budget": stopkit.loop.Budget(max_tokens=30, warn_at=0.5)},
        [("stopkit.budget_warning", {"stopkit.turn": 2, "stopkit.budget.spent_tokens": 15,
                                     "stopkit.budget.unknown_replies": 0,
                                     "stopkit.budget.max_tokens": 30}),
         ("stopkit.budget_exceeded", {"stopkit.turn": 2, "stopkit.tool_calls": 1})],
    ),
    (
        [reply("completed", "hi")],
        {"budget": stopkit.loop.Budget(cost=lambda usage: 0.0, max_cost=1.0)},
        [("stopkit.usage_unknown", {"stopkit.turn": 1, "stopkit.stop.provider": "fake",
                                    "stopkit.usage.missing": ("input_tokens", "output_tokens")})],
    ),
    (
        [asking(call("c1", a=1, b=1)), reply("completed", "2")],
        {"compact": lambda messages: messages[-1:], "compact_at_tokens": 2,
         "estimate_tokens": len},
        [("stopkit.compacted", {"stopkit.turn": 2, "stopkit.compaction.messages_before": 3,
                                "stopkit.compaction.messages_after": 1,
                                "stopkit.compaction.tokens_before": 3,
                                "stopkit.compaction.tokens_after": 1})],
    ),
    (
        [asking(call("c1", a=1, b=1), call("c2", a=2, b=2), call("c3", a=3, b=3))],
        {"approve": approve},
        [("stopkit.tool_denied", {"stopkit.turn": 1, "gen_ai.tool.name": "add",
                                  "gen_ai.tool.call.id": "c2", "stopkit.reason": "not on Fridays"}),
         ("stopkit.tool_deferred", {"stopkit.turn": 1, "gen_ai.tool.name": "add",
                                    "gen_ai.tool.call.id": "c3",
                                    "stopkit.reason": "a person looks"})],
    ),
    (
        [asking(call("c1", a=1, b=1)), reply("completed", "2")],
        {"before_model_call": stopping},
        [("stopkit.hook_stopped", {"stopkit.turn": 2, "stopkit.hook": "before_model_call",
                                   "error.type": "PermissionError"})],
    ),
]  # fmt: skip


# The loop event behind each control's span event (the budget's end is a termination).
EVENT_OF = {
    "stopkit.budget_warning": events.BudgetWarning,
    "stopkit.usage_unknown": events.UsageUnknown,
    "stopkit.compacted": events.Compacted,
    "stopkit.tool_denied": events.ToolDenied,
    "stopkit.tool_deferred": events.ToolDeferred,
    "stopkit.hook_stopped": events.HookStopped,
}


def controls_of(root: Node) -> list[tuple[str, dict[str, Any]]]:
    """The agent span's events, but for the empty-final-answer one (not a control's)."""
    return [event for event in root.events if event[0] != "stopkit.empty_final_answer"]


@pytest.mark.parametrize(
    ("script", "settings", "expected"),
    CONTROLS,
    ids=["budget", "usage-unknown", "compacted", "denied-and-deferred", "hook-stopped"],
)
def test_each_control_is_an_event_on_the_agent_span(
    script: Sequence[Any], settings: dict[str, Any], expected: list[Any], otel: Recorded
) -> None:
    """The control's event, with its facts, on the run's span; `on_event` told too."""
    told: list[LoopEvent] = []
    outcome = stopkit.run_loop(ScriptedModel(script), [USER], adapter=FAKE, tools={"add": add},
                               on_event=told.append, **settings)  # fmt: skip
    [root] = otel.trees()
    assert controls_of(root) == expected
    assert root.attributes["stopkit.termination"] == outcome.termination.value
    assert root.status == "UNSET"  # a control's decision is not an error
    told_controls = [type(event) for event in told if type(event) in EVENT_OF.values()]
    assert told_controls == [EVENT_OF[name] for name, _ in expected if name in EVENT_OF]
    assert trace.get_current_span() is trace.INVALID_SPAN


def test_a_denied_or_deferred_call_ends_its_tool_span(otel: Recorded) -> None:
    """The run that waits for a person leaves no tool span open: each ends with its kind."""
    script = [asking(call("c1", a=1, b=1), call("c2", a=2, b=2), call("c3", a=3, b=3))]
    stopkit.run_loop(ScriptedModel(script), [USER], adapter=FAKE, tools={"add": add},
                     approve=approve)  # fmt: skip
    [root] = otel.trees()
    tools = {c.attributes["gen_ai.tool.call.id"]: c for c in root.children[1:]}
    kinds = {call_id: span.attributes.get("error.type") for call_id, span in tools.items()}
    assert kinds == {"c1": None, "c2": "denied", "c3": "not_run"}
