"""The Cohere v1 Chat stream accumulator: its events into the `Stop` the whole reply gives.

Events (cohere-python 7.3.1, `cohere/types/streamed_chat_response.py`, told apart by
`event_type`; sent as newline-delimited JSON): `stream-start` (`generation_id`),
`text-generation` (a piece of `text`), `tool-calls-chunk` (a piece of the tool plan in `text`, or
a `tool_call_delta` with a call's `index`, `name` and a piece of its `parameters` JSON),
`tool-calls-generation` (every call, whole, and the plan), `citation-generation`,
`search-queries-generation`, `search-results`, `debug`, and the terminal `stream-end`
(`finish_reason`, and `response`: "the consolidated response from the model", the non-streamed
reply itself).

The reply is the stream-end's `response`; whatever it leaves out (a proxy may send only its
`meta`) is rebuilt from the events, and a stream cut before its end is rebuilt from them
entirely. The adapter's own reader (given to the accumulator) reads it. After `stream-end` no
text or call event changes the reply (a note counts them); a later `stream-end` is read for its
`meta`, and for its finish_reason only when that is stricter.

The `text-generation` pieces are told as they come (`text_pieces`) until the stream-end's
`response` or a call decides the text instead (a reply with calls shows none: its text is the
plan).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stopkit.adapters._accumulator import Accumulator
from stopkit.adapters._cohere_v1_rules import FINISH_REASON, RULES
from stopkit.adapters._reading import Reading
from stopkit.adapters._strictness import stricter
from stopkit.adapters._wire import listed, to_json, wire

__all__ = ["EVENT_TYPES", "CohereV1Stream"]

EVENT_TYPES = frozenset(
    {
        "stream-start",
        "search-queries-generation",
        "search-results",
        "text-generation",
        "citation-generation",
        "tool-calls-generation",
        "tool-calls-chunk",
        "stream-end",
        "debug",
    }
)

#: Events that build the reply: after stream-end, they change nothing.
_CONTENT_EVENTS = frozenset(
    {"text-generation", "citation-generation", "tool-calls-generation", "tool-calls-chunk"}
)


class _Call:
    """One call streamed in `tool-calls-chunk` deltas: its name, its parameters' pieces."""

    __slots__ = ("name", "pieces")

    def __init__(self) -> None:
        self.name: Any = None
        self.pieces: list[str] = []


class CohereV1Stream(Accumulator[Reading]):
    """Collects one v1 Chat stream, event by event; `result()` gives its `Stop`.

    The Stop's `raw` is the reply: the stream-end's `response` (as a dict), with what it leaves
    out rebuilt from the events.

    Example:
        >>> from stopkit.adapters.cohere_v1 import _read as read
        >>> acc = CohereV1Stream(read)
        >>> acc.feed({"event_type": "text-generation", "text": "Hi"})
        >>> acc.feed({"event_type": "stream-end", "finish_reason": "COMPLETE",
        ...     "response": {"text": "Hi", "finish_reason": "COMPLETE"}})
        >>> (acc.result().reason.value, acc.result().text)
        ('completed', 'Hi')
    """

    rules = RULES

    def __init__(self, read: Callable[[Any], Reading]) -> None:
        super().__init__(read)
        self._text: list[str] = []
        self._plan: list[str] = []
        self._whole_plan: Any = None  # tool-calls-generation's `text`: the plan, whole
        self._calls: list[Any] | None = None  # tool-calls-generation's calls, whole
        self._pieces: dict[Any, _Call] = {}  # the calls of tool-calls-chunk, by index
        self._last_index: Any = None
        self._citations: list[Any] = []
        self._generation_id: Any = None
        self._ended = False
        self._finish_reason: Any = None
        self._response: Any = None
        self._meta: Any = None
        self._late = 0

    def text_pieces(self) -> list[str] | None:
        """The visible text so far, as its pieces (see `stopkit._adapter.StreamAccumulator`)."""
        if self._response is not None or self._calls is not None or self._pieces:
            return None  # the stream-end's response, or the calls, decide the text now
        return self._text

    def feed(self, event: Any) -> None:
        """Take one event (an SDK `StreamedChatResponse` or the parsed JSON line)."""
        self._cached = None
        fields = wire(event)
        kind = fields.get("event_type")
        if kind == "stream-end":
            self._end(fields)
        elif self._ended:
            if type(kind) is str and kind in _CONTENT_EVENTS:
                self._late += 1  # the reply has ended: nothing else changes it
        elif kind == "text-generation":
            text = fields.get("text")
            if type(text) is str:
                self._text.append(text)
        elif kind == "tool-calls-chunk":
            self._chunk(fields)
        elif kind == "tool-calls-generation":
            self._calls = listed(fields.get("tool_calls"))
            plan = fields.get("text")
            if type(plan) is str:
                self._whole_plan = plan
        elif kind == "citation-generation":
            self._citations.extend(listed(fields.get("citations")))
        elif kind == "stream-start":
            self._generation_id = fields.get("generation_id")

    def _chunk(self, fields: Any) -> None:
        """A piece of the plan, or a piece of a call (merged by its `index`)."""
        delta = wire(fields.get("tool_call_delta"))
        plan = fields.get("text")
        if type(plan) is not str:
            plan = delta.get("text")
        if type(plan) is str:
            self._plan.append(plan)
        name, piece = delta.get("name"), delta.get("parameters")
        if name is None and piece is None:
            return
        index = delta.get("index")
        if index is None or type(index) is bool or not isinstance(index, int | float | str):
            index = self._last_index  # no usable index: the call being written goes on
        self._last_index = index
        call = self._pieces.get(index)
        if call is None:
            call = self._pieces[index] = _Call()
        if call.name is None and type(name) is str and name:
            call.name = name
        if type(piece) is str:
            call.pieces.append(piece)

    def _end(self, fields: Any) -> None:
        """Take a stream-end: the first one ends the reply; a later one is read as noted."""
        response = fields.get("response")
        said = wire(response)
        value = fields.get("finish_reason")
        if value is None:
            value = said.get("finish_reason")
        if not self._ended:
            self._finish_reason = value
            self._response = response
        else:
            self._late += 1
            if stricter(FINISH_REASON, self._finish_reason, value):
                self._finish_reason = value
        meta = said.get("meta")
        if meta is not None:
            self._meta = to_json(meta)
        self._ended = True

    def _rebuilt_calls(self) -> list[Any]:
        if self._calls is not None:
            return [to_json(call) for call in self._calls]
        return [
            {"name": call.name, "parameters": "".join(call.pieces)}
            for call in self._pieces.values()
        ]

    def _plan_text(self) -> str:
        plan = self._whole_plan
        return plan if type(plan) is str else "".join(self._plan)

    def _reply(self) -> dict[str, Any]:
        """The reply: the stream-end's response, completed from the events where it is silent."""
        reply = to_json(self._response) if self._response is not None else {}
        if type(reply) is not dict:
            reply = {}
        if reply.get("tool_calls") is None:
            calls = self._rebuilt_calls()
            if calls:
                reply["tool_calls"] = calls
        if type(reply.get("text")) is not str:
            # With calls, a v1 reply's text is the plan; without, the answer.
            reply["text"] = self._plan_text() if reply.get("tool_calls") else "".join(self._text)
        if reply.get("generation_id") is None and self._generation_id is not None:
            reply["generation_id"] = self._generation_id
        if reply.get("citations") is None and self._citations:
            reply["citations"] = list(self._citations)
        if self._meta is not None:
            reply["meta"] = self._meta
        reply["finish_reason"] = self._finish_reason
        return reply

    def _reading(self) -> Reading:
        reply = self._reply()
        reading = self._settle(
            self._read(reply), end="stream-end event", ended=self._ended, late=self._late
        )
        plan = self._plan_text()
        if plan and not reply.get("tool_calls"):  # a plan whose calls have not come yet
            reading.details["tool_plan"] = plan
        return reading
