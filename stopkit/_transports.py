"""httpx transports that record provider exchanges to payload files and replay them.

Both work under `httpx` and `httpx2` clients alike (anthropic and openai use `httpx2`,
google-genai either): the response is built with the library of the request it answers.

A recorded exchange is one JSON file:

    request    method, url (secrets redacted), headers (secrets redacted), body (JSON, keys
               holding secrets redacted)
    response   status, content_type, headers, and either `body` (the JSON or text body) or
               `events` (the SSE `data:` objects in order, with `sse_event_names` and
               `sse_done` so that the stream is replayed as the SDK received it)
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx

from stopkit._errors import NoRecording
from stopkit._redact import NOISE, REDACTED, WIRE, redact_body, redact_headers, redact_url
from stopkit._testkit import Payload, load_payload, load_payloads

__all__ = ["RecordingTransport", "ReplayTransport"]


def _json_or_text(data: bytes) -> Any:
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError:
        pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:  # an upload: its bytes are not worth keeping in a recording
        return f"<{len(data)} bytes of binary data>"


def _parse_sse(text: str) -> tuple[list[Any], list[str | None], bool]:
    """Split an SSE body into its data objects, their `event:` names, and whether `[DONE]` came."""
    events: list[Any] = []
    names: list[str | None] = []
    done = False
    for block in text.replace("\r\n", "\n").replace("\r", "\n").split("\n\n"):
        name: str | None = None
        data: list[str] = []
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            key, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if key == "event":
                name = value
            elif key == "data":
                data.append(value)
        if not data:
            continue
        payload = "\n".join(data)
        if payload.strip() == "[DONE]":
            done = True
            continue
        events.append(_json_or_text(payload.encode()))
        names.append(name)
    return events, names, done


def _lib(request: Any) -> ModuleType:
    """Return the library (`httpx` or `httpx2`) the request belongs to."""
    return sys.modules[type(request).__module__.split(".")[0]]


def _request_summary(request: Any, secrets: set[str]) -> dict[str, Any]:
    body = _json_or_text(request.content)
    return {
        "method": request.method,
        "url": redact_url(str(request.url), secrets),
        "headers": redact_headers(request.headers, secrets, drop=NOISE),
        "body": redact_body(body, secrets),
    }


class RecordingTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Forward each request to a real transport and write the exchange to a payload file.

    Files are named `NNNN-<method>-<path>.json`, numbered after those already in `directory`.
    Credentials never reach the file: secret-named headers, query parameters and cookies, and
    secret keys inside JSON bodies, are `REDACTED`, and any value redacted there is scrubbed
    from the whole file too. A streamed response is written when it is closed.

    Example:
        >>> http = httpx2.Client(transport=RecordingTransport("recordings"))  # doctest: +SKIP
        >>> client = anthropic.Anthropic(http_client=http)  # doctest: +SKIP
    """

    def __init__(self, directory: str | Path, *, wrapped: Any = None) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.wrapped = wrapped
        self._defaults: dict[tuple[str, bool], Any] = {}
        self._lock = threading.Lock()
        numbers = [int(p.name[:4]) for p in self.directory.glob("[0-9][0-9][0-9][0-9]-*.json")]
        self._count = max(numbers, default=0)
        self.written: list[Path] = []
        """The files written so far, in order."""

    def _forward_to(self, request: Any, is_async: bool) -> Any:
        if self.wrapped is not None:
            return self.wrapped
        lib = _lib(request)
        key = (lib.__name__, is_async)
        if key not in self._defaults:
            self._defaults[key] = lib.AsyncHTTPTransport() if is_async else lib.HTTPTransport()
        return self._defaults[key]

    def _write(self, request: dict[str, Any], response: dict[str, Any], secrets: set[str]) -> None:
        text = json.dumps(
            {"recorded_by": "stopkit.RecordingTransport", "request": request, "response": response},
            indent=2,
            ensure_ascii=False,
        )
        # Belt and braces: a value redacted anywhere is scrubbed from the whole file (a server
        # echoing the key back, a secret repeated in the body). Short words are not secrets.
        for secret in sorted((s for s in secrets if len(s) >= 8), key=len, reverse=True):
            text = text.replace(secret, REDACTED)
        slug = "".join(
            c if c.isalnum() or c in "._" else "-" for c in urlsplit(request["url"]).path
        )
        with self._lock:
            self._count += 1
            name = f"{self._count:04d}-{request['method'].lower()}-{slug.strip('-')[:60]}.json"
            path = self.directory / name
            path.write_text(text + "\n", encoding="utf-8")
            self.written.append(path)

    def _meta(self, response: Any) -> dict[str, Any]:
        return {
            "status": response.status_code,
            "content_type": response.headers.get("content-type", ""),
            "headers": redact_headers(response.headers, None),
        }

    def _record(self, request: Any, response: Any, body: bytes, secrets: set[str]) -> None:
        summary = _request_summary(request, secrets)
        meta = self._meta(response)
        if meta["content_type"].startswith("text/event-stream"):
            events, names, done = _parse_sse(body.decode("utf-8", errors="replace"))
            meta.update(events=events, sse_event_names=names, sse_done=done)
        else:
            meta["body"] = _json_or_text(body)
        self._write(summary, meta, secrets)

    def _rebuild(self, lib: ModuleType, request: Any, response: Any, **content: Any) -> Any:
        headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in WIRE]
        return lib.Response(
            response.status_code,
            headers=headers,
            request=request,
            extensions=response.extensions,
            **content,
        )

    def handle_request(self, request: Any) -> Any:
        """Send `request` through the real transport and record the exchange."""
        request.read()
        response = self._forward_to(request, False).handle_request(request)
        secrets: set[str] = set()
        if not response.headers.get("content-type", "").startswith("text/event-stream"):
            body = response.read()
            response.close()
            self._record(request, response, body, secrets)
            return self._rebuild(_lib(request), request, response, content=body)

        chunks: list[bytes] = []

        def tee() -> Iterator[bytes]:
            try:
                for chunk in response.iter_bytes():
                    chunks.append(chunk)
                    yield chunk
            finally:
                response.close()
                self._record(request, response, b"".join(chunks), secrets)

        return self._rebuild(_lib(request), request, response, content=tee())

    async def handle_async_request(self, request: Any) -> Any:
        """Send `request` through the real async transport and record the exchange."""
        await request.aread()
        response = await self._forward_to(request, True).handle_async_request(request)
        secrets: set[str] = set()
        if not response.headers.get("content-type", "").startswith("text/event-stream"):
            body = await response.aread()
            await response.aclose()
            self._record(request, response, body, secrets)
            return self._rebuild(_lib(request), request, response, content=body)

        chunks: list[bytes] = []

        async def tee() -> AsyncIterator[bytes]:
            try:
                async for chunk in response.aiter_bytes():
                    chunks.append(chunk)
                    yield chunk
            finally:
                await response.aclose()
                self._record(request, response, b"".join(chunks), secrets)

        return self._rebuild(_lib(request), request, response, content=tee())

    def close(self) -> None:
        """Close the transports this one opened (a `wrapped` transport is the caller's)."""
        for (_, is_async), transport in list(self._defaults.items()):
            if not is_async:
                transport.close()

    async def aclose(self) -> None:
        """Close the async transports this one opened."""
        for (_, is_async), transport in list(self._defaults.items()):
            if is_async:
                await transport.aclose()


def _sse_chunks(payload: Payload) -> list[bytes]:
    events = payload.events or []
    names: list[Any] = list(payload.response.get("sse_event_names") or [])
    chunks = []
    for i, event in enumerate(events):
        if i < len(names):
            name = names[i]
        else:  # a case file: Anthropic and Responses name each event by its type
            name = event.get("type") if isinstance(event, dict) else None
        data = event if isinstance(event, str) else json.dumps(event, ensure_ascii=False)
        head = f"event: {name}\n" if isinstance(name, str) else ""
        chunks.append(f"{head}data: {data}\n\n".encode())
    if payload.response.get("sse_done"):
        chunks.append(b"data: [DONE]\n\n")
    return chunks


class ReplayTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Serve recorded payloads back as HTTP responses, by order or by matching the request.

    `source` is a folder, a file, or a list of files: recorded exchanges, or any payload file
    (a case file's `reply` is served as JSON, its `events` as SSE). `match="order"` serves
    them one after the other; `match="request"` serves the first unserved recording whose
    method, path and (redacted) JSON body equal the request's (files without a recorded
    request match any request). A request with nothing to serve raises `NoRecording`; the SDKs
    wrap it in their connection error (it is the `__cause__`), so build SDK clients with
    `max_retries=0` and look at `transport.misses`.

    Example:
        >>> http = httpx2.Client(transport=ReplayTransport("recordings"))  # doctest: +SKIP
        >>> client = anthropic.Anthropic(api_key="sk-test", http_client=http)  # doctest: +SKIP
    """

    def __init__(
        self,
        source: str | Path | Iterable[str | Path | Payload],
        *,
        match: Literal["order", "request"] = "order",
    ) -> None:
        if match not in ("order", "request"):
            raise ValueError(f"match must be 'order' or 'request', not {match!r}")
        self.match = match
        self.source = source
        self.payloads: list[Payload] = []
        for item in [source] if isinstance(source, str | Path) else source:
            if isinstance(item, Payload):
                self.payloads.append(item)
            elif Path(item).is_dir():
                self.payloads += load_payloads(item)
            else:
                self.payloads.append(load_payload(item))
        self.served: list[Payload] = []
        """The payloads served so far, in order."""
        self.misses: list[NoRecording] = []
        """The errors raised for requests with no recording (SDKs wrap them in their own)."""
        self._used = [False] * len(self.payloads)
        self._lock = threading.Lock()

    def _matches(self, payload: Payload, method: str, path: str, body: Any) -> bool:
        recorded = payload.request
        if not recorded:
            return True
        return bool(
            recorded.get("method", method).upper() == method
            and urlsplit(recorded.get("url", "")).path == path
            and recorded.get("body") == body
        )

    def _pick(self, request: Any) -> Payload:
        method, path = request.method.upper(), request.url.path
        body = redact_body(_json_or_text(request.content))
        with self._lock:
            for i, payload in enumerate(self.payloads):
                if self._used[i]:
                    continue
                if self.match == "order" or self._matches(payload, method, path, body):
                    self._used[i] = True
                    self.served.append(payload)
                    return payload
        miss = NoRecording(self._explain(method, path, body, str(request.url)))
        self.misses.append(miss)
        raise miss

    def _explain(self, method: str, path: str, body: Any, url: str) -> str:
        shown = redact_url(url, set())
        where = self.source if isinstance(self.source, str | Path) else "the files given"
        total, left = len(self.payloads), self._used.count(False)
        if self.match == "order":
            why = f"all {total} recording(s) from {where} were already served"
        else:
            same_route = [
                p.name
                for p in self.payloads
                if p.request
                and urlsplit(p.request.get("url", "")).path == path
                and p.request.get("method", "").upper() == method
            ]
            why = (
                f"none of the {left} unserved recording(s) of {total} in {where} matches its "
                f"method, path and body"
            )
            if same_route:
                why += f" (same method and path, other body or already served: {same_route})"
        return f"no recording for {method} {shown}: {why}"

    def _respond(self, request: Any, payload: Payload, is_async: bool) -> Any:
        lib = _lib(request)
        meta = payload.response
        headers = {
            k: v
            for k, v in (meta.get("headers") or {}).items()
            if k not in WIRE and k != "set-cookie"
        }
        status = int(meta.get("status", 200))
        if payload.events is not None:
            headers["content-type"] = meta.get("content_type") or "text/event-stream"
            chunks = _sse_chunks(payload)
            stream: Any = _aiter(chunks) if is_async else iter(chunks)
            return lib.Response(status, headers=headers, content=stream, request=request)
        body = payload.reply
        if isinstance(body, str):
            content = body.encode()
            headers.setdefault("content-type", meta.get("content_type") or "text/plain")
        else:
            content = json.dumps(body, ensure_ascii=False).encode()
            headers["content-type"] = meta.get("content_type") or "application/json"
        return lib.Response(status, headers=headers, content=content, request=request)

    def handle_request(self, request: Any) -> Any:
        """Answer `request` with its recording."""
        request.read()
        return self._respond(request, self._pick(request), False)

    async def handle_async_request(self, request: Any) -> Any:
        """Answer `request` with its recording."""
        await request.aread()
        return self._respond(request, self._pick(request), True)

    @property
    def unserved(self) -> list[Payload]:
        """The payloads not served yet."""
        return [p for p, used in zip(self.payloads, self._used, strict=True) if not used]


async def _aiter(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk
