"""Bounded, credential-free text for logs and notes: `clip` and `redact` (internal).

Whatever stopkit logs may come from a model reply (a stop value it does not know, a tool's
arguments) or from the caller (call overrides, request headers). Reply values are untrusted: of
any size and any depth, so they are shown through `clip`, which never builds more than a bounded
repr and never raises. Caller values may hold credentials (`api_key`, `Authorization`, tokens,
a `base_url` with a password, an exception message quoting a URL with `?key=`), so mappings are
passed through `redact` first, and `clip` scrubs URL credentials and bearer tokens from the text
it returns. Both redact with `stopkit._secrets`, the one redaction recording uses too.

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

from stopkit._secrets import is_secret_key, redact_text, redact_value

__all__ = ["LIMIT", "REDACTED", "clip", "is_secret_key", "redact", "shorten"]

#: The longest text `clip` returns by default.
LIMIT = 200
#: What `redact` puts in place of a credential.
REDACTED = "[redacted]"

# reprlib bounds the work itself, not only the result: at most 6 levels deep and a few items per
# container, so a reply nested 10,000 deep or holding a million items costs nothing to show.
_REPR = reprlib.Repr()
_REPR.maxlevel = 6
# How far past the limit text is scrubbed: a URL's user info longer than this could show its start.
_MARGIN = 256
_REPR.maxstring = LIMIT + _MARGIN
_REPR.maxother = LIMIT
_REPR.maxlong = LIMIT
for _name in ("maxdict", "maxlist", "maxtuple", "maxset", "maxfrozenset", "maxdeque"):
    setattr(_REPR, _name, 8)


def clip(value: Any, limit: int = LIMIT) -> str:
    """Return the repr of `value`, at most `limit` characters, without ever raising.

    Long strings are cut before they are repr'd, containers are shown a few items and levels
    deep, and a value whose repr fails (an int too long to print, a broken `__repr__`) is
    shown by its type. URL credentials and bearer tokens in the text are `[redacted]`.

    Example:
        >>> clip({"a": [1, 2, 3]})
        "{'a': [1, 2, 3]}"
    """
    limit = max(limit, 2)
    # Scrubbed beyond the limit, so that a credential the cut falls inside is still found whole.
    window = limit + _MARGIN
    try:
        if isinstance(value, str):
            # Scrubbed before the repr too: the repr of text holding both quote kinds escapes
            # them (`\'api_key\': \'...\'`), which no longer reads as a quoted pair.
            text = repr(redact_text(value[:window], mark=REDACTED))
        elif isinstance(value, bytes) and len(value) > window:
            text = repr(value[:window])
        else:
            text = _REPR.repr(value)
        text = redact_text(text, mark=REDACTED)
    except Exception:  # a hostile or broken repr must not break the caller's logging
        text = f"<{type(value).__name__}>"
    return shorten(text, limit)


def shorten(text: str, limit: int = LIMIT) -> str:
    """Return `text` cut to at most `limit` characters, a cut marked with `…`.

    Example:
        >>> shorten("x" * 1000, limit=5)
        'xxxx…'
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def redact(mapping: Mapping[Any, Any], *, depth: int = 8) -> dict[Any, Any]:
    """Return a copy of `mapping` with every credential in it replaced by `[redacted]`.

    Secret keys in any case style, header and query names under `*_headers`/`*_query` (as a
    mapping or a list of pairs), and URL credentials inside strings (`base_url`) are redacted,
    down to `depth` levels (deeper containers are replaced whole, since what they hold cannot
    be checked).

    Example:
        >>> redact({"api_key": "sk-1", "model": "m"})
        {'api_key': '[redacted]', 'model': 'm'}
    """
    redacted: dict[Any, Any] = redact_value(dict(mapping), mark=REDACTED, depth=depth)
    return redacted
