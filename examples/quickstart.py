"""Normalize a few real-shaped replies, offline: why each one stopped, and what to do next.

Run: python examples/quickstart.py
"""

from __future__ import annotations

import stopkit

REPLIES = {
    # Anthropic: narration *and* a tool call. Branching on "is there text?" would send
    # "Let me look that order up." to the customer as the answer.
    "anthropic tool call": {
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [
            {"type": "text", "text": "Let me look that order up."},
            {"type": "tool_use", "id": "toolu_01", "name": "get_order",
             "input": {"order_id": "A-1042"}},
        ],
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 412, "output_tokens": 61},
    },
    # OpenAI with a forced tool_choice: finish_reason says "stop", yet a tool call is pending.
    "openai forced tool": {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1764000000, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {
                "name": "get_order", "arguments": "{\"order_id\": \"A-1042\"}"}}]}}],
    },
    # Gemini says STOP while asking for a function.
    "gemini STOP + call": {
        "candidates": [{"index": 0, "finishReason": "STOP", "content": {"role": "model",
            "parts": [{"functionCall": {"name": "get_order", "args": {"order_id": "A-1042"}}}]}}],
        "modelVersion": "gemini-2.5-flash",
    },
    # Cut at the token ceiling, in the middle of a tool call: never run it, never append it.
    "anthropic truncated": {
        "id": "msg_02", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "Here is the full report:\n1. Revenue grew"}],
        "stop_reason": "max_tokens", "stop_sequence": None,
        "usage": {"input_tokens": 90, "output_tokens": 1024},
    },
    # A refusal: escalate with the input preserved; retrying costs money and changes nothing.
    "openai refusal": {
        "id": "chatcmpl-2", "object": "chat.completion", "created": 1764000000, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": None, "refusal": "I can't help with that."}}],
    },
    # A value this version has never seen: unknown, raw kept — never silently "done".
    "new provider value": {
        "id": "chatcmpl-3", "object": "chat.completion", "created": 1764000000, "model": "x-1",
        "choices": [{"index": 0, "finish_reason": "budget_exhausted",
                     "message": {"role": "assistant", "content": "Partial answer"}}],
    },
}  # fmt: skip

for label, reply in REPLIES.items():
    stop = stopkit.normalize(reply)
    calls = ", ".join(f"{c.name}({c.arguments})" for c in stop.tool_calls) or "-"
    print(f"{label:<20} {stop.reason.value:<13} raw={stop.raw_reason!r:<18} calls: {calls}")
