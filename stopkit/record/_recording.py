"""`RecordingTransport`: forward each request to a real transport and write the exchange to a file.

Works under `httpx` and `httpx2` clients alike (anthropic and openai use `httpx2`, google-genai
either): the response is built with the library of the request it answers.

A recorded exchange is one JSON file:

    request    method, url, headers, body (JSON, form text, or multipart fields)
    response   status, content_type, headers, and either `body` (the JSON or text body) or
               `events` (the SSE `data:` objects in order, with `sse_event_names` and
               `sse_done` so that the stream is replayed as the SDK received it; or the
               lines of a newline-delimited JSON stream)

Every part of both is redacted with `stopkit._secrets` (the rules logging uses too): secret
header, query and form names; secret JSON keys in any case style, in request and response
bodies and in each SSE event; URL credentials and bearer tokens inside any text.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import httpx

from stopkit._secrets import redact_value
from stopkit.record._files import RecordingFolder
from stopkit.record._redact import WIRE, redact_headers, redact_request
from stopkit.record._tee import tee_stream
from stopkit.record._wire import is_ndjson, json_or_text, library_of, parse_ndjson, sse_events

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
        self._folder = RecordingFolder(directory)
        self.directory = self._folder.directory
        self.wrapped = wrapped
        self._defaults: dict[tuple[str, bool], Any] = {}
        self.written: list[Path] = self._folder.written
        """The files written so far, in order."""

    def _forward_to(self, request: Any, is_async: bool) -> Any:
        if self.wrapped is not None:
            return self.wrapped
        lib = library_of(request)
        key = (lib.__name__, is_async)
        if key not in self._defaults:
            self._defaults[key] = lib.AsyncHTTPTransport() if is_async else lib.HTTPTransport()
        return self._defaults[key]

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
        elif is_ndjson(meta["content_type"]):
            meta["events"] = [redact_value(event, secrets) for event in parse_ndjson(body)]
        else:
            meta["body"] = redact_value(json_or_text(body), secrets)
        self._folder.write(summary, meta, secrets)

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
