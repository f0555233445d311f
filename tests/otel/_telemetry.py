"""The real OpenTelemetry SDK for the stopkit.otel tests, and ways to read what it recorded.

The SDK is in the dev extra. Where it is missing a module importing this skips, except under CI
(STOPKIT_CI set), where a skip would hide that telemetry is untested, so it fails instead.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

try:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
except ImportError as exc:  # only where the dev extra is not installed
    if os.environ.get("STOPKIT_CI"):
        raise ImportError(f"CI must test stopkit.otel; install the dev extra: {exc}") from exc
    pytest.skip(f"opentelemetry-sdk is not installed here ({exc})", allow_module_level=True)

import stopkit.otel


@dataclass
class Node:
    """A finished span as the tests compare it: name, kind, attributes, events, children."""

    name: str
    kind: str
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    status: str = "UNSET"


def node(span: ReadableSpan) -> Node:
    return Node(
        span.name,
        span.kind.name,
        dict(span.attributes or {}),
        [(event.name, dict(event.attributes or {})) for event in span.events],
        status=span.status.status_code.name,
    )


@dataclass
class Recorded:
    """What the SDK kept: the finished spans (as trees) and the metric points."""

    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader
    tracer_provider: TracerProvider
    meter_provider: MeterProvider

    @property
    def spans(self) -> Sequence[ReadableSpan]:
        return self.exporter.get_finished_spans()

    def trees(self) -> list[Node]:
        """The finished spans as trees, children in the order they started."""
        spans = sorted(self.spans, key=lambda s: s.start_time or 0)
        nodes = {span.context.span_id: node(span) for span in spans}
        roots: list[Node] = []
        for span in spans:
            parent = span.parent.span_id if span.parent is not None else None
            if parent in nodes:
                nodes[parent].children.append(nodes[span.context.span_id])
            else:
                roots.append(nodes[span.context.span_id])
        return roots

    def points(self, name: str) -> list[tuple[dict[str, Any], Any]]:
        """The data points of the metric `name`, as (attributes, value).

        A histogram's value is its (count, sum), a counter's its value.
        """
        data = self.reader.get_metrics_data()
        found: list[tuple[dict[str, Any], Any]] = []
        for resource in data.resource_metrics if data is not None else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name != name:
                        continue
                    for point in metric.data.data_points:
                        value = getattr(point, "value", None)
                        if value is None:
                            value = (point.count, point.sum)
                        found.append((dict(point.attributes), value))
        return found

    def metric(self, name: str) -> Any:
        """The metric `name` itself (its unit, description, bucket boundaries)."""
        data = self.reader.get_metrics_data()
        for resource in data.resource_metrics if data is not None else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        return metric
        raise LookupError(name)


@contextlib.contextmanager
def recording(
    *processors: SpanProcessor, capture_content: bool = False
) -> Iterator[Recorded]:
    """Stopkit instrumented with SDK providers keeping every span and metric in memory."""
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    for processor in processors:
        tracer_provider.add_span_processor(processor)
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    stopkit.otel.instrument(tracer_provider, meter_provider, capture_content=capture_content)
    try:
        yield Recorded(exporter, reader, tracer_provider, meter_provider)
    finally:
        stopkit.otel.uninstrument()
        tracer_provider.shutdown()
        meter_provider.shutdown()
