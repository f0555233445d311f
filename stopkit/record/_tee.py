"""A streamed response read through to the caller and written once: at its end or when closed.

The caller may leave a stream early (`break` inside `with`, `.close()`): the recording is
written then, with what was read, and the real response is closed at once — not whenever the
garbage collector finalizes a suspended generator. The stream is a byte stream of the
request's own library (`httpx` or `httpx2`), since a response accepts only its library's.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Iterator
from types import ModuleType
from typing import Any

__all__ = ["Tee", "tee_stream"]


class Tee:
    """The chunks read so far, and the one call that writes them."""

    def __init__(self, upstream: Any, write: Callable[[bytes, bool], None]) -> None:
        self.upstream = upstream
        self.chunks: list[bytes] = []
        self._write: Callable[[bytes, bool], None] | None = write

    def finish(self, *, ended: bool) -> None:
        """Write what was read (`ended`: the upstream stream was read to its end), once."""
        write, self._write = self._write, None
        if write is not None:
            write(b"".join(self.chunks), ended)

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.upstream.iter_bytes():
            self.chunks.append(chunk)
            yield chunk
        self.finish(ended=True)

    def close(self) -> None:
        """Close the real response, then write what was read."""
        try:
            self.upstream.close()
        finally:
            self.finish(ended=False)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.upstream.aiter_bytes():
            self.chunks.append(chunk)
            yield chunk
        self.finish(ended=True)

    async def aclose(self) -> None:
        """Close the real response, then write what was read."""
        try:
            await self.upstream.aclose()
        finally:
            self.finish(ended=False)


@functools.cache
def _stream_class(lib: ModuleType, is_async: bool) -> type[Tee]:
    base = lib.AsyncByteStream if is_async else lib.SyncByteStream
    return type(f"Recorded{base.__name__}", (Tee, base), {})


def tee_stream(
    lib: ModuleType, upstream: Any, write: Callable[[bytes, bool], None], *, is_async: bool
) -> Tee:
    """Return a byte stream of `lib` reading `upstream` and calling `write(body, ended)` once.

    Example:
        >>> stream = tee_stream(httpx, response, record, is_async=False)  # doctest: +SKIP
    """
    return _stream_class(lib, is_async)(upstream, write)
