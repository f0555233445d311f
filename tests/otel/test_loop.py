"""A scripted loop run per core adapter, per path, gives exactly the expected spans and events.

The replies are the loop suite's (`tests/loop/_shapes.py`), in each provider's wire shape; the
expected trees are written out below from the conventions' names and each provider's facts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

import stopkit
from stopkit.testing import ScriptedModel
from tests.loop._shapes import PROVIDERS, TOOLS, Shapes, paris
from tests.otel._telemetry import Node, Recorded

# What each provider's replies say, by the conventions: gen_ai.provider.name, the operation,
# and the response id and model the scripted replies carry.
FACTS = {
    "anthropic": ("anthropic", "chat", "msg_01", "claude-sonnet-4-5"),
    "openai.chat": ("openai", "chat", "chatcmpl-1", "gpt-4o"),
    "openai.responses": ("openai", "chat", "resp_1", "gpt-5"),
    "gemini": ("gcp.gen_ai", "generate_content", "r1", "gemini-2.5-flash"),
}

# Where each wire format sends its stop value: the raw reason must be it, exactly.
SENT: dict[str, Callable[[dict[str, Any]], Any]] = {
    "anthropic": lambda reply: reply["stop_reason"],
    "openai.chat": lambda reply: reply["choices"][0]["finish_reason"],
    "openai.responses": lambda reply: reply["status"],
    "gemini": lambda reply: reply["candidates"][0]["finishReason"],
}

MODEL = "model-x"  # the model every scripted call asks for (`overrides`)


def stop_facts(
    p: Shapes, reply: dict[str, Any], reason: str, detail: str | None
) -> dict[str, Any]:
    facts = {
        "stopkit.stop.reason": reason,
        "stopkit.stop.provider": p.name,
        "stopkit.stop.raw_reason": SENT[p.name](reply),
    }
    if detail is not None:
        facts["stopkit.stop.detail"] = detail
    return facts


def chat(
    p: Shapes,
    turn: int,
    reply: dict[str, Any],
    finish: str,
    reason: str,
    detail: str | None = None,
    max_tokens: int | None = None,
) -> Node:
    """The span of one model call that got `reply`."""
    provider, operation, response_id, response_model = FACTS[p.name]
    attributes = {
        "gen_ai.operation.name": operation,
        "gen_ai.provider.name": provider,
        "gen_ai.request.model": MODEL,
        "gen_ai.response.id": response_id,
        "gen_ai.response.model": response_model,
        "gen_ai.response.finish_reasons": (finish,),
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 5,
        "stopkit.turn": turn,
        **stop_facts(p, reply, reason, detail),
    }
    if max_tokens is not None:
        attributes["gen_ai.request.max_tokens"] = max_tokens
    return Node(f"{operation} {MODEL}", "CLIENT", attributes)


def tool(call_id: str, turn: int) -> Node:
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.type": "function",
        "stopkit.turn": turn,
    }
    return Node("execute_tool get_weather", "INTERNAL", attributes)


def agent(
    p: Shapes,
    last: dict[str, Any],
    termination: str,
    turns: int,
    finish: str,
    reason: str,
    detail: str | None,
    children: list[Node],
    events: list[tuple[str, dict[str, Any]]],
    tool_calls: int = 0,
    wasted: bool = False,
) -> Node:
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": FACTS[p.name][0],
        "gen_ai.response.finish_reasons": (finish,),
        "gen_ai.usage.input_tokens": 10 * turns,
        "gen_ai.usage.output_tokens": 5 * turns,
        "stopkit.termination": termination,
        "stopkit.turns": turns,
        "stopkit.tool_calls": tool_calls,
        **stop_facts(p, last, reason, detail),
    }
    if wasted:
        attributes["stopkit.wasted.input_tokens"] = 10
        attributes["stopkit.wasted.output_tokens"] = 5
    return Node("invoke_agent", "INTERNAL", attributes, events, children)


def run(p: Shapes, script: Sequence[Any], **settings: Any) -> stopkit.Outcome:
    settings.setdefault("tools", TOOLS)
    settings.setdefault("overrides", {"model": MODEL})
    return stopkit.run_loop(ScriptedModel(script), [p.user], **settings)


@pytest.fixture(params=PROVIDERS, ids=lambda p: p.name)
def p(request: pytest.FixtureRequest) -> Shapes:
    provider: Shapes = request.param
    return provider


def test_tool_turn(p: Shapes, otel: Recorded) -> None:
    """A tool request, its tool call, the answer: two model-call spans and a tool span."""
    first, last = p.tools([paris()]), p.text("18 °C.")
    outcome = run(p, [first, last])
    assert outcome.ok
    assert otel.trees() == [
        agent(
            p, last, "completed", 2, "stop", "completed", None,
            [
                chat(p, 1, first, "tool_call", "tool_request"),
                tool("call_p", 1),
                chat(p, 2, last, "stop", "completed"),
            ],
            [],
            tool_calls=1,
        )
    ]  # fmt: skip


def test_truncation_and_retry(p: Shapes, otel: Recorded) -> None:
    """A cut reply retried with max_tokens doubled: a retry event, both ceilings, its cost."""
    first, last = p.truncated("Paris is"), p.text("Paris is 18 °C.")
    run(p, [first, last], overrides={"model": MODEL, "max_tokens": 512})
    cut = stop_facts(p, first, "output_limit", "max_tokens")
    retry = {
        **cut,
        "stopkit.max_tokens.old": 512,
        "stopkit.max_tokens.new": 1024,
        "stopkit.wasted.input_tokens": 10,
        "stopkit.wasted.output_tokens": 5,
    }
    assert otel.trees() == [
        agent(
            p, last, "completed", 2, "stop", "completed", None,
            [
                chat(p, 1, first, "length", "output_limit", "max_tokens", max_tokens=512),
                chat(p, 2, last, "stop", "completed", max_tokens=1024),
            ],
            [("stopkit.retry", retry)],
            wasted=True,
        )
    ]  # fmt: skip


def test_refusal(p: Shapes, otel: Recorded) -> None:
    """A refusal is one model call, escalated: content_filter beside the provider's own value."""
    refused = p.refusal()
    outcome = run(p, [refused])
    detail = "safety" if p.name == "gemini" else "refusal"
    events = [
        (
            "stopkit.escalation",
            {
                **stop_facts(p, refused, "filtered", detail),
                "stopkit.escalation.reason": f"filtered ({detail})",
                "stopkit.turn": 1,
            },
        )
    ]
    if outcome.text == "":
        end = {"stopkit.turn": 1, "stopkit.tool_calls": 0, "stopkit.termination": "filtered"}
        events.append(("stopkit.empty_final_answer", end))
    assert otel.trees() == [
        agent(
            p, refused, "filtered", 1, "content_filter", "filtered", detail,
            [chat(p, 1, refused, "content_filter", "filtered", detail)],
            events,
        )
    ]  # fmt: skip


@pytest.mark.parametrize("p", [p for p in PROVIDERS if p.can_pause], ids=lambda p: p.name)
def test_pause_and_resume(p: Shapes, otel: Recorded) -> None:
    """A paused turn resumed: `paused` (no well-known value) then the answer, a resume event."""
    paused, last = p.paused("Searching."), p.text("Found it.")
    run(p, [paused, last])
    detail = {"anthropic": "server_tool_limit", "openai.responses": "background"}.get(
        p.name, "continuation"
    )
    resume = {**stop_facts(p, paused, "paused", detail), "stopkit.pauses": 1}
    assert otel.trees() == [
        agent(
            p, last, "completed", 2, "stop", "completed", None,
            [
                chat(p, 1, paused, "paused", "paused", detail),
                chat(p, 2, last, "stop", "completed"),
            ],
            [("stopkit.resume", resume)],
        )
    ]  # fmt: skip


def test_unknown(p: Shapes, otel: Recorded) -> None:
    """An unrecognized stop value is `error`, kept raw; its call is never run (no tool span)."""
    odd = p.unknown(paris())
    run(p, [odd])
    facts = stop_facts(p, odd, "unknown", "unrecognized")
    events = [
        (
            "stopkit.escalation",
            {**facts, "stopkit.escalation.reason": "unknown (unrecognized)", "stopkit.turn": 1},
        ),
        (
            "stopkit.empty_final_answer",
            {"stopkit.turn": 1, "stopkit.tool_calls": 0, "stopkit.termination": "unknown"},
        ),
    ]
    assert otel.trees() == [
        agent(
            p, odd, "unknown", 1, "error", "unknown", "unrecognized",
            [chat(p, 1, odd, "error", "unknown", "unrecognized")],
            events,
        )
    ]  # fmt: skip
