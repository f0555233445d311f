"""The conventions' tables: finish reasons, provider names, and how tokens are counted."""

from __future__ import annotations

import pytest

from stopkit import StopReason, Usage
from stopkit.otel import _names
from tests._adapters import BUILTINS, FRAMEWORKS, Builtin, Framework

# The well-known values of the conventions (v1.41.0, gen-ai-spans.md and
# gen-ai-output-messages.json), written out here so that a typo in the code cannot agree with
# itself.
WELL_KNOWN_FINISH = {"stop", "length", "content_filter", "tool_call", "error"}
WELL_KNOWN_PROVIDERS = {
    "anthropic", "aws.bedrock", "azure.ai.inference", "azure.ai.openai", "cohere", "deepseek",
    "gcp.gemini", "gcp.gen_ai", "gcp.vertex_ai", "groq", "ibm.watsonx.ai", "mistral_ai",
    "openai", "perplexity", "x_ai",
}  # fmt: skip


def test_every_stop_reason_has_a_finish_reason() -> None:
    """Each reason maps to a well-known value; only `paused`, which has none, is its own."""
    assert set(_names.FINISH_REASONS) == set(StopReason)
    custom = {r for r, v in _names.FINISH_REASONS.items() if v not in WELL_KNOWN_FINISH}
    assert custom == {StopReason.PAUSED}
    assert _names.finish_reason(StopReason.PAUSED) == "paused"


@pytest.mark.parametrize(
    ("reason", "value"),
    [
        (StopReason.TOOL_REQUEST, "tool_call"),
        (StopReason.COMPLETED, "stop"),
        (StopReason.STOP_SEQUENCE, "stop"),
        (StopReason.OUTPUT_LIMIT, "length"),
        (StopReason.FILTERED, "content_filter"),
        (StopReason.UNKNOWN, "error"),
    ],
)
def test_finish_reason_mapping(reason: StopReason, value: str) -> None:
    """The mapping of issue 14, reason by reason."""
    assert _names.finish_reason(reason) == value


ROWS = [*BUILTINS, *FRAMEWORKS]


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.name)
def test_every_built_in_adapter_has_a_provider_name(row: Builtin | Framework) -> None:
    """Each adapter names its provider as its row says: well-known, or (none listed) its own.

    Ollama and the frameworks name none (the conventions list no value for them): theirs is
    their own name, a custom value.
    """
    assert _names.provider_name(row.name) == (row.otel_provider or row.name)
    assert row.otel_provider is None or row.otel_provider in WELL_KNOWN_PROVIDERS
    assert _names.provider_name("someone-elses") == "someone-elses"


def test_the_built_ins_without_a_well_known_provider_are_ollama_and_the_frameworks() -> None:
    """Of stopkit's own adapters, only Ollama and the frameworks have no well-known name."""
    shipped = {"ollama", "langchain", "litellm", "pydantic_ai", "anthropic", "openai.chat",
               "openai.responses", "gemini", "bedrock", "bedrock.invoke", "cohere", "cohere.v1",
               "openai.completions", "openai.agents"}  # fmt: skip
    custom = {row.name for row in ROWS if row.name in shipped and row.otel_provider is None}
    assert custom == {"ollama", "langchain", "litellm", "pydantic_ai"}


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.name)
def test_operation_names(row: Builtin | Framework) -> None:
    """Each wire API's operation is the conventions' name for its kind of API (as its row says)."""
    assert _names.operation_name(row.name) == row.otel_operation
    assert _names.operation_name(None) == "chat"


@pytest.mark.parametrize(
    ("adapter", "usage", "expected"),
    [
        pytest.param(
            "anthropic",
            Usage(input_tokens=10, output_tokens=5, cache_read_tokens=80, cache_write_tokens=7),
            {"gen_ai.usage.input_tokens": 97, "gen_ai.usage.output_tokens": 5,
             "gen_ai.usage.cache_read.input_tokens": 80,
             "gen_ai.usage.cache_creation.input_tokens": 7},
            id="anthropic-cache-apart",
        ),
        pytest.param(
            "bedrock",
            Usage(input_tokens=10, output_tokens=5, cache_read_tokens=3),
            {"gen_ai.usage.input_tokens": 13, "gen_ai.usage.output_tokens": 5,
             "gen_ai.usage.cache_read.input_tokens": 3},
            id="bedrock-cache-apart",
        ),
        pytest.param(
            "gemini",
            Usage(input_tokens=10, output_tokens=5, reasoning_tokens=40, cache_read_tokens=4),
            {"gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 45,
             "gen_ai.usage.reasoning.output_tokens": 40,
             "gen_ai.usage.cache_read.input_tokens": 4},
            id="gemini-thoughts-apart",
        ),
        pytest.param(
            "openai.chat",
            Usage(input_tokens=10, output_tokens=45, reasoning_tokens=40, cache_read_tokens=4),
            {"gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 45,
             "gen_ai.usage.reasoning.output_tokens": 40,
             "gen_ai.usage.cache_read.input_tokens": 4},
            id="openai-counted-in",
        ),
        pytest.param("anthropic", Usage(output_tokens=0), {"gen_ai.usage.output_tokens": 0},
                     id="a-zero-stays-an-absent-count-is-left-out"),
        # An attribute's int is a signed 64-bit one (OTLP drops a bigger one, logging an error
        # per span); such a count (a reply's garbage, or a sum of it) is left out, spans and
        # the token histogram alike.
        pytest.param(
            "anthropic",
            Usage(input_tokens=2**63, output_tokens=5, cache_read_tokens=2**63 - 1),
            {"gen_ai.usage.output_tokens": 5, "gen_ai.usage.cache_read.input_tokens": 2**63 - 1},
            id="beyond-int64-is-left-out",
        ),
    ],
)  # fmt: skip
def test_usage_is_counted_as_the_conventions_count(
    adapter: str, usage: Usage, expected: dict[str, int]
) -> None:
    """Input includes cached tokens and output includes reasoning, whatever the wire did."""
    assert _names.usage_attributes(adapter, usage) == expected
