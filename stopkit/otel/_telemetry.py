"""What `instrument()` sets up: the tracer, the three instruments, the content switch (internal).

Telemetry never breaks what it observes: every hook stopkit's code calls goes through `safe`,
which logs what raised (once at WARNING, then at DEBUG) and carries on.

`stopkit.stops` is an asynchronous counter (`create_observable_counter`): replies are counted
in process, under a lock, and the SDK reads the running totals when it collects. A synchronous
counter's `add` runs the SDK's whole measurement path (attribute checks, hashing, exemplars)
on every reply, about as much as the two token histograms together; the exported data, a
monotonic cumulative sum per attribute set, is the same. A meter keeps the first callback of
an instrument name, so the counts are kept per meter provider: instrumenting again with the
same provider goes on counting where it was. The global provider's are the ones counted
before the app set it: the API's stand-in took their callback to the provider set since (and
it gives a new stand-in meter each time, so they cannot be kept per meter).
"""

from __future__ import annotations

import functools
import logging
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from opentelemetry import metrics, trace
from opentelemetry.metrics import CallbackOptions, Observation

from stopkit import __version__
from stopkit.otel import _names as n

__all__ = ["STOP_SETS", "StopCounts", "Telemetry", "safe"]

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
            if not _warned:  # a flag, not a tally: a backend failing on every call adds nothing
                _warned.append(True)
            logger.log(level, "stopkit.otel: recording telemetry failed", exc_info=True)
            return None

    return guarded  # type: ignore[return-value]


#: The attribute sets `stopkit.stops` counts apart: the SDK's own default cardinality limit
#: (`opentelemetry.sdk.metrics` `_DEFAULT_CARDINALITY_LIMIT`, 2000). A custom adapter's details
#: may be of any number; past this many sets, replies are counted in the overflow set.
STOP_SETS = 2000
# The set the SDK counts overflowing measurements in (the specification's "Overflow attribute").
_OVERFLOW = (("otel.metric.overflow", True),)


class StopCounts:
    """The running count of replies per `stopkit.stops` attribute set, read by the SDK.

    At most `STOP_SETS` sets are counted apart; a reply under any other set is counted in the
    overflow set (`otel.metric.overflow`), as the SDK does past its cardinality limit.
    """

    def __init__(self) -> None:
        self._counts: dict[tuple[tuple[str, Any], ...], int] = {}
        self._lock = threading.Lock()

    def add(self, attributes: tuple[tuple[str, str], ...]) -> None:
        """Count one reply under its attributes (name-value pairs)."""
        counts = self._counts
        with self._lock:
            found = counts.get(attributes)
            # A new set past the limit (the overflow set, once there, is not one of them).
            if found is None and len(counts) >= STOP_SETS + (_OVERFLOW in counts):
                key: tuple[tuple[str, Any], ...] = _OVERFLOW
                found = counts.get(key)
            else:
                key = attributes
            counts[key] = (found or 0) + 1

    def observe(self, options: CallbackOptions) -> Iterable[Observation]:
        """The callback of the asynchronous counter: every count so far."""
        with self._lock:
            counts = list(self._counts.items())
        return [Observation(count, dict(attributes)) for attributes, count in counts]


_COUNTS: weakref.WeakKeyDictionary[Any, StopCounts] = weakref.WeakKeyDictionary()
_GLOBAL: list[StopCounts] = []  # the counts registered with the global provider, if any


def _stop_counts(provider: metrics.MeterProvider | None, meter: metrics.Meter) -> StopCounts:
    """Return the provider's reply counts, registering `stopkit.stops` on `meter` the first time.

    `provider` None is the global provider (the API's stand-in until the app sets one).
    """
    is_global = provider is None or provider is metrics.get_meter_provider()
    key = metrics.get_meter_provider() if provider is None else provider
    counts = _COUNTS.get(key)
    if counts is None and is_global and _GLOBAL:
        counts = _GLOBAL[0]  # registered through the stand-in, before this provider was set
    if counts is None:
        counts = StopCounts()
        meter.create_observable_counter(
            n.STOPS,
            callbacks=[counts.observe],
            unit="{reply}",
            description="Replies read, by provider and why the model stopped.",
        )
    _COUNTS[key] = counts
    if is_global:
        _GLOBAL[:] = [counts]
    return counts


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
        self.count_stop = _stop_counts(meter_provider, meter).add
        self.capture_content = capture_content
