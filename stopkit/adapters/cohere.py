"""The Cohere v2 Chat adapter (`POST /v2/chat`): replies and their SSE streams.

A reply is `{"id", "finish_reason", "message": {"role", "content", "tool_plan", "tool_calls",
"citations"}, "usage"}`. The text is the `text` parts of `message.content` (`thinking` parts are
reasoning, not answer text); `tool_plan` is the model's plan before a tool call, kept in
`details["tool_plan"]`, never in the text. The stream reader lives in `_cohere_stream.py`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.adapters._common import (
    as_list,
    as_raw,
    field,
    look_up,
    make_stop,
    malformed_message,
    tool_call,
)

if TYPE_CHECKING:
    from stopkit.adapters._cohere_stream import CohereStream

__all__ = ["FINISH_REASON", "CohereAdapter"]

NAME = "cohere"

# Source: cohere-python 7.3.1, `cohere/types/chat_finish_reason.py` (`ChatFinishReason`, used by
# `V2ChatResponse.finish_reason` and the stream's `ChatMessageEndEventDelta.finish_reason`), and
# the API reference (docs.cohere.com/reference/chat, "finish_reason").
FINISH_REASON: dict[str, tuple[StopReason, str | None]] = {
    "COMPLETE": (StopReason.COMPLETED, None),
    "STOP_SEQUENCE": (StopReason.STOP_SEQUENCE, None),
    "MAX_TOKENS": (StopReason.OUTPUT_LIMIT, "max_tokens"),
    "TOOL_CALL": (StopReason.TOOL_REQUEST, None),
    "ERROR": (StopReason.UNKNOWN, "error"),
    "TIMEOUT": (StopReason.UNKNOWN, "timeout"),
}

_ABSENT: Any = object()


def read_text(content: Any) -> str:
    """Join the `text` parts of `message.content` (a plain string is the text itself)."""
    if isinstance(content, str):
        return content
    texts = []
    for part in as_list(content):
        if field(part, "type") == "text":
            text = field(part, "text")
            if isinstance(text, str):
                texts.append(text)
    return "".join(texts)


def build_call(call_id: Any, name: Any, arguments: Any) -> tuple[ToolCall, str | None]:
    """Build one `ToolCall` from Cohere's parts, and the note it needs, if any.

    Cohere sends the JSON text `"null"` as the arguments of a tool without parameters: it is
    read as `{}` (the call stays complete), with a note.
    """
    if isinstance(arguments, str) and arguments.strip() == "null":
        call = tool_call(call_id, name, None).model_copy(update={"arguments_json": arguments})
        return call, f"tool call {call.id!r}: arguments 'null' read as {{}}"
    return tool_call(call_id, name, arguments), None


def decide(
    raw_reason: Any,
    *,
    text: str,
    calls: list[ToolCall],
    details: dict[str, Any],
    raw: Any,
    notes: list[str],
    error: Any = None,
) -> Stop:
    """Map a finish_reason and the reply's contents onto a `Stop` (replies and streams alike)."""
    raw_reason = as_raw(raw_reason)
    reason: StopReason
    detail: str | None
    if error is not None:
        # message-end's `delta.error`: the generation failed, whatever finish_reason says.
        reason, detail = StopReason.UNKNOWN, "error"
        details["error"] = error
        notes.append(f"message-end carried an error: {error}")
    else:
        # The table inline first (the hot path makes no call), then the general rule.
        entry = FINISH_REASON.get(raw_reason) if type(raw_reason) is str else None
        reason, detail = entry or look_up(FINISH_REASON, "finish_reason", raw_reason, notes)

    # Reconciliation, in the order of DESIGN section 3.
    n = len(calls)
    if reason is StopReason.OUTPUT_LIMIT and calls:
        cut = f"the reply was cut off by the token limit ({raw_reason})"
        calls = [c.model_copy(update={"complete": False, "error": c.error or cut}) for c in calls]
        notes.append(f"finish_reason {raw_reason!r} with {n} tool call(s): marked incomplete")
    elif calls and reason in (StopReason.COMPLETED, StopReason.STOP_SEQUENCE):
        notes.append(f"finish_reason {raw_reason!r} with {n} tool call(s): treated as tool_request")
        reason, detail = StopReason.TOOL_REQUEST, None
    elif reason is StopReason.TOOL_REQUEST and not calls:
        reason, detail = StopReason.UNKNOWN, "no_pending_call"
        notes.append(f"finish_reason {raw_reason!r} with no tool call: nothing to run")
    elif reason is StopReason.UNKNOWN and calls:
        notes.append(f"{n} tool call(s) under an unknown stop are listed but must not be run")

    return make_stop(
        reason,
        provider=NAME,
        raw=raw,
        raw_reason=raw_reason,
        detail=detail,
        text=text,
        tool_calls=tuple(calls),
        notes=notes,
        details=details,
    )


class CohereAdapter:
    """Reads Cohere v2 Chat replies (JSON dicts or `cohere` SDK objects) and their SSE streams.

    Example:
        >>> stop = CohereAdapter().normalize({"id": "1", "finish_reason": "MAX_TOKENS",
        ...     "message": {"role": "assistant", "content": [{"type": "text", "text": "Hi"}]}})
        >>> (stop.reason.value, stop.detail, stop.text)
        ('output_limit', 'max_tokens', 'Hi')
    """

    name = NAME
    # A v2 Chat reply has a top-level `finish_reason`: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = ("finish_reason",)
    tables: ClassVar[dict[str, dict[str, tuple[StopReason, str | None]]]] = {
        "finish_reason": FINISH_REASON
    }
    stream_notes: ClassVar[tuple[str, ...]] = (
        "A stream's message-end event may carry `delta.error`; the reply is then unknown/error.",
        "A streamed Stop's `raw` is the reply rebuilt from the events (a v2 Chat-shaped dict).",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a v2 Chat reply: top-level `finish_reason` and `message`."""
        if type(reply) is dict:
            return (
                "finish_reason" in reply
                and "message" in reply
                and "choices" not in reply
                and "done" not in reply
                and "index" not in reply
            )
        if reply is None or isinstance(reply, str | bytes | int | float | list | tuple | dict):
            return False
        return (
            field(reply, "finish_reason", _ABSENT) is not _ABSENT
            and field(reply, "message", _ABSENT) is not _ABSENT
            and field(reply, "choices", _ABSENT) is _ABSENT
            and field(reply, "done", _ABSENT) is _ABSENT
            and field(reply, "index", _ABSENT) is _ABSENT
        )

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a v2 Chat stream event (`type` such as `message-start`)."""
        from stopkit.adapters._cohere_stream import EVENT_TYPES

        kind = field(event, "type")
        return isinstance(kind, str) and kind in EVENT_TYPES

    def normalize(self, reply: Any) -> Stop:
        """Return the `Stop` of a v2 Chat reply."""
        message = field(reply, "message")
        malformed = malformed_message(reply, message, provider=NAME, stop_field="finish_reason")
        if malformed is not None:
            return malformed
        notes: list[str] = []
        details: dict[str, Any] = {}
        plan = field(message, "tool_plan")
        if isinstance(plan, str) and plan:
            details["tool_plan"] = plan
        citations = field(message, "citations")
        if citations:
            details["citations"] = citations
        raw_calls = field(message, "tool_calls")
        if raw_calls is not None and not isinstance(raw_calls, list | tuple):
            notes.append(f"message.tool_calls is a {type(raw_calls).__name__}, not a list")
            return make_stop(
                StopReason.UNKNOWN,
                provider=NAME,
                raw=reply,
                raw_reason=field(reply, "finish_reason"),
                detail="malformed",
                text=read_text(field(message, "content")),
                notes=notes,
                details=details,
            )
        calls = []
        for item in as_list(raw_calls):
            function = field(item, "function")
            call, note = build_call(
                field(item, "id"), field(function, "name"), field(function, "arguments")
            )
            calls.append(call)
            if note:
                notes.append(note)
        return decide(
            field(reply, "finish_reason"),
            text=read_text(field(message, "content")),
            calls=calls,
            details=details,
            raw=reply,
            notes=notes,
        )

    def normalize_all(self, reply: Any) -> tuple[Stop, ...]:
        """Return the reply's one `Stop` (v2 Chat has a single message per reply)."""
        return (self.normalize(reply),)

    def stream(self) -> CohereStream:
        """Return a fresh accumulator for one v2 Chat SSE stream."""
        from stopkit.adapters._cohere_stream import CohereStream

        return CohereStream()

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
                    data = json.loads(result.content)
                except ValueError:
                    data = None
                if isinstance(data, dict):
                    block = {"type": "document", "document": {"data": data}}
            messages.append({"role": "tool", "tool_call_id": result.call_id, "content": [block]})
        return messages

    def resume(self, stop: Stop) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Refuse: Cohere v2 Chat has no paused stop, so there is nothing to resume.

        Raises:
            ValueError: always.
        """
        raise ValueError(
            f"cohere replies are never paused; cannot resume a {stop.reason.value!r} stop"
        )

    def user_message(self, text: str) -> dict[str, Any]:
        """Return a user message saying `text`: a v2 Chat message.

        Example:
            >>> CohereAdapter().user_message("Go on.")
            {'role': 'user', 'content': 'Go on.'}
        """
        return {"role": "user", "content": text}
