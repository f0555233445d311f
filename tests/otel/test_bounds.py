"""Provider strings reach telemetry bounded: clipped on spans as in logs, few on metrics."""

from __future__ import annotations

from typing import Any

import stopkit
from stopkit._logsafe import LIMIT
from stopkit.otel._telemetry import STOP_SETS, StopCounts
from tests.otel._telemetry import Recorded

HUGE = 1_000_000


def _reply(finish: str, **message: Any) -> dict[str, Any]:
    return {
        "id": "r" * HUGE, "object": "chat.completion", "model": "m" * 200_000,
        "choices": [{"index": 0, "finish_reason": finish,
                     "message": {"role": "assistant", "content": "Done.", **message}}],
    }  # fmt: skip


def _strings(attributes: Any) -> list[str]:
    return [v for v in dict(attributes or {}).values() if isinstance(v, str)]


def test_huge_provider_strings_are_clipped_on_spans_and_metrics(otel: Recorded) -> None:
    """A 1 MB finish_reason, id, tool name or call id, a 200 KB model: nothing over the limit."""
    call = {"id": "c" * HUGE, "type": "function", "function": {"name": "f", "arguments": "{}"}}
    unknown = {"id": "c2", "type": "function", "function": {"name": "n" * HUGE, "arguments": "{}"}}
    replies = iter([_reply("tool_calls", tool_calls=[call, unknown]), _reply("x" * HUGE)])
    stopkit.run_loop(lambda messages, **o: next(replies), "Hi", tools={"f": lambda: "ok"})
    spans = {span.name.split(" ")[0]: span for span in otel.spans}
    assert set(spans) >= {"invoke_agent", "chat", "execute_tool"}
    for span in otel.spans:
        assert len(span.name) <= len("execute_tool ") + LIMIT, span.name[:50]
        for value in _strings(span.attributes) + [
            v for event in span.events for v in _strings(event.attributes)
        ]:
            assert len(value) <= LIMIT, (span.name, value[:50])
    chat = [s for s in otel.spans if s.name.startswith("chat")][-1]
    raw = dict(chat.attributes or {})["stopkit.stop.raw_reason"]
    assert (raw[:3], raw[-1], len(raw)) == ("xxx", "…", LIMIT)
    [tool] = [dict(s.attributes or {}) for s in otel.spans if s.name == "execute_tool f"]
    assert tool["gen_ai.tool.call.id"].startswith("ccc")
    for name in ("gen_ai.client.operation.duration", "gen_ai.client.token.usage", "stopkit.stops"):
        for attributes, _ in otel.points(name):
            assert all(len(v) <= LIMIT for v in _strings(attributes)), (name, attributes)
    calls = [a for a, _ in otel.points("gen_ai.client.operation.duration")
             if a["gen_ai.operation.name"] == "chat"]  # fmt: skip
    assert {a["gen_ai.response.model"] for a in calls} == {"m" * (LIMIT - 1) + "…"}


def test_reply_counts_are_kept_for_a_bounded_number_of_attribute_sets() -> None:
    """Past the limit of sets, replies are counted in the overflow set, as the SDK does."""
    counts = StopCounts()
    for i in range(STOP_SETS + 500):
        counts.add((("stopkit.stop.detail", f"d{i}"),))
    counts.add((("stopkit.stop.detail", "d0"),))  # a set kept already is still counted in it
    observed = {tuple(o.attributes.items()): o.value for o in counts.observe(None)}  # type: ignore[arg-type, union-attr]
    assert len(observed) == STOP_SETS + 1
    assert observed[(("otel.metric.overflow", True),)] == 500
    assert observed[(("stopkit.stop.detail", "d0"),)] == 2
    assert sum(observed.values()) == STOP_SETS + 501
