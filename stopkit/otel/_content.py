"""Message content on spans, when the user opts in: the conventions' JSON shapes, redacted.

Off by default. When on, a model call's span gets `gen_ai.input.messages` and
`gen_ai.output.messages`, a tool call's `gen_ai.tool.call.arguments` and
`gen_ai.tool.call.result`, as JSON strings in the shapes of the conventions' schemas
(`gen-ai-input-messages.json`, `gen-ai-output-messages.json`: `{"role", "parts": [...]}` with
`text`, `tool_call`, `tool_call_response` and `reasoning` parts). Provider messages are read in
the four core shapes (Anthropic and Chat `content`, Responses items, Gemini `parts`), and
pydantic-ai's messages by their parts' `part_kind`; a part of any other kind (an image, a
server tool's block) keeps only its `type`. Everything is redacted first with stopkit's one
redaction, the one its logs and recordings use.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from stopkit._json import loads
from stopkit._logsafe import REDACTED, shorten
from stopkit._secrets import redact_text, redact_value
from stopkit._stop import Stop, ToolCall, ToolResult
from stopkit.adapters._wire import to_json
from stopkit.otel._names import FINISH_REASONS

__all__ = ["input_messages", "output_messages", "scrub_text", "tool_arguments", "tool_result"]

# Roles as the conventions name them (`Role`: system, user, assistant, tool).
_ROLES = {"model": "assistant", "developer": "system", "function": "tool"}


def scrub_text(text: str) -> str:
    """Return `text` fit for a span status: credentials redacted as in logs, cut to their length.

    Example:
        >>> scrub_text("401 for https://h.example/v1?key=AIza123")
        '401 for https://h.example/v1?key=[redacted]'
    """
    return shorten(redact_text(text, mark=REDACTED))


def _dumps(value: Any) -> str:
    """JSON of `value` with every credential in it redacted (secret keys, URL and bearer ones)."""
    return json.dumps(redact_value(value, mark=REDACTED), ensure_ascii=False, default=str)


def _tool_call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    if isinstance(arguments, str):  # Chat and Responses send the arguments as JSON text
        with contextlib.suppress(ValueError):  # not JSON: kept as the text it is
            arguments = loads(arguments)
    return {"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}


def _response(call_id: Any, response: Any) -> dict[str, Any]:
    return {"type": "tool_call_response", "id": call_id, "response": response}


def _block(block: Any) -> dict[str, Any]:
    """One element of an Anthropic, Chat or Responses `content` list."""
    if isinstance(block, str):
        return {"type": "text", "content": block}
    fields = block if isinstance(block, Mapping) else to_json(block)
    kind = fields.get("type") if isinstance(fields, Mapping) else None
    if kind in ("text", "input_text", "output_text"):
        return {"type": "text", "content": fields.get("text")}
    if kind == "tool_use":
        return _tool_call(fields.get("id"), fields.get("name"), fields.get("input"))
    if kind == "tool_result":
        return _response(fields.get("tool_use_id"), fields.get("content"))
    if kind == "thinking":
        return {"type": "reasoning", "content": fields.get("thinking")}
    return {"type": kind if isinstance(kind, str) else "unknown"}


def _part(part: Any) -> dict[str, Any]:
    """One element of a Gemini `parts` list."""
    fields = part if isinstance(part, Mapping) else to_json(part)
    if not isinstance(fields, Mapping):
        return {"type": "unknown"}
    if "text" in fields:
        kind = "reasoning" if fields.get("thought") else "text"
        return {"type": kind, "content": fields["text"]}
    call = fields.get("functionCall") or fields.get("function_call")
    if isinstance(call, Mapping):
        return _tool_call(call.get("id"), call.get("name"), call.get("args"))
    answer = fields.get("functionResponse") or fields.get("function_response")
    if isinstance(answer, Mapping):
        return _response(answer.get("id"), answer.get("response"))
    return {"type": next(iter(fields), "unknown")}


def _message(message: Any) -> dict[str, Any]:
    fields = message if isinstance(message, Mapping) else to_json(message)
    if not isinstance(fields, Mapping):
        return {"role": "user", "parts": [{"type": "text", "content": str(message)}]}
    kind = fields.get("type")
    if kind == "function_call":  # a Responses input item
        call = _tool_call(fields.get("call_id"), fields.get("name"), fields.get("arguments"))
        return {"role": "assistant", "parts": [call]}
    if kind == "function_call_output":
        return {"role": "tool", "parts": [_response(fields.get("call_id"), fields.get("output"))]}
    role = fields.get("role")
    role = _ROLES.get(role, role) if isinstance(role, str) else "user"
    content = fields.get("content")
    if role == "tool" and "tool_call_id" in fields:  # a Chat tool message
        return {"role": role, "parts": [_response(fields["tool_call_id"], content)]}
    return {"role": role, "parts": _parts(fields, content)}


def _parts(fields: Mapping[str, Any], content: Any) -> list[dict[str, Any]]:
    """A message's parts: its text or content blocks, Gemini's `parts`, Chat's `tool_calls`."""
    parts: list[dict[str, Any]] = []
    if isinstance(content, str):
        parts.append({"type": "text", "content": content})
    elif isinstance(content, Sequence):
        parts.extend(_block(block) for block in content)
    parts.extend(_part(part) for part in fields.get("parts") or ())
    for item in fields.get("tool_calls") or ():
        entry = item if isinstance(item, Mapping) else to_json(item)
        if isinstance(entry, Mapping):
            function: Mapping[str, Any] = entry.get("function") or {}
            name, arguments = function.get("name"), function.get("arguments")
            parts.append(_tool_call(entry.get("id"), name, arguments))
    return parts


# pydantic-ai's messages (pydantic_ai/messages.py): a `ModelRequest` or `ModelResponse` whose
# parts say their kind in `part_kind`; each part's role, as the conventions name it.
_PART_ROLES = {
    "system-prompt": "system", "user-prompt": "user", "tool-return": "tool",
    "retry-prompt": "tool", "text": "assistant", "tool-call": "assistant",
    "thinking": "assistant",
}  # fmt: skip


def _framework_parts(part: Any) -> list[dict[str, Any]]:
    """One part of a pydantic-ai message, as the conventions' parts."""
    kind = getattr(part, "part_kind", None)
    content = getattr(part, "content", None)
    if kind in ("tool-return", "retry-prompt") and getattr(part, "tool_call_id", None):
        return [_response(part.tool_call_id, content)]
    if kind == "tool-call":
        return [_tool_call(part.tool_call_id, part.tool_name, part.args)]
    if kind == "thinking":
        return [{"type": "reasoning", "content": content}]
    if kind in _PART_ROLES and isinstance(content, str):
        return [{"type": "text", "content": content}]
    if kind == "user-prompt" and isinstance(content, Sequence):  # text among images, files
        return [
            {"type": "text", "content": item}
            if isinstance(item, str)
            else {"type": str(getattr(item, "kind", "unknown"))}
            for item in content
        ]
    return [{"type": kind if isinstance(kind, str) else "unknown"}]  # a builtin tool's part


def _framework_messages(message: Any) -> list[dict[str, Any]] | None:
    """A pydantic-ai message as the conventions' messages (one per run of parts of one role)."""
    parts = getattr(message, "parts", None)
    if getattr(message, "kind", None) not in ("request", "response") or not isinstance(
        parts, Sequence
    ):
        return None
    out: list[dict[str, Any]] = []
    for part in parts:
        kind = getattr(part, "part_kind", None)
        if message.kind == "response":
            role = "assistant"
        else:  # a request's parts: system, user or tool
            role = _PART_ROLES.get(kind, "user") if isinstance(kind, str) else "user"
        if not out or out[-1]["role"] != role:
            out.append({"role": role, "parts": []})
        out[-1]["parts"] += _framework_parts(part)
    return out


def input_messages(messages: Sequence[Any]) -> str:
    """Return `gen_ai.input.messages` for the messages sent: redacted JSON, in the sent order.

    Example:
        >>> input_messages([{"role": "user", "content": "Hi"}])
        '[{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}]'
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        framework = None if isinstance(message, Mapping) else _framework_messages(message)
        if framework is None:
            out.append(_message(message))
        else:
            out += framework
    return _dumps(out)


def output_messages(stop: Stop) -> str:
    """Return `gen_ai.output.messages` for a reply: its text and tool calls, and finish reason.

    Example:
        >>> from stopkit import StopReason
        >>> output_messages(Stop(reason=StopReason.COMPLETED, provider="x", text="Hi"))
        '[{"role": "assistant", "parts": [{"type": "text", "content": "Hi"}], "finish_reason": "stop"}]'
    """  # noqa: E501 -- the doctest's expected output is one line
    parts: list[dict[str, Any]] = []
    if stop.text:
        parts.append({"type": "text", "content": stop.text})
    parts.extend(_tool_call(c.id, c.name, c.arguments) for c in stop.tool_calls)
    message = {"role": "assistant", "parts": parts, "finish_reason": FINISH_REASONS[stop.reason]}
    return _dumps([message])


def tool_arguments(call: ToolCall) -> str:
    """Return `gen_ai.tool.call.arguments`: the call's arguments as redacted JSON."""
    return _dumps(call.arguments)


def tool_result(result: ToolResult) -> str:
    """Return `gen_ai.tool.call.result`: what the model is sent, redacted (JSON read as JSON)."""
    try:
        return _dumps(loads(result.content))
    except ValueError:
        return _dumps(result.content)
