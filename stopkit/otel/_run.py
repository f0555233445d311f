"""The spans of one loop run: `invoke_agent`, a model-call span per try, `execute_tool` per call.

`RunTrace` is the run's observer (`stopkit.loop._observe.RunObserver`). The agent span is the
current span for the whole run (what a handler or `compact` hook does nests under it), each
model-call span while `call_model` runs, each tool span while its tool runs. The loop's
decisions are events on the agent span, named `stopkit.<what>`: `stopkit.retry` (a reply
thrown away and the call made again: the old and new `max_tokens`, what the thrown-away reply
cost), `stopkit.discard` (an unusable summing-up reply), `stopkit.resume`, `stopkit.escalation`,
one named after the safety net that ended the run (`stopkit.max_turns`, `stopkit.deadline`,
`stopkit.loop_detected`, `stopkit.pause_limit`, `stopkit.budget_exceeded`), what the loop's
controls did (`_controls.py`), and `stopkit.empty_final_answer`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry import context, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from stopkit._adapter import Adapter
from stopkit._stop import Stop, ToolCall, ToolResult, Usage
from stopkit.loop._error_kinds import error_kind
from stopkit.loop._settings import LoopSettings
from stopkit.loop.events import Escalation, LoopEvent, Outcome, Termination
from stopkit.otel import _names as n
from stopkit.otel._call import ModelCall, error_type, stop_attributes, tool_attributes
from stopkit.otel._content import input_messages, scrub_text, tool_arguments, tool_result
from stopkit.otel._controls import control_event
from stopkit.otel._telemetry import Telemetry, safe

__all__ = ["RunTrace"]

# The safety nets, each an event named after it when it ends a run.
_BOUNDS = frozenset(
    {
        Termination.MAX_TURNS,
        Termination.DEADLINE,
        Termination.LOOP_DETECTED,
        Termination.PAUSE_LIMIT,
        Termination.BUDGET_EXCEEDED,
    }
)
# What ended a run in error (status error, `error.type`); every other ending is the loop's
# own decision, told by `stopkit.termination` and the final reason.
_FAILED = frozenset({Termination.MODEL_ERROR, Termination.CANCELLED})


def _max_tokens(overrides: Mapping[str, Any], default: int | None) -> Any:
    return overrides.get("max_tokens", default)


class RunTrace:
    """The spans of one run; told of its steps by the loop (every method is `safe`)."""

    def __init__(self, telemetry: Telemetry, settings: LoopSettings) -> None:
        self.t = telemetry
        self.max_tokens = settings.max_tokens
        adapter: Adapter | None = settings.adapter  # type: ignore[assignment]
        self.adapter = adapter.name if adapter is not None else None
        attributes = {n.OPERATION: "invoke_agent"}
        if self.adapter is not None:
            attributes[n.PROVIDER] = n.provider_name(self.adapter)
        self.span = telemetry.tracer.start_span("invoke_agent", None, SpanKind.INTERNAL, attributes)
        self.start = time.perf_counter()
        self.context = trace.set_span_in_context(self.span)
        self.call: ModelCall | None = None
        self.error: BaseException | None = None  # what the last model call raised
        self.tools: dict[tuple[int, int], tuple[trace.Span, object]] = {}
        self.token: object | None = context.attach(self.context)

    # --- model calls ------------------------------------------------------------------------

    @safe
    def model_call(
        self,
        turn: int,
        attempt: int,
        messages: Sequence[Any],
        overrides: Mapping[str, Any],
        adapter: Adapter | None,
    ) -> None:
        name = adapter.name if adapter is not None else self.adapter
        # The try's number only on a retry: every attribute costs the SDK a check per span.
        extra = {n.TURN: turn} if attempt == 1 else {n.TURN: turn, n.ATTEMPT: attempt}
        self.call = call = ModelCall(
            self.t,
            self.context,
            name,
            overrides.get("model"),
            _max_tokens(overrides, self.max_tokens),
            extra,
        )
        if self.t.capture_content:
            call.span.set_attribute(n.INPUT_MESSAGES, input_messages(messages))

    @safe
    def model_failed(self, error: BaseException) -> None:
        call, self.call = self.call, None
        self.error = error
        if call is not None:
            call.failed(error)

    @safe
    def model_replied(self, stop: Stop, streamed: bool) -> None:
        call, self.call = self.call, None
        self.error = None
        self._adopt(stop)
        if call is not None:
            call.replied((stop,), streamed)

    def _adopt(self, stop: Stop | None) -> None:
        """Take the adapter `stop` was read with, when the run's settings did not name it.

        A live reply tells it (`model_replied`); a durable run's replayed steps make no call,
        so their replies tell it where they reach the observer (a discard, the outcome): the
        run's token counts need it (Anthropic's cache reads are added to its input count).
        """
        if self.adapter is None and stop is not None and stop.provider != "none":
            self.adapter = stop.provider
            self.span.set_attribute(n.PROVIDER, n.provider_name(stop.provider))

    # --- tool calls -------------------------------------------------------------------------

    @safe
    def tool_call(self, turn: int, slot: int, call: ToolCall) -> None:
        attributes: dict[str, Any] = {
            n.OPERATION: "execute_tool",
            **tool_attributes(call),
            n.TOOL_TYPE: "function",
            n.TURN: turn,
        }
        if self.t.capture_content:
            attributes[n.TOOL_ARGUMENTS] = tool_arguments(call)
        name = attributes.get(n.TOOL_NAME)
        span = self.t.tracer.start_span(
            "execute_tool" if name is None else f"execute_tool {name}",
            self.context,
            SpanKind.INTERNAL,
            attributes,
        )
        # Current while the tool runs: in `arun_loop` each call runs in a task of its own.
        token = context.attach(trace.set_span_in_context(span, self.context))
        self.tools[turn, slot] = (span, token)

    @safe
    def tool_result(self, turn: int, slot: int, result: ToolResult) -> None:
        opened = self.tools.pop((turn, slot), None)
        if opened is None:  # answered without ever starting (a run cut short)
            return
        span, token = opened
        try:
            kind = error_kind(result)
            if kind is not None:
                span.set_attribute(n.ERROR_TYPE, kind)
                span.set_status(Status(StatusCode.ERROR))
            elif self.t.capture_content:
                span.set_attribute(n.TOOL_RESULT, tool_result(result))
            span.end()
        finally:
            # Answered from where it ran; a call cut short is answered from the run's own task.
            if trace.get_current_span() is span:
                context.detach(token)  # type: ignore[arg-type]

    # --- decisions --------------------------------------------------------------------------

    def _wasted(self, usage: Usage | None) -> dict[str, int]:
        if usage is None:
            return {}
        counts = n.usage_attributes(self.adapter or "", usage)
        out = {}
        if n.INPUT_TOKENS in counts:
            out[n.WASTED_INPUT] = counts[n.INPUT_TOKENS]
        if n.OUTPUT_TOKENS in counts:
            out[n.WASTED_OUTPUT] = counts[n.OUTPUT_TOKENS]
        return out

    @safe
    def discarded(self, stop: Stop, retry: tuple[Mapping[str, Any], ...] | None) -> None:
        self._adopt(stop)
        attributes: dict[str, Any] = {**stop_attributes(stop), **self._wasted(stop.usage)}
        if retry is None:
            self.span.add_event("stopkit.discard", attributes)
            return
        old, new = (_max_tokens(overrides, self.max_tokens) for overrides in retry)
        if type(old) is int:
            attributes[n.MAX_TOKENS_OLD] = old
        if type(new) is int:
            attributes[n.MAX_TOKENS_NEW] = new
        self.span.add_event("stopkit.retry", attributes)

    @safe
    def resumed(self, stop: Stop, pauses: int) -> None:
        self.span.add_event("stopkit.resume", {**stop_attributes(stop), n.PAUSES: pauses})

    @safe
    def escalated(self, escalation: Escalation) -> None:
        attributes = {
            **stop_attributes(escalation.stop),
            n.ESCALATION: escalation.reason,
            n.TURN: escalation.turn,
        }
        self.span.add_event("stopkit.escalation", attributes)

    @safe
    def control(self, event: LoopEvent) -> None:
        told = control_event(event)
        if told is not None:
            self.span.add_event(*told)

    # --- ending -----------------------------------------------------------------------------

    def _close_open(self, why: str) -> None:
        """End the model call and tool spans still open: the run ends without their results."""
        call, self.call = self.call, None
        if call is not None:
            call.abandoned(why)
        tools, self.tools = self.tools, {}
        for span, token in tools.values():
            span.set_attribute(n.ERROR_TYPE, why)
            span.set_status(Status(StatusCode.ERROR))
            span.end()
            if trace.get_current_span() is span:
                context.detach(token)  # type: ignore[arg-type]

    def _end(self, error: str | None = None) -> None:
        """End the agent span and record the run's duration (with `error.type` when it failed)."""
        token, self.token = self.token, None
        try:
            self.span.end()
            metric = {n.OPERATION: "invoke_agent"}
            if self.adapter is not None:
                metric[n.PROVIDER] = n.provider_name(self.adapter)
            if error is not None:
                metric[n.ERROR_TYPE] = error
            self.t.duration.record(time.perf_counter() - self.start, metric)
        finally:
            if token is not None:
                context.detach(token)  # type: ignore[arg-type]

    @safe
    def ended(self, outcome: Outcome) -> None:
        termination = outcome.termination
        failure = None
        if termination in _FAILED:
            error = self.error
            failure = error_type(error) if error is not None else termination.value
        try:
            self._adopt(outcome.stop)
            self._close_open(termination.value)
            span = self.span
            attributes: dict[str, Any] = {
                n.TERMINATION: termination.value,
                n.TURNS: outcome.turns,
                n.TOOL_CALLS: len(outcome.tool_runs),
            }
            stop = outcome.stop
            # A run ended by a failed model call has no final reply: the last one read was not
            # the run's end, and writing its reason would count an error as, say, a tool call.
            if stop is not None and termination is not Termination.MODEL_ERROR:
                attributes[n.FINISH_REASONS_KEY] = (n.FINISH_REASONS[stop.reason],)
                attributes.update(stop_attributes(stop))
            if outcome.usage is not None:
                attributes.update(n.usage_attributes(self.adapter or "", outcome.usage))
            attributes.update(self._wasted(outcome.wasted_usage))
            if outcome.usage_unknown:
                attributes[n.USAGE_UNKNOWN_REPLIES] = outcome.usage_unknown
            if failure is not None:
                attributes[n.ERROR_TYPE] = failure
                span.set_status(Status(StatusCode.ERROR))
            span.set_attributes(attributes)
            facts = {n.TURN: outcome.turns, n.TOOL_CALLS: len(outcome.tool_runs)}
            if termination in _BOUNDS:
                span.add_event(f"stopkit.{termination.value}", facts)
            if outcome.text == "":
                span.add_event(
                    "stopkit.empty_final_answer", {**facts, n.TERMINATION: termination.value}
                )
        finally:
            self._end(failure)

    @safe
    def failed(self, error: BaseException) -> None:
        kind = error_type(error)
        try:
            self._close_open(kind)
            self.span.set_attribute(n.ERROR_TYPE, kind)
            self.span.set_status(Status(StatusCode.ERROR, scrub_text(str(error))))
        finally:
            self._end(kind)
