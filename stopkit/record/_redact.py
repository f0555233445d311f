"""Redacting credentials from a recorded exchange: URLs, headers and bodies of every content type.

What is a secret, and how a value is redacted, is decided in `stopkit._secrets`, the one
redaction logging uses too; this module applies it to the parts of an HTTP exchange: the URL
(`redact_text`), each header (its name matched loosely, its value scrubbed like text: a
`Location` with a token), and a body by its content type — JSON (keys matched closely),
form-urlencoded and multipart form fields (names matched loosely, as query parameters are).
Every value redacted is added to `found`, so that the recording can scrub it from the whole file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from email.message import Message
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any
from urllib.parse import unquote_plus

from stopkit._secrets import (
    REDACTED,
    is_secret_name,
    is_secret_response_header,
    redact_text,
    redact_value,
)
from stopkit.record._wire import json_or_text

__all__ = ["NOISE", "REDACTED", "WIRE", "redact_headers", "redact_request", "redact_request_body"]

# Request headers that only add noise to a recording (they change per machine and version).
NOISE = (
    "x-stainless-", "x-goog-api-client", "user-agent", "accept-encoding", "connection",
    "content-length", "host", "amz-sdk-",
)  # fmt: skip
# Response headers that describe the bytes on the wire, not the decoded body served back.
WIRE = frozenset({"content-encoding", "content-length", "transfer-encoding", "connection"})


def redact_headers(
    headers: Any, found: set[str] | None, *, response: bool = False, drop: Iterable[str] = ()
) -> dict[str, str]:
    """Return `headers` (httpx `Headers`, botocore's, a mapping) as a dict, secrets `REDACTED`.

    Request header names are matched loosely, response header names closely (a rate-limit
    header naming tokens is kept); every other value is scrubbed like text.
    """
    out: dict[str, str] = {}
    dropped = tuple(drop)
    secret = is_secret_response_header if response else is_secret_name
    items = headers.multi_items() if hasattr(headers, "multi_items") else headers.items()
    for name, value in items:
        lowered = name.lower()
        if (dropped and lowered.startswith(dropped)) or lowered in WIRE:
            continue
        if secret(lowered):
            if found is not None:
                found.update(_credentials(value))
            value = REDACTED
        else:
            value = redact_text(value, found)
        out[lowered] = value if lowered not in out else f"{out[lowered]}, {value}"
    return out


# AWS Signature Version 4 (botocore/auth.py, SigV4Auth): `AWS4-HMAC-SHA256 Credential=<access
# key id>/<date>/<region>/<service>/aws4_request, SignedHeaders=<header names>, Signature=<hex>`.
_SIGV4 = re.compile(r"Credential=([^/,\s]+)|Signature=([0-9a-fA-F]+)")


def _credentials(value: str) -> list[str]:
    """The parts of a secret header's value to scrub from the whole recording.

    The value and each of its parts ("Bearer sk-..", "a=1; b=2"); of a SigV4 `Authorization`,
    the access key id and the signature (its other parts name headers and the date).
    """
    if value.startswith("AWS4-"):
        return [value, *(key or signature for key, signature in _SIGV4.findall(value))]
    return [value, *value.replace(";", " ").replace("=", " ").split()]


def _redact_form(text: str, found: set[str] | None) -> str:
    fields = []
    for field in text.split("&"):
        name, sep, value = field.partition("=")
        if sep and value and is_secret_name(unquote_plus(name)):
            if found is not None:
                found.update({value, unquote_plus(value)})
            field = f"{name}={REDACTED}"
        fields.append(field)
    return "&".join(fields)


def _part(part: Message, found: set[str] | None) -> dict[str, Any]:
    name = part.get_param("name", header="content-disposition")
    filename = part.get_filename()
    data = part.get_payload(decode=True)
    content = data if isinstance(data, bytes) else b""
    summary: dict[str, Any] = {"name": name if isinstance(name, str) else None}
    if filename is not None:
        summary["filename"] = filename
        summary["content_type"] = part.get_content_type()
    if isinstance(name, str) and is_secret_name(name):
        if found is not None and content:
            found.add(content.decode("utf-8", errors="replace"))
        summary["value"] = REDACTED
    else:
        summary["value"] = redact_value(json_or_text(content), found)
    return summary


def _redact_multipart(content: bytes, content_type: str, found: set[str] | None) -> Any:
    # The standard library's MIME parser reads multipart/form-data: no dependency for uploads.
    message = BytesParser(policy=HTTP).parsebytes(
        b"content-type: " + content_type.encode("latin-1") + b"\r\n\r\n" + content
    )
    if not message.is_multipart():
        return json_or_text(content)
    return {"multipart": [_part(part, found) for part in message.iter_parts()]}


def redact_request_body(content: bytes, content_type: str, found: set[str] | None = None) -> Any:
    """Return a request body as recorded: JSON, form text or multipart fields, secrets redacted.

    A multipart body is kept as its fields (`{"multipart": [{"name", "value", ...}]}`), without
    the boundary, so that a replayed request matches its recording.

    Example:
        >>> form = "application/x-www-form-urlencoded"
        >>> redact_request_body(b"grant_type=x&client_secret=s1", form)
        'grant_type=x&client_secret=REDACTED'
    """
    kind = content_type.split(";")[0].strip().lower()
    if kind == "multipart/form-data":
        return _redact_multipart(content, content_type, found)
    body = json_or_text(content)
    if kind == "application/x-www-form-urlencoded" and isinstance(body, str):
        return _redact_form(body, found)
    return redact_value(body, found)


def redact_request(request: Any, found: set[str] | None = None) -> dict[str, Any]:
    """Return the recorded summary of an httpx request: method, url, headers, body, redacted."""
    return {
        "method": request.method,
        "url": redact_text(str(request.url), found),
        "headers": redact_headers(request.headers, found, drop=NOISE),
        "body": redact_request_body(
            request.content, request.headers.get("content-type", ""), found
        ),
    }
