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

from stopkit._adapter import Adapter
from stopkit._errors import UnsupportedReply
from stopkit._json import loads
from stopkit._normalize import normalize
from stopkit._registry import get_adapter
from stopkit._stop import Stop
from stopkit._stream import iter_events, normalize_stream

__all__ = [
    "STREAM_SUFFIXES",
    "SUFFIXES",
    "Payload",
    "is_payload_file",
    "load_payload",
    "load_payloads",
    "payload_files",
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
    """The file it was read from (None for a payload built in code)."""
    reply: Any = None
    """The non-streaming reply body (None for a stream)."""
    events: list[Any] | None = None
    """The stream's events, in order (None for a non-streaming reply)."""
    expect: dict[str, Any] | None = None
    """The `Stop` fields the file says the reply must give (case files)."""
    about: str | None = None
    """What the case is, in words, as its file says (case files)."""
    request: dict[str, Any] | None = None
    """The recorded request summary (recorded exchanges)."""
    response: dict[str, Any] = field(default_factory=dict)
    """The recorded response: status, content_type, headers, SSE framing (recorded exchanges)."""
    exchange: int | None = None
    """Its index among the exchanges of its cassette or HAR file (None for a payload file)."""
    content: bytes | None = None
    """The response body as the client read it (cassettes and HAR files), served back as is."""

    @property
    def is_stream(self) -> bool:
        """Whether this payload is a stream of events."""
        return self.events is not None

    @property
    def status(self) -> int:
        """The recorded HTTP status (200 when the file records none)."""
        return int(self.response.get("status", 200))

    @property
    def name(self) -> str:
        """The file's name (`cassette.yaml#2` for an exchange of a cassette), or `<inline>`."""
        name = self.path.name if self.path is not None else "<inline>"
        return name if self.exchange is None else f"{name}#{self.exchange}"

    def stop(self, *, adapter: str | Adapter | None = None) -> Stop:
        """Return this payload's `Stop` (through `normalize_stream` for a stream).

        A stream read with an adapter that has no `stream()` raises `UnsupportedReply` saying
        so (adapters may leave streaming out).
        """
        if self.events is None:
            return normalize(self.reply, adapter=adapter)
        if adapter is not None:
            chosen = get_adapter(adapter)
            if not callable(getattr(chosen, "stream", None)):
                raise UnsupportedReply(
                    self.events,
                    [chosen.name],
                    f"{self.name} is a stream, and adapter {chosen.name!r} has no stream() to "
                    "read one: give it a stream() accumulator, or keep its payloads replies",
                )
        return normalize_stream(self.events, adapter=adapter)


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
        value = loads(data)
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

    Files that are not payloads are skipped (another suffix than `.json`, `.sse`, `.txt`,
    `.jsonl`, `.ndjson`, or a `.txt` of prose such as a `README.txt`); `pattern` narrows the
    file names (a glob, e.g. `"*.stream.json"`).

    Example:
        >>> [p.name for p in load_payloads("tests/payloads/gemini")][:1]  # doctest: +SKIP
        ['blocked_prompt.json']
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"no payload folder at {folder}")
    return [load_payload(p) for p in payload_files(folder, pattern)]


# How a raw stream file starts (after blank lines): an SSE field, a comment, or a JSON value.
_STREAM_STARTS = (b"data:", b"event:", b"id:", b"retry:", b":", b"{", b"[")


def is_payload_file(path: Path) -> bool:
    """Say whether a file in a payload folder is a payload, not notes kept beside them.

    By suffix (`.json`, `.sse`, `.txt`, `.jsonl`, `.ndjson`), and for `.txt` by how it
    starts: a `README.txt` is prose, a raw stream starts with an SSE field or JSON.

    Example:
        >>> is_payload_file(Path("payloads/README.md"))
        False
    """
    if path.suffix not in SUFFIXES:
        return False
    if path.suffix != ".txt":
        return True
    with path.open("rb") as file:
        head = file.read(256).removeprefix(b"\xef\xbb\xbf").lstrip()
    return head.startswith(_STREAM_STARTS)


def payload_files(folder: Path, pattern: str = "*") -> list[Path]:
    """Return the payload files under `folder` (recursively), sorted, notes left out."""
    return sorted(p for p in folder.rglob(pattern) if p.is_file() and is_payload_file(p))
