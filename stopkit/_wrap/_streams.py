"""Stream proxies for `stopkit.wrap`: the SDK's own stream, watched on the way through.

Each proxy yields the very events the SDK yields, feeds the wire events among them to the
adapter's accumulator, and reports the `Stop`s once: when the stream ends, or (as
`stream_incomplete`) when it is closed, left or broken before its terminal event. The SDKs'
helper streams (anthropic `MessageStream`, openai `ChatCompletionStream` / `ResponseStream`)
are read through the proxy by their own helpers too (`until_done`, `get_final_*`,
`text_stream`), so that every way of reading them is watched. Everything else is the SDK
object's own attribute.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from stopkit._adapter import StreamAccumulator
from stopkit._errors import UnsupportedReply
from stopkit._forms import Extract, stream_form
from stopkit._registry import get_adapter
from stopkit._stop import Stop
from stopkit._stream import detect_stream
from stopkit._wrap._observe import CURRENT, CallObserver
from stopkit._wrap._proxy import Passthrough
from stopkit._wrap._report import Settings, caller_closed, finish_reason_stops

__all__ = [
    "AnthropicHelperStream",
    "AsyncAnthropicHelperStream",
    "AsyncHelperStream",
    "AsyncStreamProxy",
    "HelperStream",
    "ManagerProxy",
    "StreamProxy",
    "Watch",
    "stream_proxy",
]

class Watch:
    """One stream's accumulator and the `Stop`s it reported (None until it did).

    `detect`: the adapter is the one the first wire event shows (boto3's InvokeModel streams:
    Claude's, Nova's or another family's body), `adapter` while none did.
    """

    __slots__ = ("_accumulator", "adapter", "call", "extract", "reply", "settings", "stops")

    def __init__(
        self,
        adapter: str,
        settings: Settings,
        extract: Extract | None = None,
        call: CallObserver | None = None,
        *,
        detect: bool = False,
    ) -> None:
        self.adapter = adapter
        self._accumulator: StreamAccumulator | None = (
            None if detect else get_adapter(adapter).stream()
        )
        self.settings = settings
        self.extract = extract
        self.stops: tuple[Stop, ...] | None = None
        self.reply: Any = None
        """What the caller holds (the stream proxy): attached to an error `on_stop` raises."""
        self.call = call or CURRENT.get()
        """The telemetry observer of the call that opened the stream: told when it ends."""

    def read_as(self, stream: Any) -> None:
        """Unpack the events of `stream` as its form says (a helper's stream, once entered)."""
        form = stream_form(stream)
        self.extract = None if form is None else form.wire

    @property
    def accumulator(self) -> StreamAccumulator:
        """The stream's accumulator: the adapter's, or the one its first wire event shows."""
        if self._accumulator is None:
            self._accumulator = get_adapter(self.adapter).stream()
        return self._accumulator

    def feed(self, event: Any) -> None:
        """Give one event to the accumulator (unless it is a derived, non-wire event)."""
        if self.stops is None:
            wire = event if self.extract is None else self.extract(event)
            if wire is not None:
                if self._accumulator is None:
                    # none says: the adapter's accumulator tells what the event is
                    with contextlib.suppress(UnsupportedReply):
                        self._accumulator = detect_stream(wire).stream()
                self.accumulator.feed(wire)

    def _read(self) -> tuple[Stop, ...]:
        """The `Stop` of each choice, as far as the stream was read."""
        results = getattr(self.accumulator, "results", None)
        return tuple(results()) if results is not None else (self.accumulator.result(),)

    def finish(self, *, may_raise: bool = True, error: BaseException | None = None,
               closed: bool = False) -> None:  # fmt: skip
        """Report the stream's `Stop`s once, and what broke it (`error`) or that it was `closed`."""
        if self.stops is None:
            self.stops = stops = caller_closed(self._read()) if closed else self._read()
            self.settings.report(
                stops, self.reply, may_raise=may_raise, streamed=True, call=self.call, error=error
            )

    def __del__(self) -> None:
        # A stream dropped before its end and never closed: its call's telemetry still ends
        # (`stream_incomplete`), or its span would stay open for good. Only the observer is
        # told: `on_stop` and `raise_on` are the caller's, never run by the garbage collector.
        call = self.call
        if self.stops is None and call is not None:
            with contextlib.suppress(Exception):  # nothing may raise out of a finalizer
                self.stops = stops = self._read()
                call.replied(stops, True)

    def ended(self, error: BaseException) -> None:
        """Report the `Stop`s when reading the stream raised `error`.

        The stream's own end (`StopIteration`, `StopAsyncIteration`) may raise the `Stop`'s
        typed error; a broken read may not, so that the caller sees what broke it. An openai
        helper stopping on a `length`/`content_filter` chunk reports the completion it carries.
        """
        if self.stops is not None:
            return
        stops = finish_reason_stops(error, self.adapter)
        if stops is not None:
            self.stops = stops
            self.settings.report(stops, self.reply, cause=error, streamed=True, call=self.call)
            return
        broken = not isinstance(error, StopIteration | StopAsyncIteration)
        self.finish(may_raise=not broken, error=error if broken else None)


class _Base(Passthrough):
    """A watched SDK stream (or helper manager); `__wrapped__` is the SDK object."""

    _watch: Watch

    def __init__(self, wrapped: Any, watch: Watch) -> None:
        super().__init__(wrapped)
        self._watch = watch
        watch.reply = self

    @property
    def stop(self) -> Stop | None:
        """The `Stop` reported for this stream (its first choice), or None while it is open."""
        return None if self._watch.stops is None else self._watch.stops[0]


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

    def __exit__(self, *exc: Any) -> None:
        try:
            exit_ = getattr(self.__wrapped__, "__exit__", None)
            if exit_ is not None:
                exit_(*exc)
            else:
                self._close_wrapped()
        finally:
            self._watch.finish(may_raise=exc[0] is None, closed=True)

    def _close_wrapped(self) -> None:
        close = getattr(self.__wrapped__, "close", None)
        if close is not None:
            close()

    def close(self) -> None:
        """Close the SDK stream; a stream closed before its end reports `stream_incomplete`."""
        try:
            self._close_wrapped()
        finally:
            self._watch.finish(closed=True)


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

    async def __aexit__(self, *exc: Any) -> None:
        try:
            exit_ = getattr(self.__wrapped__, "__aexit__", None)
            if exit_ is not None:
                await exit_(*exc)
            else:
                await self._close_wrapped()
        finally:
            self._watch.finish(may_raise=exc[0] is None, closed=True)

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
            self._watch.finish(closed=True)

    async def aclose(self) -> None:
        """Close the stream (the async-generator spelling of `close`)."""
        await self.close()


def stream_proxy(
    stream: Any, watch: Watch, awaited: bool = False
) -> StreamProxy | AsyncStreamProxy:
    """Return the proxy for an SDK stream: async when awaited, or only an async iterable.

    (LiteLLM's `CustomStreamWrapper` is both: the call that returned it says which.)
    """
    kind = type(stream)
    if awaited or (hasattr(kind, "__aiter__") and not hasattr(kind, "__iter__")):
        return AsyncStreamProxy(stream, watch)
    return StreamProxy(stream, watch)


def _final(proxy: Any, read: Callable[..., Any]) -> Callable[..., Any]:
    """A helper's `get_final_*`: read the stream to its end through the proxy first."""

    @functools.wraps(read)
    def final(*args: Any, **kwargs: Any) -> Any:
        proxy.until_done()
        return read(*args, **kwargs)

    return final


def _afinal(proxy: Any, read: Callable[..., Any]) -> Callable[..., Any]:
    """An async helper's `get_final_*`: read the stream to its end through the proxy first."""

    @functools.wraps(read)
    async def final(*args: Any, **kwargs: Any) -> Any:
        await proxy.until_done()
        return await read(*args, **kwargs)

    return final


class HelperStream(StreamProxy):
    """An SDK helper stream (openai `ChatCompletionStream`/`ResponseStream`), watched.

    Its `until_done()` and `get_final_*()` read the stream through this proxy.
    """

    def until_done(self) -> Any:
        """Read the stream to its end; return what the SDK's `until_done` returns."""
        for _ in self:
            pass
        done = self.__wrapped__.until_done()
        return self if done is self.__wrapped__ else done

    def __getattr__(self, name: str) -> Any:
        value = super().__getattr__(name)
        if name.startswith("get_final_") and callable(value):
            return _final(self, value)
        return value


class AsyncHelperStream(AsyncStreamProxy):
    """An async SDK helper stream, watched: `until_done()` and `get_final_*()` read through it."""

    async def until_done(self) -> Any:
        """Read the stream to its end; return what the SDK's `until_done` returns."""
        async for _ in self:
            pass
        done = await self.__wrapped__.until_done()
        return self if done is self.__wrapped__ else done

    def __getattr__(self, name: str) -> Any:
        value = super().__getattr__(name)
        if name.startswith("get_final_") and callable(value):
            return _afinal(self, value)
        return value


def _is_text_delta(event: Any) -> bool:
    """Whether an anthropic `MessageStream` event carries a text delta (for `text_stream`)."""
    return bool(event.type == "content_block_delta" and event.delta.type == "text_delta")


class AnthropicHelperStream(HelperStream):
    """anthropic's `MessageStream` helper, watched: its `text_stream` too."""

    def __init__(self, stream: Any, watch: Watch) -> None:
        super().__init__(stream, watch)
        self._text: Iterator[str] | None = None

    @property
    def text_stream(self) -> Iterator[str]:
        """The text deltas, read through this proxy so that the stream is still watched."""
        if self._text is None:
            self._text = (event.delta.text for event in self if _is_text_delta(event))
        return self._text


class AsyncAnthropicHelperStream(AsyncHelperStream):
    """anthropic's `AsyncMessageStream` helper, watched: its `text_stream` too."""

    def __init__(self, stream: Any, watch: Watch) -> None:
        super().__init__(stream, watch)
        self._text: AsyncIterator[str] | None = None

    @property
    def text_stream(self) -> AsyncIterator[str]:
        """The text deltas, read through this proxy so that the stream is still watched."""
        if self._text is None:
            self._text = (event.delta.text async for event in self if _is_text_delta(event))
        return self._text


class ManagerProxy(_Base):
    """A helper's context manager (`messages.stream(...)`, `chat.completions.stream(...)`, ...).

    Entering it gives the watched helper stream; leaving it reports the `Stop`s if the stream
    did not end (`stream_incomplete`).
    """

    def __init__(
        self, manager: Any, watch: Watch, kinds: tuple[type[HelperStream], type[AsyncHelperStream]]
    ) -> None:
        super().__init__(manager, watch)
        self._kinds = kinds

    def __enter__(self) -> HelperStream:
        stream = self.__wrapped__.__enter__()
        self._watch.read_as(stream)
        return self._kinds[0](stream, self._watch)

    def __exit__(self, *exc: Any) -> None:
        try:
            self.__wrapped__.__exit__(*exc)
        finally:
            self._watch.finish(may_raise=exc[0] is None, closed=True)

    async def __aenter__(self) -> AsyncHelperStream:
        stream = await self.__wrapped__.__aenter__()
        self._watch.read_as(stream)
        return self._kinds[1](stream, self._watch)

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await self.__wrapped__.__aexit__(*exc)
        finally:
            self._watch.finish(may_raise=exc[0] is None, closed=True)
