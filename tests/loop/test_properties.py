"""Properties of the loop driver, for any scripted sequence of replies (hypothesis).

For every script: the run ends within its bounds; every tool call id in the transcript has
exactly one result; no truncated, filtered or unknown reply is in the transcript; a filtered
reply is the last one the model is asked for; an incomplete call is never run. Checked with the
fake adapter (any mix of reasons, details, calls and settings) and with the four real adapters,
whose transcripts must also validate against their SDK's own request types.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import stopkit
import stopkit.loop
from stopkit import StopReason
from stopkit.loop import DEFAULT_HANDLERS
from stopkit.testing import ScriptedModel
from tests.loop._fake import FAKE, USER, reply
from tests.loop._shapes import PROVIDERS, Shapes
from tests.loop._validate import assert_valid_transcript

REASONS = [r.value for r in StopReason]

raw_call = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["add", "boom", "nope"]),
        "args": st.fixed_dictionaries({"a": st.integers(0, 2), "b": st.integers(0, 2)}),
        "complete": st.booleans(),
    }
)
raw_reply = st.fixed_dictionaries(
    {
        "reason": st.sampled_from(REASONS),
        "text": st.sampled_from(["", "some text"]),
        "calls": st.lists(raw_call, max_size=3),
        "detail": st.sampled_from([None, "max_tokens", "context_window"]),
    }
)
policies = st.sampled_from(
    [
        DEFAULT_HANDLERS,
        {**DEFAULT_HANDLERS, StopReason.OUTPUT_LIMIT: stopkit.loop.ask_for_shorter},
        {**DEFAULT_HANDLERS, StopReason.OUTPUT_LIMIT: stopkit.loop.finish_truncated},
    ]
)
settings_strategy = st.fixed_dictionaries(
    {
        "max_turns": st.integers(1, 12),
        "max_pauses": st.integers(0, 3),
        "max_tokens": st.sampled_from([None, 100]),
        "synthesize_on_empty_final": st.booleans(),
        "handlers": policies,
    }
)


def build_script(raws: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Give every call a unique id (and its id as an argument, to see what ran); end answered."""
    script = []
    for i, raw in enumerate(raws):
        # What a paused reply sends back is its adapter's resume() (no pending client call).
        raw_calls = [] if raw["reason"] == "paused" else raw["calls"]
        calls = [
            {**c, "id": f"r{i}c{j}", "args": {**c["args"], "tag": f"r{i}c{j}"}}
            for j, c in enumerate(raw_calls)
        ]
        script.append(reply(raw["reason"], raw["text"], calls, raw["detail"]))
    script.append(reply("completed", "done"))
    return script


def check(script: list[dict[str, Any]], model: ScriptedModel, outcome: stopkit.Outcome,
          ran: list[str], settings: dict[str, Any]) -> None:  # fmt: skip
    # Ends within its bounds: max_turns calls, plus the one summing-up call.
    assert outcome.turns == len(model.calls) <= settings["max_turns"] + 1
    assert outcome.termination in set(stopkit.Termination)
    # Every call id in the transcript has exactly one result, and no result lacks its call.
    calls = [c["id"] for m in outcome.messages if m.get("role") == "assistant"
             for c in m["reply"]["calls"]]  # fmt: skip
    results = Counter(m["call_id"] for m in outcome.messages if m.get("role") == "tool")
    assert results == Counter(calls)
    assert all(n == 1 for n in results.values())
    # No truncated (nor filtered, nor unknown) reply in the transcript.
    kept = {m["reply"]["reason"] for m in outcome.messages if m.get("role") == "assistant"}
    assert not kept & {"output_limit", "filtered", "unknown"}
    # A filtered reply is never followed by another model call.
    consumed = script[: len(model.calls)]
    for index, item in enumerate(consumed):
        if item["reason"] == "filtered":
            assert index == len(consumed) - 1
    # Only complete calls of tool requests ever ran.
    runnable = {c["id"] for item in consumed if item["reason"] == "tool_request"
                for c in item["calls"] if c["complete"]}  # fmt: skip
    assert set(ran) <= runnable
    assert len(ran) == len(set(ran))


def tools(ran: list[str]) -> dict[str, Any]:
    def add(a: int, b: int, tag: str) -> int:
        ran.append(tag)
        return a + b

    def boom(tag: str, **_: Any) -> None:
        ran.append(tag)
        raise RuntimeError("boom")

    return {"add": add, "boom": boom}


@given(st.lists(raw_reply, max_size=12), settings_strategy)
def test_run_loop_properties(raws: list[dict[str, Any]], settings: dict[str, Any]) -> None:
    """run_loop, any script: bounded, every call answered once, nothing cut kept, filtered last."""
    script = build_script(raws)
    model = ScriptedModel(script)
    ran: list[str] = []
    outcome = stopkit.run_loop(model, [USER], adapter=FAKE, tools=tools(ran), **settings)
    check(script, model, outcome, ran, settings)


@given(st.lists(raw_reply, max_size=8), settings_strategy)
def test_arun_loop_properties(raws: list[dict[str, Any]], settings: dict[str, Any]) -> None:
    """arun_loop, any script: the same properties, with the calls of a turn run concurrently."""
    script = build_script(raws)
    model = ScriptedModel(script)
    ran: list[str] = []
    outcome = asyncio.run(
        stopkit.arun_loop(model.acall, [USER], adapter=FAKE, tools=tools(ran), **settings)
    )
    check(script, model, outcome, ran, settings)


KINDS = ["tools", "text", "empty", "truncated", "truncated_call", "refusal", "paused", "unknown"]


def provider_reply(p: Shapes, kind: str, i: int) -> tuple[Any, str]:
    """Build one reply of `kind` in `p`'s shape, and the reason the loop should see."""
    call = (f"c{i}", "get_weather", {"city": "Paris", "n": i})
    if kind == "tools":
        return p.tools([call, (f"d{i}", "get_weather", {"city": "Tokyo", "n": i})]), "tool_request"
    if kind in ("text", "empty"):
        return p.text("" if kind == "empty" else f"answer {i}"), "completed"
    if kind == "truncated":
        return p.truncated(f"part {i}"), "output_limit"
    if kind == "truncated_call":
        return p.truncated("", call), "output_limit"
    if kind == "refusal":
        return p.refusal(), "filtered"
    if kind == "paused" and not isinstance(p, type(PROVIDERS[1])):
        return p.paused(f"pause {i}"), "paused"
    return p.unknown(call), "unknown"


@given(
    st.sampled_from(PROVIDERS),
    st.lists(st.sampled_from(KINDS), max_size=10),
    st.integers(1, 10),
    st.booleans(),
)
def test_provider_loop_properties(
    p: Shapes, kinds: list[str], max_turns: int, synthesize: bool
) -> None:
    """Real adapters, any script: bounded, every call answered once, filtered is the last call."""
    built = [provider_reply(p, kind, i) for i, kind in enumerate(kinds)]
    script = [r for r, _ in built] + [p.text("done")]
    reasons = [reason for _, reason in built] + ["completed"]
    model = ScriptedModel(script)
    ran: list[str] = []

    def get_weather(city: str, n: int) -> str:
        ran.append(city)
        return "18 °C"

    outcome = stopkit.run_loop(
        model, [p.user], tools={"get_weather": get_weather}, max_turns=max_turns,
        max_tokens=100, synthesize_on_empty_final=synthesize,
    )  # fmt: skip
    assert outcome.turns == len(model.calls) <= max_turns + 1
    calls, results = p.pairs(outcome.messages)
    assert Counter(results) == Counter(calls)
    assert all(n == 1 for n in Counter(calls).values())
    for index, reason in enumerate(reasons[: len(model.calls)]):
        assert reason != "filtered" or index == len(model.calls) - 1
    assert all(r.call.complete for r in outcome.tool_runs)
    transcript = json.dumps(outcome.messages, ensure_ascii=False)
    for i, kind in enumerate(kinds):
        if kind == "truncated":
            assert f"part {i}" not in transcript
        if kind == "truncated_call":
            assert f'"c{i}"' not in transcript
    assert "can't help" not in transcript
    assert outcome.stop is None or outcome.stop.provider == p.name
    assert_valid_transcript(p.name, outcome.messages)
