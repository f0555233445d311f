"""The Anthropic Messages stream accumulator: SSE events in, the whole reply's `Stop` out.

`message_start` -> per block `content_block_start` / `content_block_delta` /
`content_block_stop` -> `message_delta` (stop_reason, stop_sequence, stop_details, usage) ->
`message_stop`. Fragments are appended to per-block lists and joined once, in `result()`, into
the whole reply they amount to, which the adapter's own reader reads: the stream and its
non-streaming twin give the same `Stop`.

The stop value is read wherever the stream sends it: in `message_delta`, or already in
`message_start` (programmatic tool calling streams the whole message there). A second stop value
replaces the first only when it is at least as strict (a refusal is never undone by a later
`end_turn`). After `message_stop` no block event changes the reply (a note counts them); a
stricter stop value and usage are still read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stopkit._stop import ToolCall
from stopkit.adapters._accumulator import Accumulator
from stopkit.adapters._anthropic_rules import RULES, STOP_REASONS
from stopkit.adapters._calls import cut, parse_arguments, partial_arguments
from stopkit.adapters._calls import tool_call as make_call
from stopkit.adapters._reading import Reading
from stopkit.adapters._strictness import stricter
from stopkit.adapters._wire import listed, to_json, wire

__all__ = ["AnthropicStream"]

# Blocks whose `input` streams as `input_json_delta` fragments.
_INPUT_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})

# Delta type -> the block field its fragments extend (anthropic/types/raw_content_block_delta.py,
# anthropic/types/beta/beta_raw_content_block_delta.py).
_FRAGMENT_OF = {
    "text_delta": "text",
    "input_json_delta": "partial_json",
    "thinking_delta": "thinking",
}


class _Block:
    """One content block being received: its start object and the fragments that extend it."""

    __slots__ = ("citations", "kind", "parts", "signature", "start", "stopped", "summary")

    def __init__(self, start: Any) -> None:
        self.start = start
        kind = wire(start).get("type")
        self.kind = kind if type(kind) is str else None  # compared against sets of names
        self.parts: list[str] = []
        self.citations: list[Any] | None = None
        self.signature: Any = None
        self.summary: tuple[Any, Any] | None = None
        self.stopped = False


class AnthropicStream(Accumulator[Reading]):
    """Collects one Messages API stream into the `Stop` its non-streaming twin gives.

    Example:
        >>> import stopkit
        >>> acc = stopkit.get_adapter("anthropic").stream()
        >>> for event in events:  # doctest: +SKIP
        ...     acc.feed(event)
        >>> acc.result().reason  # doctest: +SKIP
        <StopReason.COMPLETED: 'completed'>
    """

    rules = RULES

    def __init__(self, read: Callable[[Any], Reading]) -> None:
        super().__init__(read)
        self._message: Any = None
        self._blocks: dict[Any, _Block] = {}
        self._stop_reason: Any = None
        self._stop_sequence: Any = None
        self._stop_details: Any = None
        self._usage: dict[str, Any] = {}
        self._ended = False
        self._error: Any = None
        self._stray = 0
        self._late = 0
        self._events = 0
        # The visible text in the pieces it came in (`text_pieces`), while every piece extends
        # the newest block; None once a block is started again or an older one written to.
        self._texts: list[str] | None = []
        self._newest: _Block | None = None
        self._restarted = ""  # the note of a block index started again

    def text_pieces(self) -> list[str] | None:
        """The visible text so far, as its pieces (see `stopkit._adapter.StreamAccumulator`)."""
        return self._texts

    def _add(self, key: Any, block: _Block) -> None:
        """Hold a block that started; its text, if it brought some, is told."""
        earlier = self._blocks.get(key)
        if earlier is not None:
            self._texts = None  # started again: it keeps its place, not the newest one's
            if not self._restarted:  # said once, however often
                index = key[1] if type(key) is tuple else key
                self._restarted = (
                    f"content block index {index!r} started again: the earlier "
                    f"{earlier.kind or 'untyped'} block was replaced (it is not in the reply)"
                )
        self._blocks[key] = block
        self._newest = block
        if block.kind == "text":
            self._tell(block, _text(wire(block.start).get("text")))

    def _tell(self, block: _Block, text: str) -> None:
        texts = self._texts
        if texts is not None:
            if block is not self._newest:
                self._texts = None  # an older block written to: pieces out of block order
            elif text:
                texts.append(text)

    def feed(self, event: Any) -> None:
        """Take one stream event (an SDK event object or the parsed JSON `data:` object)."""
        self._cached = None
        self._events += 1
        fields = wire(event)
        kind = fields.get("type")
        if kind == "message_delta":
            delta = wire(fields.get("delta"))
            self._stop_value(delta)
            self._count(fields.get("usage"))
        elif self._ended:
            if kind != "ping":
                self._late += 1  # the reply has ended: nothing else changes it
        elif kind == "content_block_delta":
            self._delta(fields)
        elif kind == "content_block_start":
            index = _index(fields)
            if index is _NO_INDEX:
                self._stray += 1
            else:
                self._add(index, _Block(fields.get("content_block")))
        elif kind == "content_block_stop":
            block = self._blocks.get(_index(fields))
            if block is None:
                self._stray += 1
            else:
                block.stopped = True
        elif kind == "message_start":
            self._start(fields.get("message"))
        elif kind == "message_stop":
            self._ended = True
        elif kind == "error":
            self._error = fields.get("error", event)
        # `ping` and the SDK's derived events (`text`, `input_json`, ...) carry nothing new.

    def _delta(self, fields: Any) -> None:
        block = self._blocks.get(_index(fields))
        if block is None:
            self._stray += 1
            return
        delta = wire(fields.get("delta"))
        delta_kind = delta.get("type")
        name = _FRAGMENT_OF.get(delta_kind) if type(delta_kind) is str else None
        if name is not None:
            fragment = delta.get(name)
            if type(fragment) is str:
                block.parts.append(fragment)
                if block.kind == "text":
                    self._tell(block, fragment)
        elif delta_kind == "signature_delta":
            block.signature = delta.get("signature")
        elif delta_kind == "citations_delta":
            if block.citations is None:
                block.citations = []
            block.citations.append(delta.get("citation"))
        elif delta_kind == "compaction_delta":
            # The summary comes whole, in one delta: it replaces, as the SDK's own
            # accumulator does (anthropic/lib/streaming/_beta_messages.py).
            block.summary = (delta.get("content"), delta.get("encrypted_content"))

    def _start(self, message: Any) -> None:
        self._message = message
        fields = wire(message)
        for index, block in enumerate(listed(fields.get("content"))):
            # A message_start that already holds blocks (programmatic tool calling, a
            # prefilled proxy reply): they arrived whole.
            started = _Block(block)
            started.stopped = True
            self._add(("start", index), started)
        self._stop_value(fields)
        self._count(fields.get("usage"))

    def _stop_value(self, fields: Any) -> None:
        """Take the stop value (and its sequence and details) unless a stricter one is held."""
        value = fields.get("stop_reason")
        # `""` is a placeholder (a proxy's, in message_start), not a stop value: as in Chat.
        if value is None or value == "" or not stricter(STOP_REASONS, self._stop_reason, value):
            return
        self._stop_reason = value
        self._stop_sequence = fields.get("stop_sequence")
        self._stop_details = fields.get("stop_details")

    def _count(self, usage: Any) -> None:
        """Usage counts are cumulative totals: a later count replaces an earlier one."""
        for name, value in wire(usage).items():
            if value is not None:
                self._usage[name] = to_json(value)

    def _reading(self) -> Reading:
        content: list[dict[str, Any]] = []
        calls: list[ToolCall] = []
        for block in self._blocks.values():
            out, call = _whole(block)
            content.append(out)
            if call is not None:
                calls.append(call)
        message = wire(self._message)
        raw: dict[str, Any] = {
            "id": message.get("id"),
            "type": "message",
            "role": "assistant",
            "model": message.get("model"),
            "content": content,
            "stop_reason": self._stop_reason,
            "stop_sequence": self._stop_sequence,
            "stop_details": to_json(self._stop_details, drop_none=True),
        }
        if self._usage:
            raw["usage"] = self._usage
        error = to_json(self._error, drop_none=True) if self._error is not None else None
        said = wire(error)
        reading = self._settle(
            self._read(raw),
            end="message_stop",
            ended=self._ended,
            late=self._late,
            error=error,
            error_note=f"the stream carried an error event ({said.get('type')}: "
            f"{said.get('message')})",
        )
        # The calls as streamed: a block whose input never finished, or whose pieces are not
        # JSON, is incomplete (the rebuilt reply can only hold what parsed).
        reading.calls = calls
        if self._stray:
            reading.notes.append(f"{self._stray} block events named no started block: ignored")
        if self._restarted:
            reading.notes.append(self._restarted)
        return reading


def _whole(block: _Block) -> tuple[dict[str, Any], ToolCall | None]:
    """A streamed block as the whole reply holds it (its pieces joined), and its client call."""
    out = to_json(block.start, drop_none=True)
    if not isinstance(out, dict):
        out = {}
    kind = block.kind
    call: ToolCall | None = None
    if kind == "text":
        out["text"] = _text(out.get("text")) + "".join(block.parts)
        if block.citations is not None:
            out["citations"] = [
                *listed(out.get("citations")),
                *(to_json(c, drop_none=True) for c in block.citations),
            ]
    elif kind in _INPUT_BLOCKS:
        out["input"], made = _input(block, out)
        call = made if kind == "tool_use" else None
    elif kind == "thinking":
        out["thinking"] = _text(out.get("thinking")) + "".join(block.parts)
        if block.signature is not None:
            out["signature"] = block.signature
    elif kind == "compaction" and block.summary is not None:
        out["content"], out["encrypted_content"] = block.summary
    return out, call


def _input(block: _Block, out: dict[str, Any]) -> tuple[Any, ToolCall]:
    """Return a streamed tool block's input and its `ToolCall` (arguments_json as the twin's)."""
    call_id, name = out.get("id"), out.get("name")
    if not block.parts:
        # No fragments: the input came whole in content_block_start (or is the empty object).
        value = out.get("input")
        call = make_call(call_id, name, value if value is not None else {})
        if not block.stopped:
            call = cut(call, _UNFINISHED)
        return value if value is not None else {}, call
    joined = "".join(block.parts)
    if block.stopped:
        arguments, _, complete, error = parse_arguments(joined)
    else:
        # Like the SDK's own accumulator: read what arrived, dropping the unfinished tail.
        arguments = partial_arguments(joined)
        complete, error = False, _UNFINISHED
    call = make_call(call_id, name, arguments)
    if not complete:
        call = cut(call, error or _UNFINISHED)
    return arguments, call


_UNFINISHED = "the stream ended before this call's input was complete"

# An `index` that cannot be a block's key (a list, an object): the event names no block.
_NO_INDEX: Any = object()
_INDEX_TYPES = (int, str, float)  # built once: an `int | str | float` union is built per call


def _index(fields: Any) -> Any:
    """The block index an event names (`_NO_INDEX` when it is a list, an object, ...)."""
    index = fields.get("index")
    return index if index is None or isinstance(index, _INDEX_TYPES) else _NO_INDEX


def _text(value: Any) -> str:
    """A block's starting text, `""` when it has none (or something that is not text)."""
    return value if isinstance(value, str) else ""
