"""The LangChain stream accumulator: the chunks a chat model yields in, the message's `Stop` out.

The chunks are merged as LangChain itself merges them (`AIMessageChunk.__add__`, which
concatenates text, joins tool-call fragments and parses them, sums usage and merges the
metadata): the merged message is what LangChain's own `generate_from_stream` returns, and it is
read with the adapter's reader, so a stream and the message it amounts to give the same `Stop`.

The stream has ended at the chunk carrying the integration's stop value (ChatAnthropic's
`message_delta`, ChatOpenAI's `finish_reason` chunk, ChatBedrockConverse's `messageStop`), or at
a chunk LangChain marks `chunk_position="last"`. A chunk after the end still brings its usage
and metadata (ChatOpenAI's usage-only chunk, ChatBedrockConverse's `metadata` event), but not
its text or tool calls, and its stop value replaces the held one only when stricter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from stopkit.adapters._accumulator import Accumulator
from stopkit.adapters._langchain_rules import (
    GOOGLE,
    RULES,
    STOP_KEYS,
    Integration,
    block_reason,
    integration,
    kind_of,
)
from stopkit.adapters._langchain_text import ContentPieces
from stopkit.adapters._reading import Reading
from stopkit.adapters._strictness import stricter
from stopkit.adapters._wire import wire

__all__ = ["LangChainStream"]

ReadMessage = Callable[[Any, Mapping[str, Any], Any], Reading]


def _chunk(event: Any) -> Any:
    """The AIMessageChunk an event is: itself, or a ChatGenerationChunk's message with its info.

    None for anything else. A generation's `generation_info` goes under the message's
    `response_metadata`, as langchain-core merges them.
    """
    kind = kind_of(event)
    if kind == "AIMessageChunk":
        return event
    if kind != "ChatGenerationChunk":
        return None
    fields = wire(event)
    message: Any = fields.get("message")
    if kind_of(message) != "AIMessageChunk":
        return None
    info = fields.get("generation_info")
    if not info:
        return message
    return message.model_copy(update={"response_metadata": {**info, **message.response_metadata}})


def _stop_of(chunk: Any) -> tuple[Integration | None, Any]:
    """The integration and the stop value one chunk carries (None: it carries none).

    A Gemini chunk whose prompt was blocked carries its block reason instead.
    """
    metadata = chunk.response_metadata
    found, _ = integration(metadata)
    if found is None:
        return None, None
    value = metadata.get(found.key)
    if value is None and found is GOOGLE:
        value = block_reason(metadata)
    return found, value


def _stripped(chunk: Any) -> Any:
    """A chunk after the end, kept for its usage and metadata only."""
    empty: Any = "" if isinstance(chunk.content, str) else []
    metadata = {k: v for k, v in chunk.response_metadata.items() if k not in STOP_KEYS}
    return chunk.model_copy(
        update={
            "content": empty,
            "tool_call_chunks": [],
            "tool_calls": [],
            "invalid_tool_calls": [],
            "response_metadata": metadata,
        }
    )


class LangChainStream(Accumulator[Reading]):
    """Collects the chunks of one streamed LangChain message into the `Stop` of the whole.

    Given the adapter's message reader. The Stop's `raw` is the merged `AIMessageChunk`.

    Example:
        >>> acc = stopkit.get_adapter("langchain").stream()  # doctest: +SKIP
        >>> for chunk in chat_model.stream("Hi"):  # doctest: +SKIP
        ...     acc.feed(chunk)
        >>> acc.result().reason.value  # doctest: +SKIP
        'completed'
    """

    rules = RULES

    def __init__(self, read_message: ReadMessage) -> None:
        super().__init__(self._read_merged)
        self._read_message = read_message
        self._chunks: list[Any] = []  # up to the end as sent, after it stripped
        self._ended = False
        self._held: tuple[Integration, Any] | None = None
        self._replaced: Any = None
        self._late = 0
        self._skipped = 0
        self._events = 0
        self._text = ContentPieces()

    def feed(self, event: Any) -> None:
        """Take one chunk: an `AIMessageChunk` or a `ChatGenerationChunk`."""
        self._cached = None
        self._events += 1
        chunk = _chunk(event)
        if chunk is None:
            self._skipped += 1
            return
        found, value = _stop_of(chunk)
        if not self._ended:
            self._chunks.append(chunk)
            self._text.take(chunk.content, first=len(self._chunks) == 1)
            if found is not None and value is not None:
                self._held = found, value
                self._ended = True
            elif wire(chunk).get("chunk_position") == "last":  # langchain-core >= 1.0
                self._ended = True
            return
        if chunk.content or chunk.tool_call_chunks:
            self._late += 1
        held = self._held
        if (
            found is not None
            and held is not None
            and found is held[0]
            and value is not None
            and value != held[1]
            and stricter(found.rules.table, held[1], value)
        ):
            self._held = found, value
            self._replaced = value
        self._chunks.append(_stripped(chunk))

    def text_pieces(self) -> list[str] | None:
        """The visible text fed so far, as the pieces the chunks added (None: not as pieces)."""
        return self._text.pieces.pieces

    def _read_merged(self, chunks: list[Any]) -> Reading:
        """Read the chunks merged as LangChain merges them (the message they amount to)."""
        if not chunks:
            return Reading(None)
        try:
            merged = chunks[0] if len(chunks) == 1 else chunks[0] + chunks[1:]
        except (TypeError, ValueError) as exc:  # merge_dicts refuses values of two types
            reading = Reading(chunks)
            reading.malformed = f"LangChain could not merge the stream's chunks ({exc})"
            return reading
        reading = self._read_message(merged, wire(merged), merged.response_metadata)
        if self._replaced is not None and self._held is not None:
            reading.notes.append(
                f"a chunk after the end carried {self._held[0].key} {self._replaced!r}: "
                "stricter, it replaces the value held"
            )
            reading.raw_reason = self._replaced
            reading.field = self._held[0].title
        return reading

    def _reading(self) -> Reading:
        reading = self._settle(
            self._read(self._chunks),
            end="a chunk carrying a stop value",
            ended=self._ended,
            late=self._late,
            cut_note=f"the stream ended after {_events(self._events)} without a chunk carrying "
            "a stop value",
            late_note=f"{_events(self._late)} after the stop value carried text or tool calls: "
            "ignored",
        )
        if self._skipped:
            n = self._skipped
            reading.notes.append(
                f"{n} event{'' if n == 1 else 's'} ignored: not a LangChain message chunk"
            )
        return reading


def _events(n: int) -> str:
    return f"{n} chunk" + ("" if n == 1 else "s")
