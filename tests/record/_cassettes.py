"""Cassettes made the way each tool makes them: real SDK calls recorded by vcrpy over loopback.

`Server` answers each request with the next queued response (JSON, or SSE written one event
at a time), compressed as asked. `record(...)` runs real SDK calls (tests/_wrap_clients.py)
against it inside `vcr.use_cassette`, with the serializer and persister each tool uses:

- `"vcrpy"`: vcrpy's own YAML serializer and options (what pytest-recording uses too);
- `"vcrpy-json"`: vcrpy's JSON serializer (`decode_compressed_response`, as JSON holds no bytes);
- `"pydantic-ai"`: pydantic-ai's serializer (`tests/json_body_serializer.py` in its repository:
  a JSON body as `parsed_body`, headers filtered), with its `decode_compressed_response`;
- `"langchain"`: langchain-tests' gzipped YAML (`langchain_tests/conftest.py`: a persister
  writing `requests` and `responses` side by side, `yaml.safe_dump`, gzip).

`har(...)` writes a HAR file of real httpx exchanges with the server, as a browser or Polly.JS
stores them (bodies decoded; base64 when asked).
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anthropic
import brotli
import httpx
import vcr
import yaml
from vcr.persisters.filesystem import CassetteNotFoundError
from vcr.request import Request

from stopkit.record._payloads import Payload, load_payload
from stopkit.record._wire import sse_chunks
from tests import _wrap_clients as sdk

COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "deflate": zlib.compress,
    "br": brotli.compress,
}


class Server:
    """An HTTP server on 127.0.0.1 answering each request with the next queued response."""

    def __init__(self) -> None:
        self.queue: list[tuple[int, dict[str, str], list[bytes]]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                status, headers, chunks = owner.queue.pop(0)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                for chunk in chunks:  # one write per event: a real stream
                    self.wfile.write(chunk)
                    self.wfile.flush()

            do_GET = do_POST

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, payload: Payload, *, encoding: str | None = None, status: int = 200) -> None:
        """Queue a payload's reply (JSON) or stream (SSE), compressed with `encoding`."""
        if payload.events is not None:
            kind, chunks = "text/event-stream", sse_chunks(payload)
        else:
            kind, chunks = "application/json", [json.dumps(payload.reply).encode()]
        self.raw(b"".join(chunks) if encoding else chunks, kind, encoding=encoding, status=status)

    def raw(
        self,
        body: bytes | list[bytes],
        content_type: str,
        *,
        encoding: str | None = None,
        status: int = 200,
    ) -> None:
        """Queue a body as given (`encoding` compresses it and says so)."""
        chunks = [body] if isinstance(body, bytes) else body
        headers = {"content-type": content_type}
        if encoding is not None:
            chunks = [COMPRESS[encoding](b"".join(chunks))]
            headers["content-encoding"] = encoding
        self.queue.append((status, headers, chunks))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextmanager
def serving() -> Iterator[Server]:
    server = Server()
    try:
        yield server
    finally:
        server.close()


# pydantic-ai's cassette serializer (pydantic-ai tests/json_body_serializer.py), as it writes.
_PYDANTIC_AI_DROPPED = {
    "authorization",
    "date",
    "request-id",
    "server",
    "user-agent",
    "via",
    "set-cookie",
    "api-key",
}


class PydanticAISerializer:
    @staticmethod
    def serialize(cassette_dict: Any) -> str:
        for interaction in cassette_dict["interactions"]:
            for _kind, data in interaction.items():
                headers = {k.lower(): v for k, v in data.get("headers", {}).items()}
                headers = {
                    k: v
                    for k, v in headers.items()
                    if k not in _PYDANTIC_AI_DROPPED
                    and not k.startswith(("anthropic-", "cf-", "x-"))
                }
                data["headers"] = headers
                content_type = headers.get("content-type", [])
                if any(str(h).startswith("application/json") for h in content_type):
                    body = data.get("body")
                    body = body.get("string") if isinstance(body, dict) else body
                    if body is not None:
                        data["parsed_body"] = json.loads(body)
                        del data["body"]
        return yaml.dump(cassette_dict, allow_unicode=True, width=120)

    @staticmethod
    def deserialize(cassette_string: str) -> Any:  # vcrpy asks for it; only recording is used
        return yaml.safe_load(cassette_string)


# langchain-tests' serializer and persister (langchain_tests/conftest.py), as they write.
class LangChainSerializer:
    @staticmethod
    def serialize(cassette_dict: dict[str, Any]) -> bytes:
        cassette_dict["requests"] = [
            {
                "method": r.method,
                "uri": r.uri,
                "body": r.body,
                "headers": {k: [v] for k, v in r.headers.items()},
            }
            for r in cassette_dict["requests"]
        ]
        return gzip.compress(yaml.safe_dump(cassette_dict).encode("utf-8"))

    @staticmethod
    def deserialize(data: bytes) -> dict[str, Any]:
        cassette = yaml.safe_load(gzip.decompress(data).decode("utf-8"))
        cassette["requests"] = [Request(**r) for r in cassette["requests"]]
        return cassette  # type: ignore[no-any-return]


class LangChainPersister:
    @classmethod
    def load_cassette(cls, cassette_path: Any, serializer: Any) -> Any:
        path = Path(cassette_path)
        if not path.is_file():
            raise CassetteNotFoundError(f"Cassette file {path} does not exist.")
        cassette = serializer.deserialize(path.read_bytes())
        return cassette["requests"], cassette["responses"]

    @staticmethod
    def save_cassette(cassette_path: Any, cassette_dict: Any, serializer: Any) -> None:
        path = Path(cassette_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(serializer.serialize(cassette_dict))


def recorder(style: str, **options: Any) -> tuple[vcr.VCR, str]:
    """The VCR each tool configures (`options` added), and the suffix of its cassettes."""
    if style == "vcrpy":
        return vcr.VCR(record_mode="all", **options), ".yaml"
    if style == "vcrpy-json":
        json_options = {"serializer": "json", "decode_compressed_response": True}
        return vcr.VCR(record_mode="all", **json_options, **options), ".json"
    if style == "pydantic-ai":
        made = vcr.VCR(
            record_mode="all", serializer="pydantic_ai", decode_compressed_response=True, **options
        )
        made.register_serializer("pydantic_ai", PydanticAISerializer())
        return made, ".yaml"
    made = vcr.VCR(
        record_mode="all", serializer="yaml.gz", decode_compressed_response=True, **options
    )
    made.register_serializer("yaml.gz", LangChainSerializer())
    made.register_persister(LangChainPersister())
    return made, ".yaml.gz"


Call = tuple[str, bool]
"""An SDK call: the wire API's folder in tests/recordings, and whether it streams."""


def record(path: Path, style: str, calls: list[Call], server: Server) -> Path:
    """Record each SDK call (answered by what the server has queued) into a cassette."""
    made, suffix = recorder(style)
    cassette = path.with_name(path.name + suffix)
    with made.use_cassette(str(cassette)):
        for folder, stream in calls:
            sdk.call(folder, sdk.client(folder, base_url=base_url(folder, server)), stream)
    return cassette


def base_url(folder: str, server: Server) -> str:
    """The base URL an SDK client of `folder` is given to reach the server."""
    return server.url if folder == "anthropic" or folder == "gemini" else f"{server.url}/v1"


def other_calls(server: Server) -> None:
    """A test suite's calls that are no LLM reply: a model list, then a rate-limited message."""
    client = sdk.client("anthropic", base_url=server.url)
    server.raw(json.dumps({"data": [], "has_more": False}).encode(), "application/json")
    client.models.list()
    error = b'{"type": "error", "error": {"type": "rate_limit_error"}}'
    server.raw(error, "application/json", status=429)
    with contextlib.suppress(anthropic.RateLimitError):
        sdk.call("anthropic", client, False)


def recording(folder: str, name: str) -> Payload:
    """A recording of tests/recordings (its reply or stream is what a cassette will hold)."""
    return load_payload(sdk.RECORDINGS / folder / name)


def har(path: Path, server: Server, bodies: list[tuple[str, bytes]], *, base64_text: bool) -> Path:
    """Send each request with httpx to the server, and write the exchanges as a HAR file."""
    entries = []
    with httpx.Client() as client:
        for url_path, body in bodies:
            response = client.post(
                server.url + url_path, content=body, headers={"content-type": "application/json"}
            )
            text = response.content
            content = {"size": len(text), "mimeType": response.headers.get("content-type", "")}
            if base64_text:
                content |= {"text": base64.b64encode(text).decode(), "encoding": "base64"}
            else:
                content["text"] = text.decode()
            entries.append(
                {
                    "startedDateTime": "2026-01-01T00:00:00.000Z",
                    "time": 1,
                    "request": {
                        "method": "POST",
                        "url": str(response.request.url),
                        "httpVersion": "HTTP/1.1",
                        "headers": [],
                        "queryString": [],
                        "cookies": [],
                        "headersSize": -1,
                        "bodySize": len(body),
                        "postData": {"mimeType": "application/json", "text": body.decode()},
                    },
                    "response": {
                        "status": response.status_code,
                        "statusText": "OK",
                        "httpVersion": "HTTP/1.1",
                        "headers": [],
                        "cookies": [],
                        "content": content,
                        "redirectURL": "",
                        "headersSize": -1,
                        "bodySize": -1,
                    },
                    "cache": {},
                    "timings": {"send": 0, "wait": 1, "receive": 0},
                }
            )
    document = {
        "log": {
            "version": "1.2",
            "creator": {"name": "Polly.JS", "version": "6.0.6"},
            "entries": entries,
        }
    }
    path.write_text(json.dumps(document, indent=2))
    return path
