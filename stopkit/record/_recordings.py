"""Recording files: one read with a size limit, the exchanges of a cassette, folders of them.

`load_recording` reads any recording file (a payload file, a cassette, a HAR file) into
payloads; `read_cassette` insists on a cassette or HAR file; `recording_files` lists a
folder's recordings, leaving its other files out; `reply_kind` says whether a recorded
exchange is an LLM reply, an error response, or something else (a token request, a web page).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from stopkit._errors import UnsupportedReply
from stopkit._normalize import detect
from stopkit._registry import get_adapter
from stopkit._stream import detect_stream
from stopkit.record._cassette import (
    GZIP_MAGIC,
    YAML_CASSETTE,
    YAML_SUFFIXES,
    BadExchange,
    read_recording,
)
from stopkit.record._payloads import Payload, is_payload_file

__all__ = [
    "DEFAULT_MAX_SIZE",
    "is_recording_file",
    "load_recording",
    "read_cassette",
    "recording_files",
    "reply_kind",
]

DEFAULT_MAX_SIZE = 100 * 1000**2
"""The largest file, or decompressed body, read unless told otherwise (100 MB)."""
_HEAD = 4096


def load_recording(path: str | Path, *, max_size: int = DEFAULT_MAX_SIZE) -> list[Payload]:
    """Read a recording file: a cassette's or HAR file's exchanges, or one payload.

    Example:
        >>> [p.name for p in load_recording("tests/payloads/anthropic/refusal.json")]
        ['refusal.json']
    """
    path = Path(path)
    with path.open("rb") as file:
        data = file.read(max_size + 1)
    try:
        if len(data) > max_size:
            raise ValueError(f"over the size limit ({max_size} bytes)")
        return read_recording(data, path, max_size=max_size)
    except BadExchange as exc:
        raise ValueError(f"{path}#{exc.exchange}: {exc.problem}") from None
    except ValueError as exc:
        raise ValueError(str(exc) if str(exc).startswith(str(path)) else f"{path}: {exc}") from None


def read_cassette(path: str | Path, *, max_size: int = DEFAULT_MAX_SIZE) -> list[Payload]:
    """Return the recorded exchanges of a vcrpy cassette or a HAR file, in order.

    YAML or JSON, plain or gzipped: vcrpy's and pytest-recording's `interactions`, pydantic-ai's
    `parsed_body`, LangChain's `.yaml.gz`, a HAR file's `log.entries`. Each exchange is a
    `Payload` named `file#N` (N its index in the file), with its request (method, URL, body),
    status, content type, decoded body (`content`) and the reply or stream events read from
    it. A file over `max_size` bytes, or a body decompressing past it, is refused. Raises
    `ValueError` naming the file (and `#N`) and the problem.

    Example:
        >>> exchanges = read_cassette("cassettes/test_chat.yaml")  # doctest: +SKIP
        >>> [(p.name, p.status) for p in exchanges]  # doctest: +SKIP
        [('test_chat.yaml#0', 200)]
    """
    found = load_recording(path, max_size=max_size)
    if any(p.exchange is None for p in found):
        raise ValueError(f"{path}: not a cassette nor a HAR file (a payload file: load_payload)")
    return found


def _head(path: Path) -> bytes:
    """The first bytes of a file, decompressed when it is gzipped (a prefix is enough)."""
    with path.open("rb") as file:
        head = file.read(_HEAD)
    if head.startswith(GZIP_MAGIC):
        try:
            return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, _HEAD)
        except zlib.error:
            return b""
    return head


def is_recording_file(path: Path) -> bool:
    """Say whether a file in a folder of recordings is one: a payload, a cassette, a HAR file.

    A YAML file (`.yaml`, `.yml`, gzipped or not) counts when it starts like a cassette
    (`interactions:`, LangChain's `requests:`): the project's other YAML files are not read.

    Example:
        >>> is_recording_file(Path("mkdocs.yml"))  # doctest: +SKIP
        False
    """
    name = path.name.removesuffix(".gz")
    suffix = Path(name).suffix
    if suffix in YAML_SUFFIXES:
        return YAML_CASSETTE.search(_head(path)) is not None
    if name != path.name:  # gzipped
        return suffix in (".json", ".har")
    return suffix == ".har" or is_payload_file(path)


def recording_files(folder: Path) -> list[Path]:
    """Return the recording files under `folder` (recursively), sorted, other files left out."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and is_recording_file(p))


def reply_kind(payload: Payload, adapter: Any = None) -> Literal["reply", "error", "other"]:
    """Say what a recorded exchange is: an LLM reply, an error response, or something else.

    An error response is a status outside 100-399 (4xx, 5xx, or none). An LLM reply is a body
    an adapter reads (the one named by `adapter`, else any registered one): a reply it
    detects, or a stream whose first event it detects. Anything else (a token request, a model
    list, a web page) is `"other"`.
    """
    if not 100 <= payload.status < 400:
        return "error"
    try:
        if payload.events is not None:
            if not payload.events:
                return "other"
            if adapter is None:
                detect_stream(payload.events[0])
                return "reply"
            check = getattr(get_adapter(adapter), "detects_event", None)
            return "reply" if check is None or check(payload.events[0]) else "other"
        if not isinstance(payload.reply, Mapping):
            return "other"
        if adapter is None:
            detect(payload.reply)
            return "reply"
        return "reply" if get_adapter(adapter).detects(payload.reply) else "other"
    except UnsupportedReply:
        return "other"
