"""`normalize_stream`: the `Stop` of a streamed reply, from its events or its raw SSE text.

Raw server-sent-event text is parsed with httpx-sse (the SSE parser maintained beside httpx,
already a dependency): it is fed to `httpx_sse.EventSource` through an in-memory response.
Newline-delimited JSON (Ollama) and a JSON list of events are read too.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from stopkit._adapter import Adapter, StreamAccumulator
from stopkit._errors import UnsupportedReply
from stopkit._forms import StreamForm, events_of, stream_form
from stopkit._json import JSONDecodeFailed, loads
from stopkit._json_out import escape_surrogates
from stopkit._registry import get_adapter, registered_adapters
from stopkit._stop import Stop

__all__ = [
    "anormalize_stream",
    "detect_stream",
    "iter_events",
    "normalize_stream",
    "server_sent_events",
]


def iter_events(data: str | bytes) -> Iterator[Any]:
    r"""Yield the JSON events of a raw stream body: SSE, newline-delimited JSON or a JSON list.

    SSE comments, events without data and OpenAI's `[DONE]` sentinel are skipped. A body cut
    inside its last event or line yields the events before it; JSON broken anywhere else
    raises `UnsupportedReply`.

    Example:
        >>> list(iter_events('data: {"a": 1}\n\ndata: [DONE]\n\n'))
        [{'a': 1}]
    """
    # A str holding a lone surrogate (text cut inside an emoji) cannot be UTF-8: inside a JSON
    # string, its escape is the same text (stopkit._json).
    raw = escape_surrogates(data).encode() if isinstance(data, str) else bytes(data)
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    head = raw[:4096].lstrip()[:1]
    if head == b"[":
        events = _parse(raw, data, "the body")
        if not isinstance(events, list):
            raise UnsupportedReply(data, [], "a JSON body that is not a list of events")
        yield from events
        return
    if head == b"{":
        lines = raw.splitlines()
        cut = not raw.endswith((b"\n", b"\r"))
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            if cut and number == len(lines):
                try:
                    event = loads(line)
                except JSONDecodeFailed:
                    return  # the body was cut inside its last line: the stream ends before it
                yield event
                return
            yield _parse(line, data, f"line {number}")
        return
    for name, payload in server_sent_events(raw):
        if payload == "[DONE]":
            continue
        event = _parse(payload, data, "an event's data")
        if isinstance(event, dict) and name and "type" not in event:
            # Some servers name the event only in the `event:` line (Cohere, Bedrock proxies).
            event = {"type": name, **event}
        yield event


def server_sent_events(raw: bytes) -> Iterator[tuple[str | None, str]]:
    r"""Yield the `(event name, data)` of each event of a raw SSE body that carries data.

    Parsed with httpx-sse, as the SDKs read a stream: comments and events without data are
    skipped, and so is an event cut before its blank line (the body ended inside it). An event
    without an `event:` line is SSE's default, `message`: its name is None.

    Example:
        >>> list(server_sent_events(b'event: ping\ndata: {}\n\ndata: [DONE]\n\n'))
        [('ping', '{}'), (None, '[DONE]')]
    """
    import httpx  # imported here: only raw SSE text needs it
    from httpx_sse import EventSource

    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=raw)
    for sse in EventSource(response).iter_sse():
        payload = sse.data.strip()
        if payload:
            yield (None if sse.event == "message" else sse.event), payload


def _parse(payload: bytes | str, data: str | bytes, where: str) -> Any:
    """Parse one JSON payload of a stream body; broken JSON is an `UnsupportedReply`."""
    try:
        return loads(payload)
    except JSONDecodeFailed as exc:
        raise UnsupportedReply(data, [], f"{where} is not valid JSON: {exc}") from None


def detect_stream(first_event: Any) -> Adapter:
    """Return the adapter whose streams start with an event like `first_event`."""
    tried: list[str] = []
    for adapter in registered_adapters():
        check = getattr(adapter, "detects_event", None)
        try:
            if check is not None and check(first_event):
                return adapter
        except Exception as exc:  # a broken user adapter must not hide the others
            tried.append(f"{adapter.name} (raised {type(exc).__name__}: {exc})")
            continue
        tried.append(adapter.name)
    raise UnsupportedReply(first_event, tried, "not the first event of any known stream")


def _accumulator(events: Any, first_event: Any, adapter: str | Adapter | None) -> StreamAccumulator:
    """A fresh accumulator of the adapter named, or of the one the first event shows."""
    if adapter is None:
        if first_event is _NO_EVENT:
            raise UnsupportedReply(events, [], "an empty stream: there is nothing to read")
        chosen = detect_stream(first_event)
    else:
        chosen = get_adapter(adapter)
    stream = getattr(chosen, "stream", None)
    if not callable(stream):
        raise UnsupportedReply(
            events, [chosen.name], f"adapter {chosen.name!r} does not read streams (no stream())"
        )
    accumulator: StreamAccumulator = stream()
    return accumulator


_NO_EVENT: Any = object()


def _named(adapter: str | Adapter | None, form: StreamForm | None) -> str | Adapter | None:
    """The adapter asked for, else the one a client's stream form names (None: detect it)."""
    return adapter if adapter is not None or form is None else form.adapter


def _wire_events(stream: Any, form: StreamForm) -> Iterator[Any]:
    """The wire events of a client's stream form: unpacked, a helper's derived events skipped."""
    for event in events_of(stream, form):
        if form.wire is None:
            yield event
        elif (unpacked := form.wire(event)) is not None:
            yield unpacked


async def _awire_events(stream: Any, form: StreamForm) -> AsyncIterator[Any]:
    """`_wire_events` of an async stream."""
    async for event in events_of(stream, form):
        if form.wire is None:
            yield event
        elif (unpacked := form.wire(event)) is not None:
            yield unpacked


def _events(events: Any) -> Iterator[Any]:
    """Iterate a stream given as events or as its raw body; anything else is not a stream."""
    if isinstance(events, str | bytes | bytearray | memoryview):
        return iter_events(events if isinstance(events, str | bytes) else bytes(events))
    if isinstance(events, dict) or not isinstance(events, Iterable):
        raise UnsupportedReply(
            events,
            [],
            "a stream is an iterable of events or the raw stream body "
            "(for one whole reply use stopkit.normalize())",
        )
    return iter(events)


def normalize_stream(
    events: Iterable[Any] | str | bytes, *, adapter: str | Adapter | None = None
) -> Stop:
    """Return the `Stop` of a streamed reply: the same `Stop` its non-streaming twin gives.

    `events` is an iterable of SDK event objects or parsed JSON `data:` objects, a client's
    own stream as the loop takes it (an SDK helper's stream such as openai's
    `chat.completions.stream()`, boto3's `converse_stream` response, a mistralai
    `EventStream`: `stopkit/_forms.py`), or the raw stream body (SSE text, newline-delimited
    JSON, or a JSON list of events). A stream that ends before its terminal event is `UNKNOWN`
    with `detail="stream_incomplete"`.

    Example:
        >>> stopkit.normalize_stream(open("reply.sse", "rb").read()).reason  # doctest: +SKIP
        <StopReason.COMPLETED: 'completed'>
    """
    form = stream_form(events)  # a client's own stream form (a helper's, boto3's dict, ...)
    adapter = _named(adapter, form)
    accumulator: StreamAccumulator | None = None
    for event in _events(events) if form is None else _wire_events(events, form):
        if accumulator is None:
            accumulator = _accumulator(events, event, adapter)
        accumulator.feed(event)
    if accumulator is None:
        accumulator = _accumulator(events, _NO_EVENT, adapter)
    return accumulator.result()


async def anormalize_stream(
    events: AsyncIterable[Any], *, adapter: str | Adapter | None = None
) -> Stop:
    """Return the `Stop` of a streamed reply read from an async iterable of events.

    Example:
        >>> stop = await stopkit.anormalize_stream(await client.chat.completions.create(
        ...     ..., stream=True))  # doctest: +SKIP
    """
    form = stream_form(events)
    adapter = _named(adapter, form)
    if form is not None:
        events = _awire_events(events, form)
    if not isinstance(events, AsyncIterable):
        raise UnsupportedReply(events, [], "not an async iterable of stream events")
    accumulator: StreamAccumulator | None = None
    async for event in events:
        if accumulator is None:
            accumulator = _accumulator(events, event, adapter)
        accumulator.feed(event)
    if accumulator is None:
        accumulator = _accumulator(events, _NO_EVENT, adapter)
    return accumulator.result()
