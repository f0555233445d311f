"""AWS event-stream frames (`application/vnd.amazon.eventstream`): the events boto3's streams read.

Bedrock's ConverseStream and InvokeModelWithResponseStream answer in binary frames: a prelude
(total length, headers length, its CRC32), string headers (`:event-type`, `:content-type`,
`:message-type`, and `:exception-type` for an error), a JSON payload and the frame's CRC32
(the format botocore's `botocore/eventstream.py` parses). A recording keeps each frame as the
event an adapter reads, with its `:event-type` in `aws_event_types`:

- a `chunk` frame (InvokeModelWithResponseStream) as the JSON object its base64 `bytes` hold,
  the model family's own event (Claude's `message_start`, Llama's `generation`, ...);
- any other frame as boto3 yields it, a one-key dict `{event type: payload}`
  (`{"messageStart": {"role": "assistant"}}`); an exception frame's type ends in `Exception`
  (`throttlingException`, `modelStreamErrorException`), as every Bedrock stream error's does.

Example:
    >>> frames = encode([{"messageStart": {"role": "assistant"}}], None)
    >>> decode(b"".join(frames))
    ([{'messageStart': {'role': 'assistant'}}], ['messageStart'])
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
from collections.abc import Sequence
from typing import Any

from stopkit.record._wire import json_or_text

__all__ = ["CONTENT_TYPE", "decode", "encode"]

CONTENT_TYPE = "application/vnd.amazon.eventstream"

_PRELUDE = 12  # total length, headers length, prelude CRC32: three big-endian uint32
_STRING = 7  # the header value type of a string; 6 (bytes) is length-prefixed too
# The other header value types, by their fixed size: true, false, byte, short, int, long,
# timestamp, UUID.
_FIXED = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}


def _crc(data: bytes) -> bytes:
    return struct.pack(">I", binascii.crc32(data) & 0xFFFFFFFF)


def _frame(headers: dict[str, str], payload: bytes) -> bytes:
    head = b"".join(
        bytes([len(name)]) + name.encode() + bytes([_STRING]) + struct.pack(">H", len(value))
        + value.encode()
        for name, value in headers.items()
    )  # fmt: skip
    prelude = struct.pack(">II", _PRELUDE + len(head) + len(payload) + 4, len(head))
    message = prelude + _crc(prelude) + head + payload
    return message + _crc(message)


def _type_of(event: Any) -> str:
    """The event type of an event recorded without one: its key, or a chunk's."""
    if type(event) is dict and len(event) == 1 and type(next(iter(event.values()))) is dict:
        return str(next(iter(event)))
    return "chunk"


def encode(events: Sequence[Any], types: Sequence[Any] | None) -> list[bytes]:
    """Return one frame per recorded event, of the event type `types` names (else guessed)."""
    frames = []
    for i, event in enumerate(events):
        kind = types[i] if types is not None and i < len(types) else _type_of(event)
        if kind == "chunk":
            data = event if isinstance(event, str) else json.dumps(event, ensure_ascii=False)
            value: Any = {"bytes": base64.b64encode(data.encode()).decode()}
        else:
            value = event.get(kind, event) if type(event) is dict else event
        headers = {":content-type": "application/json"}
        if kind.endswith("Exception"):
            headers |= {":message-type": "exception", ":exception-type": kind}
        else:
            headers |= {":message-type": "event", ":event-type": kind}
        frames.append(_frame(headers, json.dumps(value, ensure_ascii=False).encode()))
    return frames


def decode(data: bytes) -> tuple[list[Any], list[str]]:
    """Return the events of a body of frames, and each one's event type (see the module).

    A body cut inside its last frame gives the events before it (the stream then lacks its
    end, as a cut stream does). Raises `ValueError` when the body is not event-stream frames
    (a prelude whose CRC32 does not match, a header running past its frame).
    """
    events: list[Any] = []
    kinds: list[str] = []
    at = 0
    while at + _PRELUDE <= len(data):
        total, head_length = struct.unpack(">II", data[at : at + 8])
        if data[at + 8 : at + _PRELUDE] != _crc(data[at : at + 8]) or total < _PRELUDE + 4:
            raise ValueError(f"no AWS event-stream frame at byte {at}")
        if at + total > len(data):  # cut inside this frame
            break
        frame = data[at : at + total]
        at += total
        try:
            headers = _headers(frame, head_length)
        except (IndexError, struct.error, UnicodeDecodeError):
            raise ValueError(f"the headers of the frame ending at byte {at} are damaged") from None
        payload = json_or_text(frame[_PRELUDE + head_length : -4])
        kind = headers.get(":exception-type") or headers.get(":event-type") or "event"
        if kind == "chunk" and type(payload) is dict and isinstance(payload.get("bytes"), str):
            try:
                events.append(json_or_text(base64.b64decode(payload["bytes"])))
            except binascii.Error:
                raise ValueError(f"the chunk ending at byte {at} is not base64") from None
        else:
            events.append({kind: payload})
        kinds.append(kind)
    return events, kinds


def _headers(frame: bytes, head_length: int) -> dict[str, str]:
    """A frame's string headers (name length, name, value type, value; others skipped)."""
    headers, cursor = {}, _PRELUDE
    while cursor < _PRELUDE + head_length:
        size = frame[cursor]
        name = frame[cursor + 1 : cursor + 1 + size].decode()
        value_type, cursor = frame[cursor + 1 + size], cursor + size + 2
        if value_type in _FIXED:  # a boolean, a number, a timestamp, a UUID: not read here
            cursor += _FIXED[value_type]
            continue
        (length,) = struct.unpack(">H", frame[cursor : cursor + 2])
        value = frame[cursor + 2 : cursor + 2 + length]
        if value_type == _STRING:
            headers[name] = value.decode()
        cursor += 2 + length
    return headers
