"""The Cohere v2 Chat stream accumulator: SSE events into the `Stop` the whole reply gives.

Events (cohere-python 7.3.1, `cohere/v2/types/v2chat_stream_response.py`): `message-start`,
`content-start` / `content-delta` / `content-end` (text or thinking, by `index`),
`tool-plan-delta`, `tool-call-start` / `tool-call-delta` / `tool-call-end` (argument fragments
by `index`), `citation-start` / `citation-end`, `debug`, and the terminal `message-end`
(`delta.finish_reason`, `delta.error`, `delta.usage`).

Fragments are appended to lists and joined once, into the reply they amount to, which the
adapter's own reader (given to the accumulator) reads. After `message-end` no content or call
event changes the reply (a note counts them); a later `message-end` is read for its usage and
its error, and for its finish_reason only when that is stricter.

The visible text is told as pieces (`text_pieces`) while it grows at its end: a piece of the
text part last told, or of a later one. A piece of an earlier part, written after a later part
began, leaves the pieces unable to say it (the text parts are joined in the order they began).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stopkit.adapters._accumulator import Accumulator
from stopkit.adapters._cohere_rules import FINISH_REASON, RULES
from stopkit.adapters._reading import Reading
from stopkit.adapters._strictness import stricter
from stopkit.adapters._wire import wire

__all__ = ["EVENT_TYPES", "CohereStream"]

EVENT_TYPES = frozenset(
    {
        "message-start",
        "content-start",
        "content-delta",
        "content-end",
        "tool-plan-delta",
        "tool-call-start",
        "tool-call-delta",
        "tool-call-end",
        "citation-start",
        "citation-end",
        "message-end",
        "debug",
    }
)

#: Events that build the reply: after message-end, they change nothing.
_CONTENT_EVENTS = EVENT_TYPES - {"message-end", "debug"}

_CUT = {
    "complete": False,
    "error": "the stream ended before this call's arguments were complete",
}


class _Call:
    """One tool call being streamed: id and name from its start, argument fragments after."""

    __slots__ = ("ended", "fragments", "id", "name")

    def __init__(self, call_id: Any, name: Any, first: Any) -> None:
        self.id = call_id
        self.name = name
        self.fragments: list[str] = [first] if type(first) is str and first else []
        self.ended = False


def _message(fields: Any) -> Any:
    return wire(wire(fields.get("delta")).get("message"))


# The key of events whose `index` cannot be one (a list, an object): they share one slot.
_ODD_INDEX: Any = object()


def _index(fields: Any) -> Any:
    """The index an event names, as a dict key (never an unhashable value)."""
    index = fields.get("index")
    return index if index is None or isinstance(index, int | str | float) else _ODD_INDEX


#: The events that carry a piece of the reply (text, a call's arguments, the tool plan).
_DELTAS = frozenset({"content-delta", "tool-call-delta", "tool-plan-delta"})


class CohereStream(Accumulator[Reading]):
    """Collects one v2 Chat stream, event by event; `result()` gives its `Stop`.

    The Stop's `raw` is the reply rebuilt from the events (a v2 Chat-shaped dict holding the
    text parts, tool_plan, tool calls, citations and usage; thinking is not kept).

    Example:
        >>> from stopkit.adapters.cohere import _read as read
        >>> acc = CohereStream(read)
        >>> acc.feed({"type": "message-end", "delta": {"finish_reason": "COMPLETE"}})
        >>> acc.result().reason.value
        'completed'
    """

    rules = RULES

    def __init__(self, read: Callable[[Any], Reading]) -> None:
        super().__init__(read)
        self._kinds: dict[Any, str] = {}
        self._texts: dict[Any, list[str]] = {}  # text part index -> its pieces, in order begun
        self._begun: dict[Any, int] = {}  # text part index -> how many parts began before it
        self._plan: list[str] = []
        self._calls: dict[Any, _Call] = {}
        self._restarted = ""  # the note of a call index started again
        self._citations: list[Any] = []
        self._ended = False
        self._finish_reason: Any = None
        self._error: Any = None
        self._id: Any = None
        self._usage: Any = None
        self._late = 0

    def feed(self, event: Any) -> None:
        """Take one event (an SDK stream event or the parsed JSON `data:` object)."""
        self._cached = None
        fields = wire(event)
        kind = fields.get("type")
        if kind == "message-end":
            self._end(wire(fields.get("delta")))
        elif self._ended:
            if type(kind) is str and kind in _CONTENT_EVENTS:  # a list or an object is no kind
                self._late += 1  # the reply has ended: nothing else changes it
        elif type(kind) is str and kind in _DELTAS:
            self._delta(kind, fields)
        elif kind == "content-start":
            self._start_content(fields)
        elif kind == "tool-call-start":
            self._start_call(fields)
        elif kind == "tool-call-end":
            call = self._calls.get(_index(fields))
            if call is not None:
                call.ended = True
        elif kind == "citation-start":
            citation = _message(fields).get("citations")
            if citation is not None:
                self._citations.append(citation)
        elif kind == "message-start":
            self._id = fields.get("id")

    def _delta(self, kind: str, fields: Any) -> None:
        """A piece of text, of a call's arguments, or of the tool plan."""
        if kind == "content-delta":
            index = _index(fields)
            if self._kinds.get(index, "text") == "text":
                text = wire(_message(fields).get("content")).get("text")
                if type(text) is str:
                    self._add_text(index, text)
        elif kind == "tool-call-delta":
            call = self._calls.get(_index(fields))
            item = wire(_message(fields).get("tool_calls"))
            piece = wire(item.get("function")).get("arguments")
            if call is not None and type(piece) is str:
                call.fragments.append(piece)
        else:  # tool-plan-delta
            piece = _message(fields).get("tool_plan")
            if type(piece) is str:
                self._plan.append(piece)

    def _start_call(self, fields: Any) -> None:
        """A call begins (a restarted index replaces the earlier call, with a note)."""
        item = wire(_message(fields).get("tool_calls"))
        function = wire(item.get("function"))
        index = _index(fields)
        if index in self._calls and not self._restarted:  # said once, however often
            self._restarted = (
                f"tool call index {index!r} started again: the earlier call was replaced "
                "(it is not in the reply)"
            )
        self._calls[index] = _Call(item.get("id"), function.get("name"), function.get("arguments"))

    def _start_content(self, fields: Any) -> None:
        index = _index(fields)
        content = wire(_message(fields).get("content"))
        part = content.get("type")
        kind = self._kinds[index] = part if type(part) is str else "text"
        text = content.get("text")
        if kind == "text" and type(text) is str and text:
            self._add_text(index, text)

    def _add_text(self, index: Any, text: str) -> None:
        """Add a piece to the end of text part `index`'s."""
        texts = self._texts
        pieces = texts.get(index)
        if pieces is None:
            pieces = texts[index] = []
            self._begun[index] = len(self._begun)  # its place in the text
        pieces.append(text)
        self._told.add(self._begun[index], text)

    def _end(self, delta: Any) -> None:
        """Take a message-end: the first one ends the reply; a later one is read as noted."""
        if self._ended:
            self._late += 1
        value = delta.get("finish_reason")
        if not self._ended or stricter(FINISH_REASON, self._finish_reason, value):
            self._finish_reason = value
        error = delta.get("error")
        if error is not None and self._error is None:
            self._error = error
        usage = delta.get("usage")
        if usage is not None:
            self._usage = usage
        self._ended = True

    def _reply(self) -> dict[str, Any]:
        """The reply rebuilt from the events: what the non-streaming endpoint would have sent."""
        message: dict[str, Any] = {"role": "assistant"}
        plan = "".join(self._plan)
        if plan:
            message["tool_plan"] = plan
        if self._calls:
            message["tool_calls"] = [
                {
                    "id": pending.id,
                    "type": "function",
                    "function": {"name": pending.name, "arguments": "".join(pending.fragments)},
                }
                for pending in self._calls.values()
            ]
        text = "".join("".join(parts) for parts in self._texts.values())
        if text or not self._calls:
            message["content"] = [{"type": "text", "text": text}] if text else []
        if self._citations:
            message["citations"] = list(self._citations)
        reply: dict[str, Any] = {
            "id": self._id,
            "finish_reason": self._finish_reason,
            "message": message,
        }
        if self._usage is not None:
            reply["usage"] = self._usage
        return reply

    def _reading(self) -> Reading:
        reading = self._settle(
            self._read(self._reply()),
            end="message-end event",
            ended=self._ended,
            late=self._late,
            error=self._error,
            error_note=f"message-end carried an error: {self._error}",
        )
        if self._restarted:
            reading.notes.append(self._restarted)
        if not self._ended:
            # The rebuilt reply lists one call per tool-call-start, in order: a call whose
            # tool-call-end never came was cut while its arguments were being written (which
            # is why they may not parse: said instead of the parse error).
            reading.calls = [
                call if pending.ended else call.model_copy(update=_CUT)
                for pending, call in zip(self._calls.values(), reading.calls, strict=False)
            ]
        return reading
