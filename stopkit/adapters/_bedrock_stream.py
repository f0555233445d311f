"""The ConverseStream accumulator: events in, the `Stop` of the reassembled reply out.

Events are boto3's one-key dicts (`{"contentBlockDelta": {...}}`, as `response["stream"]`
yields them) or the same event flattened with its name in `type` (a proxy that names the event
in the SSE `event:` line). Fragments are appended to lists and joined once; the reply is
reassembled in the Converse shape and read by the adapter's own reader (given to the
accumulator), so a stream and its non-streaming twin give the same `Stop`.

The stream ends at `messageStop`, or at an exception event. After the end, no block event
changes the reply (a note counts them); the `metadata` event (usage, the guardrail trace),
InvokeModel's guardrail fields and a stricter stop value are still read.

The visible text is told as pieces (`text_pieces`) while it grows at its end: a text delta of
a block at or after the last one told. A delta to an earlier block, or a block with text that
turns out to be a call, a result or reasoning, leave the pieces unable to say it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from stopkit.adapters._accumulator import Accumulator
from stopkit.adapters._bedrock_rules import RULES, SIGNALS, STREAM_ERROR_FIELD, STREAM_ERRORS
from stopkit.adapters._calls import parse_arguments
from stopkit.adapters._reading import Reading
from stopkit.adapters._strictness import stricter
from stopkit.adapters._wire import wire

__all__ = ["BedrockStream"]

#: Top-level fields of the InvokeModel (Nova) chunks worth keeping, copied onto the reply.
_TOP_FIELDS = frozenset({"amazon-bedrock-guardrailAction", "amazon-bedrock-trace"})

#: Events that build the message: after the end, they change nothing.
_MESSAGE_EVENTS = frozenset(
    {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop"}
)

_CUT = {"complete": False, "error": "the stream ended before the call's input did"}
# The message ended, but the call's block never did: events were lost, its input may be short.
_UNCLOSED = {"complete": False, "error": "the call's block was never closed (no contentBlockStop)"}


class _Block:
    """One content block being received, by `contentBlockIndex`."""

    __slots__ = (
        "citations",
        "inputs",
        "reasoning",
        "redacted",
        "result",
        "result_content",
        "signature",
        "stopped",
        "texts",
        "tool",
    )

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.inputs: list[str] = []
        self.reasoning: list[str] = []
        self.signature: Any = None
        self.redacted: Any = None
        self.citations: list[Any] = []
        self.tool: dict[str, Any] | None = None
        self.result: dict[str, Any] | None = None
        self.result_content: list[Any] = []
        self.stopped = False

    def shows_text(self) -> bool:
        """Say whether its text is visible text: no call, result or reasoning took it over."""
        return (
            self.tool is None
            and self.result is None
            and not self.reasoning
            and self.signature is None
            and self.redacted is None
        )

    def content(self) -> dict[str, Any] | None:
        """The block as the non-streaming reply would carry it (None for an empty one)."""
        if self.shows_text():
            text = "".join(self.texts)
            if self.citations:
                cited: dict[str, Any] = {"citations": self.citations}
                if text:
                    cited["content"] = [{"text": text}]
                return {"citationsContent": cited}
            return {"text": text} if text else None
        if self.tool is not None:
            raw_input = "".join(self.inputs)
            arguments, _, complete, _ = parse_arguments(raw_input)
            # Converse replies carry the input as a JSON document: the text stays only when
            # it does not parse (cut off), so the call keeps it as `arguments_json`.
            return {"toolUse": {**self.tool, "input": arguments if complete else raw_input}}
        if self.result is not None:
            return {"toolResult": {**self.result, "content": self.result_content}}
        if self.reasoning or self.signature is not None:
            reasoning: dict[str, Any] = {"text": "".join(self.reasoning)}
            if self.signature is not None:
                reasoning["signature"] = self.signature
            return {"reasoningContent": {"reasoningText": reasoning}}
        return {"reasoningContent": {"redactedContent": self.redacted}}

    def delta(self, delta: Any) -> None:
        """Take one `contentBlockDelta.delta`: text, tool input, reasoning, a citation, results."""
        text = delta.get("text")
        if type(text) is str:
            self.texts.append(text)
            return
        tool = delta.get("toolUse")
        if tool is not None:
            fragment = wire(tool).get("input")
            if type(fragment) is str:
                self.inputs.append(fragment)
            return
        reasoning = delta.get("reasoningContent")
        if reasoning is not None:
            said = wire(reasoning)
            piece = said.get("text")
            if type(piece) is str:
                self.reasoning.append(piece)
            if said.get("signature") is not None:
                self.signature = said.get("signature")
            if said.get("redactedContent") is not None:
                self.redacted = said.get("redactedContent")
            return
        citation = delta.get("citation")
        if citation is not None:
            self.citations.append(citation)
            return
        result = delta.get("toolResult")
        if isinstance(result, list):
            self.result_content.extend(result)


class BedrockStream(Accumulator[Reading]):
    """Accumulates one ConverseStream into the `Stop` of its reassembled reply.

    Example:
        >>> from stopkit.adapters.bedrock import _read as read
        >>> acc = BedrockStream(read)
        >>> for event in [{"messageStart": {"role": "assistant"}},
        ...     {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hi"}}},
        ...     {"messageStop": {"stopReason": "end_turn"}}]:
        ...     acc.feed(event)
        >>> (acc.result().reason.value, acc.result().text)
        ('completed', 'Hi')
    """

    rules = RULES

    def __init__(self, read: Callable[[Any], Reading]) -> None:
        super().__init__(read)
        self._blocks: dict[int, _Block] = {}
        self._role: Any = "assistant"
        self._stop: dict[str, Any] | None = None
        self._held: Any = None  # the terminal signal that stands: a stopReason or an exception
        self._held_error = False
        self._error: tuple[str, Any] | None = None
        self._top: dict[str, Any] = {}
        self._end = ""  # the event that ended the stream ("" while it has not ended)
        self._ignored = 0
        self._late = 0
        self._restarted = ""  # the note of a block index started again

    def _block(self, index: int) -> _Block:
        block = self._blocks.get(index)
        if block is None:
            block = self._blocks[index] = _Block()
        return block

    def _tell(self, index: int, block: _Block, shown: bool, count: int) -> None:
        """Tell the text a block event added (`count` pieces were there, `shown` or not)."""
        if not shown:
            return  # a call, a result or reasoning: its text is never shown
        if not block.shows_text():
            if any(block.texts):
                self._told.lost()  # the text it showed is taken out
        elif len(block.texts) > count:
            self._told.add(index, block.texts[-1])

    def feed(self, event: Any) -> None:
        """Take one ConverseStream event (boto3's dict, or the flattened form)."""
        self._cached = None
        if type(event) is not dict:
            if not isinstance(event, Mapping):
                self._ignored += 1
                return
            event = dict(event)
        kind = event.get("type")
        if isinstance(kind, str):
            late = self._take(kind, event)
        else:
            late = False
            for key, payload in event.items():
                late = self._take(key, payload) or late
        if late:
            self._late += 1

    def _take(self, kind: Any, payload: Any) -> bool:
        """Take one event's member; True when it would build the message after the end."""
        if kind in _MESSAGE_EVENTS:
            if self._end:
                return True
            self._message_event(kind, wire(payload))
        elif kind == "messageStop":
            stop = payload if type(payload) is dict else {"stopReason": payload}
            if self._signal(stop.get("stopReason"), error=False):
                self._stop = stop
            self._end = self._end or kind
        elif kind == "metadata":
            fields = wire(payload)
            for name in ("usage", "metrics", "trace"):
                value = fields.get(name)
                if value is not None:
                    self._top[name] = value
        elif kind in _TOP_FIELDS:
            self._top[kind] = payload
        elif kind in STREAM_ERRORS:
            if self._error is None:
                self._error = (kind, payload)
            self._signal(kind, error=True)
            self._end = self._end or kind
        return False

    def _message_event(self, kind: str, fields: Any) -> None:
        """Take an event that builds the message: its start, or a block's start, delta or stop."""
        if kind == "messageStart":
            self._role = fields.get("role", "assistant")
            return
        index = fields.get("contentBlockIndex", 0)
        if not isinstance(index, int):
            index = 0
        block = self._block(index)
        shown, count = block.shows_text(), len(block.texts)
        if kind == "contentBlockDelta":
            block.delta(wire(fields.get("delta")))
        elif kind == "contentBlockStart":
            self._start(index, block, wire(fields.get("start")))
        else:  # contentBlockStop
            block.stopped = True
        self._tell(index, block, shown, count)

    def _start(self, index: int, block: _Block, start: Any) -> None:
        """A block's start: the toolUse or toolResult it opens (a restarted index is noted)."""
        restarted = block.tool is not None or block.result is not None
        if restarted and not self._restarted:
            self._restarted = (
                f"content block index {index!r} started again: the earlier "
                f"{'toolUse' if block.tool is not None else 'toolResult'} block was "
                "replaced (it is not in the reply)"
            )
        tool = start.get("toolUse")
        if type(tool) is dict:
            block.tool = dict(tool)
        result = start.get("toolResult")
        if type(result) is dict:
            block.result = dict(result)

    def _signal(self, value: Any, *, error: bool) -> bool:
        """Hold a terminal signal unless the one held is stricter (a later, milder one loses)."""
        if self._end and not stricter(SIGNALS, self._held, value):
            return False
        self._held, self._held_error = value, error
        return True

    def reply(self) -> dict[str, Any]:
        """Return the reply reassembled so far, in the shape Converse returns it."""
        content = [
            block for _, b in sorted(self._blocks.items()) if (block := b.content()) is not None
        ]
        reply: dict[str, Any] = {"output": {"message": {"role": self._role, "content": content}}}
        if self._stop is not None:
            reply["stopReason"] = self._stop.get("stopReason")
            extra = self._stop.get("additionalModelResponseFields")
            if extra is not None:
                reply["additionalModelResponseFields"] = extra
        reply.update(self._top)
        return reply

    def _unfinished_calls(self, reading: Reading) -> None:
        """Mark incomplete each call whose toolUse block never got its contentBlockStop.

        Its input may be cut, ended stream or not (as the Anthropic stream reads its tool_use
        blocks); said instead of any parse error, the cut being why it may not parse.
        """
        # Keyed as `ToolCall.id` is: the id as text (an id of the wrong type would not hash).
        unfinished = {
            "" if (use_id := block.tool.get("toolUseId")) is None else str(use_id)
            for block in self._blocks.values()
            if block.tool is not None and not block.stopped
        }
        if unfinished:
            why = _CUT if not self._end or self._held_error else _UNCLOSED
            reading.calls = [
                call.model_copy(update=why) if call.id in unfinished else call
                for call in reading.calls
            ]

    def _reading(self) -> Reading:
        kind, payload = self._error or ("", None)
        reading = self._settle(
            self._read(self.reply()),
            end=f"{self._end or 'messageStop'} event",
            ended=bool(self._end),
            late=self._late,
            error={kind: payload} if kind else None,
            error_note=f"the stream carried a {kind} event: {wire(payload).get('message')}",
        )
        if self._held_error:
            reading.raw_reason = self._held
            reading.field = STREAM_ERROR_FIELD
        self._unfinished_calls(reading)
        if self._ignored:
            reading.notes.append(
                f"{self._ignored} event(s) that are not ConverseStream events: ignored"
            )
        if self._restarted:
            reading.notes.append(self._restarted)
        return reading
