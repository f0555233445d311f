"""Turning telemetry on and off, without the extra, and with an exporter that raises."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, Span
from opentelemetry.sdk.trace.export import (
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
    SpanProcessor,
)

import stopkit
import stopkit.otel
from stopkit.testing import ScriptedModel
from tests.loop._shapes import TOOLS, Anthropic, paris
from tests.otel._telemetry import Recorded, recording

P = Anthropic()


def tool_run() -> stopkit.Outcome:
    script = [P.tools([paris()]), P.text("18 °C.")]
    return stopkit.run_loop(ScriptedModel(script), [P.user], tools=TOOLS)


def test_nothing_is_emitted_after_uninstrument(otel: Recorded) -> None:
    """After `uninstrument()` a run records no span and no metric, and loses nothing."""
    tool_run()
    spans, points = len(otel.spans), otel.points("stopkit.stops")
    stopkit.otel.uninstrument()
    assert not stopkit.otel.is_instrumented()
    outcome = tool_run()
    assert outcome.ok
    assert len(otel.spans) == spans == 4
    assert otel.points("stopkit.stops") == points


class RaisingExporter(SpanExporter):
    def export(self, spans: Any) -> SpanExportResult:
        raise RuntimeError("the collector is down")


class RaisingProcessor(SpanProcessor):
    def on_start(self, span: Span, parent_context: Any = None) -> None:
        raise RuntimeError("a processor bug on start")

    def on_end(self, span: ReadableSpan) -> None:
        raise RuntimeError("a processor bug on end")


@pytest.mark.parametrize(
    "processor",
    [SimpleSpanProcessor(RaisingExporter()), RaisingProcessor()],
    ids=["exporter", "processor"],
)
def test_telemetry_that_raises_never_breaks_a_run(
    processor: SpanProcessor, caplog: pytest.LogCaptureFixture
) -> None:
    """An exporter or span processor that raises: the run gets the very outcome it would without."""
    plain = tool_run()
    with caplog.at_level(logging.WARNING), recording(processor):
        traced = tool_run()
    assert (traced.text, traced.termination, traced.turns) == (plain.text, plain.termination, 2)
    assert traced.messages == plain.messages
    assert [r.call.id for r in traced.tool_runs] == ["call_p"]


def test_telemetry_failing_on_every_call_warns_once_and_keeps_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A span processor that always raises: one WARNING, then DEBUG; no memory per failure."""
    from stopkit.otel import _telemetry

    with caplog.at_level(logging.DEBUG, "stopkit.otel"), recording(RaisingProcessor()):
        for _ in range(3):
            tool_run()
    failures = [r.levelname for r in caplog.records if r.name == "stopkit.otel"]
    assert len(failures) >= 3  # one per run at least
    assert set(failures[1:]) == {"DEBUG"}
    assert len(_telemetry._warned) <= 1  # not one entry per failure, for the life of the process


@pytest.mark.parametrize(
    ("value", "captured"),
    [("true", True), ("SPAN_ONLY", True), ("span_and_event", True), ("EVENT_ONLY", False),
     ("NO_CONTENT", False), ("false", False), ("", False)],
)  # fmt: skip
def test_the_conventions_content_switch(
    value: str, captured: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` turns capture on for span content."""
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", value)
    with recording() as recorded:
        stopkit.otel.instrument(recorded.tracer_provider)  # capture_content from the variable
        tool_run()
    keys = {key for span in recorded.spans for key in (span.attributes or {})}
    assert ("gen_ai.input.messages" in keys) is captured
    assert ("gen_ai.tool.call.arguments" in keys) is captured


@pytest.mark.parametrize("given", ["false", "0", 0, 1, "no"])
def test_capture_content_takes_only_a_bool(given: Any) -> None:
    """`capture_content="false"` (a setting read as text) is refused, never read as on."""
    with pytest.raises(TypeError, match="capture_content must be a bool or None"):
        stopkit.otel.instrument(capture_content=given)
    assert not stopkit.otel.is_instrumented()


def test_content_is_absent_by_default(otel: Recorded) -> None:
    """Without the switch no message, argument or result appears on any span or event."""
    tool_run()
    keys = {key for span in otel.spans for key in (span.attributes or {})}
    keys |= {key for span in otel.spans for e in span.events for key in (e.attributes or {})}
    assert keys.isdisjoint(
        {"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions",
         "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"}
    )  # fmt: skip


# A finder that makes `opentelemetry` impossible to import, as where the extra is not installed.
_WITHOUT_OTEL = """
import sys
class Missing:
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Missing())
"""


def run_python(code: str) -> Any:
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def test_without_the_extra_stopkit_is_unchanged() -> None:
    """Without opentelemetry, stopkit and stopkit.otel import, runs work, instrument() says why."""
    code = _WITHOUT_OTEL + (
        "import json, stopkit, stopkit.otel\n"
        "reply = {'type': 'message', 'role': 'assistant', 'stop_reason': 'end_turn',\n"
        "         'content': [{'type': 'text', 'text': 'Hi'}]}\n"
        "outcome = stopkit.run_loop(lambda messages, **o: reply, 'Hello')\n"
        "stopkit.otel.uninstrument()\n"
        "try:\n"
        "    stopkit.otel.instrument()\n"
        "    error = None\n"
        "except ImportError as exc:\n"
        "    error = str(exc)\n"
        "print(json.dumps([outcome.text, error, stopkit.otel.is_instrumented()]))\n"
    )
    text, error, instrumented = run_python(code)
    assert text == "Hi"
    assert error == "stopkit.otel needs the OpenTelemetry API: pip install 'stopkit[otel]'"
    assert instrumented is False


def test_import_stopkit_loads_no_opentelemetry() -> None:
    """Even where it is installed, `import stopkit` (and a loop run) never loads opentelemetry."""
    code = (
        "import json, sys, stopkit\n"
        "reply = {'type': 'message', 'role': 'assistant', 'stop_reason': 'end_turn',\n"
        "         'content': [{'type': 'text', 'text': 'Hi'}]}\n"
        "stopkit.run_loop(lambda messages, **o: reply, 'Hello')\n"
        "import stopkit.otel\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('opentelemetry'))))\n"
    )
    assert run_python(code) == []


def test_instrumenting_again_goes_on_counting(otel: Recorded) -> None:
    """`instrument()` again with the same meter provider: the stops counter keeps counting."""
    tool_run()
    stopkit.otel.instrument(otel.tracer_provider, otel.meter_provider)
    tool_run()
    counts = {a["stopkit.stop.reason"]: v for a, v in otel.points("stopkit.stops")}
    assert counts == {"tool_request": 2, "completed": 2}


_AGAIN = "stopkit.otel.instrument()\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [(_AGAIN, ""), ("stopkit.otel.uninstrument()\n" + _AGAIN, ""), ("", _AGAIN),
     ("", "stopkit.otel.instrument(meter_provider=metrics.get_meter_provider())\n")],
    ids=["twice", "off-and-on", "again-once-set", "given-once-set"],
)  # fmt: skip
def test_instrumenting_again_around_setting_the_global_provider(before: str, after: str) -> None:
    """Instrumented on the global providers, then again before or after the app sets them.

    Replies still count: the counter registered first on a meter is the one the SDK reads.
    Run in a process of its own: the global meter provider can be set once per process.
    """
    code = (
        "import json, stopkit, stopkit.otel\n"
        "from opentelemetry import metrics\n"
        "from opentelemetry.sdk.metrics import MeterProvider\n"
        "from opentelemetry.sdk.metrics.export import InMemoryMetricReader\n"
        "stopkit.otel.instrument()\n" + before + "reader = InMemoryMetricReader()\n"
        "metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))\n" + after +
        "reply = {'type': 'message', 'role': 'assistant', 'stop_reason': 'end_turn',\n"
        "         'content': [{'type': 'text', 'text': 'Hi'}]}\n"
        "stopkit.run_loop(lambda messages, **o: reply, 'Hello')\n"
        "data = reader.get_metrics_data()\n"
        "print(json.dumps([[dict(p.attributes), p.value] for r in data.resource_metrics\n"
        "    for s in r.scope_metrics for m in s.metrics if m.name == 'stopkit.stops'\n"
        "    for p in m.data.data_points]))\n"
    )
    [(attributes, count)] = run_python(code)
    assert (attributes["stopkit.stop.reason"], count) == ("completed", 1)
