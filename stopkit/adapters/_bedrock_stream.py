"""The ConverseStream accumulator: events in, the `Stop` of the reassembled reply out.

Events are boto3's one-key dicts (`{"contentBlockDelta": {...}}`, as `response["stream"]`
yields them) or the same event flattened with its name in `type` (a proxy that names the event
in the SSE `event:` line). Fragments are appended to lists and joined once; the reply is
reassembled in the Converse shape and read by the non-streaming rules, so a stream and its
non-streaming twin give the same `Stop`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stopkit._stop import Stop, StopReason
from stopkit.adapters._common import field, make_stop, parse_arguments
from stopkit.adapters.bedrock import PROVIDER, STREAM_ERRORS, read_content, read_reply

__all__ = ["BedrockStream"]

#: Top-level fields of the InvokeModel (Nova) chunks worth keeping, copied onto the reply.
_TOP_FIELDS = ("amazon-bedrock-guardrailAction", "amazon-bedrock-trace")


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

    def content(self) -> dict[str, Any] | None:
        """The block as the non-streaming reply would carry it (None for an empty one)."""
        text = "".join(self.texts)
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
        if self.redacted is not None:
            return {"reasoningContent": {"redactedContent": self.redacted}}
        if self.citations:
            cited: dict[str, Any] = {"citations": self.citations}
            if text:
                cited["content"] = [{"text": text}]
            return {"citationsContent": cited}
        return {"text": text} if text else None


class BedrockStream:
    """Accumulates one ConverseStream into the `Stop` of its reassembled reply.

    Example:
        >>> acc = BedrockStream()
        >>> for event in [{"messageStart": {"role": "assistant"}},
        ...     {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hi"}}},
        ...     {"messageStop": {"stopReason": "end_turn"}}]:
        ...     acc.feed(event)
        >>> (acc.result().reason.value, acc.result().text)
        ('completed', 'Hi')
    """

    def __init__(self) -> None:
        self._blocks: dict[int, _Block] = {}
        self._role: Any = "assistant"
        self._stop: Any = None
        self._top: dict[str, Any] = {}
        self._error: tuple[str, Any] | None = None
        self._ignored = 0
        self._cached: Stop | None = None

    def _block(self, payload: Any) -> _Block:
        index = field(payload, "contentBlockIndex", 0)
        if not isinstance(index, int):
            index = 0
        block = self._blocks.get(index)
        if block is None:
            block = self._blocks[index] = _Block()
        return block

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
            self._take(kind, event)
            return
        for key, payload in event.items():
            self._take(key, payload)

    def _take(self, kind: str, payload: Any) -> None:
        if kind == "contentBlockDelta":
            delta = field(payload, "delta")
            block = self._block(payload)
            text = field(delta, "text")
            if isinstance(text, str):
                block.texts.append(text)
                return
            tool = field(delta, "toolUse")
            if tool is not None:
                fragment = field(tool, "input")
                if isinstance(fragment, str):
                    block.inputs.append(fragment)
                return
            reasoning = field(delta, "reasoningContent")
            if reasoning is not None:
                piece = field(reasoning, "text")
                if isinstance(piece, str):
                    block.reasoning.append(piece)
                if field(reasoning, "signature") is not None:
                    block.signature = field(reasoning, "signature")
                if field(reasoning, "redactedContent") is not None:
                    block.redacted = field(reasoning, "redactedContent")
                return
            citation = field(delta, "citation")
            if citation is not None:
                block.citations.append(citation)
                return
            result = field(delta, "toolResult")
            if isinstance(result, list):
                block.result_content.extend(result)
        elif kind == "contentBlockStart":
            block = self._block(payload)
            start = field(payload, "start")
            tool = field(start, "toolUse")
            if type(tool) is dict:
                block.tool = dict(tool)
            result = field(start, "toolResult")
            if type(result) is dict:
                block.result = dict(result)
        elif kind == "contentBlockStop":
            self._block(payload).stopped = True
        elif kind == "messageStop":
            self._stop = payload if type(payload) is dict else {"stopReason": payload}
        elif kind == "messageStart":
            self._role = field(payload, "role", "assistant")
        elif kind == "metadata":
            for name in ("usage", "metrics", "trace"):
                value = field(payload, name)
                if value is not None:
                    self._top[name] = value
        elif kind in _TOP_FIELDS:
            self._top[kind] = payload
        elif kind in STREAM_ERRORS and self._error is None:
            self._error = (kind, payload)

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

    def result(self) -> Stop:
        """Return the `Stop` for what was fed so far (`stream_incomplete` before messageStop)."""
        if self._cached is None:
            stop = self._result()
            if self._ignored:
                note = f"{self._ignored} event(s) that are not ConverseStream events: ignored"
                stop = stop.model_copy(update={"notes": (*stop.notes, note)})
            self._cached = stop
        return self._cached

    def _result(self) -> Stop:
        reply = self.reply()
        if self._error is None and self._stop is not None:
            return read_reply(reply, reply)
        notes: list[str] = []
        text, calls, _ = read_content(reply["output"]["message"]["content"], notes)
        details: dict[str, Any] = {k: v for k, v in reply.items() if k in _TOP_FIELDS}
        if "trace" in reply:
            details["trace"] = reply["trace"]
        if self._error is not None:
            kind, payload = self._error
            reason, detail = STREAM_ERRORS[kind]
            notes.insert(0, f"the stream ended with a {kind} event: {field(payload, 'message')}")
            details["error"] = {kind: payload}
            raw_reason: Any = kind
        else:
            reason, detail, raw_reason = StopReason.UNKNOWN, "stream_incomplete", None
            notes.insert(0, "the stream ended without its messageStop event")
        # Keyed as `ToolCall.id` is: the id as text (an id of the wrong type would not hash).
        unfinished = {
            "" if (use_id := field(b.tool, "toolUseId")) is None else str(use_id)
            for b in self._blocks.values()
            if b.tool is not None and not b.stopped
        }
        calls = [
            call.model_copy(
                update={
                    "complete": False,
                    "error": call.error or "the stream ended before the call's input did",
                }
            )
            if call.id in unfinished
            else call
            for call in calls
        ]
        return make_stop(
            reason,
            provider=PROVIDER,
            raw=reply,
            raw_reason=raw_reason,
            detail=detail,
            text=text,
            tool_calls=tuple(calls),
            notes=notes,
            details=details,
        )
