"""The InvokeModelWithResponseStream accumulator: a family's chunks in, its body's `Stop` out.

Each chunk is a piece of the family's body (`chunk.bytes`, decoded): Titan sends `outputText`
pieces and, last, `completionReason` with `totalOutputTextTokenCount`; Llama sends `generation`
pieces with a growing `generation_token_count` and, last, `stop_reason`; Mistral sends `outputs`
whose `text` pieces end with a `stop_reason`. Bedrock adds `amazon-bedrock-invocationMetrics` to
the last chunk, and the guardrail fields to the chunks it guarded. The pieces are collected
(joined once), the body is rebuilt and read by the adapter's own reader, so a stream and its
non-streaming body give the same `Stop`.

The stream ends at the chunk with the stop value or the metrics, or at an exception event. After
the end no text is taken (a note counts the chunks); a stricter stop value, the metrics and the
guardrail fields are still read.

Example:
    >>> chunk_family({"generation": "Hi", "stop_reason": None}).name
    'meta.llama'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from stopkit._forms import decoded_chunk
from stopkit.adapters._accumulator import Accumulator
from stopkit.adapters._bedrock_guardrail import ACTION, MASKED_ONLY, TRACE
from stopkit.adapters._bedrock_invoke_rules import (
    LLAMA,
    MISTRAL,
    RULES,
    STREAM_ERROR_FIELD,
    STREAM_ERRORS,
    TITAN,
    Family,
)
from stopkit.adapters._reading import Reading
from stopkit.adapters._strictness import stricter
from stopkit.adapters._wire import listed, wire

__all__ = ["METRICS", "BedrockInvokeStream", "chunk_family"]

METRICS = "amazon-bedrock-invocationMetrics"

_END = "final chunk (a stop value or amazon-bedrock-invocationMetrics)"


@dataclass(frozen=True)
class _Chunks:
    """How one family's chunks carry the pieces of its body."""

    family: Family
    listed: bool
    """Whether a chunk holds a list of outputs (Mistral) rather than being the one output."""
    output_count: str | None
    """The chunk field of the output's token count (Titan renames it in its chunks)."""
    marks: tuple[str, ...]
    """Keys of which a chunk (its first output) holds one, beside the text."""


# Titan: the Bedrock user guide, "Amazon Titan Text models", InvokeModelWithResponseStream
# response (`chunk.bytes`: index, inputTextTokenCount, totalOutputTextTokenCount, outputText,
# completionReason). Llama and Mistral chunks are their body's fields ("Meta Llama models",
# "Mistral AI text completion"), the stop value null until the last.
_CHUNKS = (
    _Chunks(
        TITAN,
        listed=False,
        output_count="totalOutputTextTokenCount",
        marks=("index", "completionReason", "inputTextTokenCount", "totalOutputTextTokenCount"),
    ),
    _Chunks(LLAMA, listed=False, output_count=LLAMA.output_count, marks=LLAMA.marks),
    _Chunks(MISTRAL, listed=True, output_count=None, marks=MISTRAL.marks),
)


def _chunks_of(event: Mapping[str, Any]) -> _Chunks | None:
    for chunks in _CHUNKS:
        family = chunks.family
        value = event.get(family.key if chunks.listed else family.text)
        if chunks.listed:
            first = value[0] if type(value) is list and value else None
            if type(first) is dict and any(mark in first for mark in chunks.marks):
                return chunks
        elif type(value) is str and any(mark in event for mark in chunks.marks):
            return chunks
    return None


def chunk_family(event: Mapping[str, Any]) -> Family | None:
    """Return the family whose stream chunk `event` is (decoding boto3's `chunk.bytes`), or None."""
    chunks = _chunks_of(decoded_chunk(event) or {})
    return None if chunks is None else chunks.family


class _Output:
    """One output being received: its text pieces, its stop value, its token count."""

    __slots__ = ("count", "stop", "texts")

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.stop: Any = None
        self.count: Any = None


class BedrockInvokeStream(Accumulator[Reading]):
    """Accumulates one InvokeModelWithResponseStream into the `Stop` of its rebuilt body.

    Example:
        >>> from stopkit.adapters.bedrock_invoke import _read as read
        >>> acc = BedrockInvokeStream(read)
        >>> for chunk in [{"generation": "Hi", "generation_token_count": 1, "stop_reason": None},
        ...     {"generation": "!", "generation_token_count": 2, "stop_reason": "stop"}]:
        ...     acc.feed(chunk)
        >>> (acc.result().reason.value, acc.result().text)
        ('completed', 'Hi!')
    """

    rules = RULES

    def __init__(self, read: Callable[[Any], Reading]) -> None:
        super().__init__(read)
        self._chunks: _Chunks | None = None
        self._outputs: list[_Output] = []
        self._input: Any = None
        self._top: dict[str, Any] = {}
        self._intervened = False
        self._error: tuple[str, Any] | None = None
        self._error_wins = False
        self._ended = False
        self._late = 0
        self._ignored = 0

    def text_pieces(self) -> list[str] | None:
        """The first output's text so far, as its pieces (see `StreamAccumulator`)."""
        if not self._outputs:
            return None
        return self._outputs[0].texts

    def feed(self, event: Any) -> None:
        """Take one chunk: the decoded `chunk.bytes` object, boto3's event, or an exception."""
        self._cached = None
        if not isinstance(event, Mapping):
            self._ignored += 1
            return
        body = decoded_chunk(event)
        if body is None:
            self._ignored += 1
            return
        for kind in STREAM_ERRORS:
            if kind in body:
                self._fail(kind, body[kind])
                return
        chunks = self._chunks or _chunks_of(body)
        if chunks is None:
            self._ignored += 1
            return
        self._chunks = chunks
        self._take(chunks, body)

    def _take(self, chunks: _Chunks, body: Mapping[str, Any]) -> None:
        family = chunks.family
        if self._input is None and family.input_count is not None:
            self._input = body.get(family.input_count)
        pieces = listed(body.get(family.key)) if chunks.listed else [body]
        late = False
        stopped = False
        for i, piece in enumerate(pieces):
            if i == len(self._outputs):  # pieces come in order: a new position is the next
                self._outputs.append(_Output())
            took_late, took_stop = self._piece(self._outputs[i], wire(piece), chunks)
            late, stopped = late or took_late, stopped or took_stop
        for name in (ACTION, TRACE, METRICS):
            value = body.get(name)
            if value is not None:
                self._top[name] = value
        self._intervened = self._intervened or body.get(ACTION) == "INTERVENED"
        if late:
            self._late += 1
        if stopped or METRICS in body:
            self._ended = True

    def _piece(self, out: _Output, fields: Mapping[str, Any], chunks: _Chunks) -> tuple[bool, bool]:
        """Take one output's piece; say whether it sent text after the end, and a stop value."""
        family = chunks.family
        late = False
        text = fields.get(family.text)
        if type(text) is str and text:
            if self._ended:
                late = True
            else:
                out.texts.append(text)
        if chunks.output_count is not None:
            count = fields.get(chunks.output_count)
            if count is not None:
                out.count = count
        stop = fields.get(family.stop)
        if stop is None:
            return late, False
        if not self._ended or stricter(family.table, out.stop, stop):
            out.stop = stop
        return late, True

    def _fail(self, kind: str, payload: Any) -> None:
        """An exception event ends the stream; it wins unless a stricter stop value is held."""
        if self._error is None:
            self._error = (kind, payload)
        held = self._outputs[0].stop if self._outputs else None
        table = {**(self._chunks.family.table if self._chunks else {}), **STREAM_ERRORS}
        if held is None or stricter(table, held, kind):
            self._error_wins = True
        self._ended = True

    def reply(self) -> dict[str, Any]:
        """Return the body rebuilt so far, in the family's own non-streaming shape."""
        chunks = self._chunks
        if chunks is None:
            return dict(self._top)
        family = chunks.family
        items = []
        for out in self._outputs or [_Output()]:
            item: dict[str, Any] = {family.text: "".join(out.texts), family.stop: out.stop}
            if family.output_count is not None and out.count is not None:
                item[family.output_count] = out.count
            items.append(item)
        body: dict[str, Any] = {family.key: items} if family.listed else items[0]
        if family.input_count is not None and self._input is not None:
            body[family.input_count] = self._input
        body.update(self._top)
        if self._intervened:
            body[ACTION] = "INTERVENED"  # said by one chunk, it holds for the whole stream
        return body

    def _reading(self) -> Reading:
        kind, payload = self._error or ("", None)
        body = self.reply()
        reading = self._read(body) if self._chunks is not None else Reading(body)
        ended = self._ended
        # A guardrail that replaced the answer ends the stream; one that only masked it does not.
        replaced = MASKED_ONLY not in reading.details
        if not ended and reading.filter is not None and self._intervened and replaced:
            ended = True
            reading.notes.append(
                f"the stream ended without its {_END}, after a guardrail intervened: "
                "the intervention stands"
            )
        reading = self._settle(
            reading,
            end=_END,
            ended=ended,
            late=self._late,
            error={kind: payload} if kind else None,
            error_note=f"the stream carried a {kind} event: {wire(payload).get('message')}",
        )
        if self._error_wins:
            reading.raw_reason = kind
            reading.field = STREAM_ERROR_FIELD
        if self._ignored:
            reading.notes.append(
                f"{self._ignored} event(s) that are not chunks of this stream: ignored"
            )
        return reading
