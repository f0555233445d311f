"""Payload files: one reply or one stream per file, as recorded or as written by hand.

A payload file holds one reply or one stream, in any of these forms:

- a stopkit case file: `{"reply": {...}}` or `{"events": [...]}`, with optional `expect`
  (the `Stop` fields it must give) and `about`;
- a recorded exchange written by `RecordingTransport`: `{"request": {...}, "response":
  {"status": ..., "body": {...}}}` or `... "response": {..., "events": [...]}}`;
- a bare reply body (a dict, or an SDK object dumped to JSON), or a JSON list of stream events;
- `.sse`/`.txt` raw server-sent events, `.jsonl`/`.ndjson` newline-delimited JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_core import from_json

from stopkit._adapter import Adapter
from stopkit._normalize import normalize
from stopkit._stop import Stop
from stopkit._stream import iter_events, normalize_stream

__all__ = [
    "STREAM_SUFFIXES",
    "SUFFIXES",
    "Payload",
    "load_payload",
    "load_payloads",
    "payload_from_bytes",
    "payload_from_value",
]

SUFFIXES = (".json", ".sse", ".txt", ".jsonl", ".ndjson")
STREAM_SUFFIXES = (".sse", ".txt", ".jsonl", ".ndjson")


@dataclass(frozen=True)
class Payload:
    """One reply or stream read from a file, with what its file says about it.

    Example:
        >>> payload = load_payload("tests/payloads/anthropic/end_turn.json")  # doctest: +SKIP
        >>> payload.stop().reason  # doctest: +SKIP
        <StopReason.COMPLETED: 'completed'>
    """

    path: Path | None
    reply: Any = None
    """The non-streaming reply body (None for a stream)."""
    events: list[Any] | None = None
    """The stream's events, in order (None for a non-streaming reply)."""
    expect: dict[str, Any] | None = None
    """The `Stop` fields the file says the reply must give (case files)."""
    about: str | None = None
    request: dict[str, Any] | None = None
    """The recorded request summary (recorded exchanges)."""
    response: dict[str, Any] = field(default_factory=dict)
    """The recorded response: status, content_type, headers, SSE framing (recorded exchanges)."""

    @property
    def is_stream(self) -> bool:
        """Whether this payload is a stream of events."""
        return self.events is not None

    @property
    def name(self) -> str:
        """The file's name, or `<inline>`."""
        return self.path.name if self.path is not None else "<inline>"

    def stop(self, *, adapter: str | Adapter | None = None) -> Stop:
        """Return this payload's `Stop` (through `normalize_stream` for a stream)."""
        if self.events is not None:
            return normalize_stream(self.events, adapter=adapter)
        return normalize(self.reply, adapter=adapter)


def payload_from_value(value: Any, path: Path | None) -> Payload:
    """Read a payload from its parsed JSON: a case file, a recorded exchange, a bare reply."""
    if isinstance(value, list):
        return Payload(path, events=value)
    if not isinstance(value, dict):
        raise ValueError(f"{path}: a payload is a JSON object or a list of events")
    expect, about = value.get("expect"), value.get("about")
    if isinstance(value.get("events"), list):
        return Payload(path, events=value["events"], expect=expect, about=about)
    if isinstance(value.get("reply"), dict):
        return Payload(path, reply=value["reply"], expect=expect, about=about)
    response = value.get("response")
    if isinstance(response, dict) and ("body" in response or "events" in response):
        request = value.get("request")
        meta = {k: v for k, v in response.items() if k not in ("body", "events")}
        if isinstance(response.get("events"), list):
            return Payload(
                path, events=response["events"], request=request, response=meta, expect=expect
            )
        return Payload(
            path, reply=response.get("body"), request=request, response=meta, expect=expect
        )
    return Payload(path, reply=value)


def payload_from_bytes(data: bytes, path: Path | None = None) -> Payload:
    """Read a payload from its bytes; `path` (None: standard input) says how by its suffix.

    A `.sse`/`.txt`/`.jsonl`/`.ndjson` file is a raw stream; any other file is JSON; bytes
    without a path are JSON when they parse, else a raw stream. A UTF-8 byte order mark
    (Windows editors write one) is skipped.

    Example:
        >>> payload_from_bytes(b'{"reply": {"stop_reason": "end_turn"}}').reply
        {'stop_reason': 'end_turn'}
    """
    data = data.removeprefix(b"\xef\xbb\xbf")
    if path is not None and path.suffix in STREAM_SUFFIXES:
        return Payload(path, events=list(iter_events(data)))
    try:
        value = from_json(data)
    except ValueError as exc:
        if path is None:  # not one JSON document: a raw SSE or newline-delimited JSON stream
            return Payload(None, events=list(iter_events(data)))
        raise ValueError(f"{path}: not valid JSON: {exc}") from None
    return payload_from_value(value, path)


def load_payload(path: str | Path) -> Payload:
    """Read one payload file (a case file, a recorded exchange, a bare reply or a stream).

    Example:
        >>> load_payload("recordings/0001-post-v1-messages.json").is_stream  # doctest: +SKIP
        False
    """
    path = Path(path)
    return payload_from_bytes(path.read_bytes(), path)


def load_payloads(folder: str | Path, pattern: str = "*") -> list[Payload]:
    """Read every payload file under `folder` (recursively), sorted by path.

    Files whose suffix is not a payload suffix (`.json`, `.sse`, `.txt`, `.jsonl`, `.ndjson`)
    are skipped; `pattern` narrows the file names (a glob, e.g. `"*.stream.json"`).

    Example:
        >>> [p.name for p in load_payloads("tests/payloads/gemini")][:1]  # doctest: +SKIP
        ['blocked_prompt.json']
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"no payload folder at {folder}")
    paths = sorted(p for p in folder.rglob(pattern) if p.is_file() and p.suffix in SUFFIXES)
    return [load_payload(p) for p in paths]
