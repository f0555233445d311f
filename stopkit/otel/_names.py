"""The names and tables of the GenAI semantic conventions stopkit emits (no OpenTelemetry here).

Source: OpenTelemetry semantic conventions v1.41.0 (`docs/gen-ai/gen-ai-spans.md`,
`gen-ai-agent-spans.md`, `gen-ai-metrics.md`, `docs/registry/attributes/gen-ai.md`; the GenAI
pages are the same in v1.41.1, the last release before they moved to their own repository).
The `stopkit.*` names are stopkit's own, for what the conventions have no name for.
"""

from __future__ import annotations

from stopkit._counting import output_tokens, prompt_tokens
from stopkit._stop import StopReason, Usage

__all__ = [
    "DURATION_BUCKETS",
    "FINISH_REASONS",
    "OPERATIONS",
    "PROVIDER_NAMES",
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

# The well-known `gen_ai.provider.name` of each built-in adapter (gen-ai-spans.md, the values
# listed under `gen_ai.provider.name`). The attribute names the telemetry flavour of the wire
# format, so the OpenAI-compatible dialects read by `openai.chat` (Azure, Groq, DeepSeek,
# vLLM...) are `openai`. A reply says nothing of which Google endpoint sent it: `gcp.gen_ai`
# ("may be used when specific backend is unknown"); a wrapped google-genai client knows, and
# says `gcp.gemini` or `gcp.vertex_ai`. Ollama has no listed value: its own name (custom values
# are allowed). Any other adapter's name is used as it is.
PROVIDER_NAMES: dict[str, str] = {
    "anthropic": "anthropic",
    "openai.chat": "openai",
    "openai.responses": "openai",
    "gemini": "gcp.gen_ai",
    "bedrock": "aws.bedrock",
    "bedrock.invoke": "aws.bedrock",
    "cohere": "cohere",
    "ollama": "ollama",
    "openai.completions": "openai",
    "cohere.v1": "cohere",
    "xai": "x_ai",
    # The framework adapters (issue 18) read objects of many providers: the framework's own
    # name (a custom value); the provider it wrapped is the Stop's details["integration"].
    "langchain": "langchain",
    "litellm": "litellm",
    "pydantic_ai": "pydantic_ai",
    # An OpenAI Agents run speaks the Responses API: `openai`, well-known.
    "openai.agents": "openai",
}

# `gen_ai.operation.name`: `generate_content` is the listed value for Gemini's generateContent,
# `text_completion` for a prompt-completion API (the Bedrock InvokeModel bodies `bedrock.invoke`
# reads: Titan Text, Llama, Mistral text completion, Cohere Command; OpenAI's legacy
# Completions); every other built-in wire API is a chat API (`chat`).
OPERATIONS: dict[str, str] = {
    "gemini": "generate_content",
    "bedrock.invoke": "text_completion",
    "openai.completions": "text_completion",
}

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


def provider_name(adapter: str) -> str:
    """Return the `gen_ai.provider.name` for a stopkit adapter name.

    Example:
        >>> provider_name("openai.responses"), provider_name("my-proxy")
        ('openai', 'my-proxy')
    """
    return PROVIDER_NAMES.get(adapter, adapter)


def operation_name(adapter: str | None) -> str:
    """Return the `gen_ai.operation.name` of a model call read by `adapter` (`chat` when unknown).

    Example:
        >>> operation_name("gemini"), operation_name("anthropic")
        ('generate_content', 'chat')
    """
    return OPERATIONS.get(adapter, "chat") if adapter is not None else "chat"


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
