"""The xAI stream accumulator: `Chat.stream()`'s chunks into the `Stop` of the whole reply.

Each chunk (`GetChatCompletionChunk`: `outputs: [{index, delta: {role, content,
reasoning_content, tool_calls}, finish_reason}]`, and `usage`) is read through its JSON form;
`Chat.stream()` yields it as the second of a `(Response, Chunk)` pair. The deltas are collected
per output index (joined once), the reply is rebuilt in `GetChatCompletionResponse`'s shape and
read by the adapter's own reader, so a stream and its non-streaming twin give the same `Stop`.

The stream ends at the first finish_reason other than the proto default (REASON_INVALID);
after it no text or call is taken (a note counts the chunks), usage and a stricter
finish_reason still are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from stopkit.adapters._accumulator import Accumulator
from stopkit.adapters._reading import Reading
from stopkit.adapters._strictness import stricter
from stopkit.adapters._wire import either, listed, wire
from stopkit.adapters._xai_rules import FINISH_REASON, RULES

__all__ = ["XAIStream"]

_UNSET = "REASON_INVALID"


class _Output:
    """One output being received, by its `index`."""

    __slots__ = ("calls", "finish", "ids", "reasoning", "role", "texts")

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.reasoning: list[str] = []
        self.calls: list[Any] = []
        self.ids: set[str] = set()
        self.role: Any = None
        self.finish: Any = None


class XAIStream(Accumulator[Reading]):
    """Collects one `Chat.stream()`; `result()` gives the `Stop` of its first output.

    Example:
        >>> from stopkit.adapters.xai import _fields_of as fields_of, _readings as readings
        >>> acc = XAIStream(lambda reply: readings(reply)[0], fields_of)
        >>> acc.feed({"outputs": [{"delta": {"role": "ROLE_ASSISTANT", "content": "Hi"},
        ...     "finish_reason": "REASON_STOP"}]})
        >>> acc.result().text
        'Hi'
    """

    rules = RULES

    def __init__(
        self, read: Callable[[Any], Reading], fields_of: Callable[[Any], Mapping[str, Any]]
    ) -> None:
        super().__init__(read)
        self._fields_of = fields_of
        self._outputs: dict[int, _Output] = {}
        self._top: dict[str, Any] = {}  # id, model, usage, citations: the latest said
        self._ended = False
        self._late = 0
        self._notes: list[str] = []

    def text_pieces(self) -> list[str] | None:
        """The first output's visible text so far, as its pieces."""
        if not self._outputs:
            return None
        return self._outputs[min(self._outputs)].texts

    def feed(self, event: Any) -> None:
        """Take one `(Response, Chunk)` pair, a `Chunk`, its proto, or its JSON."""
        self._cached = None
        if type(event) is tuple and len(event) == 2:
            event = event[1]  # the pair's Response is the SDK's own accumulation
        fields = self._fields_of(event)
        for name in ("id", "model", "usage", "citations"):
            value = fields.get(name)
            if value:
                self._top[name] = value
        late = False
        for item in listed(fields.get("outputs")):
            said = wire(item)
            index = said.get("index")
            output = self._outputs.setdefault(index if type(index) is int else 0, _Output())
            finish = either(said, "finishReason", "finish_reason")
            if self._ended:
                late = True
                if stricter(FINISH_REASON, output.finish, finish):
                    output.finish = finish
                continue
            delta = wire(said.get("delta"))
            output.role = delta.get("role") or output.role
            content = delta.get("content")
            if type(content) is str and content:
                output.texts.append(content)
            thinking = either(delta, "reasoningContent", "reasoning_content")
            if type(thinking) is str and thinking:
                output.reasoning.append(thinking)
            for call in listed(either(delta, "toolCalls", "tool_calls")):
                self._take_call(output, call)
            if finish is not None and finish != _UNSET:
                output.finish = finish
                self._ended = True
        self._late += late

    def _take_call(self, output: _Output, call: Any) -> None:
        """Add a call (each arrives whole); one whose id came already is a repeat, dropped."""
        call_id = wire(call).get("id")
        if type(call_id) is str and call_id:
            if call_id in output.ids:
                self._notes.append(f"tool call {call_id!r} came twice: the repeat dropped")
                return
            output.ids.add(call_id)
        output.calls.append(call)

    def _reply(self) -> dict[str, Any]:
        """The reply rebuilt from the chunks, in `GetChatCompletionResponse`'s JSON shape."""
        outputs = []
        for index, output in sorted(self._outputs.items()):
            message: dict[str, Any] = {"role": output.role, "content": "".join(output.texts)}
            if output.reasoning:
                message["reasoning_content"] = "".join(output.reasoning)
            if output.calls:
                message["tool_calls"] = output.calls
            outputs.append({"index": index, "finish_reason": output.finish, "message": message})
        return {**self._top, "outputs": outputs}

    def _reading(self) -> Reading:
        reading = self._read(self._reply())
        reading.notes.extend(self._notes)
        return self._settle(
            reading,
            end="chunk with a finish_reason",
            ended=self._ended,
            late=self._late,
        )
