"""LiteLLM's rules: its own `finish_reason` values, and whose table reads a provider's own value.

LiteLLM answers every provider in OpenAI Chat's shape and maps each provider's stop value onto
OpenAI's `finish_reason` (`litellm/litellm_core_utils/core_helpers.py`, `map_finish_reason`): a
lossy map (`pause_turn` and `compaction` become `length`, Gemini's `MALFORMED_FUNCTION_CALL` and
Cohere's `ERROR` become `stop`), and a value it does not know becomes `stop`. A choice whose value
it changed keeps the provider's own in `provider_specific_fields["native_finish_reason"]`
(`litellm/types/utils.py`, `Choices.__init__`), read with the table of the provider's wire
format (named by `_hidden_params`, or else by the model); LiteLLM's Anthropic handler maps the
value before any choice sees it, and keeps Anthropic's `stop_reason` in the message's
`provider_specific_fields` for the stops it cares to (`KEPT_STOP_REASON`). A kept value wins.
Without one LiteLLM's own value is read (`LITELLM_FINISH_REASON`), with a note; where LiteLLM's
map sends several of the provider's values to it (`COLLAPSED`) the note names them, and a
`length` is `output_limit` with no detail (`COLLAPSED_VERDICTS`).

Example:
    >>> wire_of({"custom_llm_provider": "vertex_ai"}, "gemini-2.5-flash")
    ('gemini', 'vertex_ai')
    >>> wire_of({"litellm_model_name": "anthropic/claude-sonnet-4-5"}, "claude-sonnet-4-5")
    ('anthropic', 'anthropic')
    >>> LITELLM_FINISH_REASON["length"]
    (<StopReason.OUTPUT_LIMIT: 'output_limit'>, 'max_tokens')
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from stopkit._stop import StopReason
from stopkit.adapters._framework import BAD_CALLS, WIRES, family, wrapped
from stopkit.adapters._reading import Verdict
from stopkit.adapters._rules import Rules

__all__ = [
    "COLLAPSED",
    "COLLAPSED_FIELD",
    "COLLAPSED_VERDICTS",
    "KEPT_STOP_REASON",
    "LITELLM_FINISH_REASON",
    "NAME",
    "NATIVE",
    "PROVIDER_WIRES",
    "RULES",
    "native_field",
    "wire_of",
]

NAME = "litellm"

_CHAT = WIRES["openai.chat"].table
# LiteLLM's own `finish_reason`: litellm/types/llms/openai.py `OpenAIChatCompletionFinishReason`
# (litellm 1.110): OpenAI's values, Together's `eos`, and three it passes on lowercased from the
# provider that sent them (Bedrock's guardrail, Vertex AI's two), read with that provider's row.
LITELLM_FINISH_REASON: dict[str, Verdict] = {
    **{k: _CHAT[k] for k in ("stop", "length", "tool_calls", "function_call", "content_filter")},
    "eos": _CHAT["eos"],
    "guardrail_intervened": WIRES["bedrock"].table["guardrail_intervened"],
    "finish_reason_unspecified": WIRES["gemini"].table["FINISH_REASON_UNSPECIFIED"],
    "malformed_function_call": WIRES["gemini"].table["MALFORMED_FUNCTION_CALL"],
}

_OWN = replace(wrapped("openai.chat", NAME, "finish_reason"), table=LITELLM_FINISH_REASON)

# LiteLLM's provider names (litellm/types/utils.py `LlmProviders`) whose native values are not
# OpenAI Chat's, and the wire format they are in. Every other provider (openai, azure, groq,
# mistral, deepseek, openrouter, the vLLM and OpenAI-compatible servers...) speaks OpenAI Chat.
PROVIDER_WIRES: dict[str, str] = {
    "anthropic": "anthropic",
    "anthropic_text": "anthropic",
    "bedrock": "bedrock",  # Converse's stopReason; Claude's values through it are the same
    "gemini": "gemini",
    "vertex_ai": "gemini",  # Claude on Vertex AI is read by its model name
    "vertex_ai_beta": "gemini",
    "ollama": "ollama",
    "ollama_chat": "ollama",
    "cohere": "cohere",
    "cohere_chat": "cohere",
}

#: The rules a native value is read with, per wire format.
NATIVE: dict[str, Rules] = {
    name: wrapped(name, NAME, f"{name} native_finish_reason")
    for name in ("openai.chat", *dict.fromkeys(PROVIDER_WIRES.values()))
}

# LiteLLM's map of each wire format's own values onto its own (core_helpers.py,
# `map_finish_reason` over `_FINISH_REASON_MAP`, which makes a value it does not know `stop`),
# litellm 1.110.2: every LiteLLM value it sends several of one wire format's values to, and
# those values, in the table's order. Where LiteLLM kept no provider value, such a value no
# longer says which it stands for. A test pins this table to LiteLLM's own map.
COLLAPSED: dict[str, dict[str, tuple[str, ...]]] = {
    "openai.chat": {
        "stop": (
            "stop",
            "insufficient_system_resource",
            "abort",
            "error",
            "repetition",
            "eos",
            "model_length",
        ),
    },
    "anthropic": {
        "stop": (
            "end_turn",
            "stop_sequence",
        ),
        "length": (
            "max_tokens",
            "model_context_window_exceeded",
            "pause_turn",
            "compaction",
        ),
    },
    "bedrock": {
        "stop": (
            "end_turn",
            "stop_sequence",
            "malformed_model_output",
            "malformed_tool_use",
        ),
        "length": (
            "max_tokens",
            "model_context_window_exceeded",
        ),
        "content_filter": (
            "guardrail_intervened",
            "content_filtered",
        ),
    },
    "gemini": {
        "stop": (
            "STOP",
            "MODEL_ARMOR",
            "PUP_LIMITED_DISABLED",
            "MALFORMED_FUNCTION_CALL",
            "UNEXPECTED_TOOL_CALL",
            "TOO_MANY_TOOL_CALLS",
            "MALFORMED_RESPONSE",
            "MISSING_THOUGHT_SIGNATURE",
            "FINISH_REASON_UNSPECIFIED",
        ),
        "length": (
            "MAX_TOKENS",
            "CONTINUATION",
        ),
        "content_filter": (
            "SAFETY",
            "RECITATION",
            "LANGUAGE",
            "BLOCKLIST",
            "PROHIBITED_CONTENT",
            "SPII",
            "IMAGE_SAFETY",
            "IMAGE_PROHIBITED_CONTENT",
            "IMAGE_RECITATION",
            "ESCALATION",
            "OTHER",
            "IMAGE_OTHER",
            "NO_IMAGE",
        ),
    },
    "ollama": {
        "stop": (
            "stop",
            "load",
            "unload",
            "",
        ),
    },
    "cohere": {
        "stop": (
            "COMPLETE",
            "STOP_SEQUENCE",
            "ERROR",
            "TIMEOUT",
        ),
    },
}
"""wire format -> LiteLLM's value -> the wire format's values LiteLLM's map sends to it."""

#: LiteLLM's own values read another way where they stand for several of the provider's values
#: and no provider value was kept: a `length` says a ceiling (or a pause) was reached, not which
#: (DESIGN section 3: never a guessed `max_tokens`).
COLLAPSED_VERDICTS: dict[str, Verdict] = {"length": (StopReason.OUTPUT_LIMIT, None)}

#: Anthropic's own `stop_reason`, which LiteLLM's Anthropic handler keeps in the message's (a
#: stream chunk's delta's, the reply's `_hidden_params`) `provider_specific_fields` for a refusal,
#: a `pause_turn`, or any stop with `stop_details`
#: (litellm/llms/anthropic/common_utils.py, `stop_reason_provider_specific_fields`).
KEPT_STOP_REASON = wrapped("anthropic", NAME, "anthropic stop_reason (provider_specific_fields)")

COLLAPSED_FIELD = "finish_reason (a value LiteLLM collapsed)"
"""The field a reading names for LiteLLM's own value read through `COLLAPSED_VERDICTS`."""


def native_field(name: str) -> str:
    """The field a reading names for a native value of the wire format `name` (`NATIVE`'s).

    Example:
        >>> native_field("gemini")
        'gemini native_finish_reason'
    """
    return NATIVE[name].title


#: The rules of LiteLLM's own value: OpenAI Chat's (its dialect notes and steps) on its table.
#: A reading of a value LiteLLM kept from the provider names the field it came from (the
#: provider's table decides it), as does one of LiteLLM's own values it collapsed. Every wire
#: format's values that say the calls themselves are bad come along, and LiteLLM's lowercased
#: Vertex AI one.
RULES = replace(
    _OWN,
    bad_calls={
        **BAD_CALLS,
        "malformed_function_call": WIRES["gemini"].bad_calls["MALFORMED_FUNCTION_CALL"],
    },
    fields={
        **{rules.title: rules for rules in NATIVE.values()},
        KEPT_STOP_REASON.title: KEPT_STOP_REASON,
        COLLAPSED_FIELD: replace(_OWN, table=COLLAPSED_VERDICTS),
    },
)


def wire_of(hidden: Any, model: Any) -> tuple[str, str | None]:
    """Name the wire format of a reply's native values, and the LiteLLM provider that said so.

    From the reply's `_hidden_params`: `custom_llm_provider` (stream chunks carry it), else the
    provider prefix of `litellm_model_name` (`anthropic/claude-...`); else a `provider/model`
    name's prefix; else the model's family (`claude-*`, `gemini-*`); else OpenAI Chat.
    """
    said = hidden if isinstance(hidden, dict) else {}
    provider = said.get("custom_llm_provider")
    if not isinstance(provider, str) or not provider:
        provider = _prefix(said.get("litellm_model_name"))
    if provider is None:
        prefix = _prefix(model)
        provider = prefix if prefix in PROVIDER_WIRES else None
    if provider is None:
        return family(model) or "openai.chat", None
    name = PROVIDER_WIRES.get(provider, "openai.chat")
    if name == "gemini" and family(model) == "anthropic":
        name = "anthropic"
    return name, provider


def _prefix(model: Any) -> str | None:
    """The `provider` of a `provider/model` name (None without one)."""
    if not isinstance(model, str):
        return None
    prefix, slash, _ = model.partition("/")
    return prefix if slash and prefix else None
