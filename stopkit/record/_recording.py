"""`RecordingTransport`: forward each request to a real transport and write the exchange to a file.

Works under `httpx` and `httpx2` clients alike (anthropic and openai use `httpx2`, google-genai
either): the response is built with the library of the request it answers.

A recorded exchange is one JSON file:

    request    method, url, headers, body (JSON, form text, or multipart fields)
    response   status, content_type, headers, and either `body` (the JSON or text body) or
               `events` (the SSE `data:` objects in order, with `sse_event_names` and
               `sse_done` so that the stream is replayed as the SDK received it)

Every part of both is redacted with `stopkit._secrets` (the rules logging uses too): secret
header, query and form names; secret JSON keys in any case style, in request and response
bodies and in each SSE event; URL credentials and bearer tokens inside any text.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

import httpx

from stopkit._secrets import redact_value
from stopkit.record._redact import REDACTED, WIRE, redact_headers, redact_request
from stopkit.record._tee import tee_stream
from stopkit.record._wire import json_or_text, library_of, sse_events

__all__ = ["RecordingTransport"]


class RecordingTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Forward each request to a real transport and write the exchange to a payload file.

    Files are named `NNNN-<method>-<path>.json`, numbered after those already in `directory`;
    a file is never overwritten (each is created exclusively, so recorders sharing a folder,
    in one process or several, take the next free number).
    Credentials never reach the file: secret-named headers, query parameters, form fields and
    cookies, secret keys inside request and response bodies and SSE events (`api_key`,
    `accessToken`, `client_secret`, ...), and URL credentials inside any text are `REDACTED`,
    and any value redacted there is scrubbed from the whole file too. A streamed response is
    written when it ends or is closed; one left early (`break` inside `with`, `.close()`) is
    written with the events read, marked `closed_early`, and the real response is closed.

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
        lib = library_of(request)
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
        tail = f"-{request['method'].lower()}-{slug.strip('-')[:60]}.json"
        with self._lock:
            while True:  # exclusive create: another recorder (or process) may own a number
                self._count += 1
                path = self.directory / f"{self._count:04d}{tail}"
                try:
                    with path.open("x", encoding="utf-8") as file:
                        file.write(text + "\n")
                except FileExistsError:
                    continue
                break
            self.written.append(path)

    def _meta(self, response: Any, secrets: set[str]) -> dict[str, Any]:
        return {
            "status": response.status_code,
            "content_type": response.headers.get("content-type", ""),
            "headers": redact_headers(response.headers, secrets, response=True),
        }

    def _record(
        self,
        request: Any,
        response: Any,
        body: bytes,
        secrets: set[str],
        *,
        closed_early: bool = False,
    ) -> None:
        summary = redact_request(request, secrets)
        meta = self._meta(response, secrets)
        if closed_early:  # the caller left the stream: the events are those it read
            meta["closed_early"] = True
        if meta["content_type"].startswith("text/event-stream"):
            events, names, done = sse_events(body)
            events = [redact_value(event, secrets) for event in events]
            meta.update(events=events, sse_event_names=names, sse_done=done)
        else:
            meta["body"] = redact_value(json_or_text(body), secrets)
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

    def _stream(self, request: Any, response: Any, secrets: set[str], is_async: bool) -> Any:
        def write(body: bytes, ended: bool) -> None:
            self._record(request, response, body, secrets, closed_early=not ended)

        lib = library_of(request)
        stream = tee_stream(lib, response, write, is_async=is_async)
        return self._rebuild(lib, request, response, stream=stream)

    def handle_request(self, request: Any) -> Any:
        """Send `request` through the real transport and record the exchange."""
        request.read()
        response = self._forward_to(request, False).handle_request(request)
        secrets: set[str] = set()
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            return self._stream(request, response, secrets, False)
        body = response.read()
        response.close()
        self._record(request, response, body, secrets)
        return self._rebuild(library_of(request), request, response, content=body)

    async def handle_async_request(self, request: Any) -> Any:
        """Send `request` through the real async transport and record the exchange."""
        await request.aread()
        response = await self._forward_to(request, True).handle_async_request(request)
        secrets: set[str] = set()
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            return self._stream(request, response, secrets, True)
        body = await response.aread()
        await response.aclose()
        self._record(request, response, body, secrets)
        return self._rebuild(library_of(request), request, response, content=body)

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
