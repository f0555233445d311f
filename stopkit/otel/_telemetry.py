"""What `instrument()` sets up: the tracer, the three instruments, the content switch (internal).

Telemetry never breaks what it observes: every hook stopkit's code calls goes through `safe`,
which logs what raised (once at WARNING, then at DEBUG) and carries on.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from opentelemetry import metrics, trace

from stopkit import __version__
from stopkit.otel import _names as n

__all__ = ["Telemetry", "safe"]

logger = logging.getLogger("stopkit.otel")

_Fn = TypeVar("_Fn", bound=Callable[..., Any])
_warned: list[bool] = []


def safe(fn: _Fn) -> _Fn:
    """Wrap a telemetry hook so that nothing it raises reaches the code it observes."""

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception:  # a span processor, exporter or meter that raised: not the run's fault
            level = logging.DEBUG if _warned else logging.WARNING
            _warned.append(True)
            logger.log(level, "stopkit.otel: recording telemetry failed", exc_info=True)
            return None

    return guarded  # type: ignore[return-value]


class Telemetry:
    """The tracer and instruments stopkit records to, and whether message content is captured."""

    def __init__(
        self,
        tracer_provider: trace.TracerProvider | None,
        meter_provider: metrics.MeterProvider | None,
        capture_content: bool,
    ) -> None:
        self.tracer = trace.get_tracer(
            "stopkit", __version__, tracer_provider, schema_url=n.SCHEMA_URL
        )
        meter = metrics.get_meter("stopkit", __version__, meter_provider, schema_url=n.SCHEMA_URL)
        self.token_usage = meter.create_histogram(
            n.TOKEN_USAGE,
            unit="{token}",
            description="Number of input and output tokens used.",
            explicit_bucket_boundaries_advisory=list(n.TOKEN_BUCKETS),
        )
        self.duration = meter.create_histogram(
            n.DURATION,
            unit="s",
            description="GenAI operation duration.",
            explicit_bucket_boundaries_advisory=list(n.DURATION_BUCKETS),
        )
        self.stops = meter.create_counter(
            n.STOPS,
            unit="{reply}",
            description="Replies read, by provider and why the model stopped.",
        )
        self.capture_content = capture_content
