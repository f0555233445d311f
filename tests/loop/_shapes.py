"""Replies in each core provider's documented wire shape, for the loop tests.

Each provider gets a small `Shapes` builder of replies (the same shapes as
tests/payloads/<adapter>/), and a reader that pairs the calls in a transcript with their
results.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar

import stopkit

Call = tuple[str, str, dict[str, Any]]  # (id, name, arguments)


class Anthropic:
    """Messages API replies (anthropic/types/message.py, stop_reason.py)."""

    name = "anthropic"
    user: ClassVar[dict[str, Any]] = {
        "role": "user",
        "content": "What is the weather in Paris and Tokyo?",
    }
    can_pause = True

    @staticmethod
    def _msg(content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
        return {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }

    @staticmethod
    def _text(text: str) -> list[dict[str, Any]]:
        return [{"type": "text", "text": text}] if text else []

    def text(self, text: str) -> dict[str, Any]:
        return self._msg(self._text(text), "end_turn")

    def tools(self, calls: Sequence[Call], text: str = "") -> dict[str, Any]:
        uses = [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]
        return self._msg([*self._text(text), *uses], "tool_use")

    def truncated(self, text: str, cut_call: Call | None = None) -> dict[str, Any]:
        uses = [
            {"type": "tool_use", "id": c[0], "name": c[1], "input": c[2]}
            for c in [cut_call]
            if c is not None
        ]
        return self._msg([*self._text(text), *uses], "max_tokens")

    def refusal(self) -> dict[str, Any]:
        return self._msg(self._text("I can't help with that."), "refusal")

    def paused(self, text: str) -> dict[str, Any]:
        search = {
            "type": "server_tool_use",
            "id": "srvtoolu_01",
            "name": "web_search",
            "input": {"query": "weather"},
        }
        return self._msg([*self._text(text), search], "pause_turn")

    def unknown(self, call: Call) -> dict[str, Any]:
        use = {"type": "tool_use", "id": call[0], "name": call[1], "input": call[2]}
        return self._msg([use], "a_future_stop_reason")

    def pairs(self, messages: Sequence[Any]) -> tuple[list[str], list[str]]:
        calls: list[str] = []
        results: list[str] = []
        for m in messages:
            for block in m["content"] if isinstance(m.get("content"), list) else []:
                if block["type"] == "tool_use":
                    calls.append(block["id"])
                elif block["type"] == "tool_result":
                    results.append(block["tool_use_id"])
        return calls, results

    def error_results(self, messages: Sequence[Any]) -> dict[str, str]:
        return {
            b["tool_use_id"]: b["content"]
            for m in messages
            if isinstance(m.get("content"), list)
            for b in m["content"]
            if b["type"] == "tool_result" and b.get("is_error")
        }


class OpenAIChat:
    """Chat Completions replies (openai/types/chat/chat_completion.py)."""

    name = "openai.chat"
    user: ClassVar[dict[str, Any]] = {
        "role": "user",
        "content": "What is the weather in Paris and Tokyo?",
    }
    can_pause = False  # Chat Completions has no paused stop

    @staticmethod
    def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1735689600,
            "model": "gpt-4o",
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }

    @staticmethod
    def _calls(calls: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
        return [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
            for i, n, a in calls
        ]

    def text(self, text: str) -> dict[str, Any]:
        return self._completion({"role": "assistant", "content": text, "refusal": None}, "stop")

    def tools(self, calls: Sequence[Call], text: str = "") -> dict[str, Any]:
        encoded = [(i, n, json.dumps(a)) for i, n, a in calls]
        return self._completion(
            {"role": "assistant", "content": text or None, "tool_calls": self._calls(encoded)},
            "tool_calls",
        )

    def truncated(self, text: str, cut_call: Call | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if cut_call is not None:
            cut = json.dumps(cut_call[2])[:-3]
            message["tool_calls"] = self._calls([(cut_call[0], cut_call[1], cut)])
        return self._completion(message, "length")

    def bad_arguments(self, good: Call, bad_id: str) -> dict[str, Any]:
        calls = [(good[0], good[1], json.dumps(good[2])), (bad_id, good[1], "{city: Paris}")]
        return self._completion(
            {"role": "assistant", "content": None, "tool_calls": self._calls(calls)}, "tool_calls"
        )

    def refusal(self) -> dict[str, Any]:
        message = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
        return self._completion(message, "stop")

    def unknown(self, call: Call) -> dict[str, Any]:
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": self._calls([(call[0], call[1], json.dumps(call[2]))]),
        }
        return self._completion(message, "a_future_finish_reason")

    def pairs(self, messages: Sequence[Any]) -> tuple[list[str], list[str]]:
        calls = [c["id"] for m in messages for c in m.get("tool_calls") or ()]
        results = [m["tool_call_id"] for m in messages if m.get("role") == "tool"]
        return calls, results

    def error_results(self, messages: Sequence[Any]) -> dict[str, str]:
        # Chat has no error flag on a tool message: the content says it.
        return {m["tool_call_id"]: m["content"] for m in messages if m.get("role") == "tool"}


class OpenAIResponses:
    """Responses API replies (openai/types/responses/response.py)."""

    name = "openai.responses"
    user: ClassVar[dict[str, Any]] = {
        "role": "user",
        "content": "What is the weather in Paris and Tokyo?",
    }
    can_pause = True  # background mode: queued / in_progress

    @staticmethod
    def _response(
        output: list[dict[str, Any]], status: str = "completed", incomplete: str | None = None
    ) -> dict[str, Any]:
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 1764000000,
            "model": "gpt-5",
            "status": status,
            "error": None,
            "incomplete_details": {"reason": incomplete} if incomplete else None,
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
        }

    @staticmethod
    def _message(text: str) -> list[dict[str, Any]]:
        if not text:
            return []
        return [
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ]

    @staticmethod
    def _call(call_id: str, name: str, arguments: str, status: str = "completed") -> dict[str, Any]:
        return {
            "id": f"fc_{call_id}",
            "type": "function_call",
            "call_id": call_id,
            "name": name,
            "arguments": arguments,
            "status": status,
        }

    def text(self, text: str) -> dict[str, Any]:
        return self._response(self._message(text))

    def tools(self, calls: Sequence[Call], text: str = "") -> dict[str, Any]:
        items = [self._call(i, n, json.dumps(a)) for i, n, a in calls]
        return self._response([*self._message(text), *items])

    def truncated(self, text: str, cut_call: Call | None = None) -> dict[str, Any]:
        items = self._message(text)
        if cut_call is not None:
            cut = json.dumps(cut_call[2])[:-3]
            items.append(self._call(cut_call[0], cut_call[1], cut, "incomplete"))
        return self._response(items, "incomplete", "max_output_tokens")

    def bad_arguments(self, good: Call, bad_id: str) -> dict[str, Any]:
        items = [
            self._call(good[0], good[1], json.dumps(good[2])),
            self._call(bad_id, good[1], '{"city": Par'),
        ]
        return self._response(items)

    def refusal(self) -> dict[str, Any]:
        refusal = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "refusal", "refusal": "I can't help with that."}],
        }
        return self._response([refusal])

    def paused(self, text: str) -> dict[str, Any]:
        return {**self._response(self._message(text), "queued"), "background": True}

    def unknown(self, call: Call) -> dict[str, Any]:
        return self._response(
            [self._call(call[0], call[1], json.dumps(call[2]))], "awaiting_review"
        )

    def pairs(self, messages: Sequence[Any]) -> tuple[list[str], list[str]]:
        calls = [m["call_id"] for m in messages if m.get("type") == "function_call"]
        results = [m["call_id"] for m in messages if m.get("type") == "function_call_output"]
        return calls, results

    def error_results(self, messages: Sequence[Any]) -> dict[str, str]:
        return {
            m["call_id"]: m["output"] for m in messages if m.get("type") == "function_call_output"
        }


class Gemini:
    """generateContent replies (google/genai/types.py: GenerateContentResponse, FinishReason)."""

    name = "gemini"
    user: ClassVar[dict[str, Any]] = {
        "role": "user",
        "parts": [{"text": "What is the weather in Paris and Tokyo?"}],
    }
    can_pause = True  # CONTINUATION, resumed with its continuation token

    @staticmethod
    def _reply(parts: list[dict[str, Any]] | None, finish: str, **extra: Any) -> dict[str, Any]:
        candidate: dict[str, Any] = {"finishReason": finish, "index": 0, **extra}
        if parts is not None:
            candidate["content"] = {"role": "model", "parts": parts}
        return {
            "candidates": [candidate],
            "modelVersion": "gemini-2.5-flash",
            "responseId": "r1",
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
        }

    @staticmethod
    def _text(text: str) -> list[dict[str, Any]]:
        return [{"text": text}] if text else []

    @staticmethod
    def _calls(calls: Sequence[Call]) -> list[dict[str, Any]]:
        return [{"functionCall": {"id": i, "name": n, "args": a}} for i, n, a in calls]

    def text(self, text: str) -> dict[str, Any]:
        return self._reply(self._text(text), "STOP")

    def tools(self, calls: Sequence[Call], text: str = "") -> dict[str, Any]:
        return self._reply([*self._text(text), *self._calls(calls)], "STOP")

    def truncated(self, text: str, cut_call: Call | None = None) -> dict[str, Any]:
        calls = self._calls([cut_call]) if cut_call is not None else []
        return self._reply([*self._text(text), *calls], "MAX_TOKENS")

    def refusal(self) -> dict[str, Any]:
        ratings = [
            {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": True}
        ]
        return self._reply(None, "SAFETY", safetyRatings=ratings)

    def paused(self, text: str) -> dict[str, Any]:
        return self._reply(self._text(text), "CONTINUATION", continuationToken="dG9rZW4=")

    def unknown(self, call: Call) -> dict[str, Any]:
        return self._reply(self._calls([call]), "SOME_FUTURE_REASON")

    def pairs(self, messages: Sequence[Any]) -> tuple[list[str], list[str]]:
        calls: list[str] = []
        results: list[str] = []
        for m in messages:
            for part in m.get("parts", ()):
                if "functionCall" in part:
                    calls.append(part["functionCall"]["id"])
                elif "functionResponse" in part:
                    results.append(part["functionResponse"]["id"])
        return calls, results

    def error_results(self, messages: Sequence[Any]) -> dict[str, str]:
        return {
            p["functionResponse"]["id"]: p["functionResponse"]["response"].get("error", "")
            for m in messages
            for p in m.get("parts", ())
            if "functionResponse" in p
        }


PROVIDERS = [Anthropic(), OpenAIChat(), OpenAIResponses(), Gemini()]
Shapes = Anthropic | OpenAIChat | OpenAIResponses | Gemini


WEATHER = {"Paris": "18 °C, cloudy", "Tokyo": "24 °C, clear"}


def get_weather(city: str) -> dict[str, Any]:
    if city not in WEATHER:
        raise LookupError(f"no weather station for {city}")
    return {"city": city, "forecast": WEATHER[city]}


TOOLS = {"get_weather": get_weather}


def paris(call_id: str = "call_p") -> Call:
    return (call_id, "get_weather", {"city": "Paris"})


def tokyo(call_id: str = "call_t") -> Call:
    return (call_id, "get_weather", {"city": "Tokyo"})


def assert_every_call_answered_once(p: Shapes, outcome: stopkit.Outcome) -> None:
    calls, results = p.pairs(outcome.messages)
    assert Counter(results) == Counter(calls)
    assert all(n == 1 for n in Counter(calls).values())
