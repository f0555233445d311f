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

# Key fragments that name a credential (keys are lowercased and `-` read as `_` first).
_SECRET_PARTS = (
    "api_key",
    "apikey",
    "authorization",
    "password",
    "passwd",
    "secret",
    "cookie",
    "credential",
    "private_key",
    "access_key",
    "subscription_key",
)


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


def is_secret_key(key: Any) -> bool:
    """Say whether a mapping key names a credential (`api_key`, `Authorization`, `*_token`...).

    Usage counters such as `max_tokens` or `output_tokens` are not credentials.

    Example:
        >>> [is_secret_key(k) for k in ("x-api-key", "access_token", "max_tokens")]
        [True, True, False]
    """
    if not isinstance(key, str):
        return False
    name = key.lower().replace("-", "_")
    if name == "token" or name.endswith("_token") or name == "key":
        return True
    return any(part in name for part in _SECRET_PARTS)


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
