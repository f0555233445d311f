"""Switching telemetry on: the observers handed to the loop (and `wrap`) while instrumented."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

from stopkit._wrap import _observe as wrap_observe
from stopkit.loop import _observe as loop_observe
from stopkit.loop._settings import LoopSettings
from stopkit.otel._run import RunTrace
from stopkit.otel._telemetry import Telemetry, safe
from stopkit.otel._wrapped import WrappedCall

__all__ = ["start"]


def start(
    tracer_provider: TracerProvider | None,
    meter_provider: MeterProvider | None,
    capture_content: bool,
) -> None:
    """Make the tracer and instruments; hand the loop and `wrap` their observer factories."""
    telemetry = Telemetry(tracer_provider, meter_provider, capture_content)

    @safe
    def run_trace(settings: LoopSettings) -> RunTrace:
        return RunTrace(telemetry, settings)

    @safe
    def wrapped_call(
        adapter: str, kwargs: Mapping[str, Any], client: Any, start_ns: int | None
    ) -> WrappedCall:
        return WrappedCall(telemetry, adapter, kwargs, client, start_ns)

    loop_observe.factory = run_trace
    wrap_observe.factory = wrapped_call

