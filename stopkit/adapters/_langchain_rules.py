"""LangChain's integrations: the metadata key each one keeps its stop value under, and its table.

A LangChain chat model keeps the provider's own stop value, unchanged, in the message's
`response_metadata` (a generation's `generation_info` until langchain-core merges it in), under
a key of the integration's own. `response_metadata["model_provider"]` names the integration; a
message without it (older integrations, a message built by hand) is read by the key it holds,
and a `finish_reason` by its model's name (Gemini's values are not OpenAI's). The value is then
read with the table of the wire format the integration speaks (see `_framework`).

Example:
    >>> integration({"model_provider": "ollama", "done_reason": "length"})[0].title
    'ChatOllama done_reason'
    >>> integration({"stopReason": "end_turn"})[0].name
    'bedrock_converse'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from stopkit.adapters._framework import class_of, family, wrapped
from stopkit.adapters._gemini_rules import BLOCK_REASONS as GEMINI_BLOCK_REASONS
from stopkit.adapters._rules import Rules
from stopkit.adapters._wire import raw_value, wire

__all__ = [
    "BLOCK_FIELD",
    "INTEGRATIONS",
    "NAME",
    "RULES",
    "STOP_KEYS",
    "Integration",
    "block_reason",
    "integration",
    "kind_of",
]

NAME = "langchain"


@dataclass(frozen=True)
class Integration:
    """One LangChain integration: where its stop value sits and the rules that read it."""

    name: str
    """Its `model_provider` (what `details["integration"]` says)."""
    key: str
    """The `response_metadata` / `generation_info` key of its stop value."""
    wire: str
    """The built-in adapter whose table reads the value."""
    title: str
    """The value's name in notes and in the README's table."""

    @property
    def rules(self) -> Rules:
        """The wire format's rules under the `langchain` name and this key's title."""
        return _RULES[self]


# Each integration's key, from its source (the versions read are named):
# - langchain-anthropic 1.7.10, langchain_anthropic/chat_models.py: `_format_output` returns the
#   Messages API body (`stop_reason`, `stop_sequence`) as `llm_output`, which langchain-core
#   merges into a single generation's `response_metadata`; a stream's `message_delta` chunk
#   carries `stop_reason`/`stop_sequence`; every message gets `model_provider: "anthropic"`.
ANTHROPIC = Integration("anthropic", "stop_reason", "anthropic", "ChatAnthropic stop_reason")
# - langchain-openai 1.7.4, langchain_openai/chat_models/base.py: `_create_chat_result` puts each
#   choice's `finish_reason` in `generation_info`, and the stream's last choice chunk in
#   `generation_info` too; `model_provider: "openai"`. The Responses API path
#   (`_construct_lc_result_from_responses_api`) keeps the Response's `status` and
#   `incomplete_details` in `response_metadata` instead.
OPENAI = Integration("openai", "finish_reason", "openai.chat", "ChatOpenAI finish_reason")
OPENAI_RESPONSES = Integration(
    "openai", "status", "openai.responses", "ChatOpenAI status (Responses API)"
)
# - langchain-google-genai 4.4.3, langchain_google_genai/chat_models.py `_response_to_result`:
#   `generation_info["finish_reason"] = candidate.finish_reason.name` (`UNKNOWN_<n>` for a
#   number the SDK does not know); `model_provider: "google_genai"`.
GOOGLE = Integration(
    "google_genai", "finish_reason", "gemini", "ChatGoogleGenerativeAI finish_reason"
)
# - langchain-mistralai 1.1.6, langchain_mistralai/chat_models.py: `_create_chat_result` puts
#   `finish_reason` in `generation_info`, a stream chunk in `response_metadata`;
#   `model_provider: "mistralai"`. Mistral's values are in the OpenAI Chat table.
MISTRAL = Integration("mistralai", "finish_reason", "openai.chat", "ChatMistralAI finish_reason")
# - langchain-ollama 1.1.0, langchain_ollama/chat_models.py: the final (`done: true`) reply,
#   `done_reason` included, becomes `generation_info`, with `model_provider: "ollama"`.
OLLAMA = Integration("ollama", "done_reason", "ollama", "ChatOllama done_reason")
# - langchain-aws 1.9.1, langchain_aws/chat_models/bedrock_converse.py: `_parse_response` keeps
#   the Converse body (`stopReason`, `metrics`) as `response_metadata`; a stream's `messageStop`
#   event becomes a chunk whose `response_metadata` is `{"stopReason": ...}`;
#   `model_provider: "bedrock_converse"`.
BEDROCK = Integration("bedrock_converse", "stopReason", "bedrock", "ChatBedrockConverse stopReason")

#: Every integration, the README's order.
INTEGRATIONS: tuple[Integration, ...] = (
    OPENAI,
    ANTHROPIC,
    GOOGLE,
    MISTRAL,
    OLLAMA,
    BEDROCK,
    OPENAI_RESPONSES,
)
_RULES = {item: wrapped(item.wire, NAME, item.title) for item in INTEGRATIONS}

BLOCK_FIELD = "prompt_feedback.block_reason"
"""Where langchain-google-genai keeps a blocked prompt's reason (a reply with no candidate)."""

#: A reading names the integration whose key its value was read from (`Reading.field` is the
#: integration's title): that wire format's table, notes and steps decide it. A reading that
#: names none holds no stop value LangChain kept.
RULES = Rules(
    NAME,
    "stop value",
    {},
    fields={
        **{item.title: _RULES[item] for item in INTEGRATIONS},
        BLOCK_FIELD: Rules(NAME, BLOCK_FIELD, GEMINI_BLOCK_REASONS),
    },
)

# model_provider -> its integrations, the usual key first.
_BY_PROVIDER: dict[str, tuple[Integration, ...]] = {
    "anthropic": (ANTHROPIC,),
    "openai": (OPENAI, OPENAI_RESPONSES),
    "google_genai": (GOOGLE,),
    "mistralai": (MISTRAL,),
    "ollama": (OLLAMA,),
    "bedrock_converse": (BEDROCK,),
}
# Without a known model_provider, the key tells (a `finish_reason` goes by the model's name).
# `status` is not among them: too common a word to name the Responses API on its own.
_BY_KEY: tuple[Integration, ...] = (BEDROCK, OLLAMA, ANTHROPIC, OPENAI)

#: Every key an integration keeps a stop value under (ChatAnthropic's `stop_sequence` too).
STOP_KEYS = frozenset({item.key for item in INTEGRATIONS} | {"stop_sequence"})


def integration(metadata: Mapping[str, Any]) -> tuple[Integration | None, str | None]:
    """Say which integration's rules read a message's metadata, and why when it was guessed.

    Returns the integration (None when nothing names one) and a note when it was inferred
    from the key or the model's name rather than named by `model_provider`.
    """
    provider = metadata.get("model_provider")
    known = _BY_PROVIDER.get(provider) if type(provider) is str else None
    if known is not None:
        for item in known:
            if metadata.get(item.key) is not None:
                return item, None
        return known[0], None
    for item in _BY_KEY:
        value = metadata.get(item.key)
        if value is not None:
            model = metadata.get("model_name") or metadata.get("model")
            if item is OPENAI and family(model) == "gemini":
                item = GOOGLE
            said = "no model_provider" if provider is None else f"model_provider {provider!r}"
            return item, (
                f"{said} names no integration stopkit knows: "
                f"{item.key} {value!r} read with the {item.wire} table"
            )
    return None, None


def block_reason(metadata: Mapping[str, Any]) -> str | None:
    """A Gemini prompt's block reason, as langchain-google-genai keeps it (None: not blocked).

    A reply with no candidate keeps `prompt_feedback` (the google-genai `PromptFeedback`
    dumped): its `block_reason` names why; a number (0, the default) names none.

    Example:
        >>> block_reason({"prompt_feedback": {"block_reason": 0, "safety_ratings": []}}) is None
        True
    """
    block = raw_value(wire(metadata.get("prompt_feedback")).get("block_reason"))
    return block if isinstance(block, str) and block else None


# The classes read, most specific first (a class is known by the first of these in its MRO).
_CLASSES = frozenset(
    {
        "AIMessageChunk", "AIMessage", "ChatGenerationChunk", "ChatGeneration",
        "GenerationChunk", "Generation", "ChatResult", "LLMResult",
    }
)  # fmt: skip


def kind_of(obj: Any) -> str | None:
    """Name the langchain-core class `obj` is an instance of (`AIMessage`, `ChatResult`, ...).

    None for anything else (a dict, an SDK object, a `HumanMessage`).

    Example:
        >>> kind_of({"content": "Hi"}) is None
        True
    """
    return class_of(obj, "langchain_core.", _CLASSES)
