"""How each wire format counts a reply's tokens: which of its counts leave out which part.

stopkit's `Usage` keeps each format's own counts. Where a whole is needed — the prompt's size
for compaction, the conventions' input and output counts for telemetry — the parts a format
counts apart are added back in, from these tables.
"""

from __future__ import annotations

from stopkit._stop import Usage

__all__ = ["INPUT_APART", "REASONING_APART", "prompt_tokens"]

INPUT_APART = frozenset({"anthropic", "bedrock"})
"""The adapters whose input count leaves out the prompt read from and written to the cache."""
REASONING_APART = frozenset({"gemini"})
"""The adapters whose output count leaves out the reasoning (thinking) tokens."""


def prompt_tokens(adapter: str, usage: Usage) -> int | None:
    """Return the size of the prompt a reply read, cached tokens included (None: not said).

    Example:
        >>> prompt_tokens("anthropic", Usage(input_tokens=20, cache_read_tokens=900))
        920
        >>> prompt_tokens("openai.chat", Usage(input_tokens=920, cache_read_tokens=900))
        920
    """
    tokens = usage.input_tokens
    if tokens is None or adapter not in INPUT_APART:
        return tokens
    return tokens + (usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0)
