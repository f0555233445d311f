"""Stream proxies for `stopkit.wrap`: the SDK's own stream, watched on the way through.

Each proxy yields the very events the SDK yields, feeds each one to the adapter's accumulator,
and reports the `Stop` once: when the stream ends, or (as `stream_incomplete`) when it is closed,
left or broken before its terminal event. Everything else is the SDK object's own attribute.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from types import TracebackType
from typing import Any

from stopkit._adapter import StreamAccumulator
from stopkit._errors import error_for
from stopkit._stop import Stop, StopReason

__all__ = [
    "AsyncMessageStreamProxy",
    "AsyncStreamProxy",
    "MessageStreamManagerProxy",
    "MessageStreamProxy",
    "Settings",
    "StreamProxy",
    "Watch",
]

# The anthropic MessageStream helper also yields derived events (`text`, `input_json`,
# `citation`, ...) built from the raw ones; only the raw wire events go to the accumulator.
# Source: anthropic/types/raw_message_stream_event.py and anthropic/lib/streaming/_types.py.
ANTHROPIC_WIRE_EVENTS = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
        "error",
    }
)


class Settings:
    """What a wrapped client does with each `Stop`: call `on_stop`, raise on some reasons."""

    __slots__ = ("on_stop", "raise_on")

    def __init__(
        self, on_stop: Callable[[Stop], object] | None, raise_on: frozenset[StopReason]
    ) -> None:
        self.on_stop = on_stop
        self.raise_on = raise_on

    def report(self, stop: Stop, *, may_raise: bool = True) -> Stop:
        """Hand `stop` to `on_stop`, then raise its typed error if its reason is in `raise_on`."""
        if self.on_stop is not None:
            self.on_stop(stop)
        if may_raise and stop.reason in self.raise_on:
            raise error_for(stop)
        return stop


class Watch:
    """One stream's accumulator and whether its `Stop` was reported yet."""

    __slots__ = ("accumulator", "keep", "settings", "stop")

    def __init__(
        self,
        accumulator: StreamAccumulator,
        settings: Settings,
        keep: Callable[[Any], bool] | None = None,
    ) -> None:
        self.accumulator = accumulator
        self.settings = settings
        self.keep = keep
        self.stop: Stop | None = None

    def feed(self, event: Any) -> None:
        """Give one event to the accumulator (unless it is a derived, non-wire event)."""
        if self.stop is None and (self.keep is None or self.keep(event)):
            self.accumulator.feed(event)

    def finish(self, *, may_raise: bool = True) -> None:
        """Report the stream's `Stop` once; later calls do nothing."""
        if self.stop is None:
            self.stop = self.accumulator.result()
            self.settings.report(self.stop, may_raise=may_raise)

    def ended(self, error: BaseException) -> None:
        """Report the `Stop` when reading the stream raised `error`.

        The stream's own end (`StopIteration`, `StopAsyncIteration`) may raise the `Stop`'s
        typed error; a broken read may not, so that the caller sees what broke it.
        """
        self.finish(may_raise=isinstance(error, StopIteration | StopAsyncIteration))


def _is_wire_event(event: Any) -> bool:
    kind = event.get("type") if isinstance(event, dict) else getattr(event, "type", None)
    return kind in ANTHROPIC_WIRE_EVENTS


def _is_text_delta(event: Any) -> bool:
    """Whether an anthropic `MessageStream` event carries a text delta (for `text_stream`)."""
    return bool(event.type == "content_block_delta" and event.delta.type == "text_delta")


class _Base:
    """Attribute pass-through shared by the proxies; `__wrapped__` is the SDK object."""

    __wrapped__: Any
    _watch: Watch

    def __init__(self, wrapped: Any, watch: Watch) -> None:
        self.__wrapped__ = wrapped
        self._watch = watch

    def __getattr__(self, name: str) -> Any:
        if name == "__wrapped__":  # not set yet (copying, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.__wrapped__, name)

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # so that isinstance(proxy, openai.Stream) still holds
        return type(self.__wrapped__)

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self.__wrapped__)) | set(super().__dir__()))

    def __repr__(self) -> str:
        return f"<stopkit-watched {self.__wrapped__!r}>"

    @property
    def stop(self) -> Stop | None:
        """The `Stop` reported for this stream, or None while it is still open."""
        return self._watch.stop


class StreamProxy(_Base):
    """A sync SDK stream (openai `Stream`, anthropic `Stream`, the genai generator), watched."""

    def __init__(self, stream: Any, watch: Watch) -> None:
        super().__init__(stream, watch)
        self._iterator: Iterator[Any] | None = None

    def __iter__(self) -> StreamProxy:
        return self

    def __next__(self) -> Any:
        if self._iterator is None:
            self._iterator = iter(self.__wrapped__)
        try:
            event = next(self._iterator)
        except BaseException as exc:
            self._watch.ended(exc)
            raise
        self._watch.feed(event)
        return event

    def __enter__(self) -> StreamProxy:
        enter = getattr(self.__wrapped__, "__enter__", None)
        if enter is not None:
            enter()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            exit_ = getattr(self.__wrapped__, "__exit__", None)
            if exit_ is not None:
                exit_(exc_type, exc, tb)
            else:
                self._close_wrapped()
        finally:
            self._watch.finish(may_raise=exc_type is None)

    def _close_wrapped(self) -> None:
        close = getattr(self.__wrapped__, "close", None)
        if close is not None:
            close()

    def close(self) -> None:
        """Close the SDK stream; a stream closed before its end reports `stream_incomplete`."""
        try:
            self._close_wrapped()
        finally:
            self._watch.finish()


class AsyncStreamProxy(_Base):
    """An async SDK stream (openai/anthropic `AsyncStream`, the genai async iterator), watched."""

    def __init__(self, stream: Any, watch: Watch) -> None:
        super().__init__(stream, watch)
        self._iterator: AsyncIterator[Any] | None = None

    def __aiter__(self) -> AsyncStreamProxy:
        return self

    async def __anext__(self) -> Any:
        if self._iterator is None:
            self._iterator = aiter(self.__wrapped__)
        try:
            event = await anext(self._iterator)
        except BaseException as exc:
            self._watch.ended(exc)
            raise
        self._watch.feed(event)
        return event

    async def __aenter__(self) -> AsyncStreamProxy:
        enter = getattr(self.__wrapped__, "__aenter__", None)
        if enter is not None:
            await enter()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            exit_ = getattr(self.__wrapped__, "__aexit__", None)
            if exit_ is not None:
                await exit_(exc_type, exc, tb)
            else:
                await self._close_wrapped()
        finally:
            self._watch.finish(may_raise=exc_type is None)

    async def _close_wrapped(self) -> None:
        close = getattr(self.__wrapped__, "close", None) or getattr(
            self.__wrapped__, "aclose", None
        )
        if close is not None:
            result = close()
            if hasattr(result, "__await__"):
                await result

    async def close(self) -> None:
        """Close the SDK stream; a stream closed before its end reports `stream_incomplete`."""
        try:
            await self._close_wrapped()
        finally:
            self._watch.finish()

    async def aclose(self) -> None:
        """Close the stream (the async-generator spelling of `close`)."""
        await self.close()


class MessageStreamProxy(StreamProxy):
    """anthropic's `MessageStream` helper, watched: its text and final-message helpers too."""

    def __init__(self, stream: Any, watch: Watch) -> None:
        super().__init__(stream, watch)
        self._text: Iterator[str] | None = None

    @property
    def text_stream(self) -> Iterator[str]:
        """The text deltas, read through this proxy so that the stream is still watched."""
        if self._text is None:
            self._text = (
                event.delta.text
                for event in self
                if _is_text_delta(event)
            )
        return self._text

    def until_done(self) -> None:
        """Read the stream to its end."""
        for _ in self:
            pass

    def get_final_message(self) -> Any:
        """Read the stream to its end and return the SDK's accumulated message."""
        self.until_done()
        return self.__wrapped__.get_final_message()

    def get_final_text(self) -> str:
        """Read the stream to its end and return the SDK's joined text."""
        self.until_done()
        text: str = self.__wrapped__.get_final_text()
        return text


class AsyncMessageStreamProxy(AsyncStreamProxy):
    """anthropic's `AsyncMessageStream` helper, watched: its text and final-message helpers."""

    def __init__(self, stream: Any, watch: Watch) -> None:
        super().__init__(stream, watch)
        self._text: AsyncIterator[str] | None = None

    @property
    def text_stream(self) -> AsyncIterator[str]:
        """The text deltas, read through this proxy so that the stream is still watched."""
        if self._text is None:
            self._text = (
                event.delta.text
                async for event in self
                if _is_text_delta(event)
            )
        return self._text

    async def until_done(self) -> None:
        """Read the stream to its end."""
        async for _ in self:
            pass

    async def get_final_message(self) -> Any:
        """Read the stream to its end and return the SDK's accumulated message."""
        await self.until_done()
        return await self.__wrapped__.get_final_message()

    async def get_final_text(self) -> str:
        """Read the stream to its end and return the SDK's joined text."""
        await self.until_done()
        text: str = await self.__wrapped__.get_final_text()
        return text


class MessageStreamManagerProxy(_Base):
    """anthropic's `messages.stream(...)` manager: entering it gives a watched `MessageStream`."""

    def __init__(self, manager: Any, watch: Watch) -> None:
        super().__init__(manager, watch)
        self._sync: MessageStreamProxy | None = None
        self._async: AsyncMessageStreamProxy | None = None

    def __enter__(self) -> MessageStreamProxy:
        self._sync = MessageStreamProxy(self.__wrapped__.__enter__(), self._watch)
        return self._sync

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.__wrapped__.__exit__(exc_type, exc, tb)
        finally:
            self._watch.finish(may_raise=exc_type is None)

    async def __aenter__(self) -> AsyncMessageStreamProxy:
        self._async = AsyncMessageStreamProxy(await self.__wrapped__.__aenter__(), self._watch)
        return self._async

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            await self.__wrapped__.__aexit__(exc_type, exc, tb)
        finally:
            self._watch.finish(may_raise=exc_type is None)


def anthropic_wire_events_only() -> Callable[[Any], bool]:
    """Return the filter that keeps the raw wire events of an anthropic `MessageStream`."""
    return _is_wire_event
