"""The names and tables of the GenAI semantic conventions stopkit emits (no OpenTelemetry here).

Source: OpenTelemetry semantic conventions v1.41.0 (`docs/gen-ai/gen-ai-spans.md`,
`gen-ai-agent-spans.md`, `gen-ai-metrics.md`, `docs/registry/attributes/gen-ai.md`; the GenAI
pages are the same in v1.41.1, the last release before they moved to their own repository).
The `stopkit.*` names are stopkit's own, for what the conventions have no name for.
"""

from __future__ import annotations

from typing import Any

from stopkit._counting import output_tokens, prompt_tokens
from stopkit._errors import AdapterNotFound
from stopkit._registry import get_adapter
from stopkit._stop import StopReason, Usage

__all__ = [
    "DURATION_BUCKETS",
    "FINISH_REASONS",
    "SCHEMA_URL",
    "TOKEN_BUCKETS",
    "finish_reason",
    "operation_name",
    "provider_name",
    "usage_attributes",
]

SCHEMA_URL = "https://opentelemetry.io/schemas/1.41.0"

# --- attributes of the conventions ---------------------------------------------------------
OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens"
REQUEST_STREAM = "gen_ai.request.stream"
RESPONSE_MODEL = "gen_ai.response.model"
RESPONSE_ID = "gen_ai.response.id"
FINISH_REASONS_KEY = "gen_ai.response.finish_reasons"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
REASONING_TOKENS = "gen_ai.usage.reasoning.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
CACHE_WRITE_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
TOKEN_TYPE = "gen_ai.token.type"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
ERROR_TYPE = "error.type"

# --- stopkit's own ------------------------------------------------------------------------
STOP_REASON = "stopkit.stop.reason"
STOP_RAW_REASON = "stopkit.stop.raw_reason"
STOP_DETAIL = "stopkit.stop.detail"
STOP_PROVIDER = "stopkit.stop.provider"
TURN = "stopkit.turn"
ATTEMPT = "stopkit.attempt"
TURNS = "stopkit.turns"
TERMINATION = "stopkit.termination"
TOOL_CALLS = "stopkit.tool_calls"
WASTED_INPUT = "stopkit.wasted.input_tokens"
WASTED_OUTPUT = "stopkit.wasted.output_tokens"
#: Replies of the run that did not say their tokens: the run's usage is a partial sum.
USAGE_UNKNOWN_REPLIES = "stopkit.usage.unknown_replies"
MAX_TOKENS_OLD = "stopkit.max_tokens.old"
MAX_TOKENS_NEW = "stopkit.max_tokens.new"
PAUSES = "stopkit.pauses"
ESCALATION = "stopkit.escalation.reason"
# The loop's controls (the budget, compaction, the hooks, approval).
BUDGET_TOKENS = "stopkit.budget.spent_tokens"
BUDGET_COST = "stopkit.budget.spent_cost"
BUDGET_UNKNOWN = "stopkit.budget.unknown_replies"
BUDGET_MAX_TOKENS = "stopkit.budget.max_tokens"
BUDGET_MAX_COST = "stopkit.budget.max_cost"
USAGE_MISSING = "stopkit.usage.missing"
MESSAGES_BEFORE = "stopkit.compaction.messages_before"
MESSAGES_AFTER = "stopkit.compaction.messages_after"
TOKENS_BEFORE = "stopkit.compaction.tokens_before"
TOKENS_AFTER = "stopkit.compaction.tokens_after"
CONTROL_REASON = "stopkit.reason"
HOOK = "stopkit.hook"

# --- metrics (gen-ai-metrics.md: names, units, the advised explicit bucket boundaries) -----
TOKEN_USAGE = "gen_ai.client.token.usage"
TOKEN_BUCKETS = (
    1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
)  # fmt: skip
DURATION = "gen_ai.client.operation.duration"
DURATION_BUCKETS = (
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
)  # fmt: skip
STOPS = "stopkit.stops"

INT64_MAX = 2**63 - 1
"""The largest int an attribute holds (the specification's signed 64-bit integer)."""

# `gen_ai.response.finish_reasons` holds the conventions' well-known values (the FinishReason
# enum of gen-ai-output-messages.json: stop, length, content_filter, tool_call, error); the
# provider's own value goes to `stopkit.stop.raw_reason` and stopkit's to `stopkit.stop.reason`.
# `paused` has no well-known value: it is written as `paused` (custom values are allowed).
FINISH_REASONS: dict[StopReason, str] = {
    StopReason.TOOL_REQUEST: "tool_call",
    StopReason.COMPLETED: "stop",
    StopReason.STOP_SEQUENCE: "stop",
    StopReason.OUTPUT_LIMIT: "length",
    StopReason.FILTERED: "content_filter",
    StopReason.UNKNOWN: "error",
    StopReason.PAUSED: "paused",
}


def _said(adapter: str, attribute: str) -> Any:
    """What the adapter registered as `adapter` says of itself (None: it does not say)."""
    try:
        return getattr(get_adapter(adapter), attribute, None)
    except AdapterNotFound:
        return None


def provider_name(adapter: str) -> str:
    """Return the `gen_ai.provider.name` for a stopkit adapter name (its `otel_provider`).

    The attribute names the telemetry flavour of the wire format (gen-ai-spans.md, the values
    listed under `gen_ai.provider.name`): the OpenAI-compatible dialects `openai.chat` reads
    (Azure, Groq, DeepSeek, vLLM...) are `openai`. An adapter that names none (Ollama, the
    frameworks, yours) is its own name: custom values are allowed.

    Example:
        >>> provider_name("openai.responses"), provider_name("my-proxy")
        ('openai', 'my-proxy')
    """
    said = _said(adapter, "otel_provider")
    return said if type(said) is str and said else adapter


def operation_name(adapter: str | None) -> str:
    """Return the `gen_ai.operation.name` of a model call read by `adapter` (`chat` when unknown).

    `generate_content` is the listed value for Gemini's generateContent, `text_completion` for
    a prompt-completion API; every other built-in wire API is a chat API. Each adapter says its
    own (`otel_operation`).

    Example:
        >>> operation_name("gemini"), operation_name("anthropic")
        ('generate_content', 'chat')
    """
    said = _said(adapter, "otel_operation") if adapter is not None else None
    return said if type(said) is str and said else "chat"


def finish_reason(reason: StopReason) -> str:
    """Return the conventions' finish reason for a `StopReason`.

    Example:
        >>> finish_reason(StopReason.OUTPUT_LIMIT)
        'length'
    """
    return FINISH_REASONS[reason]


def usage_attributes(adapter: str, usage: Usage) -> dict[str, int]:
    """Return the `gen_ai.usage.*` attributes of `usage`, counted as the conventions count.

    `gen_ai.usage.input_tokens` includes cached tokens and `gen_ai.usage.output_tokens`
    includes reasoning: the parts a wire format counts apart are added in. A count the
    provider did not send is left out, and so is one too big for an attribute (`INT64_MAX`).

    Example:
        >>> usage_attributes("anthropic", Usage(input_tokens=10, output_tokens=5,
        ...     cache_read_tokens=90))["gen_ai.usage.input_tokens"]
        100
    """
    counts = {
        INPUT_TOKENS: prompt_tokens(adapter, usage),
        OUTPUT_TOKENS: output_tokens(adapter, usage),
        REASONING_TOKENS: usage.reasoning_tokens,
        CACHE_READ_TOKENS: usage.cache_read_tokens,
        CACHE_WRITE_TOKENS: usage.cache_write_tokens,
    }
    # An attribute's int is a signed 64-bit one (OTLP cannot send a bigger one): a count beyond
    # it is garbage in the reply, left out.
    return {name: n for name, n in counts.items() if n is not None and n <= INT64_MAX}
