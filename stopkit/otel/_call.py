"""One model call: its span (`chat {model}`) and its metrics, for the loop and for `wrap` alike.

A loop run opens a `ModelCall` around each try of `call_model` and makes it the current span
while `call_model` runs; a wrapped client called inside it adds what only the request shows
(the model, `max_tokens`, the Google backend) to that call instead of opening a second one
(`claim`). Called anywhere else, a wrapped client opens its own.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from opentelemetry import context, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from stopkit._logsafe import shorten
from stopkit._stop import Stop, ToolCall
from stopkit.adapters._wire import raw_value
from stopkit.otel import _names as n
from stopkit.otel._content import output_messages, scrub_text
from stopkit.otel._telemetry import Telemetry

__all__ = [
    "ModelCall",
    "attribute_value",
    "claim",
    "error_type",
    "stop_attributes",
    "tool_attributes",
]

_CALL = context.create_key("stopkit.model_call")
# What an attribute holds (besides a list of one of them); `type() in`: a subclass is no
# guarantee (an enum member is one, and exporters would write it by its repr).
_PLAIN = (str, bool, int, float)


def attribute_value(value: Any) -> str | bool | int | float | None:
    """Return `value` as an attribute can hold it (an enum member: its value); None if it can't.

    A value from a provider or a custom adapter may be anything (a dict, a mixed list, None,
    an SDK object): such a value is left off the span, and stays where it came from. Text is
    cut to the length logs show (`stopkit._logsafe.LIMIT`, with `…`): a provider may send a
    megabyte as its finish reason, and a span or a metric label must not carry it.

    Example:
        >>> attribute_value("end_turn"), attribute_value({"code": 1})
        ('end_turn', None)
        >>> len(attribute_value("x" * 999))
        200
    """
    value = raw_value(value)
    kind = type(value)
    if kind is str:
        return shorten(value)
    return value if kind in _PLAIN else None


def stop_attributes(stop: Stop) -> dict[str, Any]:
    """Return a reply's `stopkit.stop.*` attributes: stopkit's reading beside the raw value.

    Example:
        >>> from stopkit import StopReason
        >>> stop_attributes(Stop(reason=StopReason.COMPLETED, provider="x", raw_reason="stop"))
        {'stopkit.stop.reason': 'completed', 'stopkit.stop.provider': 'x', 'stopkit.stop.raw_reason': 'stop'}
    """  # noqa: E501 -- the doctest's expected output is one line
    return {
        n.STOP_REASON: stop.reason.value,
        n.STOP_PROVIDER: stop.provider,
        **_fitting(((n.STOP_RAW_REASON, stop.raw_reason), (n.STOP_DETAIL, stop.detail))),
    }


def tool_attributes(call: ToolCall) -> dict[str, Any]:
    """Return a tool call's `gen_ai.tool.name` and `gen_ai.tool.call.id`, where they fit.

    Example:
        >>> tool_attributes(ToolCall(id="c1", name="f"))
        {'gen_ai.tool.name': 'f', 'gen_ai.tool.call.id': 'c1'}
    """
    return _fitting(((n.TOOL_NAME, call.name), (n.TOOL_CALL_ID, call.id)))


def _fitting(pairs: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """The attributes whose values an attribute can hold, as `attribute_value` gives them."""
    return {key: fit for key, value in pairs if (fit := attribute_value(value)) is not None}


def error_type(error: BaseException) -> str:
    """Return the `error.type` of an exception: its class's qualified name (`RateLimitError`)."""
    return type(error).__qualname__


def claim() -> ModelCall | None:
    """Return the loop's model call running in this context, once (a second caller gets None)."""
    call: ModelCall | None = context.get_value(_CALL)  # type: ignore[assignment]
    if call is None or call.claimed:
        return None
    call.claimed = True
    return call


def _reply_attributes(stops: Sequence[Stop], streamed: bool) -> dict[str, Any]:
    """The reply's span attributes: its finish reasons, stopkit's reading, its model and id.

    The model and the id are the adapter's reading (`Stop.model`, `Stop.response_id`, each wire
    read with its own field names): nothing here reads the reply again.
    """
    stop = stops[0]  # the first choice's reading; every choice has its finish reason
    attributes: dict[str, Any] = {
        n.FINISH_REASONS_KEY: tuple(n.FINISH_REASONS[s.reason] for s in stops),
        **stop_attributes(stop),
    }
    if streamed:
        attributes[n.REQUEST_STREAM] = True
    if stop.response_id is not None:
        attributes[n.RESPONSE_ID] = shorten(stop.response_id)
    if stop.model is not None:  # a metric label too: bounded like any value
        attributes[n.RESPONSE_MODEL] = shorten(stop.model)
    return attributes


class ModelCall:
    """The span and metrics of one model call, from its start to its reply or its failure."""

    __slots__ = ("adapter", "claimed", "metric", "model", "provider", "span", "start", "t", "token")

    def __init__(
        self,
        telemetry: Telemetry,
        parent: context.Context | None,
        adapter: str | None,
        model: Any = None,
        max_tokens: Any = None,
        extra: Mapping[str, Any] | None = None,
        *,
        provider: str | None = None,
        start_ns: int | None = None,
    ) -> None:
        self.t = telemetry
        self.adapter = adapter
        self.model = model if type(model) is str else None
        if provider is None and adapter is not None:
            provider = n.provider_name(adapter)
        self.provider = provider
        self.claimed = False
        metric = {n.OPERATION: n.operation_name(adapter)}
        if self.provider is not None:
            metric[n.PROVIDER] = self.provider
        if self.model is not None:
            metric[n.REQUEST_MODEL] = self.model
        self.metric = metric
        attributes: dict[str, Any] = dict(metric)
        if type(max_tokens) is int:
            attributes[n.REQUEST_MAX_TOKENS] = max_tokens
        if extra:
            attributes.update(extra)
        self.span = telemetry.tracer.start_span(
            self._name(), parent, SpanKind.CLIENT, attributes, start_time=start_ns
        )
        self.start = time.perf_counter()
        if start_ns is not None:  # begun earlier (a tool runner's turn): its duration since then
            self.start -= (time.time_ns() - start_ns) / 1e9
        # Current until `release()`: the parent of whatever the call does (an HTTP span...).
        ctx = trace.set_span_in_context(self.span, parent)
        self.token: object | None = context.attach(context.set_value(_CALL, self, ctx))

    def _name(self) -> str:
        operation = self.metric[n.OPERATION]
        return f"{operation} {self.model}" if self.model is not None else operation

    def request(
        self, model: Any = None, max_tokens: Any = None, provider: str | None = None
    ) -> None:
        """Add what a wrapped client's request says: the model, `max_tokens`, the provider."""
        attributes: dict[str, Any] = {}
        if type(model) is str and self.model is None:
            self.model = self.metric[n.REQUEST_MODEL] = attributes[n.REQUEST_MODEL] = model
            self.span.update_name(self._name())
        if type(max_tokens) is int:
            attributes[n.REQUEST_MAX_TOKENS] = max_tokens
        if provider is not None:
            self.provider = self.metric[n.PROVIDER] = attributes[n.PROVIDER] = provider
        if attributes:
            self.span.set_attributes(attributes)

    def replied(
        self, stops: Sequence[Stop], streamed: bool, error: BaseException | None = None
    ) -> None:
        """End the call with its reply (a `Stop` per choice): finish reasons, tokens, metrics.

        `error`: what broke the streamed reply before its end (`error.type`, status error).
        """
        try:
            self._replied(stops, streamed, error)
        finally:
            self._close()

    def _replied(self, stops: Sequence[Stop], streamed: bool, error: BaseException | None) -> None:
        stop = stops[0]  # the first choice's reading; every choice has its finish reason
        metric = self.metric
        attributes: dict[str, Any] = {}
        if self.adapter is None and stop.provider != "none":  # detected from this reply
            self.adapter = stop.provider
            metric[n.OPERATION] = attributes[n.OPERATION] = n.operation_name(stop.provider)
            self.span.update_name(self._name())
        if self.provider is None and self.adapter is not None:
            self.provider = metric[n.PROVIDER] = attributes[n.PROVIDER] = n.provider_name(
                self.adapter
            )
        attributes.update(_reply_attributes(stops, streamed))
        usage = stop.usage
        counts = n.usage_attributes(self.adapter or "", usage) if usage is not None else {}
        attributes.update(counts)
        if self.t.capture_content:
            attributes[n.OUTPUT_MESSAGES] = output_messages(stop)
        self.span.set_attributes(attributes)
        self._measured(stops, counts, attributes.get(n.RESPONSE_MODEL), error)

    def _measured(
        self,
        stops: Sequence[Stop],
        counts: dict[str, int],
        model: Any,
        error: BaseException | None,
    ) -> None:
        """Record the call's metrics: its duration, its tokens, and each choice's stop."""
        t = self.t
        metric = self.metric
        if model is not None:
            metric = {**metric, n.RESPONSE_MODEL: model}
        # A stream read in part, then broken: the call failed (its duration says so too).
        timed = metric if error is None else {**metric, n.ERROR_TYPE: self._error(error)}
        t.duration.record(time.perf_counter() - self.start, timed)
        tokens_in = counts.get(n.INPUT_TOKENS)
        if tokens_in is not None:
            t.token_usage.record(tokens_in, {**metric, n.TOKEN_TYPE: "input"})
        tokens_out = counts.get(n.OUTPUT_TOKENS)
        if tokens_out is not None:
            t.token_usage.record(tokens_out, {**metric, n.TOKEN_TYPE: "output"})
        self._count_stops(stops)

    def _count_stops(self, stops: Sequence[Stop]) -> None:
        """Count each choice's stop (`stopkit.stops`): its adapter, reason, detail, provider."""
        provider = self.provider
        for each in stops:  # one reply per choice read
            counted = [(n.STOP_PROVIDER, each.provider), (n.STOP_REASON, each.reason.value)]
            if provider is not None:
                counted.append((n.PROVIDER, provider))
            detail = attribute_value(each.detail)  # a custom adapter's may be anything
            if detail is not None:
                counted.append((n.STOP_DETAIL, str(detail)))
            self.t.count_stop(tuple(counted))

    def _error(self, error: BaseException) -> str:
        """Mark the span failed by `error` (`error.type`, status error); return the type."""
        kind = error_type(error)
        self.span.set_attribute(n.ERROR_TYPE, kind)
        self.span.set_status(Status(StatusCode.ERROR, scrub_text(str(error))))
        return kind

    def failed(self, error: BaseException) -> None:
        """End the call with the exception it raised (`error.type`, status error)."""
        try:
            self._timed_failure(self._error(error))
        finally:
            self._close()

    def abandoned(self, why: str) -> None:
        """End a call whose reply never came (the run was cut short or failed): `error.type`.

        Timed like a call that raised: a call cut short (often the slow one someone gave up
        on) still counts in the duration histogram.
        """
        try:
            self.span.set_attribute(n.ERROR_TYPE, why)
            self.span.set_status(Status(StatusCode.ERROR))
            self._timed_failure(why)
        finally:
            self._close()

    def unread(self, end_ns: int) -> None:
        """End, as of `end_ns`, a call whose reply will never be read: no finish reason."""
        try:
            elapsed = time.perf_counter() - (time.time_ns() - end_ns) / 1e9 - self.start
            self.t.duration.record(elapsed, self.metric)
        finally:
            self._close(end_ns)

    def _timed_failure(self, kind: str) -> None:
        """Record the duration of a call that ended without its reply, with its `error.type`."""
        self.t.duration.record(
            time.perf_counter() - self.start, {**self.metric, n.ERROR_TYPE: kind}
        )

    def release(self) -> None:
        """Stop being the current span (where it was made current); it may still be open."""
        token, self.token = self.token, None
        if token is not None:
            context.detach(token)  # type: ignore[arg-type]

    def _close(self, end_ns: int | None = None) -> None:
        try:
            self.span.end(end_ns)
        finally:
            self.release()
