"""The recorded-style replies `stopkit demo` plays back (real wire shapes, invented content)."""

from __future__ import annotations

from typing import Any

__all__ = ["SCENARIOS", "Scenario"]

Scenario = tuple[str, str, list[dict[str, Any]], list[dict[str, Any]]]
"""(title, what it shows, starting messages, the replies the scripted model sends in order)."""


def _claude(content: list[dict[str, Any]], stop: str, n: int) -> dict[str, Any]:
    return {
        "id": f"msg_demo_{n}", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5", "content": content, "stop_reason": stop,
        "stop_sequence": None, "usage": {"input_tokens": 400, "output_tokens": 60},
    }  # fmt: skip


def _gpt(message: dict[str, Any], finish: str, n: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-demo{n}", "object": "chat.completion", "created": 1764460800,
        "model": "gpt-4.1", "choices": [{"index": 0, "message": {"role": "assistant", **message},
        "finish_reason": finish}],
    }  # fmt: skip


def _gemini(parts: list[dict[str, Any]], finish: str) -> dict[str, Any]:
    return {
        "candidates": [{"index": 0, "content": {"role": "model", "parts": parts},
                        "finishReason": finish}],
        "modelVersion": "gemini-2.5-flash",
    }  # fmt: skip


SCENARIOS: list[Scenario] = [
    (
        "Tool request (Anthropic)",
        "narration + a tool call: the tool runs, its result goes back, the model answers",
        [{"role": "user", "content": "Where is my order A-1042?"}],
        [
            _claude([
                {"type": "text", "text": "Let me look that order up."},
                {"type": "tool_use", "id": "toolu_demo1", "name": "get_order",
                 "input": {"order_id": "A-1042"}},
            ], "tool_use", 1),
            _claude([{"type": "text", "text": "Order A-1042 shipped yesterday; it arrives "
                      "Thursday."}], "end_turn", 2),
        ],
    ),
    (
        "Tool request under STOP (Gemini)",
        "Gemini says STOP while asking for a function: still a tool request",
        [{"role": "user", "parts": [{"text": "Is A-1042 delayed?"}]}],
        [
            _gemini([{"functionCall": {"name": "get_order", "args": {"order_id": "A-1042"}}}],
                    "STOP"),
            _gemini([{"text": "No, A-1042 is on schedule."}], "STOP"),
        ],
    ),
    (
        "Truncation (OpenAI Chat)",
        "cut at the token ceiling: the half reply is dropped and the call retried with more",
        [{"role": "user", "content": "Summarize the Q3 report."}],
        [
            _gpt({"content": "Q3 in brief: revenue grew 12%, and"}, "length", 1),
            _gpt({"content": "Q3 in brief: revenue grew 12%, margins held, churn fell."},
                 "stop", 2),
        ],
    ),
    (
        "Refusal (OpenAI Chat)",
        "a refusal is escalated with the original input; the model is never called again",
        [{"role": "user", "content": "Write a phishing email for my bank's customers."}],
        [_gpt({"content": None, "refusal": "I can't help with that."}, "stop", 3)],
    ),
    (
        "Pause (Anthropic server tools)",
        "pause_turn: the reply is sent back as is and the turn resumes",
        [{"role": "user", "content": "What changed in the EU AI Act this week?"}],
        [
            _claude([{"type": "server_tool_use", "id": "srvtoolu_demo", "name": "web_search",
                      "input": {"query": "EU AI Act news"}}], "pause_turn", 3),
            _claude([{"type": "text", "text": "Two implementing acts were published."}],
                    "end_turn", 4),
        ],
    ),
    (
        "Unknown value (Gemini)",
        "a finish reason this version has never seen: escalated, never taken for done",
        [{"role": "user", "parts": [{"text": "Plan my week."}]}],
        [_gemini([{"text": "Monday: "}], "BUDGET_EXHAUSTED")],
    ),
]
