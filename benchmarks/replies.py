"""Realistic reply bodies for the benchmark: each core adapter x each reason.

Every body is what the provider sends over HTTP (ids, usage, model names and all), written from
the SDK types installed beside stopkit (anthropic/types/message.py,
openai/types/chat/chat_completion.py, openai/types/responses/response.py,
google/genai/types.py GenerateContentResponse). `REPLIES[adapter][case]` is a `Reply` naming the
reason stopkit must give it; tests/test_benchmarks_smoke.py checks that claim, so a row of the
table can never time a reply that normalizes to something else.

Chat Completions has no paused reply (no wire value for it): its `paused` row is absent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ADAPTERS", "CASES", "REPLIES", "Reply", "replies"]

#: The core adapters: the wire APIs of the three official SDKs.
ADAPTERS = ("anthropic", "openai.chat", "openai.responses", "gemini")
#: The reasons, as the row names say them.
CASES = ("tool_request", "completed", "truncated", "refused", "paused")


@dataclass(frozen=True)
class Reply:
    """One benchmark reply: its body and the reason stopkit must read from it."""

    adapter: str
    case: str
    reason: str
    body: dict[str, Any]


_NARRATION = (
    "I'll check the current weather in Paris and the local time there so I can tell you "
    "whether it's a good moment for a walk along the Seine."
)
_ANSWER = (
    "It's 18 °C and partly cloudy in Paris right now, with a light westerly breeze and no rain "
    "expected before 21:00. Local time is 16:42, so you have a good few hours of daylight left: "
    "a walk from the Pont Neuf to the Musée d'Orsay takes about 25 minutes at an easy pace."
)
_CUT = (
    "Here is a detailed itinerary for three days in Paris.\n\nDay 1: Start at the Louvre when it "
    "opens at 9:00, and head for the Denon wing first to see the Mona Lisa before the crowds. "
    "After lunch in the Tuileries, walk along the river to the Musée d'Orsay, where the "
    "Impressionist galleries on the fifth floor"
)
_REFUSAL = "I'm sorry, but I can't help with making that. If you're dealing with a pest problem,"
_ARGS_1 = {"city": "Paris", "country": "FR", "units": "metric"}
_ARGS_2 = {"timezone": "Europe/Paris"}
_ARGS_1_JSON = '{"city": "Paris", "country": "FR", "units": "metric"}'
_ARGS_2_JSON = '{"timezone": "Europe/Paris"}'


# --- anthropic: anthropic/types/message.py, anthropic/types/stop_reason.py -------------------


def _anthropic(content: list[dict[str, Any]], stop_reason: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 412,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 96,
            "service_tier": "standard",
        },
        **extra,
    }


_ANTHROPIC = {
    "tool_request": _anthropic(
        [
            {"type": "text", "text": _NARRATION},
            {
                "type": "tool_use",
                "id": "toolu_01HjvK8wAeTCWp6yVeUFY1ke",
                "name": "get_weather",
                "input": _ARGS_1,
            },
            {
                "type": "tool_use",
                "id": "toolu_01P5bxKuyk1rZCEv6wDv7Y9s",
                "name": "get_time",
                "input": _ARGS_2,
            },
        ],
        "tool_use",
    ),
    "completed": _anthropic([{"type": "text", "text": _ANSWER}], "end_turn"),
    "truncated": _anthropic([{"type": "text", "text": _CUT}], "max_tokens"),
    "refused": _anthropic([{"type": "text", "text": _REFUSAL}], "refusal"),
    "paused": _anthropic(
        [
            {"type": "text", "text": "Let me search for the latest forecast."},
            {
                "type": "server_tool_use",
                "id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
                "name": "web_search",
                "input": {"query": "Paris weather forecast this week"},
            },
        ],
        "pause_turn",
    ),
}


# --- openai.chat: openai/types/chat/chat_completion.py ---------------------------------------


def _chat(message: dict[str, Any], finish_reason: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-CHx4Zq7bJ0dTBmLZ9R3yQkYx1vWpA",
        "object": "chat.completion",
        "created": 1764000000,
        "model": "gpt-4.1-2025-04-14",
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
        ],
        "usage": {
            "prompt_tokens": 412,
            "completion_tokens": 96,
            "total_tokens": 508,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_b3f1157249",
    }


def _chat_message(content: str | None, **extra: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "refusal": None, "annotations": [], **extra}


_CHAT = {
    "tool_request": _chat(
        _chat_message(
            _NARRATION,
            tool_calls=[
                {
                    "id": "call_Dq2p7iA8hCkXcZ0o5pWnV3Ry",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": _ARGS_1_JSON},
                },
                {
                    "id": "call_Fm5t9kB2jL4yQwE8rUx1N6Sv",
                    "type": "function",
                    "function": {"name": "get_time", "arguments": _ARGS_2_JSON},
                },
            ],
        ),
        "tool_calls",
    ),
    "completed": _chat(_chat_message(_ANSWER), "stop"),
    "truncated": _chat(_chat_message(_CUT), "length"),
    "refused": _chat(
        {"role": "assistant", "content": None, "refusal": _REFUSAL, "annotations": []}, "stop"
    ),
}


# --- openai.responses: openai/types/responses/response.py ------------------------------------


def _responses(
    output: list[dict[str, Any]], status: str = "completed", **extra: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "resp_68af4030592c81938ec0a5fbab4a3e9f05438e46b5f69a3b",
        "object": "response",
        "created_at": 1764000000,
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": None,
        "model": "gpt-5-2025-08-07",
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": "medium", "summary": None},
        "store": True,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": {
            "input_tokens": 412,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 96,
            "output_tokens_details": {"reasoning_tokens": 64},
            "total_tokens": 508,
        },
        "user": None,
        "metadata": {},
    }
    body.update(extra)
    return body


_REASONING = {"id": "rs_68af4031a1d08193b8e6e0d1", "type": "reasoning", "summary": []}


def _message_item(text: str, status: str = "completed") -> dict[str, Any]:
    return {
        "id": "msg_68af4033e3c88193a0b63c5e",
        "type": "message",
        "status": status,
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
    }


_RESPONSES = {
    "tool_request": _responses(
        [
            _REASONING,
            _message_item(_NARRATION),
            {
                "id": "fc_68af4034b1f08193b16fa8e2",
                "type": "function_call",
                "status": "completed",
                "call_id": "call_Dq2p7iA8hCkXcZ0o5pWnV3Ry",
                "name": "get_weather",
                "arguments": _ARGS_1_JSON,
            },
            {
                "id": "fc_68af4034c2e48193a5d1c0b7",
                "type": "function_call",
                "status": "completed",
                "call_id": "call_Fm5t9kB2jL4yQwE8rUx1N6Sv",
                "name": "get_time",
                "arguments": _ARGS_2_JSON,
            },
        ]
    ),
    "completed": _responses([_REASONING, _message_item(_ANSWER)]),
    "truncated": _responses(
        [_REASONING, _message_item(_CUT, status="incomplete")],
        status="incomplete",
        incomplete_details={"reason": "max_output_tokens"},
        max_output_tokens=96,
    ),
    "refused": _responses(
        [
            {
                "id": "msg_68af4033e3c88193a0b63c5e",
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "refusal", "refusal": _REFUSAL}],
            }
        ]
    ),
    "paused": _responses([], status="in_progress", background=True, usage=None),
}


# --- gemini: google/genai/types.py GenerateContentResponse, Candidate, FinishReason ----------


def _gemini(candidate: dict[str, Any]) -> dict[str, Any]:
    return {
        "candidates": [{"index": 0, **candidate}],
        "usageMetadata": {
            "promptTokenCount": 412,
            "candidatesTokenCount": 96,
            "totalTokenCount": 572,
            "thoughtsTokenCount": 64,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 412}],
        },
        "modelVersion": "gemini-2.5-flash",
        "responseId": "i3qLaO2hN7GtkdUP0vWU8QY",
    }


def _gemini_content(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "model", "parts": list(parts)}


_GEMINI = {
    "tool_request": _gemini(
        {
            "content": _gemini_content(
                {"text": _NARRATION},
                {
                    "functionCall": {"name": "get_weather", "args": _ARGS_1},
                    "thoughtSignature": "BwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkq",
                },
                {"functionCall": {"name": "get_time", "args": _ARGS_2}},
            ),
            "finishReason": "STOP",
        }
    ),
    "completed": _gemini({"content": _gemini_content({"text": _ANSWER}), "finishReason": "STOP"}),
    "truncated": _gemini(
        {"content": _gemini_content({"text": _CUT}), "finishReason": "MAX_TOKENS"}
    ),
    "refused": _gemini(
        {
            "finishReason": "SAFETY",
            "safetyRatings": [
                {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH",
                 "blocked": True},
                {"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"},
                {"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "NEGLIGIBLE"},
                {"category": "HARM_CATEGORY_SEXUALLY_EXPLICIT", "probability": "NEGLIGIBLE"},
            ],
        }
    ),
    "paused": _gemini(
        {
            "content": _gemini_content({"text": _CUT}),
            "finishReason": "CONTINUATION",
            "continuationToken": "Q2hhcHRlcl9vbmVfdG9rZW4=",
        }
    ),
}

_REASON = {
    "tool_request": "tool_request",
    "completed": "completed",
    "truncated": "output_limit",
    "refused": "filtered",
    "paused": "paused",
}

REPLIES: dict[str, dict[str, Reply]] = {
    adapter: {case: Reply(adapter, case, _REASON[case], body) for case, body in bodies.items()}
    for adapter, bodies in (
        ("anthropic", _ANTHROPIC),
        ("openai.chat", _CHAT),
        ("openai.responses", _RESPONSES),
        ("gemini", _GEMINI),
    )
}


def replies() -> list[Reply]:
    """Return every benchmark reply, adapter by adapter, in `CASES` order."""
    return [REPLIES[a][c] for a in ADAPTERS for c in CASES if c in REPLIES[a]]
