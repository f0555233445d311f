"""`ReplayTransport`: serve recorded payloads back as HTTP responses, in order or by request."""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx

from stopkit._errors import StopkitError
from stopkit._secrets import redact_text
from stopkit.record._framing import stream_chunks
from stopkit.record._payloads import Payload
from stopkit.record._recordings import load_recording, read_cassette, recording_files
from stopkit.record._redact import WIRE, redact_request_body
from stopkit.record._wire import library_of

__all__ = ["NoRecording", "Recordings", "ReplayTransport"]


class NoRecording(StopkitError, LookupError, httpx.TransportError):
    """`ReplayTransport` has no recorded exchange to answer a request; the message names it.

    It is an `httpx.TransportError` too, so every SDK reports a miss the way it reports a
    connection that failed: anthropic and openai raise their `APIConnectionError` from it (the
    miss is its `__cause__`); google-genai, which has no connection error of its own, lets it
    through as it is. `ReplayTransport.misses` lists each one raised.

    Example:
        >>> try:  # doctest: +SKIP
        ...     client.messages.create(model="m", max_tokens=10, messages=messages)
        ... except anthropic.APIConnectionError as error:
        ...     assert isinstance(error.__cause__, NoRecording)
    """

    def __init__(self, message: str, *, request: Any = None) -> None:
        super().__init__(message)  # LookupError's: the message is the error's one argument
        self.request = request  # as httpx's own errors carry it


class Recordings:
    """Recorded payloads served one by one: in order, or the one matching each request.

    What `ReplayTransport` and `BotocoreReplay` share: the payloads, which were served, and the
    `NoRecording` raised (and kept) for a request with none left to serve.
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
                for path in recording_files(Path(item)):
                    self.payloads += load_recording(path)
            else:
                self.payloads += load_recording(item)
        self.served: list[Payload] = []
        """The payloads served so far, in order."""
        self.misses: list[NoRecording] = []
        """The errors raised for requests with no recording (SDKs raise theirs from them)."""
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

    def pick(
        self, method: str, url: str, content: bytes, content_type: str, request: Any = None
    ) -> Payload:
        """Return the payload that answers a request, or raise `NoRecording` naming it."""
        method, path = method.upper(), urlsplit(url).path
        body = redact_request_body(content, content_type)
        with self._lock:
            for i, payload in enumerate(self.payloads):
                if self._used[i]:
                    continue
                if self.match == "order" or self._matches(payload, method, path, body):
                    self._used[i] = True
                    self.served.append(payload)
                    return payload
        miss = NoRecording(self._explain(method, path, url), request=request)
        self.misses.append(miss)
        raise miss

    def _explain(self, method: str, path: str, url: str) -> str:
        shown = redact_text(url)
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

    @property
    def unserved(self) -> list[Payload]:
        """The payloads not served yet."""
        return [p for p, used in zip(self.payloads, self._used, strict=True) if not used]


class ReplayTransport(Recordings, httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Serve recorded payloads back as HTTP responses, by order or by matching the request.

    `source` is a folder, a file, or a list of files: recorded exchanges, any payload file
    (a case file's `reply` is served as JSON, its `events` as SSE; a recorded stream as it was
    framed: SSE, newline-delimited JSON, or AWS event-stream frames), or a vcrpy cassette or HAR
    file (each of its exchanges, as recorded; see `from_cassette`). `match="order"` serves
    them one after the other; `match="request"` serves the first unserved recording whose
    method, path and (redacted) JSON body equal the request's (files without a recorded
    request match any request). A request with nothing to serve raises `NoRecording`, an
    `httpx.TransportError`: each SDK reports it as its connection error (anthropic's and
    openai's `APIConnectionError`, the miss its `__cause__`; google-genai raises it as is).
    Build SDK clients with `max_retries=0` (a retry is another miss) and look at
    `transport.misses`.

    Example:
        >>> http = httpx2.Client(transport=ReplayTransport("recordings"))  # doctest: +SKIP
        >>> client = anthropic.Anthropic(api_key="sk-test", http_client=http)  # doctest: +SKIP
    """

    @classmethod
    def from_cassette(
        cls, path: str | Path, *, match: Literal["order", "request"] = "order"
    ) -> ReplayTransport:
        """Serve the exchanges of a vcrpy cassette or a HAR file (see `read_cassette`).

        Every exchange is served, error responses and non-LLM requests too, each body as the
        client read it, with its status and content type.

        Example:
            >>> replay = ReplayTransport.from_cassette("cassettes/chat.yaml")  # doctest: +SKIP
            >>> http = httpx2.Client(transport=replay)  # doctest: +SKIP
        """
        transport = cls(read_cassette(path), match=match)
        transport.source = path
        return transport

    def _pick(self, request: Any) -> Payload:
        content_type = request.headers.get("content-type", "")
        return self.pick(request.method, str(request.url), request.content, content_type, request)

    def _respond(self, request: Any, payload: Payload, is_async: bool) -> Any:
        lib = library_of(request)
        meta = payload.response
        headers = {
            k: v
            for k, v in (meta.get("headers") or {}).items()
            if k not in WIRE and k != "set-cookie"
        }
        status = int(meta.get("status", 200))
        if payload.content is not None:  # a cassette's body, as the client read it
            headers["content-type"] = meta.get("content_type") or "application/octet-stream"
            return lib.Response(status, headers=headers, content=payload.content, request=request)
        if payload.events is not None:
            headers["content-type"] = meta.get("content_type") or "text/event-stream"
            chunks = stream_chunks(payload)
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


async def _aiter(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk
