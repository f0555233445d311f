"""How each wire format counts a reply's tokens: which of its counts leave out which part.

stopkit's `Usage` keeps each format's own counts. Where a whole is needed — the prompt's size
for compaction, the conventions' input and output counts for telemetry, the output a cut reply
spent under its ceiling — the parts a format counts apart are added back in, from these tables.
"""

from __future__ import annotations

from stopkit._stop import Usage

__all__ = ["INPUT_APART", "REASONING_APART", "output_tokens", "prompt_tokens"]

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
    read, write = usage.cache_read_tokens, usage.cache_write_tokens
    return _whole(usage.input_tokens, adapter in INPUT_APART, read, write)


def output_tokens(adapter: str, usage: Usage) -> int | None:
    """Return the output a reply spent, reasoning included (None: not said).

    This is what an output ceiling (`max_tokens`, `max_output_tokens`, `maxOutputTokens`)
    bounds: a reply cut at its ceiling reports about the ceiling here.

    Example:
        >>> output_tokens("gemini", Usage(output_tokens=100, reasoning_tokens=900))
        1000
        >>> output_tokens("openai.chat", Usage(output_tokens=1000, reasoning_tokens=900))
        1000
    """
    return _whole(usage.output_tokens, adapter in REASONING_APART, usage.reasoning_tokens)


def _whole(tokens: int | None, apart: bool, *parts: int | None) -> int | None:
    """`tokens` with the parts counted apart added in (an unsaid count: nothing to add)."""
    if tokens is None or not apart:
        return tokens
    return tokens + sum(part or 0 for part in parts)
