"""A recorded body back to what the client read: compression undone, then JSON or a stream.

Cassettes keep a response's bytes as the server sent them, so a body may still be compressed
(`content-encoding: gzip`, `deflate`, `br`): it is decompressed here, never past `limit` bytes
(a small gzip can hold gigabytes), and a body cut short is an error. The decoded body is read
by its media type: JSON, a server-sent-event stream, newline-delimited JSON (Ollama), AWS
event-stream frames (Bedrock), or text.

Brotli needs the `brotli` package (the `stopkit[cassettes]` extra); gzip and deflate are the
standard library's `zlib`.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

from stopkit._errors import UnsupportedReply
from stopkit._json import JSONDecodeFailed, loads
from stopkit._stream import iter_events
from stopkit.record._eventstream import CONTENT_TYPE as EVENT_STREAM
from stopkit.record._eventstream import decode as decode_frames

__all__ = ["decode_body", "decompress", "media_type", "undo_encodings"]

INSTALL = "pip install 'stopkit[cassettes]'"
# zlib's window bits for each format (see the zlib module's docs): gzip, zlib, raw deflate.
_GZIP, _ZLIB, _RAW = 16 + zlib.MAX_WBITS, zlib.MAX_WBITS, -zlib.MAX_WBITS
_BROTLI_STEP = 1 << 20
_STREAM_TYPES = frozenset(
    {"application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines"}
)
# How a decoded body starts, by what it is (after blank space): JSON, or a server-sent event.
_JSON_STARTS = (b"{", b"[")
_SSE_STARTS = (b"data:", b"event:", b"id:", b"retry:", b":")


def media_type(content_type: str | None) -> str | None:
    """The media type of a `Content-Type` value, lowercased, parameters dropped."""
    if not content_type:
        return None
    return content_type.split(";", 1)[0].strip().lower() or None


def _too_big(limit: int) -> ValueError:
    return ValueError(f"decompressed, it is over the size limit ({limit} bytes)")


def _zlib(data: bytes, wbits: int, name: str, limit: int) -> bytes:
    inflater = zlib.decompressobj(wbits)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise ValueError(f"not valid {name} data ({exc})") from None
    if len(out) > limit:
        raise _too_big(limit)
    if not inflater.eof:
        raise ValueError(f"its {name} data is cut short (truncated)")
    return out


def _brotli(data: bytes, limit: int) -> bytes:
    try:
        import brotli  # type: ignore[import-untyped]  # brotli ships no type information
    except ImportError:
        raise ImportError(f"a body compressed with brotli (br) needs brotli: {INSTALL}") from None
    inflater = brotli.Decompressor()
    try:
        parts = [inflater.process(data, output_buffer_limit=_BROTLI_STEP)]
        size = len(parts[0])
        while not inflater.is_finished():
            if size > limit:
                raise _too_big(limit)
            if inflater.can_accept_more_data():  # all of it read, and the stream not ended
                raise ValueError("its br data is cut short (truncated)")
            parts.append(inflater.process(b"", output_buffer_limit=_BROTLI_STEP))
            size += len(parts[-1])
    except brotli.error as exc:
        raise ValueError(f"not valid br data ({exc})") from None
    if size > limit:
        raise _too_big(limit)
    return b"".join(parts)


def decompress(data: bytes, encoding: str, limit: int) -> bytes:
    """Undo one content coding (`gzip`, `deflate`, `br`, `identity`), never past `limit` bytes.

    Example:
        >>> import gzip
        >>> decompress(gzip.compress(b"hi"), "gzip", 100)
        b'hi'
    """
    coding = encoding.strip().lower()
    if coding in ("", "identity"):
        return data
    if coding in ("gzip", "x-gzip"):
        return _zlib(data, _GZIP, "gzip", limit)
    if coding == "deflate":  # zlib-wrapped as the RFC says; some servers send it raw (httpx too)
        wrapped = len(data) >= 2 and (data[0] & 0x0F) == 8 and int.from_bytes(data[:2]) % 31 == 0
        return _zlib(data, _ZLIB if wrapped else _RAW, "deflate", limit)
    if coding == "br":
        return _brotli(data, limit)
    raise ValueError(f"a content-encoding stopkit does not decode: {encoding!r}")


def _plain(data: bytes) -> bool:
    """Whether bytes are already a decoded body: UTF-8 text that starts like JSON or SSE."""
    if not data.lstrip().startswith(_JSON_STARTS + _SSE_STARTS):
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def undo_encodings(data: bytes, encodings: Sequence[str], limit: int) -> bytes:
    """Undo a body's content codings, last applied first.

    A body labelled compressed that is already plain JSON or SSE text was recorded decoded
    (vcrpy's aiohttp stub reads the decompressed body and keeps the header): it is read as is.
    """
    if not encodings or _plain(data):
        return data
    for encoding in reversed(encodings):
        data = decompress(data, encoding, limit)
    return data


def _text(content: bytes) -> str | None:
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        return None  # an image, audio: kept as bytes only


def decode_body(content: bytes, media: str | None, *, strict: bool) -> tuple[Any, list[Any] | None]:
    """Read a decoded body by its media type (by how it starts when none is said).

    Returns `(reply, events)`: JSON is the reply (a JSON list is a stream's events, as Gemini's
    unframed stream sends them); `text/event-stream`, newline-delimited JSON and AWS
    event-stream frames (Bedrock's streams, `_eventstream`) are a stream's events; anything
    else is the reply as text (None for bytes that are not UTF-8). With `strict` (a
    successful response), a body that says it is JSON or a stream and is not one raises
    `ValueError`; otherwise it is kept as text.
    """
    head = content.removeprefix(b"\xef\xbb\xbf").lstrip()[:8]
    if not head:  # no body (a 204, a HEAD): nothing to read, whatever its type says
        return _text(content), None
    if media is None:
        looks_json, stream = head.startswith(_JSON_STARTS), head.startswith(_SSE_STARTS)
    else:
        looks_json = media == "application/json" or media.endswith("+json")
        stream = media == "text/event-stream" or media in _STREAM_TYPES
    try:
        if media == EVENT_STREAM:  # Bedrock's binary frames (boto3's streams)
            return None, decode_frames(content)[0]
        if looks_json:
            try:
                value = loads(content)
            except JSONDecodeFailed:
                if media is not None:
                    raise
                return None, list(iter_events(content))  # newline-delimited JSON, unlabelled
            return (None, value) if isinstance(value, list) else (value, None)
        if stream:
            return None, list(iter_events(content))
    except (ValueError, UnsupportedReply) as exc:
        if strict:
            raise ValueError(f"its body is not valid {media or 'JSON'}: {exc}") from None
    return _text(content), None
