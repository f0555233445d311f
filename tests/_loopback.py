"""A loopback HTTP server that answers each request with the next queued payload file.

Real SDK clients pointed at it (`base_url`, or `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`) run
their whole HTTP stack, with no network: JSON replies as JSON, streams as SSE, one write per
event. Used by the wrap tests and to run the README's and the docs' examples that call an SDK.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from stopkit.record._payloads import Payload, load_payload
from stopkit.record._wire import sse_chunks


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
                    self.send_header("content-type", "text/event-stream")
                    self.end_headers()
                    for chunk in sse_chunks(payload):  # one write per event: a real stream
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

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def serve(self, *paths: Path) -> None:
        """Queue the recordings at `paths`, to be served in order."""
        self.queue += [load_payload(p) for p in paths]

    def close(self) -> None:
        """Stop the server."""
        self.server.shutdown()
        self.server.server_close()
