"""Redacting credentials from a recorded exchange: headers, URLs and JSON bodies.

Which names are secrets is decided in `stopkit._secrets`, the list logging uses too: loosely
where a false positive costs nothing (a header or query parameter whose name contains `key`,
`token`, `auth`, ...) and closely where it would damage the payload (JSON body keys: `api_key`
is a secret, `max_tokens` is not).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from stopkit._secrets import is_secret_key, is_secret_name, is_secret_response_header

__all__ = ["NOISE", "REDACTED", "WIRE", "redact_body", "redact_headers", "redact_url"]

REDACTED = "REDACTED"
# Request headers that only add noise to a recording (they change per machine and version).
NOISE = (
    "x-stainless-", "x-goog-api-client", "user-agent", "accept-encoding", "connection",
    "content-length", "host",
)  # fmt: skip
# Response headers that describe the bytes on the wire, not the decoded body served back.
WIRE = frozenset({"content-encoding", "content-length", "transfer-encoding", "connection"})


def redact_body(value: Any, secrets: set[str] | None = None) -> Any:
    """Return a JSON value with every secret key's value `REDACTED` (values added to `secrets`).

    Example:
        >>> redact_body({"api_key": "sk-1", "max_tokens": 5})
        {'api_key': 'REDACTED', 'max_tokens': 5}
    """
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if is_secret_key(k):
                if secrets is not None and isinstance(v, str):
                    secrets.add(v)
                out[k] = REDACTED
            else:
                out[k] = redact_body(v, secrets)
        return out
    if isinstance(value, list):
        return [redact_body(v, secrets) for v in value]
    return value


def redact_url(url: str, secrets: set[str]) -> str:
    """Return `url` with user info and secret query values `REDACTED` (added to `secrets`)."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        secrets.update(p for p in userinfo.split(":") if p)
        netloc = f"{REDACTED}@{host}"
    query = []
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if is_secret_name(name) and value:
            secrets.add(value)
            value = REDACTED
        query.append((name, value))
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(query), parts.fragment))


def redact_headers(
    headers: Any, secrets: set[str] | None, *, drop: Iterable[str] = ()
) -> dict[str, str]:
    """Keep `headers` as a dict, redacting secrets (request headers when `secrets` is a set)."""
    out: dict[str, str] = {}
    dropped = tuple(drop)
    for name, value in headers.multi_items():
        lowered = name.lower()
        if (dropped and lowered.startswith(dropped)) or lowered in WIRE:
            continue
        if secrets is None and is_secret_response_header(lowered):
            value = REDACTED
        elif secrets is not None and is_secret_name(lowered):
            secrets.add(value)
            secrets.update(value.replace(";", " ").replace("=", " ").split())
            value = REDACTED
        out[lowered] = value if lowered not in out else f"{out[lowered]}, {value}"
    return out
