"""Continuing a Chat Completions conversation: the assistant message and the tool messages.

Kept apart from `openai_chat.py` (which reads replies); the loop calls these through the
adapter. Tool calls go back with their arguments exactly as the model sent them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from stopkit._stop import Stop, ToolCall, ToolResult

__all__ = ["assistant_message", "tool_results"]


def assistant_message(stop: Stop) -> list[dict[str, Any]]:
    """Return the assistant message as sent: role, content, tool calls, refusal.

    Tool calls carry their arguments as the string the model sent (re-encoded only when
    none was sent); a legacy `function_call` reply gives a `function_call` message.

    Example:
        >>> assistant_message(stop)  # doctest: +SKIP
        [{'role': 'assistant', 'content': None, 'tool_calls': [...]}]
    """
    message: dict[str, Any] = {"role": "assistant"}
    calls = stop.tool_calls
    message["content"] = stop.text if stop.text or not calls else None
    if stop.refusal:
        message["refusal"] = stop.refusal
    if stop.details.get("legacy_function_call") and calls:
        call = calls[0]
        message["function_call"] = {"name": call.name, "arguments": _arguments(call)}
    elif calls:
        custom = set(stop.details.get("custom_tool_calls", ()))
        message["tool_calls"] = [
            {
                "id": c.id,
                "type": "custom",
                "custom": {"name": c.name, "input": c.arguments.get("input", "")},
            }
            if c.id in custom
            else {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": _arguments(c)},
            }
            for c in calls
        ]
    return [message]


def tool_results(stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
    """Return one `tool` message per call id, in order (`function` for a legacy call).

    Example:
        >>> tool_results(stop, [ToolResult(call_id="call_1",
        ...     name="f", content="42")])  # doctest: +SKIP
        [{'role': 'tool', 'tool_call_id': 'call_1', 'content': '42'}]
    """
    if stop.details.get("legacy_function_call"):
        return [{"role": "function", "name": r.name, "content": r.content} for r in results]
    return [{"role": "tool", "tool_call_id": r.call_id, "content": r.content} for r in results]


def _arguments(call: ToolCall) -> str:
    if call.arguments_json is not None:
        return call.arguments_json
    return json.dumps(call.arguments, ensure_ascii=False)
