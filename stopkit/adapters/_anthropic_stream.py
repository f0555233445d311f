"""The Anthropic Messages stream accumulator: SSE events in, the whole reply's `Stop` out.

`message_start` -> per block `content_block_start` / `content_block_delta` /
`content_block_stop` -> `message_delta` (stop_reason, stop_sequence, stop_details) ->
`message_stop`. Fragments are appended to per-block lists and joined once, in `result()`.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import from_json

from stopkit._stop import Stop, StopReason, ToolCall
from stopkit.adapters._common import as_list, field, parse_arguments
from stopkit.adapters._common import tool_call as make_call
from stopkit.adapters.anthropic import decide, plain

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
        kind = field(start, "type")
        self.kind = kind if type(kind) is str else None  # compared against sets of names
        self.parts: list[str] = []
        self.citations: list[Any] | None = None
        self.signature: Any = None
        self.summary: tuple[Any, Any] | None = None
        self.stopped = False


class AnthropicStream:
    """Collects one Messages API stream into the `Stop` its non-streaming twin gives.

    Example:
        >>> acc = stopkit.get_adapter("anthropic").stream()
        >>> for event in events:  # doctest: +SKIP
        ...     acc.feed(event)
        >>> acc.result().reason  # doctest: +SKIP
        <StopReason.COMPLETED: 'completed'>
    """

    def __init__(self) -> None:
        self._message: Any = None
        self._blocks: dict[Any, _Block] = {}
        self._stop_reason: Any = None
        self._stop_sequence: Any = None
        self._stop_details: Any = None
        self._ended = False
        self._error: Any = None
        self._stray = 0
        self._events = 0
        self._cached: Stop | None = None

    def feed(self, event: Any) -> None:
        """Take one stream event (an SDK event object or the parsed JSON `data:` object)."""
        self._cached = None
        self._events += 1
        kind = field(event, "type")
        if kind == "content_block_delta":
            block = self._blocks.get(_index(event))
            delta = field(event, "delta")
            if block is None:
                self._stray += 1
                return
            delta_kind = field(delta, "type")
            name = _FRAGMENT_OF.get(delta_kind) if type(delta_kind) is str else None
            if name is not None:
                fragment = field(delta, name)
                if type(fragment) is str:
                    block.parts.append(fragment)
            elif delta_kind == "signature_delta":
                block.signature = field(delta, "signature")
            elif delta_kind == "citations_delta":
                if block.citations is None:
                    block.citations = []
                block.citations.append(field(delta, "citation"))
            elif delta_kind == "compaction_delta":
                # The summary comes whole, in one delta: it replaces, as the SDK's own
                # accumulator does (anthropic/lib/streaming/_beta_messages.py).
                block.summary = (field(delta, "content"), field(delta, "encrypted_content"))
        elif kind == "content_block_start":
            index = _index(event)
            if index is _NO_INDEX:
                self._stray += 1
            else:
                self._blocks[index] = _Block(field(event, "content_block"))
        elif kind == "content_block_stop":
            block = self._blocks.get(_index(event))
            if block is None:
                self._stray += 1
            else:
                block.stopped = True
        elif kind == "message_delta":
            delta = field(event, "delta")
            value = field(delta, "stop_reason")
            if value is not None:
                self._stop_reason = value
            value = field(delta, "stop_sequence")
            if value is not None:
                self._stop_sequence = value
            value = field(delta, "stop_details")
            if value is not None:
                self._stop_details = value
        elif kind == "message_start":
            self._message = field(event, "message")
            for index, block in enumerate(as_list(field(self._message, "content"))):
                # A message_start that already holds blocks (a prefilled proxy reply).
                started = _Block(block)
                started.stopped = True
                self._blocks[("start", index)] = started
        elif kind == "message_stop":
            self._ended = True
        elif kind == "error":
            self._error = field(event, "error", event)
        # `ping` and the SDK's derived events (`text`, `input_json`, ...) carry nothing new.

    def result(self) -> Stop:
        """Return the `Stop` of what was fed so far (`stream_incomplete` before `message_stop`)."""
        if self._cached is None:
            self._cached = self._build()
        return self._cached

    def _build(self) -> Stop:
        content: list[dict[str, Any]] = []
        texts: list[str] = []
        calls: list[ToolCall] = []
        answered: set[Any] | None = None
        kind: Any = None
        for block in self._blocks.values():
            kind = block.kind
            out = plain(block.start)
            if not isinstance(out, dict):
                out = {}
            if kind == "text":
                out["text"] = _text(out.get("text")) + "".join(block.parts)
                texts.append(out["text"])
                if block.citations is not None:
                    out["citations"] = [
                        *as_list(out.get("citations")),
                        *map(plain, block.citations),
                    ]
            elif kind in _INPUT_BLOCKS:
                out["input"], call = _input(block, out)
                if kind == "tool_use":
                    calls.append(call)
            elif kind == "thinking":
                out["thinking"] = _text(out.get("thinking")) + "".join(block.parts)
                if block.signature is not None:
                    out["signature"] = block.signature
            elif kind == "compaction" and block.summary is not None:
                out["content"], out["encrypted_content"] = block.summary
            result_of = out.get("tool_use_id")
            if isinstance(result_of, str):  # an id of another type names no call (nor hashes)
                if answered is None:
                    answered = set()
                answered.add(result_of)
            content.append(out)

        message = self._message
        raw: dict[str, Any] = {
            "id": field(message, "id"),
            "type": "message",
            "role": "assistant",
            "model": field(message, "model"),
            "content": content,
            "stop_reason": self._stop_reason,
            "stop_sequence": self._stop_sequence,
            "stop_details": plain(self._stop_details),
        }
        notes: list[str] = []
        details: dict[str, Any] = {}
        forced: tuple[StopReason, str, str] | None = None
        if self._error is not None:
            error = plain(self._error)
            details["error"] = error
            forced = (
                StopReason.UNKNOWN,
                "error",
                f"the stream carried an error event ({field(error, 'type')}: "
                f"{field(error, 'message')})",
            )
        elif not self._ended:
            forced = (
                StopReason.UNKNOWN,
                "stream_incomplete",
                f"the stream ended after {self._events} events without message_stop",
            )
        if self._stray:
            notes.append(f"{self._stray} block events named no started block: ignored")
        return decide(
            raw=raw,
            raw_reason=self._stop_reason,
            text="".join(texts),
            calls=calls,
            answered=answered,
            ends_in_tool_use=kind == "tool_use",
            stop_sequence=self._stop_sequence,
            stop_details=self._stop_details,
            notes=notes,
            details=details,
            forced=forced,
        )


def _input(block: _Block, out: dict[str, Any]) -> tuple[Any, ToolCall]:
    """Return a streamed tool block's input and its `ToolCall` (arguments_json as the twin's)."""
    call_id, name = out.get("id"), out.get("name")
    if not block.parts:
        # No fragments: the input came whole in content_block_start (or is the empty object).
        value = out.get("input")
        call = make_call(call_id, name, value if value is not None else {})
        if not block.stopped:
            call = call.model_copy(update={"complete": False, "error": _UNFINISHED})
        return value if value is not None else {}, call
    joined = "".join(block.parts)
    if block.stopped:
        arguments, _, complete, error = parse_arguments(joined)
    else:
        # Like the SDK's own accumulator: read what arrived, dropping the unfinished tail.
        try:
            partial = from_json(joined, allow_partial=True)
        except ValueError:
            partial = None
        arguments = partial if isinstance(partial, dict) else {}
        complete, error = False, _UNFINISHED
    call = make_call(call_id, name, arguments)
    if not complete:
        call = call.model_copy(update={"complete": False, "error": error})
    return arguments, call


_UNFINISHED = "the stream ended before this call's input was complete"

# An `index` that cannot be a block's key (a list, an object): the event names no block.
_NO_INDEX: Any = object()


def _index(event: Any) -> Any:
    """The block index an event names (`_NO_INDEX` when it is a list, an object, ...)."""
    index = field(event, "index")
    return index if index is None or isinstance(index, int | str | float) else _NO_INDEX


def _text(value: Any) -> str:
    """A block's starting text, `""` when it has none (or something that is not text)."""
    return value if isinstance(value, str) else ""
