"""Per-group lists of line entries kept on disk, so an audit's memory does not grow with lines.

Each group (a model x outcome x reason x detail) gets an append-only file of entries in a
directory the caller owns. Workers write their own files in the same directory; merging
reports joins the lists of file paths, never their contents.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Hashable, Iterator, Mapping
from typing import IO, Any

__all__ = ["Spill"]


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def _unescape(data: bytes) -> str:
    text = data.decode("utf-8", "surrogatepass")
    if "\\" not in text:
        return text
    out, i = [], 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append("\n" if nxt == "n" else "\r" if nxt == "r" else nxt)
            i += 2
        else:
            out.append(char)
            i += 1
    return "".join(out)


class Spill:
    """Lists of text entries per key, appended to files under `directory` (never deleted here).

    A list's order is the order of `add` and `extend` calls. Entries are buffered and written
    a block at a time: an entry costs a list append, not a write. Each file remembers the
    `source` its entries came from and a `shift` the reader adds to their numbers (see
    `begin`), so that merging never rewrites a file.
    """

    _BLOCK = 2048

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = os.fspath(directory)
        self._prefix = uuid.uuid4().hex[:12]
        self._files: dict[Hashable, list[tuple[str, str | None, int]]] = {}
        self._out: dict[Hashable, IO[bytes]] = {}
        self._buffers: dict[Hashable, list[str]] = {}
        self.source: str | None = None
        self._shift = 0

    def begin(self, source: str | None, shift: int = 0) -> None:
        """Entries added from now on come from `source`; readers add `shift` to their numbers."""
        self.close()
        self.source, self._shift = source, shift

    def add(self, key: Hashable, text: str) -> None:
        """Append one entry to the list of `key`."""
        buffer = self._buffers.get(key)
        if buffer is None:
            buffer = self._buffers[key] = []
        buffer.append(text)
        if len(buffer) >= self._BLOCK:
            self._write(key, buffer)

    def _write(self, key: Hashable, buffer: list[str]) -> None:
        out = self._out.get(key)
        if out is None:
            path = os.path.join(self.directory, f"{self._prefix}-{len(self._out)}.list")
            out = self._out[key] = open(path, "ab")  # noqa: SIM115 -- closed by close()
            self._files.setdefault(key, []).append((path, self.source, self._shift))
        text = "\n".join(buffer)
        # The usual block has no entry holding a newline or a backslash: written as it is.
        if "\\" in text or "\r" in text or text.count("\n") != len(buffer) - 1:
            text = "\n".join(_escape(entry) for entry in buffer)
        out.write(text.encode("utf-8", "surrogatepass") + b"\n")
        buffer.clear()

    def read(self, key: Hashable) -> Iterator[tuple[str, int]]:
        """Yield each entry of `key` with the shift of its file, in the order they were added."""
        self.close()  # written out; an `add` after this starts new files, after these
        for path, _, shift in self._files.get(key, ()):
            with open(path, "rb") as f:
                for raw in f:
                    yield _unescape(raw[:-1]), shift

    def extend(self, other: Spill, shifts: Mapping[str, int] | None = None) -> None:
        """Put `other`'s lists after this spill's, key by key (no entry is copied).

        `shifts[source]` is added to the shift of each of `other`'s files from that source.
        """
        self.close()
        other.close()
        shifts = shifts or {}
        for key, files in other._files.items():
            mine = self._files.setdefault(key, [])
            for path, source, shift in files:
                extra = shifts.get(source, 0) if source is not None else 0
                mine.append((path, source, shift + extra))

    def close(self) -> None:
        """Write out the buffers and close the files (they stay; `add` starts new ones)."""
        for key, buffer in self._buffers.items():
            if buffer:
                self._write(key, buffer)
        for out in self._out.values():
            out.close()
        self._out.clear()
        self._prefix = uuid.uuid4().hex[:12]  # files opened after this are new files

    def drop(self) -> None:
        """Close the files and forget what is not written yet (the lists are being deleted)."""
        self._buffers.clear()
        for out in self._out.values():
            out.close()
        self._out.clear()

    def __del__(self) -> None:
        self.drop()  # collected: its directory may be gone already, so nothing is written

    def __getstate__(self) -> dict[str, Any]:
        self.close()  # a spill crosses processes as its file paths
        state = dict(vars(self))
        state["_out"], state["_buffers"] = {}, {}
        return state
