"""A recorded stream's body, framed as its content type says: SSE, NDJSON, AWS event stream."""

from __future__ import annotations

import json

from stopkit.record._eventstream import CONTENT_TYPE, encode
from stopkit.record._payloads import Payload
from stopkit.record._wire import is_ndjson, sse_chunks

__all__ = ["stream_chunks"]


def stream_chunks(payload: Payload) -> list[bytes]:
    """Return a recorded stream's body as the chunks to send, one per event, framed by type.

    Newline-delimited JSON and AWS event-stream frames by the recorded `content_type`, else
    server-sent events (see `_wire`).
    """
    content_type = str(payload.response.get("content_type") or "")
    if is_ndjson(content_type):
        return [
            (e if isinstance(e, str) else json.dumps(e, ensure_ascii=False)).encode() + b"\n"
            for e in payload.events or []
        ]
    if content_type.startswith(CONTENT_TYPE):
        return encode(payload.events or [], payload.response.get("aws_event_types"))
    return sse_chunks(payload)
