"""A loopback HTTP server that answers each request with the next queued payload file.

Real SDK clients pointed at it (`base_url`, `endpoint_url`, or `ANTHROPIC_BASE_URL` /
`OPENAI_BASE_URL`) run their whole HTTP stack, with no network: JSON replies as JSON, streams
one write per event, framed as the payload's content type says (SSE by default,
newline-delimited JSON for Ollama and Cohere v1, AWS event-stream frames for boto3). Used by
the wrap tests and to run the README's and the docs' examples that call an SDK.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from stopkit.record._framing import stream_chunks
from stopkit.record._payloads import Payload, load_payload


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that left a stream early (closed on purpose) is no server error."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Loopback:
    """An HTTP server on 127.0.0.1 answering each request with the next queued payload."""

    def __init__(self, headers: Mapping[str, str] | None = None) -> None:
        self.queue: list[Payload] = []
        self.requests: list[dict[str, Any]] = []
        extra = dict(headers or {})
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                owner.requests.append(
                    {"path": self.path, "headers": dict(self.headers.items()),
                     "body": self.rfile.read(length)}
                )  # fmt: skip
                payload = owner.queue.pop(0)
                if payload.events is not None:
                    self.send_response(200)
                    content_type = payload.response.get("content_type") or "text/event-stream"
                    self.send_header("content-type", content_type)
                    self.end_headers()
                    for chunk in stream_chunks(payload):  # one write per event: a real stream
                        self.wfile.write(chunk)
                        self.wfile.flush()
                    return
                body = json.dumps(payload.reply).encode()
                self.send_response(int(payload.response.get("status", 200)))
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST

            def log_message(self, *args: Any) -> None:
                pass

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def serve(self, *paths: Path, content_type: str | None = None) -> None:
        """Queue the recordings at `paths`, to be served in order (streams as `content_type`)."""
        for path in paths:
            payload = load_payload(path)
            if content_type is not None and not payload.response.get("content_type"):
                framed = {**payload.response, "content_type": content_type}
                payload = replace(payload, response=framed)
            self.queue.append(payload)

    def close(self) -> None:
        """Stop the server."""
        self.server.shutdown()
        self.server.server_close()
