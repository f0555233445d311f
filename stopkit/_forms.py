"""What provider clients return: one list, read the same by the loop, `wrap`, `normalize_stream`.

Most SDK streams are iterables of the very events their adapter reads (openai's and anthropic's
`Stream`, google-genai's generator, ollama's, cohere's and huggingface_hub's iterators,
LiteLLM's `CustomStreamWrapper`, xai_sdk's `(Response, Chunk)` pairs). The forms below are the
others: a stream whose events must be unpacked to the wire event the adapter reads (`wire`), or
whose events sit in the dict the call returned (`key`: boto3). `stream_form(value)` finds the
form of what `call_model`, a watched method or `normalize_stream`'s caller holds; the loop and
`normalize_stream` read its events, `wrap` watches them (and, for boto3, puts the watched
stream back under the same key).

(The one reply form, boto3's `invoke_model` response, is `stopkit._normalize.reply_of`'s.)

Classes are recognized by their module and name (in the MRO): no SDK is imported. It lives in
the core, below the three readers (`normalize_stream` is the core's), and needs nothing of the
adapters: the one event it decodes, boto3's InvokeModel chunk, is JSON in bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from stopkit._json import JSONDecodeFailed, loads

__all__ = ["STREAM_FORMS", "StreamForm", "decoded_chunk", "events_of", "stream_form"]

Extract = Callable[[Any], Any]
"""From an event a stream yields, the wire event to feed (None: a derived event, skipped)."""

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


def anthropic_wire_event(event: Any) -> Any:
    """The event itself when it is a raw anthropic wire event, else None."""
    kind = event.get("type") if isinstance(event, dict) else getattr(event, "type", None)
    return event if kind in ANTHROPIC_WIRE_EVENTS else None


def chat_helper_chunk(event: Any) -> Any:
    """The chunk of an openai `ChatCompletionStream` `chunk` event, else None.

    Source: openai/lib/streaming/chat/_events.py (`ChunkEvent`: `type="chunk"`, `chunk`).
    """
    return event.chunk if getattr(event, "type", None) == "chunk" else None


def mistral_chunk(event: Any) -> Any:
    """The `CompletionChunk` a mistralai `CompletionEvent` carries (its `data`).

    Source: mistralai/client/models/completionevent.py (`CompletionEvent.data`).
    """
    return getattr(event, "data", None)


def decoded_chunk(event: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """boto3's `{"chunk": {"bytes": b"..."}}` as the object its bytes hold; other events as is.

    None when the bytes are not a JSON object.
    """
    chunk = event.get("chunk")
    if chunk is None or len(event) != 1:
        return event
    data = chunk.get("bytes") if isinstance(chunk, Mapping) else None
    if not isinstance(data, str | bytes | bytearray):
        return None
    try:
        body = loads(data)
    except JSONDecodeFailed:
        return None
    return body if type(body) is dict else None


def bedrock_chunk(event: Any) -> Any:
    """boto3's `{"chunk": {"bytes": b"..."}}` as the JSON object its bytes hold; else the event.

    The decoded body tells which adapter reads the stream: Claude's events are anthropic's,
    Nova's ConverseStream's, Titan's, Llama's and Mistral's bedrock.invoke's.
    """
    body = decoded_chunk(event) if type(event) is dict else None
    return event if body is None else body


@dataclass(frozen=True)
class StreamForm:
    """One form of stream a client returns: where its events are, what each one carries."""

    name: str
    """The form, as the docs name it."""
    module: str
    """The module (prefix) of the stream's class."""
    classes: frozenset[str]
    """The stream's class names."""
    wire: Extract | None = None
    """From each event, the wire event to feed; None: the event itself."""
    key: str | None = None
    """For a dict the call returned (boto3): the key holding the stream."""
    adapter: str | None = None
    """The adapter that reads it; None: the one the first wire event shows."""


# Sources: openai/lib/streaming/chat/_completions.py, anthropic/lib/streaming/_messages.py and
# _beta_messages.py, mistralai/client/utils/eventstreaming.py, botocore/eventstream.py (boto3's
# `converse_stream` returns {"stream": EventStream, ...}, `invoke_model_with_response_stream`
# {"body": EventStream, ...}: botocore-1.x service-2.json of bedrock-runtime).
STREAM_FORMS: tuple[StreamForm, ...] = (
    StreamForm(
        "openai chat.completions.stream()",
        "openai.",
        frozenset({"ChatCompletionStream", "AsyncChatCompletionStream"}),
        chat_helper_chunk,
        adapter="openai.chat",
    ),
    StreamForm(
        "anthropic messages.stream()",
        "anthropic.",
        frozenset(
            {"MessageStream", "AsyncMessageStream", "BetaMessageStream", "BetaAsyncMessageStream"}
        ),
        anthropic_wire_event,
        adapter="anthropic",
    ),
    StreamForm(
        "mistralai chat.stream()",
        "mistralai.",
        frozenset({"EventStream", "EventStreamAsync"}),
        mistral_chunk,
        adapter="openai.chat",
    ),
    StreamForm(
        "boto3 converse_stream()",
        "botocore.",
        frozenset({"EventStream"}),
        key="stream",
        adapter="bedrock",
    ),
    StreamForm(
        "boto3 invoke_model_with_response_stream()",
        "botocore.",
        frozenset({"EventStream"}),
        bedrock_chunk,
        key="body",
    ),
)


def _is(value: Any, module: str, classes: frozenset[str]) -> bool:
    return any(
        klass.__name__ in classes and klass.__module__.startswith(module)
        for klass in type(value).__mro__
    )


_UNSEEN: Any = object()
# class -> its stream form, or None; bounded. Dicts are looked into each time (boto3).
_FORM_OF: dict[type, StreamForm | None] = {}


def stream_form(value: Any) -> StreamForm | None:
    """Return the form of a stream a client returned, None for any other value.

    Example:
        >>> stream_form({"choices": []}) is None
        True
    """
    if type(value) is dict:
        for form in STREAM_FORMS:
            if form.key is not None and _is(value.get(form.key), form.module, form.classes):
                return form
        return None
    found = _FORM_OF.get(type(value), _UNSEEN)
    if found is _UNSEEN:
        found = next(
            (f for f in STREAM_FORMS if f.key is None and _is(value, f.module, f.classes)), None
        )
        if len(_FORM_OF) < 1024:
            _FORM_OF[type(value)] = found
    known: StreamForm | None = found
    return known


def events_of(value: Any, form: StreamForm | None) -> Any:
    """Return the iterable of events of a stream of this form (the value itself for most)."""
    return value if form is None or form.key is None else value[form.key]
