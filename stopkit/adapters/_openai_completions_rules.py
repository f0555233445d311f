"""OpenAI legacy Completions' rules: the Chat values its servers send, with Chat's meaning.

`POST /v1/completions` says why each choice stopped in the same `finish_reason` as Chat, with the
same meaning, and the compatible servers that also serve a text-completions endpoint (vLLM,
Together, DeepSeek's FIM completions, OpenRouter) send there the dialect values they send on
Chat. So the verdicts, the dialect notes and the provider steps (Azure's filter category,
vLLM's `stop_reason`) are Chat's own, imported. Left out: the tool-call values (the endpoint
takes no tools) and Mistral's `model_length` (Mistral serves no text completions); such a value
is not one of this format's, so it reads as any other unknown value.
"""

from __future__ import annotations

from stopkit.adapters import _openai_chat_rules as chat
from stopkit.adapters._reading import Verdict
from stopkit.adapters._rules import Rules

__all__ = ["FINISH_REASON", "PROVIDER", "RULES"]

PROVIDER = "openai.completions"

# `choices[i].finish_reason`. OpenAI: openai/types/completion_choice.py (CompletionChoice, the
# Literal "stop", "length", "content_filter"; streamed chunks are the same `Completion` object,
# openai/types/completion.py). The dialects, as `_openai_chat_rules.FINISH_REASON` cites them:
# DeepSeek `insufficient_system_resource` (its FIM completions list it too), vLLM `abort`,
# `error` and `repetition` (its CompletionResponseChoice shares Chat's finish values), OpenRouter
# `error`, Together `eos` (its legacy completions).
_VALUES = (
    "stop",
    "length",
    "content_filter",
    "insufficient_system_resource",
    "abort",
    "error",
    "repetition",
    "eos",
)
FINISH_REASON: dict[str, Verdict] = {raw: chat.FINISH_REASON[raw] for raw in _VALUES}
"""Legacy Completions `finish_reason` -> (reason, detail): Chat's entries, less its tool values."""

RULES = Rules(
    PROVIDER,
    "finish_reason",
    FINISH_REASON,
    {raw: note for raw, note in chat.DIALECT_NOTES.items() if raw in FINISH_REASON},
    steps=(chat.azure_filter_category, chat.vllm_stop_reason),
)
