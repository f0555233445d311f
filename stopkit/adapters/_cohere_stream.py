"""The Cohere v2 Chat stream accumulator: SSE events into the `Stop` the whole reply gives.

Events (cohere-python 7.3.1, `cohere/v2/types/v2chat_stream_response.py`): `message-start`,
`content-start` / `content-delta` / `content-end` (text or thinking, by `index`),
`tool-plan-delta`, `tool-call-start` / `tool-call-delta` / `tool-call-end` (argument fragments
by `index`), `citation-start` / `citation-end`, `debug`, and the terminal `message-end`
(`delta.finish_reason`, `delta.error`).
"""

from __future__ import annotations

from typing import Any

from stopkit._stop import Stop, StopReason, ToolCall
from stopkit.adapters._common import field, make_stop
from stopkit.adapters.cohere import NAME, build_call, decide

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


class _Call:
    """One tool call being streamed: id and name from its start, argument fragments after."""

    __slots__ = ("ended", "fragments", "id", "name")

    def __init__(self, call_id: Any, name: Any, first: Any) -> None:
        self.id = call_id
        self.name = name
        self.fragments: list[str] = [first] if isinstance(first, str) and first else []
        self.ended = False


def _message(event: Any) -> Any:
    return field(field(event, "delta"), "message")


# The key of events whose `index` cannot be one (a list, an object): they share one slot.
_ODD_INDEX: Any = object()


def _index(event: Any) -> Any:
    """The index an event names, as a dict key (never an unhashable value)."""
    index = field(event, "index")
    return index if index is None or isinstance(index, int | str | float) else _ODD_INDEX


class CohereStream:
    """Collects one v2 Chat stream, event by event; `result()` gives its `Stop`.

    The Stop's `raw` is the reply rebuilt from the events (a v2 Chat-shaped dict holding the
    text parts, tool_plan, tool calls and citations; thinking is not kept).

    Example:
        >>> acc = CohereStream()
        >>> acc.feed({"type": "message-end", "delta": {"finish_reason": "COMPLETE"}})
        >>> acc.result().reason.value
        'unknown'
    """

    def __init__(self) -> None:
        self._kinds: dict[Any, str] = {}
        self._texts: dict[Any, list[str]] = {}
        self._plan: list[str] = []
        self._calls: dict[Any, _Call] = {}
        self._citations: list[Any] = []
        self._ended = False
        self._finish_reason: Any = None
        self._error: Any = None
        self._id: Any = None
        self._usage: Any = None

    def feed(self, event: Any) -> None:
        """Take one event (an SDK stream event or the parsed JSON `data:` object)."""
        kind = field(event, "type")
        if kind == "content-delta":
            index = _index(event)
            if self._kinds.get(index, "text") == "text":
                text = field(field(_message(event), "content"), "text")
                if isinstance(text, str):
                    self._texts.setdefault(index, []).append(text)
        elif kind == "tool-call-delta":
            call = self._calls.get(_index(event))
            piece = field(field(field(_message(event), "tool_calls"), "function"), "arguments")
            if call is not None and isinstance(piece, str):
                call.fragments.append(piece)
        elif kind == "tool-plan-delta":
            piece = field(_message(event), "tool_plan")
            if isinstance(piece, str):
                self._plan.append(piece)
        elif kind == "content-start":
            index = _index(event)
            content = field(_message(event), "content")
            part = field(content, "type")
            self._kinds[index] = part if isinstance(part, str) else "text"
            text = field(content, "text")
            if self._kinds[index] == "text" and isinstance(text, str) and text:
                self._texts.setdefault(index, []).append(text)
        elif kind == "tool-call-start":
            item = field(_message(event), "tool_calls")
            function = field(item, "function")
            self._calls[_index(event)] = _Call(
                field(item, "id"), field(function, "name"), field(function, "arguments")
            )
        elif kind == "tool-call-end":
            call = self._calls.get(_index(event))
            if call is not None:
                call.ended = True
        elif kind == "citation-start":
            citation = field(_message(event), "citations")
            if citation is not None:
                self._citations.append(citation)
        elif kind == "message-start":
            self._id = field(event, "id")
        elif kind == "message-end":
            delta = field(event, "delta")
            self._ended = True
            self._finish_reason = field(delta, "finish_reason")
            self._error = field(delta, "error")
            self._usage = field(delta, "usage")

    def _reply(self, text: str, plan: str, calls: list[ToolCall]) -> dict[str, Any]:
        """The reply rebuilt from the events: what the non-streaming endpoint would have sent."""
        message: dict[str, Any] = {"role": "assistant"}
        if plan:
            message["tool_plan"] = plan
        if calls:
            message["tool_calls"] = [
                {
                    "id": pending.id,
                    "type": "function",
                    "function": {"name": pending.name, "arguments": "".join(pending.fragments)},
                }
                for pending in self._calls.values()
            ]
        if text or not calls:
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

    def result(self) -> Stop:
        """Return the `Stop` for what was fed so far (`stream_incomplete` before message-end)."""
        notes: list[str] = []
        details: dict[str, Any] = {}
        plan = "".join(self._plan)
        if plan:
            details["tool_plan"] = plan
        if self._citations:
            details["citations"] = list(self._citations)
        text = "".join("".join(parts) for parts in self._texts.values())
        calls: list[ToolCall] = []
        for pending in self._calls.values():
            call, note = build_call(pending.id, pending.name, "".join(pending.fragments))
            if not self._ended and not pending.ended:
                call = call.model_copy(
                    update={
                        "complete": False,
                        "error": "the stream ended before this call's arguments were complete",
                    }
                )
            calls.append(call)
            if note:
                notes.append(note)
        raw = self._reply(text, plan, calls)
        if not self._ended:
            notes.append("the stream ended without its message-end event")
            return make_stop(
                StopReason.UNKNOWN,
                provider=NAME,
                raw=raw,
                detail="stream_incomplete",
                text=text,
                tool_calls=tuple(calls),
                notes=notes,
                details=details,
            )
        return decide(
            self._finish_reason,
            text=text,
            calls=calls,
            details=details,
            raw=raw,
            notes=notes,
            error=self._error,
        )
