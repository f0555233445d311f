"""Cassettes and HAR files: the recordings people already have, read as payloads.

Three shapes hold a list of HTTP exchanges, each told apart by its content, never its name:

- a vcrpy cassette (pytest-recording writes these too), YAML or JSON: `interactions[]`, each a
  `request` (`method`, `uri`, `body`, `headers`) and a `response` (`status: {code}`, `headers`,
  `body: {string}`); the body is text, or bytes (YAML `!!binary`, base64) as the server sent
  them, compression and all. vcrpy before 6 wrote httpx responses as `status_code` and
  `content` (the body already decoded); pydantic-ai's serializer writes a JSON body as
  `parsed_body`, the value itself, on requests and responses (`tests/json_body_serializer.py`);
- LangChain's cassettes (`.yaml.gz`, `langchain_tests/conftest.py`): `requests[]` and
  `responses[]` side by side, gzipped YAML;
- a HAR file (browsers, Polly.JS): `log.entries[]`, each a `request` (`method`, `url`,
  `postData.text`) and a `response` (`status`, `content.text`, base64 when
  `content.encoding` says so); HAR bodies are stored decoded.

Each exchange becomes a `Payload`: the request's method, URL and body (redacted as a
`RecordingTransport` redacts them, so that `ReplayTransport` matches it the same way), the
response's status and content type, its decoded body (`content`), and the reply or stream
events read from it. Headers are never copied out; the content type alone is kept.

A cassette is only ever data: nothing in it makes stopkit read a file or fetch a URL.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from stopkit._json import JSONDecodeFailed, loads
from stopkit._secrets import redact_text, redact_value
from stopkit.record._bodies import decode_body, media_type, undo_encodings
from stopkit.record._payloads import (
    STREAM_SUFFIXES,
    Payload,
    payload_from_bytes,
    payload_from_value,
)
from stopkit.record._redact import redact_request_body
from stopkit.record._yaml import load_yaml

__all__ = ["GZIP_MAGIC", "YAML_CASSETTE", "YAML_SUFFIXES", "BadExchange", "read_recording"]

GZIP_MAGIC = b"\x1f\x8b"
# A YAML cassette read from bytes with no name: its top-level key, at the start of a line.
YAML_CASSETTE = re.compile(rb"^(interactions|requests):", re.M)
YAML_SUFFIXES = (".yaml", ".yml")


class BadExchange(ValueError):
    """One exchange of a cassette or HAR file cannot be read: its index, and the problem."""

    def __init__(self, exchange: int, problem: str) -> None:
        self.exchange = exchange
        self.problem = problem
        super().__init__(f"exchange #{exchange}: {problem}")


def _header(headers: Any, name: str) -> list[str]:
    """The values of a header, from vcrpy's `{name: [values]}` or HAR's `[{name, value}]`."""
    if isinstance(headers, Mapping):
        found = [v for k, v in headers.items() if isinstance(k, str) and k.lower() == name]
    elif isinstance(headers, list):
        found = [
            h.get("value")
            for h in headers
            if isinstance(h, Mapping) and str(h.get("name", "")).lower() == name
        ]
    else:
        return []
    values = [v for item in found for v in (item if isinstance(item, list) else [item])]
    return [v for v in values if isinstance(v, str)]


def _encodings(headers: Any) -> list[str]:
    return [c for v in _header(headers, "content-encoding") for c in v.split(",") if c.strip()]


def _bytes(value: Any, where: str) -> bytes:
    if value is None:
        return b""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise ValueError(f"{where} is neither text nor bytes ({type(value).__name__})")


def _request(method: Any, url: Any, body: Any, headers: Any, parsed: Any = None) -> dict[str, Any]:
    content_type = next(iter(_header(headers, "content-type")), "")
    if parsed is not None:  # pydantic-ai's `parsed_body`: the JSON value itself
        recorded = redact_value(parsed, None)
    else:
        recorded = redact_request_body(_bytes(body, "the request body"), content_type)
    return {
        "method": str(method or "GET").upper(),
        "url": redact_text(str(url or "")),
        "body": recorded,
    }


def _exchange(
    path: Path | None,
    index: int,
    request: dict[str, Any],
    status: Any,
    content_type: str | None,
    body: bytes | None,
    *,
    parsed: Any = None,
) -> Payload:
    """One exchange as a payload: `body` is the decoded body, or `parsed` its JSON value."""
    if not isinstance(status, int) or isinstance(status, bool):
        raise ValueError(f"its response has no status code ({status!r})")
    response = {"status": status, "content_type": content_type}
    common: dict[str, Any] = {"request": request, "response": response, "exchange": index}
    if parsed is not None:
        if isinstance(parsed, list):
            return Payload(path, events=parsed, **common)
        return Payload(path, reply=parsed, **common)
    content = body or b""
    reply, events = decode_body(content, media_type(content_type), strict=status < 400)
    return Payload(path, reply=reply, events=events, content=content, **common)


def _vcr_exchanges(
    path: Path | None, pairs: list[tuple[Any, Any]], limit: int
) -> Iterator[Payload]:
    for index, (request, response) in enumerate(pairs):
        if not isinstance(request, Mapping) or not isinstance(response, Mapping):
            raise BadExchange(index, "is not a request and a response")
        try:
            yield _vcr_exchange(path, index, request, response, limit)
        except (ValueError, TypeError) as exc:
            raise BadExchange(index, str(exc)) from None


def _vcr_exchange(
    path: Path | None,
    index: int,
    request: Mapping[str, Any],
    response: Mapping[str, Any],
    limit: int,
) -> Payload:
    summary = _request(
        request.get("method"),
        request.get("uri"),
        request.get("body"),
        request.get("headers"),
        request.get("parsed_body"),
    )
    headers = response.get("headers")
    content_type = next(iter(_header(headers, "content-type")), None)
    if "status_code" in response:  # vcrpy < 6, httpx: `content` is the body, decoded
        body = _bytes(response.get("content"), "the response content")
        return _exchange(path, index, summary, response["status_code"], content_type, body)
    status = response.get("status")
    code = status.get("code") if isinstance(status, Mapping) else status
    if response.get("parsed_body") is not None:
        return _exchange(
            path, index, summary, code, content_type, None, parsed=response["parsed_body"]
        )
    recorded = response.get("body")
    raw = recorded.get("string") if isinstance(recorded, Mapping) else recorded
    body = undo_encodings(_bytes(raw, "the response body"), _encodings(headers), limit)
    return _exchange(path, index, summary, code, content_type, body)


def _har_exchanges(path: Path | None, entries: list[Any]) -> Iterator[Payload]:
    for index, entry in enumerate(entries):
        request = entry.get("request") if isinstance(entry, Mapping) else None
        response = entry.get("response") if isinstance(entry, Mapping) else None
        if not isinstance(request, Mapping) or not isinstance(response, Mapping):
            raise BadExchange(index, "is not a HAR entry with a request and a response")
        try:
            yield _har_exchange(path, index, request, response)
        except (ValueError, TypeError) as exc:
            raise BadExchange(index, str(exc)) from None


def _har_exchange(
    path: Path | None, index: int, request: Mapping[str, Any], response: Mapping[str, Any]
) -> Payload:
    posted = request.get("postData")
    posted = posted if isinstance(posted, Mapping) else {}
    headers = [*(request.get("headers") or [])]
    if posted.get("mimeType"):
        headers.append({"name": "content-type", "value": posted["mimeType"]})
    summary = _request(request.get("method"), request.get("url"), posted.get("text"), headers)
    content = response.get("content")
    content = content if isinstance(content, Mapping) else {}
    text = content.get("text")
    if content.get("encoding") == "base64":
        try:
            body = base64.b64decode(_bytes(text, "the response text"), validate=True)
        except binascii.Error as exc:
            raise ValueError(f"its base64 response text does not decode ({exc})") from None
    else:
        body = _bytes(text, "the response text")
    content_type = content.get("mimeType") or next(
        iter(_header(response.get("headers"), "content-type")), None
    )
    return _exchange(path, index, summary, response.get("status"), content_type, body)


def _exchanges(value: Any, path: Path | None, limit: int) -> list[Payload] | None:
    """The exchanges of a parsed cassette or HAR file; None for any other value."""
    if not isinstance(value, Mapping):
        return None
    if isinstance(value.get("interactions"), list):  # vcrpy, pytest-recording, pydantic-ai
        pairs = [
            (i.get("request"), i.get("response")) if isinstance(i, Mapping) else (None, None)
            for i in value["interactions"]
        ]
        return list(_vcr_exchanges(path, pairs, limit))
    requests, responses = value.get("requests"), value.get("responses")
    if isinstance(requests, list) and isinstance(responses, list):  # LangChain's `.yaml.gz`
        if len(requests) != len(responses):
            raise ValueError(f"{len(requests)} requests but {len(responses)} responses")
        return list(_vcr_exchanges(path, list(zip(requests, responses, strict=True)), limit))
    if isinstance(value.get("log"), Mapping):
        entries = value["log"].get("entries")
        if not isinstance(entries, list):
            raise ValueError("a HAR file without a log.entries list")
        return list(_har_exchanges(path, entries))
    return None


def _is_yaml(data: bytes, suffix: str) -> bool:
    """A YAML cassette: by its suffix, or (read with no name) by its top-level key."""
    if suffix in YAML_SUFFIXES:
        return True
    if suffix in (".json", ".har") or data.lstrip()[:1] in (b"{", b"["):
        return False
    return YAML_CASSETTE.search(data) is not None


def read_recording(data: bytes, path: Path | None, *, max_size: int) -> list[Payload]:
    """Read a recording's bytes: a cassette's or HAR file's exchanges, or one payload.

    Told apart by content: gzip is undone first (never past `max_size` bytes); a JSON or YAML
    document holding exchanges is a cassette or a HAR file; anything else is a payload file
    (`payload_from_bytes`), read as one payload. Raises `ValueError` naming the problem.

    Example:
        >>> path = Path("cassettes/test_chat.yaml")  # doctest: +SKIP
        >>> found = read_recording(path.read_bytes(), path, max_size=10**8)  # doctest: +SKIP
        >>> [p.name for p in found]  # doctest: +SKIP
        ['test_chat.yaml#0', 'test_chat.yaml#1']
    """
    name = path.name if path is not None else ""
    if data.startswith(GZIP_MAGIC):
        data = undo_encodings(data, ["gzip"], max_size)
        name = name.removesuffix(".gz")
    suffix = Path(name).suffix
    if suffix in STREAM_SUFFIXES:
        return [payload_from_bytes(data, path)]
    if _is_yaml(data, suffix):
        found = _exchanges(load_yaml(data), path, max_size)
        if found is None:
            raise ValueError("not a cassette: no interactions (vcrpy) nor requests (LangChain)")
        return found
    try:
        value = loads(data)
    except JSONDecodeFailed as exc:
        if path is None:  # standard input: a raw stream, as `payload_from_bytes` reads one
            return [payload_from_bytes(data, path)]
        raise ValueError(f"not valid JSON: {exc}") from None
    found = _exchanges(value, path, max_size)
    if found is None and suffix == ".har":
        raise ValueError("not a HAR file: no log.entries")
    return found if found is not None else [payload_from_value(value, path)]
