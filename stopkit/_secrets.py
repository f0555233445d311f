"""Which names hold a credential, and the one redaction behind logging and recording (internal).

`stopkit._logsafe.redact` (what the library logs) and `stopkit.record` (what the httpx
transports write to payload files) both redact through `redact_value` and `redact_text` here.
One vocabulary, matched at two strictnesses, on the words of a name in any case style
(`accessToken`, `ACCESS_TOKEN`, `access-token` and `AccessToken` are the same words):

- a mapping key (logged call overrides, JSON bodies) is matched closely, because a false
  positive would hide or damage a value the reader needs: `api_key`, `client_secret`,
  `accessToken`, `auth`, `sig` are secrets; `max_tokens`, `prompt_cache_key` and a thinking
  block's `signature` are not;
- a header, query parameter or form field name is matched loosely (anything naming `auth`,
  `key`, `token`, `session` or `signature` too), because hiding a harmless header costs nothing;
  so are the keys of a mapping held under `headers`/`query`/`params`/`cookies`
  (`extra_headers={"X-Trace-Key": ...}`);
- a response header is matched closely, plus `auth`: `anthropic-ratelimit-tokens-limit` names
  tokens and is no secret.

Text is scrubbed too: a URL's `user:password@`, a secret query or fragment parameter
(`?key=...`, `&sig=...`, `#access_token=...`) and a `Bearer`/`Basic` credential, wherever they
stand in a string (an exception message, a `base_url`, a `Location` header, an image URL).

Example:
    >>> [is_secret_key(k) for k in ("x-api-key", "accessToken", "max_tokens")]
    [True, True, False]
    >>> redact_text("GET https://h.example/v1?key=AIza123&alt=json")
    'GET https://h.example/v1?key=REDACTED&alt=json'
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from stopkit._json import JSONDecodeFailed, loads

__all__ = [
    "REDACTED",
    "is_secret_key",
    "is_secret_name",
    "is_secret_response_header",
    "redact_text",
    "redact_value",
]

#: What a secret is replaced with in payload files (logs pass their own mark).
REDACTED = "REDACTED"

# Words that make any name a secret (`client_secret`, `set-cookie`, `X-Auth`, Azure SAS `sig`).
_SECRET_WORDS = frozenset(
    {
        "auth", "authorization", "bearer", "cookie", "cookies", "credential", "credentials",
        "jwt", "oauth", "passphrase", "passwd", "password", "pwd", "secret", "secrets", "sig",
    }
)  # fmt: skip
# `<kind>_key` names that are keys to something (`api_key`, `privateKey`, a bare `key`);
# `prompt_cache_key` and `idempotency_key` are not.
_KEY_KINDS = frozenset(
    {
        "", "access", "account", "api", "auth", "client", "encryption", "license", "master",
        "private", "secret", "session", "shared", "signing", "storage", "subscription",
    }
)  # fmt: skip
# `<kind>_token` names that are no credential: a cursor (`nextPageToken`), Gemini's resume
# `continuation_token`, ADK's `turnToken`, a tokenizer's special tokens (`eos_token`).
_PLAIN_TOKENS = frozenset(
    {"page", "continuation", "cursor", "sync", "turn", "eos", "bos", "pad", "unk"}
)
# The same names written as one word (`APIKEY`, `accesstoken`, `xapikey`).
_JOINED = (
    "apikey", "accesskey", "privatekey", "secretkey", "accesstoken", "refreshtoken",
    "sessiontoken", "authtoken", "idtoken", "clientsecret", "password", "passwd",
    "authorization", "credential", "cookie", "bearer",
)  # fmt: skip
# What makes a header, query or form name a secret besides the above (`x-goog-api-key`, `key=`,
# `X-Amz-Signature`, `X-Amz-Security-Token`, `session_id`): too broad for JSON body keys.
# `assertion`: the credential of an OAuth JWT-bearer or SAML grant (RFC 7521 section 4.2:
# `assertion=`, `client_assertion=`), as google-auth posts it to exchange a service account's JWT.
_LOOSE_PARTS = (
    "auth", "key", "token", "signature", "session", "secret", "credential", "assertion",
)  # fmt: skip
# Mapping keys whose values are headers or query parameters: their keys are matched loosely.
_HOLDER_ENDS = frozenset((w,) for w in ("headers", "header", "query", "params", "cookies"))

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[^a-z0-9]+")


@functools.lru_cache(maxsize=4096)  # bodies repeat the same few keys thousands of times
def _words(name: str) -> tuple[str, ...]:
    return tuple(w for w in _SPLIT.split(_CAMEL.sub("_", name).lower()) if w)


def is_secret_key(key: Any) -> bool:
    """Say whether a mapping key names a credential, in any case style.

    Usage counters such as `max_tokens` or `output_tokens` are not credentials.

    Example:
        >>> [is_secret_key(k) for k in ("client_secret", "refreshToken", "output_tokens", 3)]
        [True, True, False, False]
    """
    if not isinstance(key, str):
        return False
    words = _words(key)
    if not words:
        return False
    last, kind = words[-1], words[-2] if len(words) > 1 else ""
    if (last == "token" and kind not in _PLAIN_TOKENS) or (last == "key" and kind in _KEY_KINDS):
        return True
    if not _SECRET_WORDS.isdisjoint(words):
        return True
    joined = "".join(words)
    return any(part in joined for part in _JOINED)


def is_secret_name(name: str) -> bool:
    """Say whether a request header, query parameter or form field name holds a credential.

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


_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)([^\s/?#@\"'<>]+)@")
# A URL parameter: a short name (a data: URL's base64 is no parameter name), then its value.
_PARAM = re.compile(r"([?&#;])([A-Za-z0-9_.~%\[\]\-]{1,64})=([^&#;\s\"'<>]*)")
_SCHEME = re.compile(r"(?i)\b(bearer|basic)(\s+)([A-Za-z0-9\-._~+/]*[A-Za-z0-9\-_~+/]=*)")
_TOKEN_MARKS = re.compile(r"[0-9\-_~+/=.]|.[A-Z]")


# Credentials known by their own shape, wherever they stand: OpenAI and Anthropic keys (`sk-`,
# `sk-proj-`, `sk-ant-api03-`, with a digit: `sk-learn-...` is prose), Google API keys (`AIza`
# and 35 more), GitHub tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), AWS
# access key ids (`AKIA`/`ASIA` and 16 more), Slack tokens (`xoxb-`, ...), Groq keys (`gsk_` and
# 52 more), Hugging Face tokens (`hf_` and 34 more), and a JWT (three base64url parts, the first
# two JSON objects: `eyJ`, an OIDC id token, a service account's assertion): the formats each
# vendor documents, as GitHub's secret scanning partner patterns (and gitleaks' rules) list them.
_SHAPED = re.compile(
    r"\b(?:sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35}"
    r"|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|gsk_[A-Za-z0-9]{52}|hf_[A-Za-z0-9]{34,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)(?![A-Za-z0-9_-])"
)
# A credential's name, then `=` or `:`, then its value, in free text (a config line, a header
# written out, JSON quoted in a message): `api_key=...`, `x-api-key: ...`, `"password": "..."`.
_NAMED = re.compile(
    r"(?i)\b((?:x-)?api[-_]?key|access[-_]?token|secret[-_]?key|client[-_]?secret|passw(?:or)?d)"
    r"([\"']?\s*[:=]\s*[\"']?)([^\s\"',;&]{4,})"
)
# Any key in quotes, then `:`, then a quoted value: a JSON object or a Python `str(dict)` written
# into text (an exception message: `{'x-api-key': '...'}`); and a name, `=`, a quoted value
# (a repr, a call: `password='...'`). The name decides, matched as a mapping key is.
_QUOTED_PAIR = re.compile(
    r"""(?P<k>["'])(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,63})(?P=k)\s*:\s*"""
    r"""(?P<q>["'])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)"""
)
_KEYWORD = re.compile(
    r"""\b(?P<name>[A-Za-z_][A-Za-z0-9_]{0,63})\s*=\s*"""
    r"""(?P<q>["'])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)"""
)


def _is_credential(token: str) -> bool:
    """Tell a Bearer/Basic credential from prose ("Basic arithmetic", "Basic Addition").

    A credential is 8 characters or more with a digit, a token punctuation or an inner capital.
    """
    return len(token) >= 8 and _TOKEN_MARKS.search(token) is not None


def redact_text(text: str, found: set[str] | None = None, *, mark: str = REDACTED) -> str:
    """Return `text` with URL credentials, secret parameters, bearer tokens and keys replaced.

    Each value replaced is added to `found` when given (recording scrubs it from the whole file).

    Example:
        >>> redact_text("https://bob:pw@h.example/x#access_token=t1&state=s", mark="[redacted]")
        'https://[redacted]@h.example/x#access_token=[redacted]&state=s'
    """
    if "@" in text:

        def userinfo(match: re.Match[str]) -> str:
            if found is not None:
                found.update(part for part in unquote(match[2]).split(":") if part)
            return f"{match[1]}{mark}@"

        text = _USERINFO.sub(userinfo, text)
    if "=" in text:

        def param(match: re.Match[str]) -> str:
            if not match[3] or not is_secret_name(unquote(match[2])):
                return match[0]
            if found is not None:
                found.update({match[3], unquote(match[3])})
            return f"{match[1]}{match[2]}={mark}"

        text = _PARAM.sub(param, text)
    if " " in text or "\t" in text:

        def scheme(match: re.Match[str]) -> str:
            if not _is_credential(match[3]):
                return match[0]
            if found is not None:
                found.add(match[3])
            return f"{match[1]}{match[2]}{mark}"

        text = _SCHEME.sub(scheme, text)

    def whole(match: re.Match[str]) -> str:
        if found is not None:
            found.add(match[0])
        return mark

    text = _SHAPED.sub(whole, text)
    if "=" in text or ":" in text:

        def named(match: re.Match[str]) -> str:
            if match[3] == mark:  # already replaced (a URL parameter, above)
                return match[0]
            if found is not None:
                found.add(match[3])
            return f"{match[1]}{match[2]}{mark}"

        text = _NAMED.sub(named, text)
    if "'" in text or '"' in text:

        def quoted(match: re.Match[str]) -> str:
            value = match["value"]
            if not value or value == mark or not is_secret_key(match["name"]):
                return match[0]
            if found is not None:
                found.add(value)
            start, end = match.span("value")
            return f"{match.string[match.start() : start]}{mark}{match.string[end : match.end()]}"

        text = _KEYWORD.sub(quoted, _QUOTED_PAIR.sub(quoted, text))
    return text


def _is_pair(item: Any) -> bool:
    return isinstance(item, list | tuple) and len(item) == 2 and isinstance(item[0], str)


def _hide(value: Any, found: set[str] | None, mark: str) -> Any:
    """A secret's value: every string in it replaced, its shape (and numbers) kept."""
    if isinstance(value, str):
        if found is not None and value:
            found.add(value)
        return mark
    if isinstance(value, Mapping):
        return {k: _hide(v, found, mark) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_hide(v, found, mark) for v in value]
    if isinstance(value, bytes | bytearray):
        return mark
    return value  # None, a bool or a number: nothing to hide, and replay keeps its type


def redact_value(
    value: Any,
    found: set[str] | None = None,
    *,
    mark: str = REDACTED,
    loose: bool = False,
    depth: int = 256,
) -> Any:
    """Return a copy of `value` with every credential in it replaced by `mark`.

    Mappings are redacted by key (closely; loosely under a `headers`/`query`/`params` key, or
    with `loose=True`), a list of `(name, value)` pairs like a mapping, strings by
    `redact_text`; a string holding a JSON object or list (a Chat `function.arguments`, a tool
    message's content) is redacted as that JSON is, and written again only when a secret was
    in it. The property names of a JSON Schema (`properties`, `$defs`) are names, not values.
    Below `depth` levels a container is replaced whole, since what it holds cannot be checked.
    Values replaced are added to `found` when given.

    Example:
        >>> redact_value({"extra_headers": [("X-Auth", "t1")], "extra_body": {"accessToken": "t2"}})
        {'extra_headers': [('X-Auth', 'REDACTED')], 'extra_body': {'accessToken': 'REDACTED'}}
    """
    return _redact(value, found, mark, _LOOSE if loose else _CLOSE, depth)


# How the keys of a mapping are read: closely (a body), loosely (headers, a query), or as names
# (a JSON Schema's `properties`: a parameter called `password` is no password).
_CLOSE, _LOOSE, _NAMES = "close", "loose", "names"
_IS_SECRET = {_CLOSE: is_secret_key, _LOOSE: is_secret_name, _NAMES: is_secret_key}
_NAME_HOLDER_ENDS = frozenset((w,) for w in ("properties", "defs", "definitions"))


def _plain_keys(mapping: Mapping[Any, Any]) -> frozenset[str]:
    """Keys that name no credential in this mapping, whatever they are elsewhere."""
    plain: set[str] = set()
    for key in mapping:
        if isinstance(key, str):
            lowered = key.lower()
            # A logprob entry's `token` is model output: openai chat_completion_token_logprob.py
            # (`token`, `logprob`), genai LogprobsResultCandidate (`token`, `logProbability`).
            if "logprob" in lowered:
                plain.add("token")
            # A key/value entry's `key` is a name: genai customMetadata (`key`, `stringValue`).
            elif lowered.endswith("value"):
                plain.add("key")
    return frozenset(plain)


def _child_mode(key: Any, mode: str) -> str:
    if isinstance(key, str):
        end = _words(key)[-1:]
        if end in _HOLDER_ENDS:
            return _LOOSE
        if end in _NAME_HOLDER_ENDS:
            return _NAMES
    return _LOOSE if mode == _LOOSE else _CLOSE


def _held_json(text: str, found: set[str] | None, mark: str, mode: str, depth: int) -> str | None:
    """`text` redacted as the JSON object or list it holds is; None if it holds none.

    The JSON's verdict is final (a logprob's `token` in it is kept, as in a body): text that
    holds no secret is kept exactly as sent (its spacing, its escapes), else written again.
    """
    start = text[:1]
    if start.isspace():
        start = text.lstrip()[:1]
    if start not in ("{", "["):
        return None
    try:
        held = loads(text)
    except JSONDecodeFailed:
        return None
    if not isinstance(held, dict | list):
        return None
    redacted = _redact(held, found, mark, mode, depth - 1)
    return text if redacted == held else json.dumps(redacted, ensure_ascii=False)


def _redact(value: Any, found: set[str] | None, mark: str, mode: str, depth: int) -> Any:
    if isinstance(value, str):
        held = _held_json(value, found, mark, mode, depth)
        return redact_text(value, found, mark=mark) if held is None else held
    if not isinstance(value, Mapping | list | tuple):
        return value
    if depth <= 0:
        return mark
    if isinstance(value, Mapping):
        return _redact_object(value, found, mark, mode, depth)
    if value and all(_is_pair(item) for item in value):  # header or query pairs
        secret = _IS_SECRET[mode]
        return [
            type(pair)((pair[0], _hide(pair[1], found, mark) if secret(pair[0]) else
                        _redact(pair[1], found, mark, mode, depth - 1)))
            for pair in value
        ]  # fmt: skip
    return [_redact(v, found, mark, mode, depth - 1) for v in value]


def _redact_object(
    value: Mapping[Any, Any], found: set[str] | None, mark: str, mode: str, depth: int
) -> dict[Any, Any]:
    """A mapping with the values of its secret keys hidden, the others redacted in turn."""
    secret = _IS_SECRET[mode]
    plain = _plain_keys(value)
    out: dict[Any, Any] = {}
    for key, item in value.items():
        if mode != _NAMES and isinstance(key, str) and key not in plain and secret(key):
            out[key] = _hide(item, found, mark)
        else:
            out[key] = _redact(item, found, mark, _child_mode(key, mode), depth - 1)
    return out
