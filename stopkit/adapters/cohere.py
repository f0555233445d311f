"""The Cohere v2 Chat adapter (`POST /v2/chat`): replies and their SSE streams.

A reply is `{"id", "finish_reason", "message": {"role", "content", "tool_plan", "tool_calls",
"citations"}, "usage"}`. The text is the `text` parts of `message.content` (`thinking` parts are
reasoning, not answer text); `tool_plan` is the model's plan before a tool call, kept in
`details["tool_plan"]`, never in the text. The stream accumulator lives in `_cohere_stream.py`.

Example:
    >>> stop = CohereAdapter().normalize({"id": "1", "finish_reason": "COMPLETE",
    ...     "message": {"role": "assistant", "content": [{"type": "text", "text": "Hi"}]}})
    >>> (stop.reason.value, stop.text)
    ('completed', 'Hi')
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

from stopkit._json import loads
from stopkit._stop import Stop, ToolCall, ToolResult
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._calls import tool_call
from stopkit.adapters._cohere_rules import FINISH_REASON, PROVIDER, RULES
from stopkit.adapters._cohere_stream import EVENT_TYPES, CohereStream
from stopkit.adapters._cohere_usage import usage
from stopkit.adapters._reading import Reading, Verdict, identify
from stopkit.adapters._wire import listed, not_an_object, wire

__all__ = ["CohereAdapter"]

_ABSENT: Any = object()


def _read(reply: Any) -> Reading:
    """Read one v2 Chat reply (a JSON dict or the SDK's `V2ChatResponse`) into its facts.

    Example:
        >>> _read({"finish_reason": "COMPLETE", "message": {"content": "Hi"}}).text
        'Hi'
    """
    fields = wire(reply)
    reading = Reading(reply, fields.get("finish_reason"))
    # cohere/v2/types/v2chat_response.py: `id`; a v2 reply does not name its model.
    identify(reading, None, fields.get("id"))
    message = fields.get("message")
    reading.malformed = not_an_object(message, "message")
    if reading.malformed is None:
        _read_message(reading, wire(message))
    counted = fields.get("usage")
    if counted is not None:
        reading.details["usage"] = counted
        reading.usage = usage(counted)  # usage.tokens; billed_units stays in details
    return reading


def _read_message(reading: Reading, message: Any) -> None:
    """Read `message`: text parts, tool_plan and citations (into details), tool calls."""
    reading.text = _read_text(message.get("content"))
    plan = message.get("tool_plan")
    if type(plan) is str and plan:
        reading.details["tool_plan"] = plan
    citations = message.get("citations")
    if citations:
        reading.details["citations"] = citations
    raw_calls = message.get("tool_calls")
    if raw_calls is not None and not isinstance(raw_calls, list | tuple):
        reading.malformed = f"message.tool_calls is a {type(raw_calls).__name__}, not a list"
        return
    calls: list[ToolCall] = []
    for item in listed(raw_calls):
        said = wire(item)
        function = wire(said.get("function"))
        call, note = _build_call(said.get("id"), function.get("name"), function.get("arguments"))
        calls.append(call)
        if note:
            reading.notes.append(note)
    reading.calls = calls


def _read_text(content: Any) -> str:
    """Join the `text` parts of `message.content` (a plain string is the text itself)."""
    if type(content) is str:
        return content
    texts = []
    for part in listed(content):
        said = wire(part)
        if said.get("type") == "text":
            text = said.get("text")
            if type(text) is str:
                texts.append(text)
    return "".join(texts)


def _build_call(call_id: Any, name: Any, arguments: Any) -> tuple[ToolCall, str | None]:
    """Build one `ToolCall` from Cohere's parts, and the note it needs, if any.

    Cohere sends the JSON text `"null"` as the arguments of a tool without parameters: it is
    read as `{}` (the call stays complete), with a note.

    Example:
        >>> _build_call("t1", "now", "null")[0].arguments
        {}
    """
    if type(arguments) is str and arguments.strip() == "null":
        call = tool_call(call_id, name, None).model_copy(update={"arguments_json": arguments})
        return call, f"tool call {call.id!r}: arguments 'null' read as {{}}"
    return tool_call(call_id, name, arguments), None


class CohereAdapter(BaseAdapter):
    """Reads Cohere v2 Chat replies (JSON dicts or `cohere` SDK objects) and their SSE streams.

    Example:
        >>> stop = CohereAdapter().normalize({"id": "1", "finish_reason": "MAX_TOKENS",
        ...     "message": {"role": "assistant", "content": [{"type": "text", "text": "Hi"}]}})
        >>> (stop.reason.value, stop.detail, stop.text)
        ('output_limit', 'max_tokens', 'Hi')
    """

    name = PROVIDER
    rules = RULES
    otel_provider = "cohere"  # gen-ai-spans.md's well-known value
    read = staticmethod(_read)
    # A v2 Chat reply has a top-level `finish_reason`: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = ("finish_reason",)
    tables: ClassVar[dict[str, dict[str, Verdict]]] = {"finish_reason": FINISH_REASON}
    stream_notes = (
        "A stream's message-end event may carry `delta.error`; the reply is then unknown/error.",
        "After message-end no content or tool-call event changes the reply (a note counts "
        "them); a later message-end is read for its usage, and for its finish_reason only "
        "when that is stricter.",
        "A streamed Stop's `raw` is the reply rebuilt from the events (a v2 Chat-shaped dict).",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a v2 Chat reply: top-level `finish_reason` and `message`."""
        fields = wire(reply)
        return (
            fields.get("finish_reason", _ABSENT) is not _ABSENT
            and fields.get("message", _ABSENT) is not _ABSENT
            and fields.get("choices", _ABSENT) is _ABSENT
            and fields.get("done", _ABSENT) is _ABSENT
            and fields.get("index", _ABSENT) is _ABSENT
        )

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a v2 Chat stream event (`type` such as `message-start`)."""
        kind = wire(event).get("type")
        return type(kind) is str and kind in EVENT_TYPES

    def stream(self) -> CohereStream:
        """Return a fresh accumulator for one v2 Chat SSE stream."""
        return CohereStream(_read)

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the assistant message that appends this reply to a v2 Chat `messages` list.

        Tool calls are sent back with their `tool_plan` (Cohere expects both); the arguments are
        the JSON text as the model sent it.

        Example:
            >>> CohereAdapter().assistant_message(stop)  # doctest: +SKIP
            [{'role': 'assistant', 'tool_plan': '...', 'tool_calls': [...]}]
        """
        message: dict[str, Any] = {"role": "assistant"}
        if stop.tool_calls:
            plan = stop.details.get("tool_plan")
            if isinstance(plan, str) and plan:
                message["tool_plan"] = plan
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": call.arguments_json
                        if call.arguments_json is not None
                        else json.dumps(call.arguments),
                    },
                }
                for call in stop.tool_calls
            ]
            if stop.text:
                message["content"] = stop.text
        else:
            message["content"] = stop.text
        return [message]

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one `{"role": "tool", "tool_call_id", "content"}` message per result.

        A result whose content is a JSON object is sent as a `document` block (the model can
        cite it); anything else as a `text` block. Cohere has no error flag: an error result's
        content says what went wrong.

        Example:
            >>> CohereAdapter().tool_results(stop, [ToolResult(call_id="c1", name="f",
            ...     content='{"temp": 21}')])  # doctest: +SKIP
            [{'role': 'tool', 'tool_call_id': 'c1', 'content': [{'type': 'document', ...}]}]
        """
        messages = []
        for result in results:
            block: dict[str, Any] = {"type": "text", "text": result.content}
            if result.content.lstrip().startswith("{"):
                try:
                    data = loads(result.content)
                except ValueError:
                    data = None
                if isinstance(data, dict):
                    block = {"type": "document", "document": {"data": data}}
            messages.append({"role": "tool", "tool_call_id": result.call_id, "content": [block]})
        return messages
