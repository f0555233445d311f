"""How each wire format counts a reply's tokens: which of its counts leave out which part.

stopkit's `Usage` keeps each format's own counts. Where a whole is needed — the prompt's size
for compaction, the conventions' input and output counts for telemetry, the output a cut reply
spent under its ceiling — the parts a format counts apart are added back in. Each adapter says
which (`counts_apart`: `cache`, `reasoning`); an adapter that does not say counts nothing apart.
"""

from __future__ import annotations

from stopkit._errors import AdapterNotFound
from stopkit._registry import get_adapter
from stopkit._stop import Usage

__all__ = ["counts_apart", "output_tokens", "prompt_tokens"]


def counts_apart(adapter: str) -> frozenset[str]:
    """Return what the usage of `adapter`'s replies leaves out (`cache`, `reasoning`).

    Example:
        >>> sorted(counts_apart("anthropic")), sorted(counts_apart("someone-elses"))
        (['cache'], [])
    """
    try:
        found = get_adapter(adapter)
    except AdapterNotFound:
        return frozenset()
    apart: frozenset[str] = frozenset(getattr(found, "counts_apart", ()))
    return apart


def prompt_tokens(adapter: str, usage: Usage) -> int | None:
    """Return the size of the prompt a reply read, cached tokens included (None: not said).

    Example:
        >>> prompt_tokens("anthropic", Usage(input_tokens=20, cache_read_tokens=900))
        920
        >>> prompt_tokens("openai.chat", Usage(input_tokens=920, cache_read_tokens=900))
        920
    """
    tokens = usage.input_tokens
    if tokens is None or "cache" not in counts_apart(adapter):
        return tokens
    return tokens + (usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0)


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
    tokens = usage.output_tokens
    if tokens is None or "reasoning" not in counts_apart(adapter):
        return tokens
    return tokens + (usage.reasoning_tokens or 0)
