"""Which names hold a credential: the one list behind logging and recording (internal).

`stopkit._logsafe.redact` (what the library logs) and `stopkit.record._redact` (what the httpx
transports record) both ask here. One vocabulary, matched at two strictnesses:

- a mapping key (logged call overrides, JSON body keys) is matched closely, because a false
  positive would hide or damage a value the reader needs: `api_key`, `client_secret`,
  `access_token` are secrets; `max_tokens`, `prompt_cache_key` and a thinking block's
  `signature` are not;
- a request header or query parameter name is matched loosely (anything naming `auth`, `key`,
  `token` or `signature` too), because hiding a harmless header costs nothing;
- a response header is matched closely, plus `auth`: `anthropic-ratelimit-tokens-limit` names
  tokens and is no secret.

Example:
    >>> [is_secret_key(k) for k in ("x-api-key", "access_token", "max_tokens")]
    [True, True, False]
    >>> is_secret_name("x-amz-signature"), is_secret_response_header("set-cookie")
    (True, True)
"""

from __future__ import annotations

from typing import Any

__all__ = ["is_secret_key", "is_secret_name", "is_secret_response_header"]

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
# What makes a header or query name a secret besides the above (`x-goog-api-key`, `key=`,
# `x-auth-token`, `X-Amz-Signature`): too broad for body keys (`max_tokens`, `signature`).
_LOOSE_PARTS = ("auth", "key", "token", "signature")


def is_secret_key(key: Any) -> bool:
    """Say whether a mapping key names a credential (`api_key`, `Authorization`, `*_token`...).

    Usage counters such as `max_tokens` or `output_tokens` are not credentials.

    Example:
        >>> [is_secret_key(k) for k in ("client_secret", "output_tokens", 3)]
        [True, False, False]
    """
    if not isinstance(key, str):
        return False
    name = key.lower().replace("-", "_")
    if name == "token" or name.endswith("_token") or name == "key":
        return True
    return any(part in name for part in _SECRET_PARTS)


def is_secret_name(name: str) -> bool:
    """Say whether a request header or query parameter name holds a credential.

    Example:
        >>> is_secret_name("x-goog-api-key"), is_secret_name("x-request-id")
        (True, False)
    """
    if is_secret_key(name):
        return True
    lowered = name.lower()
    return any(part in lowered for part in _LOOSE_PARTS)


def is_secret_response_header(name: str) -> bool:
    """Say whether a response header holds a credential (a cookie, an auth value).

    Example:
        >>> is_secret_response_header("www-authenticate"), is_secret_response_header("request-id")
        (True, False)
    """
    return is_secret_key(name) or "auth" in name.lower()
