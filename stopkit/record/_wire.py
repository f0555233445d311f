"""The wire forms a recorded exchange is read from and served as: bodies, streams, the library.

A recording keeps a body as JSON when it is JSON, as text otherwise; a stream as the list of its
events, served back as the SDK read it, framed by the response's content type:

- server-sent events (the default): each `data:` object with its `event:` name, and `[DONE]`
  when it came (`sse_event_names`, `sse_done`);
- newline-delimited JSON (`application/x-ndjson`, `application/stream+json`, ...: Ollama's
  native API, Cohere v1's stream): one JSON line per event;
- AWS event-stream frames (`application/vnd.amazon.eventstream`: boto3's Bedrock streams),
  each event with its frame's type (`aws_event_types`, see `_eventstream`).

`_framing.stream_chunks` frames a recorded stream by its content type.
"""

from __future__ import annotations

import json
import sys
from types import ModuleType
from typing import Any

from stopkit._json import JSONDecodeFailed, loads
from stopkit._stream import server_sent_events
from stopkit.record._payloads import Payload

__all__ = [
    "NDJSON_TYPES",
    "is_ndjson",
    "json_or_text",
    "library_of",
    "parse_ndjson",
    "sse_chunks",
    "sse_events",
]

#: Content types of newline-delimited JSON streams. Sources: ollama/_client.py (its server
#: sends `application/x-ndjson`), cohere/base_client.py (`chat_stream` reads lines).
NDJSON_TYPES = (
    "application/x-ndjson", "application/ndjson", "application/jsonl", "application/json-seq",
    "application/stream+json", "application/jsonlines",
)  # fmt: skip


def is_ndjson(content_type: str) -> bool:
    """Say whether a content type is one of newline-delimited JSON."""
    return content_type.split(";")[0].strip().lower() in NDJSON_TYPES


def parse_ndjson(data: bytes) -> list[Any]:
    """Return the events of a newline-delimited JSON body, one per non-blank line."""
    return [json_or_text(line) for line in data.splitlines() if line.strip()]


def json_or_text(data: bytes) -> Any:
    """Return a body as its JSON value, or as text when it is not JSON (None when empty)."""
    if not data:
        return None
    try:
        return loads(data)
    except JSONDecodeFailed:
        pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:  # an upload: its bytes are not worth keeping in a recording
        return f"<{len(data)} bytes of binary data>"


def sse_events(body: bytes) -> tuple[list[Any], list[str | None], bool]:
    """Split an SSE body into its data objects, their `event:` names, and whether `[DONE]` came.

    The one SSE parser reads it (`stopkit._stream.server_sent_events`): a recording keeps the
    events a stream reader, and the SDK, read from the same body.
    """
    events: list[Any] = []
    names: list[str | None] = []
    done = False
    for name, payload in server_sent_events(body):
        if payload == "[DONE]":
            done = True
            continue
        events.append(json_or_text(payload.encode()))
        names.append(name)
    return events, names, done


def library_of(request: Any) -> ModuleType:
    """Return the library (`httpx` or `httpx2`) the request belongs to."""
    return sys.modules[type(request).__module__.split(".")[0]]


def sse_chunks(payload: Payload) -> list[bytes]:
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
