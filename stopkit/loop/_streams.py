"""Reading a reply: a whole one (`read_reply`), or a stream `call_model` returned instead.

A `call_model` may return an SDK stream object (`stream=True`; the helpers' stream managers,
`messages.stream()`, `chat.completions.stream()`, `responses.stream()`, too), a generator or any
iterable of events, or (in `arun_loop`) an async one; and any form `stopkit._forms`
lists (a boto3 `converse_stream` response, a mistralai `EventStream`, ...), read as
`stopkit.wrap` reads them. The loop feeds every wire event to the adapter's accumulator
(`adapter.stream()`; while no adapter is known, that of the form, else of the adapter whose
streams start with the first event): its `Stop` is the reply's, and its `raw` the reply rebuilt
from the events, which `assistant_message` sends back.
With `on_text` set, each piece of visible text is handed to it as it arrives: the new pieces of
the accumulator's `text_pieces()` where it has one (linear in the stream), else the growth of
the accumulated `Stop.text` (a `result()` per event: quadratic in a long stream).

A whole reply is read by `read_reply`: its adapter's, once the run knows it, else the one that
detects it. The run reads its live replies so, and a durable run its recorded ones, and checks
with it that a reply it records reads back the same (`_journaled.py`). While a model call is
made, `reader()` names the adapter the run will read its reply with, for code the call runs
that keeps the reply itself (a DBOS model step: `journal/dbos/_steps.py`).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from stopkit._adapter import Adapter, StreamAccumulator
from stopkit._errors import UnsupportedReply
from stopkit._forms import StreamForm, events_of, stream_form
from stopkit._normalize import _decode, detect, reply_of
from stopkit._registry import get_adapter
from stopkit._stop import Stop
from stopkit._stream import detect_stream

__all__ = [
    "Streamed",
    "aread_stream",
    "is_async_stream",
    "is_sync_stream",
    "read_reply",
    "read_stream",
    "reader",
    "reading_with",
]

# What is a whole reply (or its JSON body), even where it is iterable.
_REPLIES = (dict, str, bytes, bytearray, memoryview, Mapping)


@dataclass(frozen=True, slots=True)
class Streamed:
    """A streamed reply, read: its adapter and `Stop`, or why it could not be read."""

    adapter: Adapter | None
    stop: Stop | None
    error: UnsupportedReply | None
    raw: Any
    """What `call_model` returned."""
    events: list[Any] | None = None
    """The events read, in order, when they were asked to be kept."""


_READER: ContextVar[Adapter | None] = ContextVar("stopkit_reader", default=None)


@contextmanager
def reading_with(adapter: Adapter | None) -> Iterator[None]:
    """Name `adapter` the one the run reads the reply of the model call being made with.

    Around each model call (`_run.py`), as `current_step()` names the call: in the thread a
    sync `call_model` runs in too. The outer value is set back after (not reset by a token: a
    run's generator may be closed from another context).
    """
    outer = _READER.get()
    _READER.set(adapter)
    try:
        yield
    finally:
        _READER.set(outer)


def reader() -> Adapter | None:
    """Return the adapter the run reads the reply of the call being made with (None: detected).

    Example:
        >>> with reading_with(None):
        ...     reader() is None
        True
    """
    return _READER.get()


def read_reply(reply: Any, adapter: Adapter | None) -> tuple[Adapter, Stop]:
    """Read a whole reply with `adapter` (None: the one that detects it); return both.

    Raises `UnsupportedReply` for a value no adapter detects (text, a dict of no known shape),
    or, with `adapter` given, a reply its `detects` refuses (another provider's).

    Example:
        >>> read_reply({"type": "message", "content": [], "stop_reason": "end_turn"}, None)[0].name
        'anthropic'
    """
    reply = _decode(reply_of(reply))  # a boto3 InvokeModel response: its body
    if adapter is None:
        adapter = detect(reply)
    elif not adapter.detects(reply):
        raise UnsupportedReply(reply, [adapter.name], f"not a {adapter.name} reply")
    return adapter, adapter.normalize(reply)


def _is_reply(value: Any) -> bool:
    # SDK replies are pydantic models, which iterate over their fields.
    return type(value) is dict or isinstance(value, _REPLIES) or hasattr(value, "model_dump")


def is_sync_stream(value: Any) -> bool:
    """Say whether `value` is a stream to read in this thread: an iterable of events."""
    form = stream_form(value)
    if form is not None:
        return not hasattr(events_of(value, form), "__aiter__")
    if _is_reply(value):
        return False
    return hasattr(value, "__iter__") or hasattr(value, "__enter__")


def is_async_stream(value: Any) -> bool:
    """Say whether `value` is a stream to read with `async for`."""
    form = stream_form(value)
    if form is not None:
        return hasattr(events_of(value, form), "__aiter__")
    if _is_reply(value):
        return False
    return hasattr(value, "__aiter__") or hasattr(value, "__aenter__")


class _Reader:
    """Feeds one stream's wire events to an accumulator; reports the text as it grows."""

    def __init__(
        self,
        adapter: Adapter | None,
        on_text: Callable[[str], Any] | None,
        keep: bool,
        form: StreamForm | None,
    ) -> None:
        if adapter is None and form is not None and form.adapter is not None:
            adapter = get_adapter(form.adapter)
        self.adapter = adapter
        self.wire = None if form is None else form.wire
        self.on_text = on_text
        self.accumulator: StreamAccumulator | None = None
        self.text = ""
        self.events: list[Any] | None = [] if keep else None
        self.pieces: list[str] | None = None  # the accumulator's text pieces, as last seen
        self.told = 0  # how many of them were handed to `on_text`
        self.pieces_of: Callable[[], list[str] | None] | None = None  # its `text_pieces`

    def _start(self, first_event: Any) -> StreamAccumulator:
        adapter = self.adapter
        if adapter is None:
            adapter = self.adapter = detect_stream(first_event)
        if not hasattr(adapter, "stream"):
            raise TypeError(f"adapter {adapter.name!r} does not read streams (it has no stream())")
        accumulator: StreamAccumulator = adapter.stream()
        self.pieces_of = getattr(accumulator, "text_pieces", None)  # looked up once, not per event
        return accumulator

    def feed(self, event: Any) -> None:
        if self.wire is not None:
            event = self.wire(event)
            if event is None:  # a helper's derived event, not on the wire
                return
        if self.events is not None:
            self.events.append(event)
        accumulator = self.accumulator
        if accumulator is None:
            accumulator = self.accumulator = self._start(event)
        accumulator.feed(event)
        if self.on_text is not None:
            self._tell(accumulator, self.on_text)

    def _tell(self, accumulator: StreamAccumulator, on_text: Callable[[str], Any]) -> None:
        """Hand `on_text` the text the last event added, if any."""
        pieces_of = self.pieces_of
        pieces: list[str] | None = None if pieces_of is None else pieces_of()
        if pieces is not None and pieces is self.pieces:  # the usual case: new pieces only
            told = self.told
            if len(pieces) > told:
                self.told = len(pieces)
                new = "".join(pieces[told:])
                if new:
                    on_text(new)
            return
        # The first pieces, another list now holding the text, or no pieces: the whole text.
        text = "".join(pieces) if pieces is not None else accumulator.result().text
        known = self.text if self.pieces is None else "".join(self.pieces[: self.told])
        if len(text) > len(known) and text.startswith(known):
            on_text(text[len(known) :])
        self.text, self.pieces = text, pieces
        self.told = 0 if pieces is None else len(pieces)

    def done(self, raw: Any) -> Streamed:
        accumulator = self.accumulator
        if accumulator is None:  # no event at all
            if self.adapter is None:
                error = UnsupportedReply(raw, [], "an empty stream: there is nothing to read")
                return Streamed(None, None, error, raw, self.events)
            accumulator = self._start(None)
        return Streamed(self.adapter, accumulator.result(), None, raw, self.events)


def read_stream(
    value: Any,
    adapter: Adapter | None,
    on_text: Callable[[str], Any] | None,
    keep: bool = False,
) -> Streamed:
    """Read a stream to its end (closing it); return its `Stop`, or why it cannot be read.

    Example:
        >>> read_stream(events, stopkit.get_adapter("anthropic"), None).stop  # doctest: +SKIP
    """
    form = stream_form(value)
    if form is None and not hasattr(value, "__iter__"):  # a helper's stream manager
        with value as entered:
            return read_stream(entered, adapter, on_text, keep)
    reader = _Reader(adapter, on_text, keep, form)
    events: Iterable[Any] = events_of(value, form)
    try:
        for event in events:
            reader.feed(event)
    except UnsupportedReply as exc:  # no adapter reads a stream starting with this event
        return Streamed(None, None, exc, value, reader.events)
    finally:
        close = getattr(events, "close", None)
        if callable(close):
            close()  # an SDK stream's HTTP response, left or read to the end
    return reader.done(value)


async def aread_stream(
    value: Any,
    adapter: Adapter | None,
    on_text: Callable[[str], Any] | None,
    keep: bool = False,
) -> Streamed:
    """Read an async stream to its end (closing it); return its `Stop`, or why it cannot be read.

    Example:
        >>> await aread_stream(events, None, print)  # doctest: +SKIP
    """
    import inspect

    form = stream_form(value)
    if form is None and not hasattr(value, "__aiter__"):  # a helper's async stream manager
        async with value as entered:
            return await aread_stream(entered, adapter, on_text, keep)
    reader = _Reader(adapter, on_text, keep, form)
    events: AsyncIterable[Any] = events_of(value, form)
    try:
        async for event in events:
            reader.feed(event)
    except UnsupportedReply as exc:
        return Streamed(None, None, exc, value, reader.events)
    finally:
        close = getattr(events, "aclose", None) or getattr(events, "close", None)
        if callable(close):
            closed = close()
            if inspect.isawaitable(closed):
                await closed
    return reader.done(value)
