"""OpenTelemetry for stopkit: spans and metrics with the raw and the normalized stop reason.

`stopkit.otel.instrument()` makes every `run_loop` / `arun_loop` / `Loop` run and every
`stopkit.wrap`-ped client emit telemetry; `uninstrument()` stops it. It needs the `otel` extra
(`pip install 'stopkit[otel]'`, which is `opentelemetry-api`); without it `import stopkit` and
`import stopkit.otel` work as ever, and only `instrument()` says what to install. While nothing
is instrumented the loop and `wrap` cost one check per run or call.

It follows the OpenTelemetry semantic conventions for generative AI, v1.41.0 (the GenAI pages
are unchanged in v1.41.1, the last release before they moved to their own repository):

- one `invoke_agent` span per run (kind INTERNAL), the current span while the run goes on;
  at its end `stopkit.termination`, `stopkit.turns`, `stopkit.tool_calls`, the final reply's
  `gen_ai.response.finish_reasons` and `stopkit.stop.*`, the run's total `gen_ai.usage.*`, and
  `stopkit.wasted.input_tokens` / `.output_tokens` (what thrown-away replies cost);
- one `chat {gen_ai.request.model}` span per model call, each try of a retried call its own
  (kind CLIENT; `generate_content` for Gemini and `text_completion` for Bedrock InvokeModel
  bodies, the conventions' names for those APIs; `chat` alone while the model is unknown),
  child of the agent span, with `gen_ai.provider.name`, `gen_ai.request.model` and
  `gen_ai.request.max_tokens` (from the call's overrides, or the wrapped client's request),
  `gen_ai.response.model`, `gen_ai.response.id`, `gen_ai.usage.*`
  (input counts cached tokens, output counts reasoning, as the conventions do),
  `gen_ai.request.stream` for a streamed reply, and the finish reason three ways:
  `gen_ai.response.finish_reasons` holds the conventions' well-known value, while
  `stopkit.stop.raw_reason` keeps the provider's value exactly as sent and
  `stopkit.stop.reason` / `stopkit.stop.detail` / `stopkit.stop.provider` stopkit's reading;
- one `execute_tool {gen_ai.tool.name}` span per tool call (kind INTERNAL), child of the agent
  span, with `gen_ai.tool.call.id`, `gen_ai.tool.type` (`function`) and on failure
  `error.type`;
- the loop's decisions as events on the agent span: `stopkit.retry` (with
  `stopkit.max_tokens.old` / `.new` and `stopkit.wasted.*`), `stopkit.discard`,
  `stopkit.resume`, `stopkit.escalation`, `stopkit.max_turns` / `stopkit.deadline` /
  `stopkit.loop_detected` / `stopkit.pause_limit`, `stopkit.empty_final_answer`;
- metrics: the `gen_ai.client.token.usage` histogram (`{token}`, by `gen_ai.token.type`) and
  the `gen_ai.client.operation.duration` histogram (`s`; model calls and agent runs), both
  with the conventions' bucket boundaries, and the `stopkit.stops` counter of replies by
  `gen_ai.provider.name`, `stopkit.stop.provider`, `stopkit.stop.reason` and
  `stopkit.stop.detail`.

A wrapped client's call (sync, async, streamed) is one model-call span; a stream's ends when
the stream does (one cut short: `error`, `stopkit.stop.detail="stream_incomplete"`); a raw
response (`with_raw_response`) never `parse()`d ends its span, with no finish reason, once it
is dropped, as of when the call returned; called
inside a loop's model call, it adds the request's model and `max_tokens` to that span instead.
anthropic's `tool_runner` turns are not traced. A durable run's replayed steps make no call,
and so no model-call or tool span; their tokens still count in the run's totals.

Finish reasons: `tool_request` -> `tool_call`, `completed` and `stop_sequence` -> `stop`,
`output_limit` -> `length`, `filtered` -> `content_filter`, `unknown` -> `error`. `paused` has
no well-known value in the conventions: it is written as `paused`.

`gen_ai.provider.name`: `anthropic`, `openai` (`openai.chat` with every OpenAI-compatible
dialect, `openai.responses`, `openai.agents` and `openai.completions`), `gcp.gen_ai` (`gemini`,
backend unknown; a wrapped google-genai client says `gcp.gemini` or `gcp.vertex_ai`),
`aws.bedrock` (`bedrock` and `bedrock.invoke`), `cohere` (`cohere` and `cohere.v1`), `ollama`;
any other adapter's own name.

`error.type`: the exception's class name (`RateLimitError`) for a model call or run that
raised, `cancelled` for a run cut short; for a tool call the exception's class name, or
`not_run`, `unknown_tool`, `timeout`, `cancelled`, `unencodable_result`.

Message content is never recorded unless asked for, with `capture_content=True` or the
conventions' switch, `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` set to `true`,
`SPAN_ONLY` or `SPAN_AND_EVENT`; it is then redacted with the rules stopkit's logs use.

Example:
    >>> import stopkit.otel
    >>> stopkit.otel.instrument()  # the global providers; or pass your own  # doctest: +SKIP
    >>> stopkit.otel.uninstrument()  # doctest: +SKIP
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from stopkit._lazy import moved_names as _moved_names
from stopkit._moved import OTEL as _MOVED

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import TracerProvider

__all__ = ["instrument", "is_instrumented", "uninstrument"]

# The conventions' content switch: `true`, `SPAN_ONLY` or `SPAN_AND_EVENT` turn capture on.
_CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
__getattr__ = _moved_names(__name__, _MOVED)

_CAPTURE_ON = frozenset({"true", "span_only", "span_and_event"})


def _capture_from_env() -> bool:
    return os.environ.get(_CAPTURE_CONTENT_ENV, "").strip().lower() in _CAPTURE_ON


def instrument(
    tracer_provider: TracerProvider | None = None,
    meter_provider: MeterProvider | None = None,
    *,
    capture_content: bool | None = None,
) -> None:
    """Make every loop run and wrapped client emit spans and metrics, until `uninstrument()`.

    Args:
        tracer_provider: Where spans go (default: OpenTelemetry's global provider).
        meter_provider: Where metrics go (default: the global provider).
        capture_content: Record message content on spans (redacted); None (the default)
            reads `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`.

    Calling it again replaces the providers. Raises `ImportError` naming the extra to install
    when `opentelemetry-api` is missing, and `TypeError` for a `capture_content` that is not a
    bool (a setting read as the text `"false"` must not turn capture on).

    Example:
        >>> from opentelemetry.sdk.trace import TracerProvider  # doctest: +SKIP
        >>> stopkit.otel.instrument(TracerProvider())  # doctest: +SKIP
    """
    if capture_content is not None and type(capture_content) is not bool:
        raise TypeError(f"capture_content must be a bool or None, not {capture_content!r}")
    try:
        from stopkit.otel._hooks import start
    except ImportError as exc:  # the otel extra is not installed
        raise ImportError(
            "stopkit.otel needs the OpenTelemetry API: pip install 'stopkit[otel]'"
        ) from exc
    capture = _capture_from_env() if capture_content is None else capture_content
    start(tracer_provider, meter_provider, capture)


def uninstrument() -> None:
    """Stop emitting telemetry; runs already going finish their spans.

    Example:
        >>> stopkit.otel.uninstrument()  # doctest: +SKIP
    """
    from stopkit._wrap import _observe as wrap_observe
    from stopkit.loop import _observe as loop_observe

    loop_observe.factory = None
    wrap_observe.factory = None


def is_instrumented() -> bool:
    """Say whether `instrument()` is in effect.

    Example:
        >>> stopkit.otel.is_instrumented()  # doctest: +SKIP
        False
    """
    from stopkit.loop import _observe

    return _observe.factory is not None
