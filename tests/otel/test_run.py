"""A loop run's telemetry on every other path: metrics, failures, bounds, tools, async, context."""

from __future__ import annotations

import asyncio
import contextlib
import enum
from collections.abc import Sequence
from typing import Any

import pytest
from opentelemetry import trace

import stopkit
import stopkit.loop
import stopkit.loop.journal
from stopkit import ModelCallError, StopReason
from stopkit.loop import DEFAULT_HANDLERS, RetryPolicy
from stopkit.otel import _names
from stopkit.testing import ScriptedModel
from tests.loop._fake import FAKE, USER, call, reply
from tests.loop._shapes import PROVIDERS, TOOLS, Shapes, paris, tokyo
from tests.otel._telemetry import Node, Recorded


@pytest.fixture(params=PROVIDERS, ids=lambda p: p.name)
def p(request: pytest.FixtureRequest) -> Shapes:
    provider: Shapes = request.param
    return provider


def fake_run(script: Sequence[Any], **settings: Any) -> stopkit.Outcome:
    return stopkit.run_loop(ScriptedModel(script), [USER], adapter=FAKE, **settings)


def only(trees: list[Node]) -> Node:
    assert len(trees) == 1, trees
    return trees[0]


def no_span_left_current() -> bool:
    return trace.get_current_span() is trace.INVALID_SPAN


def test_metrics_follow_the_conventions(p: Shapes, otel: Recorded) -> None:
    """Token usage and duration histograms, the conventions' units and buckets; a stops count."""
    stopkit.run_loop(
        ScriptedModel([p.truncated("Paris is"), p.text("Paris is 18 °C.")]),
        [p.user],
        max_tokens=256,
    )
    provider, operation = _names.provider_name(p.name), _names.operation_name(p.name)
    model = only(otel.trees()).children[0].attributes["gen_ai.response.model"]
    base = {
        "gen_ai.operation.name": operation,
        "gen_ai.provider.name": provider,
        "gen_ai.response.model": model,
    }
    assert sorted(otel.points("gen_ai.client.token.usage"), key=str) == sorted(
        [({**base, "gen_ai.token.type": "input"}, (2, 20)),
         ({**base, "gen_ai.token.type": "output"}, (2, 10))], key=str,
    )  # fmt: skip
    durations = {str(sorted(a.items())): v[0] for a, v in otel.points(_names.DURATION)}
    agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": provider}
    assert durations == {str(sorted(base.items())): 2, str(sorted(agent.items())): 1}
    stops = {"gen_ai.provider.name": provider, "stopkit.stop.provider": p.name}
    assert sorted(otel.points("stopkit.stops"), key=str) == sorted(
        [({**stops, "stopkit.stop.reason": "output_limit", "stopkit.stop.detail": "max_tokens"}, 1),
         ({**stops, "stopkit.stop.reason": "completed"}, 1)], key=str,
    )  # fmt: skip
    tokens, duration = otel.metric(_names.TOKEN_USAGE), otel.metric(_names.DURATION)
    units = (tokens.unit, duration.unit, otel.metric(_names.STOPS).unit)
    assert units == ("{token}", "s", "{reply}")
    assert tuple(tokens.data.data_points[0].explicit_bounds) == _names.TOKEN_BUCKETS
    assert tuple(duration.data.data_points[0].explicit_bounds) == _names.DURATION_BUCKETS


def test_a_failed_try_is_a_span_of_its_own(otel: Recorded) -> None:
    """Each try of a retried model call is a span; the failed one says its error.type."""
    retry = RetryPolicy(attempts=2, backoff=0, jitter=False, retry_on=(TimeoutError,))
    fake_run([TimeoutError("slow"), reply("completed", "hi")], retry=retry)
    failed, answered = only(otel.trees()).children
    assert (failed.status, failed.attributes["error.type"]) == ("ERROR", "TimeoutError")
    assert failed.attributes["stopkit.turn"] == 1
    assert "stopkit.attempt" not in failed.attributes  # said only on a retry
    assert "gen_ai.response.finish_reasons" not in failed.attributes
    assert (answered.status, answered.attributes["stopkit.attempt"]) == ("UNSET", 2)
    assert answered.attributes["gen_ai.response.finish_reasons"] == ("stop",)
    errors = [a for a, _ in otel.points(_names.DURATION) if "error.type" in a]
    assert errors == [{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "fake",
                       "error.type": "TimeoutError"}]  # fmt: skip


def test_a_model_error_ends_the_run_span_in_error(otel: Recorded) -> None:
    """A model call failing for good: both spans in error, `model_error`, nothing left current."""
    with pytest.raises(ModelCallError):
        fake_run([ConnectionResetError("reset")])
    root = only(otel.trees())
    assert root.status == "ERROR"
    assert root.attributes["stopkit.termination"] == "model_error"
    assert root.attributes["error.type"] == "ConnectionResetError"
    assert [c.attributes["error.type"] for c in root.children] == ["ConnectionResetError"]
    assert no_span_left_current()


def test_a_model_error_after_a_turn_claims_no_final_reason(otel: Recorded) -> None:
    """A call failing for good after a tool turn: the agent span claims no final finish reason."""
    with pytest.raises(ModelCallError):
        fake_run(
            [reply("tool_request", calls=[call("c1", a=1, b=2)]), ConnectionResetError("reset")],
            tools={"add": lambda a, b: a + b},
        )
    root = only(otel.trees())
    assert root.attributes["stopkit.termination"] == "model_error"
    assert "gen_ai.response.finish_reasons" not in root.attributes
    assert "stopkit.stop.reason" not in root.attributes
    assert [c.attributes.get("gen_ai.response.finish_reasons") for c in root.children] == [
        ("tool_call",), None, None
    ]  # the tool turn's call, its tool, the failed call


def test_a_handler_that_raises_ends_the_run_span(otel: Recorded) -> None:
    """A run that raises out of a handler still ends its span, in error, with the type."""

    def broken(ctx: stopkit.loop.LoopContext) -> stopkit.loop.Action:
        raise ValueError("handler bug")

    with pytest.raises(ValueError, match="handler bug"):
        fake_run([reply("completed", "hi")], handlers={**DEFAULT_HANDLERS,
                                                       StopReason.COMPLETED: broken})  # fmt: skip
    root = only(otel.trees())
    assert (root.status, root.attributes["error.type"]) == ("ERROR", "ValueError")
    assert "stopkit.termination" not in root.attributes
    assert len(root.children) == 1  # the model call had ended before
    assert no_span_left_current()


def test_a_cancelled_run_ends_every_span(otel: Recorded) -> None:
    """Cancelling `arun_loop` mid-tool: the tool and agent spans end, `cancelled`."""
    started = asyncio.Event()

    async def hang(city: str) -> str:
        started.set()
        await asyncio.sleep(60)
        return city

    async def main() -> None:
        calls = [call("c1", "hang", city="Paris"), call("c2", "hang", city="Rome")]
        model = ScriptedModel([reply("tool_request", calls=calls)])
        task = asyncio.ensure_future(
            stopkit.arun_loop(model.acall, [USER], adapter=FAKE, tools={"hang": hang})
        )
        await started.wait()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        assert no_span_left_current()

    asyncio.run(main())
    root = only(otel.trees())
    assert root.attributes["stopkit.termination"] == "cancelled"
    assert (root.status, root.attributes["error.type"]) == ("ERROR", "cancelled")
    tools = [c for c in root.children if c.name == "execute_tool hang"]
    assert [(t.status, t.attributes["error.type"]) for t in tools] == [("ERROR", "cancelled")] * 2


def _interrupted_sync() -> None:
    def call_model(messages: list[Any], **overrides: Any) -> Any:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        stopkit.run_loop(call_model, [USER], adapter=FAKE)


def _cancelled_async() -> None:
    async def main() -> None:
        started = asyncio.Event()

        async def call_model(messages: list[Any], **overrides: Any) -> Any:
            started.set()
            await asyncio.sleep(60)

        task = asyncio.ensure_future(stopkit.arun_loop(call_model, [USER], adapter=FAKE))
        await started.wait()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(main())


@pytest.mark.parametrize("cut", [_interrupted_sync, _cancelled_async], ids=["interrupt", "cancel"])
def test_a_model_call_cut_short_records_its_duration(cut: Any, otel: Recorded) -> None:
    """A model call the run was cut short in is timed like any failed call: `error.type`."""
    cut()
    [call_span] = only(otel.trees()).children
    assert (call_span.status, call_span.attributes["error.type"]) == ("ERROR", "cancelled")
    timed = sorted((a["gen_ai.operation.name"], a.get("error.type"), v[0])
                   for a, v in otel.points(_names.DURATION))  # fmt: skip
    assert timed == [("chat", "cancelled", 1), ("invoke_agent", "cancelled", 1)]
    assert no_span_left_current()


@pytest.mark.parametrize(
    ("tools", "settings", "kind"),
    [
        ({"add": lambda a, b: a + b}, {}, None),
        ({"add": lambda a, b: 1 / 0}, {}, "ZeroDivisionError"),
        ({}, {}, "unknown_tool"),
        ({"add": lambda a, b: __import__("time").sleep(5)}, {"tool_timeout": 0.05}, "timeout"),
        ({"add": lambda a, b: object()}, {}, "unencodable_result"),
    ],
    ids=["ok", "raised", "unknown-tool", "timeout", "unencodable"],
)
def test_tool_span_error_type(
    tools: dict[str, Any], settings: dict[str, Any], kind: str | None, otel: Recorded
) -> None:
    """A failed tool call's span is in error with a short, stable error.type."""
    fake_run([reply("tool_request", calls=[call("c1", a=1, b=2)]), reply("completed", "ok")],
             tools=tools, **settings)  # fmt: skip
    span = only(otel.trees()).children[1]
    assert span.name == "execute_tool add"
    assert span.attributes.get("error.type") == kind
    assert span.status == ("UNSET" if kind is None else "ERROR")


@pytest.mark.parametrize(
    ("script", "settings", "event"),
    [
        ([reply("tool_request", calls=[call("c1", a=1, b=2)])], {"max_turns": 1},
         "stopkit.max_turns"),
        ([reply("tool_request", calls=[call(f"c{i}", a=1, b=2)]) for i in range(4)], {},
         "stopkit.loop_detected"),
        ([reply("tool_request", calls=[call("c1", a=1, b=2)])], {"deadline": 0.0},
         "stopkit.deadline"),
    ],
    ids=["max_turns", "loop_detected", "deadline"],
)  # fmt: skip
def test_a_safety_net_is_an_event(
    script: list[Any], settings: dict[str, Any], event: str, otel: Recorded
) -> None:
    """The safety net that ended a run is an event on the agent span, named after it."""
    outcome = fake_run(script, tools={"add": lambda a, b: a + b}, **settings)
    root = only(otel.trees())
    facts = {"stopkit.turn": outcome.turns, "stopkit.tool_calls": len(outcome.tool_runs)}
    assert (event, facts) in root.events
    assert root.attributes["stopkit.termination"] == outcome.termination.value
    assert root.status == "UNSET"  # a safety net is the loop's decision, not an error


def test_an_unusable_summing_up_reply_is_a_discard_event(otel: Recorded) -> None:
    """The summing-up call's reply that cannot be the answer is thrown away: an event, its cost."""
    fake_run(
        [reply("completed", ""), reply("unknown", usage={"input_tokens": 4, "output_tokens": 2})],
        synthesize_on_empty_final=True,
    )
    root = only(otel.trees())
    discard = {
        "stopkit.stop.reason": "unknown",
        "stopkit.stop.provider": "fake",
        "stopkit.stop.raw_reason": "unknown",
        "stopkit.wasted.input_tokens": 4,
        "stopkit.wasted.output_tokens": 2,
    }
    assert root.events[0] == ("stopkit.discard", discard)
    assert root.attributes["stopkit.wasted.output_tokens"] == 2


def test_spans_nest_under_the_call_and_the_tool(otel: Recorded) -> None:
    """What call_model and a tool record themselves nests under the model-call and tool spans."""
    tracer = otel.tracer_provider.get_tracer("app")
    model = ScriptedModel([reply("tool_request", calls=[call("c1", "look")]), reply("completed")])

    def call_model(messages: list[Any], **overrides: Any) -> Any:
        with tracer.start_as_current_span("http POST"):
            return model(messages, **overrides)

    def look() -> str:
        with tracer.start_as_current_span("db query"):
            return "found"

    stopkit.run_loop(call_model, [USER], adapter=FAKE, tools={"look": look}, tool_timeout=5)
    root = only(otel.trees())
    assert [(c.name, [g.name for g in c.children]) for c in root.children] == [
        ("chat", ["http POST"]),
        ("execute_tool look", ["db query"]),  # run in a thread of its own (tool_timeout)
        ("chat", ["http POST"]),
    ]
    assert no_span_left_current()


async def test_concurrent_tools_each_have_their_span(p: Shapes, otel: Recorded) -> None:
    """In `arun_loop` the calls of a turn run at once, each in its own span under the agent."""
    tracer = otel.tracer_provider.get_tracer("app")

    async def weather(city: str) -> dict[str, Any]:
        with tracer.start_as_current_span(f"lookup {city}"):
            await asyncio.sleep(0.01)
            return TOOLS["get_weather"](city)

    model = ScriptedModel([p.tools([paris(), tokyo()]), p.text("Both.")])
    await stopkit.arun_loop(model.acall, [p.user], tools={"get_weather": weather})
    root = only(otel.trees())
    tools = [c for c in root.children if c.name == "execute_tool get_weather"]
    found = sorted((t.attributes["gen_ai.tool.call.id"], [g.name for g in t.children])
                   for t in tools)  # fmt: skip
    assert found == [("call_p", ["lookup Paris"]), ("call_t", ["lookup Tokyo"])]
    assert no_span_left_current()


def test_the_agent_span_is_current_in_handlers(otel: Recorded) -> None:
    """A handler (a compaction hook, an audit) runs under the run's agent span."""
    seen: list[str] = []

    def audited(ctx: stopkit.loop.LoopContext) -> stopkit.loop.Action:
        seen.append(trace.get_current_span().name)  # type: ignore[attr-defined]
        return stopkit.loop.Finish()

    fake_run([reply("completed", "hi")],
             handlers={**DEFAULT_HANDLERS, StopReason.COMPLETED: audited})  # fmt: skip
    assert seen == ["invoke_agent"]
    assert no_span_left_current()


def test_a_durable_run_traces_only_the_calls_it_makes(tmp_path: Any, otel: Recorded) -> None:
    """Rerunning a recorded run replays its steps: no model-call or tool span, the same usage."""
    journal = stopkit.loop.journal.SqliteJournal(tmp_path / "runs.db")
    script = [reply("tool_request", calls=[call("c1", a=1, b=2)], usage={"output_tokens": 3}),
              reply("completed", "3", usage={"output_tokens": 1})]  # fmt: skip
    settings = {"tools": {"add": lambda a, b: a + b}, "journal": journal, "run_id": "r1"}
    first = fake_run(script, **settings)
    again = fake_run([], **settings)  # a live model call would find no reply
    assert again.usage == first.usage
    live, replayed = otel.trees()
    assert [c.name for c in live.children] == ["chat", "execute_tool add", "chat"]
    assert replayed.children == []
    assert replayed.attributes["stopkit.termination"] == "completed"
    assert replayed.attributes["gen_ai.usage.output_tokens"] == 4
    journal.close()


def test_a_replayed_run_counts_as_the_live_one(tmp_path: Any, otel: Recorded) -> None:
    """A durable run replayed whole, adapter detected: its agent span says what the live one did.

    Anthropic counts cache reads apart from `input_tokens`; the conventions' input count adds
    them in, which needs the adapter the replies were read with.
    """
    p = PROVIDERS[0]
    assert p.name == "anthropic"
    cached = {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 100}
    script = [{**p.tools([paris()]), "usage": cached}, {**p.text("18 °C."), "usage": cached}]
    journal = stopkit.loop.journal.SqliteJournal(tmp_path / "runs.db")
    settings = {"tools": TOOLS, "journal": journal, "run_id": "r1"}
    stopkit.run_loop(ScriptedModel(script), [p.user], **settings)
    stopkit.run_loop(ScriptedModel([]), [p.user], **settings)  # every step replayed
    journal.close()
    live, replayed = otel.trees()
    facts = ("gen_ai.provider.name", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens")
    assert [replayed.attributes.get(k) for k in facts] == [live.attributes[k] for k in facts]
    assert live.attributes["gen_ai.usage.input_tokens"] == 220
    runs = [(a.get("gen_ai.provider.name"), count) for a, (count, _) in otel.points(_names.DURATION)
            if a["gen_ai.operation.name"] == "invoke_agent"]  # fmt: skip
    assert runs == [("anthropic", 2)]  # both runs, under one attribute set


def test_a_refused_resume_leaves_no_span_behind(otel: Recorded) -> None:
    """`resume_loop` refusing an async `call_model` starts no run: no agent span, none current."""
    model = ScriptedModel([reply("tool_request", calls=[call("c1", a=1, b=2)])])
    outcome = asyncio.run(stopkit.arun_loop(model.acall, [USER], adapter=FAKE,
                                            tools={"add": lambda a, b: a + b},
                                            approve=lambda call: stopkit.loop.Defer()))  # fmt: skip
    with pytest.raises(TypeError, match="aresume_loop"):
        stopkit.resume_loop(outcome, {"c1": True})
    assert no_span_left_current()
    assert [root.name for root in otel.trees()] == ["invoke_agent"]  # the first run's alone


class _Sent(enum.Enum):
    """A custom adapter's own enum of stop values (an SDK enum, say)."""

    DONE = "done"


PLAIN = (str, bool, int, float)


def _is_attribute_value(value: Any) -> bool:
    """What OpenTelemetry attributes hold: a primitive, or a sequence of one primitive type."""
    if type(value) in PLAIN:
        return True
    return type(value) is tuple and len({type(v) for v in value}) <= 1 and all(
        type(v) in PLAIN for v in value
    )


@pytest.mark.parametrize(
    ("raw", "shown"),
    [(_Sent.DONE, "done"), ({"code": 1}, None), (["a", 1], None), (None, None), (2.5, 2.5)],
    ids=["enum", "dict", "mixed-list", "none", "float"],
)
def test_only_attribute_values_reach_the_spans(raw: Any, shown: Any, otel: Recorded) -> None:
    """A custom adapter's raw value, a call without an id: spans get only what attributes hold."""
    odd_call = {"id": None, "name": "add", "args": {"a": 1, "b": 2}}
    fake_run([reply("tool_request", calls=[odd_call], raw=raw), reply("completed", "3", raw=raw)],
             tools={"add": lambda a, b: a + b})  # fmt: skip
    root = only(otel.trees())
    nodes = [root, *root.children]
    for each in nodes:
        for attributes in (each.attributes, *(e for _, e in each.events)):
            bad = {k: v for k, v in attributes.items() if not _is_attribute_value(v)}
            assert bad == {}, each.name
    assert [c.attributes.get("stopkit.stop.raw_reason") for c in nodes if c.kind == "CLIENT"] == [
        shown, shown]  # fmt: skip
    assert root.attributes.get("stopkit.stop.raw_reason") == shown


@pytest.mark.parametrize(
    ("usages", "unknown"),
    [
        ([{"input_tokens": 3, "output_tokens": 1}, {"input_tokens": 4, "output_tokens": 2}], None),
        ([{"input_tokens": 3, "output_tokens": 1}, None], 1),
        ([{"input_tokens": 3}, None], 2),
    ],
)  # fmt: skip
def test_a_partial_total_of_tokens_says_so(
    usages: list[Any], unknown: int | None, otel: Recorded
) -> None:
    """Replies that did not say their tokens are counted on the agent span: its total is partial."""
    first, last = usages
    fake_run(
        [
            reply("tool_request", calls=[call("c1", a=1, b=2)], usage=first),
            reply("completed", "3", usage=last),
        ],
        tools={"add": lambda a, b: a + b},
    )
    root = only(otel.trees())
    assert root.attributes.get("stopkit.usage.unknown_replies") == unknown
