"""Cohere's token counts, the same object in both of its chat APIs: v2 `usage` and v1 `meta`.

cohere/types/usage.py (v2) and cohere/types/api_meta.py (v1) both hold `tokens` (what the model
read and wrote, the prompt template included: what the context window and the output ceiling
measure), `billed_units` (what is billed, often far less) and `cached_tokens`. `Stop.usage` is
the model's count; the billed one stays in the raw object the adapter keeps in
`details["usage"]`. The SDK types the counts as floats: an integral float reads as the int the
wire sent.

Example:
    >>> usage({"tokens": {"input_tokens": 49.0, "output_tokens": 69},
    ...        "billed_units": {"input_tokens": 31}}).input_tokens
    49
"""

from __future__ import annotations

from typing import Any

from stopkit._stop import Usage
from stopkit.adapters._reading import tokens
from stopkit.adapters._wire import wire

__all__ = ["usage"]


def usage(counted: Any) -> Usage | None:
    """Return the `Usage` of a Cohere `usage` (v2) or `meta` (v1) object."""
    said = wire(counted)
    counts = wire(said.get("tokens"))
    return tokens(
        _whole(counts.get("input_tokens")),
        _whole(counts.get("output_tokens")),
        _whole(counts.get("reasoning_tokens")),  # sent by reasoning models, not typed yet
        _whole(said.get("cached_tokens")),
    )


def _whole(value: Any) -> Any:
    """A count the SDK turned into a float (`12.0`) as the int the wire sent."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value
