"""Plug stopkit into the agent loop you already have: one `match` on the stop reason.

The hand-written loop below is the usual OpenAI Chat loop; the only stopkit line is
`stop = stopkit.normalize(reply)`. The scripted replies hit the three cases that break loops
which branch on "is there text?" or on `finish_reason == "tool_calls"`: a forced tool call
that says `stop`, a reply cut at the token limit, and an answer. Run:
python examples/existing_loop.py
"""

from __future__ import annotations

import json
from typing import Any

import stopkit
from stopkit import StopReason
from stopkit.testing import ScriptedModel


def chat(message: dict[str, Any], finish: str) -> dict[str, Any]:
    """An OpenAI Chat Completions reply, as the API sends it."""
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1764460800,
            "model": "gpt-4.1", "choices": [{"index": 0, "finish_reason": finish,
            "message": {"role": "assistant", **message}}]}  # fmt: skip


call_model = ScriptedModel([
    chat({"content": "Let me look that order up.", "tool_calls": [{"id": "call_1",
          "type": "function", "function": {"name": "get_order",
          "arguments": '{"order_id": "A-1042"}'}}]}, "stop"),  # forced tool_choice: "stop"
    chat({"content": "Order A-1042 shipped yest"}, "length"),
    chat({"content": "Order A-1042 shipped yesterday and arrives Thursday."}, "stop"),
])  # fmt: skip
TOOLS = {"get_order": lambda order_id: {"order_id": order_id, "status": "shipped"}}

messages: list[dict[str, Any]] = [{"role": "user", "content": "Where is order A-1042?"}]
max_tokens = 200
for turn in range(10):
    reply = call_model(messages, max_tokens=max_tokens)
    stop = stopkit.normalize(reply)
    print(f"turn {turn + 1}: {stop.reason.value} (finish_reason {stop.raw_reason!r})")
    match stop.reason:
        case StopReason.TOOL_REQUEST:
            messages.append(reply["choices"][0]["message"])
            for call in stop.runnable_tool_calls:
                result = TOOLS[call.name](**call.arguments)
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": json.dumps(result)})  # fmt: skip
        case StopReason.OUTPUT_LIMIT:
            max_tokens *= 2  # never append the half reply; ask again with room to finish
        case StopReason.COMPLETED | StopReason.STOP_SEQUENCE:
            print("answer:", stop.text)
            break
        case _:  # filtered, paused, unknown: a person should look
            print("escalate:", stop.reason.value, stop.detail, stop.raw_reason)
            break
