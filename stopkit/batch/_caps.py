"""The most output tokens a model may be asked for: a small table of documented caps.

A raised ceiling is clamped to it, so a resubmitted request is never refused for asking more
than the model can write. Where a model is not listed, only `--max-tokens-cap` clamps. The
numbers are each provider's documented maximum output for the model (the lower figure where
two sources disagree: asking for less than the cap is safe, asking for more is refused).
"""

from __future__ import annotations

import re

__all__ = ["OUTPUT_CAPS", "output_cap"]

#: Model id prefix -> documented maximum output tokens; the longest matching prefix wins.
OUTPUT_CAPS: dict[str, int] = {
    # Anthropic: platform.claude.com/docs/en/about-claude/models/overview ("Max output").
    "claude-3-haiku": 4096,
    "claude-3-opus": 4096,
    "claude-3-5-haiku": 8192,
    "claude-3-5-sonnet": 8192,
    "claude-3-7-sonnet": 64000,
    "claude-sonnet-4": 64000,
    "claude-opus-4": 32000,
    "claude-opus-4-1": 32000,
    "claude-opus-4-5": 64000,
    "claude-sonnet-4-5": 64000,
    "claude-haiku-4-5": 64000,
    "claude-opus-4-6": 128000,
    "claude-sonnet-4-6": 128000,
    # OpenAI: platform.openai.com/docs/models (each model's "Max output tokens").
    "gpt-3.5-turbo": 4096,
    "gpt-4-turbo": 4096,
    "gpt-4o": 16384,
    "gpt-4o-2024-05-13": 4096,  # the first snapshot: 4,096 (its model page, "Snapshots")
    "gpt-4o-mini": 16384,
    "gpt-4.1": 32768,
    "o1": 100000,
    "o1-mini": 65536,
    "o1-preview": 32768,
    "o3": 100000,
    "o3-mini": 100000,
    "o4-mini": 100000,
    "gpt-5": 128000,
    # The chat models of the GPT-5 family write far less than the family (LiteLLM's model map
    # agrees): without their rows, `gpt-5.1-chat-latest` would be raised past its cap.
    "gpt-5-chat": 16384,
    "gpt-5.1-chat": 16384,
    "gpt-5.2-chat": 16384,
    # Gemini: ai.google.dev/gemini-api/docs/models ("Output token limit").
    "gemini-1.5": 8192,
    "gemini-2.0-flash": 8192,
    "gemini-2.5-pro": 65536,
    "gemini-2.5-flash": 65536,
}

# Vendor decorations around a model id: Gemini's `models/`, Vertex's publisher path, Bedrock's
# `anthropic.` family, region prefix (`us.`, `eu.`, `global.`) and version suffix (`-v1:0`).
_PREFIX = re.compile(r"^(?:.*/models/|models/)?(?:(?:us|eu|apac|global)\.)?(?:anthropic\.)?")
_SUFFIX = re.compile(r"-v\d+(?::\d+)?$")


def output_cap(model: str | None) -> int | None:
    """The documented output cap of a model id, or None when the table does not know it.

    Example:
        >>> output_cap("claude-3-5-sonnet-20241022"), output_cap("us.anthropic.claude-3-haiku-v1:0")
        (8192, 4096)
    """
    if not model:
        return None
    name = _SUFFIX.sub("", _PREFIX.sub("", model.strip().lower()))
    best: str | None = None
    for prefix in OUTPUT_CAPS:
        if (name == prefix or name.startswith((prefix + "-", prefix + "@", prefix + "."))) and (
            best is None or len(prefix) > len(best)
        ):
            best = prefix
    return None if best is None else OUTPUT_CAPS[best]
