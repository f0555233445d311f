"""`python -m benchmarks.otel [--repeats R] [--write]`: what telemetry adds to a loop run.

Side by side, under `stopkit.otel.instrument()` with the real OpenTelemetry SDK and without:
a `TracerProvider` whose only processor is a `SimpleSpanProcessor` over an exporter that drops
what it is given (the worst case: export runs in the loop's thread at every span's end), and a
`MeterProvider` with an `InMemoryMetricReader` (every measurement aggregated, never collected
while timed). The rows:

- the loop benchmark's conversation (`benchmarks/loops.py`: 20 tool turns of 2 calls and a
  final answer; an instant model replaying Anthropic reply dicts, an instant sync tool),
  uninstrumented and instrumented, per run;
- per model call and per tool call: the loop's telemetry hooks alone (`RunTrace.model_call` +
  `model_replied` with a real `Stop`; `tool_call` + `tool_result`), what the conversation's
  overhead is made of, timed in a tight loop (less noise than a difference of two runs);
- beside each, the SDK's own floor: a bare span with as many attributes (and for a model call
  the three histogram records), made directly with the SDK: what any instrumentation emitting
  the same telemetry pays; the rest is stopkit's share.

Every row is the best of R repeats, in CPU seconds of this process: the machine is shared and
loaded, its wall clock waits for other processes (the load average is printed with the table),
and the two setups are interleaved so that both see the same load. `--write` puts the table
into benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import contextvars
import datetime
import os
import platform
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.loops import CALLS_PER_TURN, LOOP_TURNS, tool_reply
from benchmarks.loops import stopkit_loop as conversation

HERE = Path(__file__).resolve().parent
START, END = "<!-- otel-table:start -->", "<!-- otel-table:end -->"
#: The targets (issue 28, restating issue 14's), in µs: stopkit's share over the SDK's floor.
TARGETS = {"model call": 30.0, "tool call": 10.0}


class Sdk:
    """The SDK set up as the benchmark uses it; `instrument()` points stopkit at it."""

    def __init__(self) -> None:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import (
            SimpleSpanProcessor,
            SpanExporter,
            SpanExportResult,
        )

        class Dropped(SpanExporter):
            def export(self, spans: Sequence[Any]) -> SpanExportResult:
                return SpanExportResult.SUCCESS

        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(Dropped()))
        self.meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])

    def instrument(self) -> None:
        import stopkit.otel

        stopkit.otel.instrument(self.tracer_provider, self.meter_provider)

    def close(self) -> None:
        import stopkit.otel

        stopkit.otel.uninstrument()
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


def hooks(sdk: Sdk) -> dict[str, Callable[[], Any]]:
    """A model call's and a tool call's telemetry hooks, as a run calls them.

    The run's agent span is made current and left open: call this, and the hooks, inside a
    copied context (`contextvars.copy_context().run`), which is then dropped.
    """
    import stopkit
    from stopkit.loop import _observe
    from stopkit.loop._settings import LoopSettings

    sdk.instrument()
    assert _observe.factory is not None
    run: Any = _observe.factory(LoopSettings())
    adapter = stopkit.get_adapter("anthropic")
    stop = stopkit.normalize(tool_reply(1, CALLS_PER_TURN))
    call = stop.tool_calls[0]
    result = stopkit.ToolResult(call_id=call.id, name=call.name, content=call.id)
    messages: list[Any] = []
    overrides: dict[str, Any] = {}

    def model() -> None:
        run.model_call(3, 1, messages, overrides, adapter)
        run.model_replied(stop, False)

    def tool() -> None:
        run.tool_call(3, 0, call)
        run.tool_result(3, 0, result)

    return {"model call": model, "tool call": tool}


def floors(sdk: Sdk) -> dict[str, Callable[[], Any]]:
    """The same spans and records made directly with the SDK: no stopkit at all."""
    from opentelemetry import context, trace
    from opentelemetry.trace import SpanKind

    tracer = sdk.tracer_provider.get_tracer("floor")
    meter = sdk.meter_provider.get_meter("floor")
    tokens = meter.create_histogram("floor.tokens", unit="{token}")
    seconds = meter.create_histogram("floor.duration", unit="s")
    parent = trace.set_span_in_context(tracer.start_span("invoke_agent"))
    start = {
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic", "stopkit.turn": 3,
    }  # fmt: skip
    end = {
        "gen_ai.response.finish_reasons": ("tool_call",), "stopkit.stop.reason": "tool_request",
        "stopkit.stop.provider": "anthropic", "stopkit.stop.raw_reason": "tool_use",
        "gen_ai.response.id": "msg_01", "gen_ai.response.model": "claude-sonnet-4-5",
        "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5,
    }  # fmt: skip
    metric = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic",
              "gen_ai.response.model": "claude-sonnet-4-5"}  # fmt: skip
    tool = {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup",
        "gen_ai.tool.call.id": "toolu_1", "gen_ai.tool.type": "function", "stopkit.turn": 3,
    }  # fmt: skip

    def model() -> None:
        span = tracer.start_span("chat", parent, SpanKind.CLIENT, start)
        token = context.attach(trace.set_span_in_context(span, parent))
        span.set_attributes(end)
        seconds.record(0.5, metric)
        tokens.record(10, {**metric, "gen_ai.token.type": "input"})
        tokens.record(5, {**metric, "gen_ai.token.type": "output"})
        span.end()
        context.detach(token)

    def tool_call() -> None:
        span = tracer.start_span("execute_tool lookup", parent, SpanKind.INTERNAL, tool)
        token = context.attach(trace.set_span_in_context(span, parent))
        span.end()
        context.detach(token)

    return {"model call": model, "tool call": tool_call}


def _cpu_per_call(fn: Callable[[], Any], calls: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - start) / calls


def _time_hooks(sdk: Sdk, keep: Callable[[str, float], None]) -> None:
    for name, fn in hooks(sdk).items():
        fn()
        keep(f"hooks: {name}", _cpu_per_call(fn, 2000))


def measure(repeats: int) -> dict[str, Any]:
    """Best-of-`repeats` CPU seconds of every row, the two setups interleaved."""
    run = conversation()
    run()  # imports, caches
    best: dict[str, float] = {}

    def keep(name: str, value: float) -> None:
        best[name] = min(best.get(name, value), value)

    load_before = os.getloadavg()[0]
    for _ in range(repeats):
        keep("run, uninstrumented", _cpu_per_call(run, 20))
        sdk = Sdk()
        try:
            sdk.instrument()
            run()  # the instrumented path's first run: lazy imports
            keep("run, instrumented", _cpu_per_call(run, 20))
            contextvars.copy_context().run(_time_hooks, sdk, keep)
            for name, fn in floors(sdk).items():
                fn()
                keep(f"floor: {name}", _cpu_per_call(fn, 2000))
        finally:
            sdk.close()
    return {"best": best, "load": (load_before, os.getloadavg()[0])}


def table(found: dict[str, Any], meta: dict[str, Any]) -> str:
    """The Markdown table of a run, with the two targets checked."""
    best = found["best"]
    calls = LOOP_TURNS * CALLS_PER_TURN
    plain, traced = best["run, uninstrumented"], best["run, instrumented"]
    out = [
        f"Run: {meta['date']}, stopkit at `{meta['commit']}`, best of {meta['repeats']}, CPU "
        f"time; {meta['cpus']} CPUs, CPython {meta['python']}, opentelemetry-sdk {meta['sdk']}; "
        f"load average {found['load'][0]:.1f} before, {found['load'][1]:.1f} after.",
        "",
        "| row | uninstrumented | instrumented | overhead |",
        "|---|---:|---:|---:|",
        f"| the loop conversation ({LOOP_TURNS + 1} model calls, {calls} tool calls), per run "
        f"| {plain * 1e3:.2f} ms | {traced * 1e3:.2f} ms | {(traced - plain) * 1e3:.2f} ms |",
        "",
        "| per | stopkit's hooks (instrumented overhead) | the SDK's floor, same telemetry "
        "| stopkit's share | target | met |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name, target in TARGETS.items():
        hook, floor = best[f"hooks: {name}"] * 1e6, best[f"floor: {name}"] * 1e6
        met = "yes" if hook - floor <= target else "**no**"
        out.append(
            f"| {name} | {hook:.1f} µs | {floor:.1f} µs | {hook - floor:.1f} µs "
            f"| ≤ {target:.0f} µs | {met} |"
        )
    return "\n".join(out)


def _meta(repeats: int) -> dict[str, Any]:
    import subprocess
    from importlib.metadata import version

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit or "unknown",
        "repeats": repeats,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "sdk": version("opentelemetry-sdk"),
    }


def main() -> None:
    """Measure every row; print (and with `--write`, keep) the table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="put the table into README.md")
    args = parser.parse_args()
    text = table(measure(args.repeats), _meta(args.repeats))
    print(text)
    if args.write:
        readme = HERE / "README.md"
        body = readme.read_text(encoding="utf-8")
        head, _, rest = body.partition(START)
        _, _, tail = rest.partition(END)
        readme.write_text(f"{head}{START}\n{text}\n{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
