"""Bounded, credential-free text for logs and notes: `clip` and `redact` (internal).

Whatever stopkit logs may come from a model reply (a stop value it does not know, a tool's
arguments) or from the caller (call overrides, request headers). Reply values are untrusted: of
any size and any depth, so they are shown through `clip`, which never builds more than a bounded
repr and never raises. Caller values may hold credentials (`api_key`, `Authorization`, tokens),
so mappings are passed through `redact` first.

Example:
    >>> clip("x" * 1000, limit=12)
    "'xxxxxxxxxx…"
    >>> redact({"max_tokens": 10, "extra_headers": {"Authorization": "Bearer sk-1"}})
    {'max_tokens': 10, 'extra_headers': {'Authorization': '[redacted]'}}
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from typing import Any

from stopkit._secrets import is_secret_key

__all__ = ["LIMIT", "REDACTED", "clip", "is_secret_key", "redact"]

#: The longest text `clip` returns by default.
LIMIT = 200
#: What `redact` puts in place of a credential.
REDACTED = "[redacted]"

# reprlib bounds the work itself, not only the result: at most 6 levels deep and a few items per
# container, so a reply nested 10,000 deep or holding a million items costs nothing to show.
_REPR = reprlib.Repr()
_REPR.maxlevel = 6
_REPR.maxstring = LIMIT
_REPR.maxother = LIMIT
_REPR.maxlong = LIMIT
for _name in ("maxdict", "maxlist", "maxtuple", "maxset", "maxfrozenset", "maxdeque"):
    setattr(_REPR, _name, 8)


def clip(value: Any, limit: int = LIMIT) -> str:
    """Return the repr of `value`, at most `limit` characters, without ever raising.

    Long strings are cut before they are repr'd, containers are shown a few items and levels
    deep, and a value whose repr fails (an int too long to print, a broken `__repr__`) is
    shown by its type.

    Example:
        >>> clip({"a": [1, 2, 3]})
        "{'a': [1, 2, 3]}"
    """
    limit = max(limit, 2)
    try:
        if isinstance(value, str | bytes) and len(value) > limit:
            text = repr(value[:limit])
        else:
            text = _REPR.repr(value)
    except Exception:  # a hostile or broken repr must not break the caller's logging
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def redact(mapping: Mapping[Any, Any], *, depth: int = 8) -> dict[Any, Any]:
    """Return a copy of `mapping` with every credential value replaced by `[redacted]`.

    Nested mappings and lists are redacted too, down to `depth` levels (deeper ones are
    replaced whole, since what they hold cannot be checked).

    Example:
        >>> redact({"api_key": "sk-1", "model": "m"})
        {'api_key': '[redacted]', 'model': 'm'}
    """
    out: dict[Any, Any] = {}
    for key, value in mapping.items():
        out[key] = REDACTED if is_secret_key(key) else _redact_value(value, depth - 1)
    return out


def _redact_value(value: Any, depth: int) -> Any:
    if isinstance(value, Mapping):
        return redact(value, depth=depth) if depth > 0 else REDACTED
    if isinstance(value, list | tuple):
        if depth <= 0:
            return REDACTED
        return [_redact_value(item, depth - 1) for item in value]
    return value
