"""Switching telemetry on: the observers handed to the loop (and `wrap`) while instrumented."""

from __future__ import annotations

from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

from stopkit.loop import _observe
from stopkit.loop._settings import LoopSettings
from stopkit.otel._run import RunTrace
from stopkit.otel._telemetry import Telemetry, safe

__all__ = ["start"]


def start(
    tracer_provider: TracerProvider | None,
    meter_provider: MeterProvider | None,
    capture_content: bool,
) -> None:
    """Make the tracer and instruments, and hand the loop its observer factory."""
    telemetry = Telemetry(tracer_provider, meter_provider, capture_content)

    @safe
    def run_trace(settings: LoopSettings) -> RunTrace:
        return RunTrace(telemetry, settings)

    _observe.factory = run_trace
