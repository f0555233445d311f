"""Batch results and request lines of every provider format, written from the documented shapes.

Each provider's table holds one line per outcome the batch API can give, with what the audit
must read from it. The shapes (and the SDK types that check them in test_results.py):

- OpenAI: `BatchRequestOutput` / `BatchRequestInput` of OpenAI's OpenAPI spec; bodies are
  `openai.types.chat.ChatCompletion`, `openai.types.responses.Response`, embeddings lists.
- Anthropic: `anthropic.types.messages.MessageBatchIndividualResponse`, and
  `anthropic.types.messages.batch_create_params.Request` for the request lines.
- Gemini: the Batch API's `{"key", "response" | "error"}` lines, and
  `google.genai.types.InlinedResponse` for inlined responses.
- Vertex AI: `{"status", "processed_time", "request", "response"}` batch prediction lines.
- Bedrock: `{"recordId", "modelInput", "modelOutput" | "error"}` `.jsonl.out` lines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple


class Case(NamedTuple):
    name: str
    line: dict[str, Any]
    expect: dict[str, Any]
    """Record fields the audit must read (`outcome`, `reason`, `detail`, `code`, `id`, `model`)."""


def many(cases: list[Case], copies: int) -> list[dict[str, Any]]:
    """`copies` rounds of the cases' lines, each line with its own custom_id (`a-2-17`)."""
    return [dict(c.line, custom_id=f"{c.line['custom_id']}-{i}") for i in range(copies)
            for c in cases]  # fmt: skip


def write_jsonl(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


# --- OpenAI ---------------------------------------------------------------------------------

GPT = "gpt-4o-mini-2024-07-18"


def chat_body(
    finish: str | None,
    *,
    content: Any = "Paris.",
    refusal: Any = None,
    tool_calls: Any = None,
    model: str = GPT,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-9f2",
        "object": "chat.completion",
        "created": 1717000000,
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {"prompt_tokens": 31, "completion_tokens": 12, "total_tokens": 43},
        "system_fingerprint": "fp_44709d6fcb",
    }


def responses_body(
    status: str, *, reason: str | None = None, model: str = "gpt-4.1-2025-04-14"
) -> dict[str, Any]:
    text = {"type": "output_text", "text": "In a quiet", "annotations": []}
    item = {"type": "message", "id": "msg_67cb", "status": "completed", "role": "assistant",
            "content": [text]}  # fmt: skip
    return {
        "id": "resp_67cb",
        "object": "response",
        "created_at": 1741476542,
        "status": status,
        "incomplete_details": {"reason": reason} if reason else None,
        "model": model,
        "output": [item],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 36,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 87,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 123,
        },
    }


def reasoning_only_body(ceiling: int = 256) -> dict[str, Any]:
    """A Responses body cut off with only a reasoning item: the ceiling went to reasoning."""
    body = responses_body("incomplete", reason="max_output_tokens", model="o4-mini-2025-04-16")
    body["output"] = [{"id": "rs_001", "type": "reasoning", "summary": []}]
    body["usage"]["output_tokens"] = ceiling
    body["usage"]["output_tokens_details"] = {"reasoning_tokens": ceiling}
    return body


def openai_ok(cid: str, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"batch_req_{cid}",
        "custom_id": cid,
        "response": {"status_code": 200, "request_id": f"req_{cid}", "body": body},
        "error": None,
    }


def openai_http_error(cid: str, status: int, code: str | None, kind: str) -> dict[str, Any]:
    body = {"error": {"message": "see code", "type": kind, "param": None, "code": code}}
    return {
        "id": f"batch_req_{cid}",
        "custom_id": cid,
        "response": {"status_code": status, "request_id": f"req_{cid}", "body": body},
        "error": None,
    }


def openai_batch_error(cid: str, code: str) -> dict[str, Any]:
    message = {
        "batch_expired": "This request could not be executed before the completion window expired.",
        "batch_cancelled": "This request was cancelled.",
    }.get(code, "failed")
    return {
        "id": f"batch_req_{cid}",
        "custom_id": cid,
        "response": None,
        "error": {"code": code, "message": message},
    }


CALL = [
    {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
]

OPENAI = [
    Case(
        "chat stop",
        openai_ok("o-1", chat_body("stop")),
        {"outcome": "replied", "reason": "completed", "model": GPT, "id": "o-1"},
    ),
    Case(
        "chat length",
        openai_ok("o-2", chat_body("length")),
        {"outcome": "replied", "reason": "output_limit", "detail": "max_tokens"},
    ),
    Case(
        "chat tool_calls",
        openai_ok("o-3", chat_body("tool_calls", content=None, tool_calls=CALL)),
        {"outcome": "replied", "reason": "tool_request"},
    ),
    Case(
        "chat content_filter",
        openai_ok("o-4", chat_body("content_filter", content=None)),
        {"outcome": "replied", "reason": "filtered"},
    ),
    Case(
        "chat refusal",
        openai_ok("o-5", chat_body("stop", content=None, refusal="I can't.")),
        {"outcome": "replied", "reason": "filtered", "detail": "refusal"},
    ),
    Case(
        "chat new finish value",
        openai_ok("o-6", chat_body("budget_exhausted")),
        {"outcome": "replied", "reason": "unknown"},
    ),
    Case(
        "responses completed",
        openai_ok("o-7", responses_body("completed")),
        {"outcome": "replied", "reason": "completed", "model": "gpt-4.1-2025-04-14"},
    ),
    Case(
        "responses incomplete",
        openai_ok("o-8", responses_body("incomplete", reason="max_output_tokens")),
        {"outcome": "replied", "reason": "output_limit", "detail": "max_tokens"},
    ),
    Case(
        "responses reasoning only",
        openai_ok("o-8b", reasoning_only_body()),
        {"outcome": "replied", "reason": "output_limit", "detail": "reasoning"},
    ),
    Case(
        "embeddings",
        openai_ok(
            "o-9",
            {
                "object": "list",
                "model": "text-embedding-3-small",
                "data": [{"object": "embedding", "index": 0, "embedding": [0.0023, -0.0094]}],
                "usage": {"prompt_tokens": 8, "total_tokens": 8},
            },
        ),
        {"outcome": "embedding", "model": "text-embedding-3-small"},
    ),
    Case(
        "http 400",
        openai_http_error("o-10", 400, None, "invalid_request_error"),
        {"outcome": "errored", "code": "invalid_request_error"},
    ),
    Case(
        "http 429",
        openai_http_error("o-11", 429, "rate_limit_exceeded", "requests"),
        {"outcome": "errored", "code": "rate_limit_exceeded"},
    ),
    Case(
        "http 500 without a code",
        {
            "id": "batch_req_o-12",
            "custom_id": "o-12",
            "response": {
                "status_code": 500,
                "request_id": "r",
                "body": {"error": {"message": "x"}},
            },
            "error": None,
        },
        {"outcome": "errored", "code": "http_500"},
    ),
    Case("expired", openai_batch_error("o-13", "batch_expired"), {"outcome": "expired"}),
    Case("cancelled", openai_batch_error("o-14", "batch_cancelled"), {"outcome": "canceled"}),
    Case(
        "failed line",
        openai_batch_error("o-15", "invalid_json_line"),
        {"outcome": "errored", "code": "invalid_json_line"},
    ),
    Case(
        "no body",
        {
            "id": "batch_req_o-16",
            "custom_id": "o-16",
            "response": {"status_code": 200, "request_id": "r", "body": None},
            "error": None,
        },
        {"outcome": "no_body"},
    ),
    Case(
        # A body no adapter reads: the Batch API also runs /v1/moderations, whose replies have
        # no stop at all. (A legacy Completions body was this example until stopkit read it.)
        "moderations body",
        openai_ok(
            "o-17",
            {
                "id": "modr-970d409ef3bef3b70c73d8232df86e7d",
                "model": "omni-moderation-latest",
                "results": [{"flagged": False, "categories": {"violence": False},
                             "category_scores": {"violence": 0.0004}}],
            },
        ),
        {"outcome": "unreadable", "model": "omni-moderation-latest"},
    ),
]


def openai_request(cid: str, *, url: str = "/v1/chat/completions", **body: Any) -> dict[str, Any]:
    return {
        "custom_id": cid,
        "method": "POST",
        "url": url,
        "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}], **body},
    }


# --- Anthropic ------------------------------------------------------------------------------

CLAUDE = "claude-3-5-haiku-20241022"


def message(
    stop: str | None, *, content: Any = None, model: str = CLAUDE, **extra: Any
) -> dict[str, Any]:
    blocks = content if content is not None else [{"type": "text", "text": "Hello"}]
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 6},
        **extra,
    }


def anthropic_ok(cid: str, msg: dict[str, Any]) -> dict[str, Any]:
    return {"custom_id": cid, "result": {"type": "succeeded", "message": msg}}


def anthropic_error(cid: str, kind: str) -> dict[str, Any]:
    error = {"type": "error", "error": {"type": kind, "message": "see type"}, "request_id": None}
    return {"custom_id": cid, "result": {"type": "errored", "error": error}}


TOOL_USE = [
    {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}
]

ANTHROPIC = [
    Case(
        "end_turn",
        anthropic_ok("a-1", message("end_turn")),
        {"outcome": "replied", "reason": "completed", "model": CLAUDE, "id": "a-1"},
    ),
    Case(
        "max_tokens",
        anthropic_ok("a-2", message("max_tokens")),
        {"outcome": "replied", "reason": "output_limit", "detail": "max_tokens"},
    ),
    Case(
        "tool_use",
        anthropic_ok("a-3", message("tool_use", content=TOOL_USE)),
        {"outcome": "replied", "reason": "tool_request"},
    ),
    Case(
        "refusal",
        anthropic_ok("a-4", message("refusal")),
        {"outcome": "replied", "reason": "filtered", "detail": "refusal"},
    ),
    Case(
        "pause_turn",
        anthropic_ok("a-5", message("pause_turn")),
        {"outcome": "replied", "reason": "paused"},
    ),
    Case(
        "stop_sequence",
        anthropic_ok("a-6", {**message("stop_sequence"), "stop_sequence": "###"}),
        {"outcome": "replied", "reason": "stop_sequence"},
    ),
    Case(
        "errored invalid",
        anthropic_error("a-7", "invalid_request_error"),
        {"outcome": "errored", "code": "invalid_request_error"},
    ),
    Case(
        "errored overloaded",
        anthropic_error("a-8", "overloaded_error"),
        {"outcome": "errored", "code": "overloaded_error"},
    ),
    Case("canceled", {"custom_id": "a-9", "result": {"type": "canceled"}}, {"outcome": "canceled"}),
    Case("expired", {"custom_id": "a-10", "result": {"type": "expired"}}, {"outcome": "expired"}),
]


def anthropic_request(cid: str, max_tokens: int = 1024, **params: Any) -> dict[str, Any]:
    return {
        "custom_id": cid,
        "params": {
            "model": CLAUDE,
            "max_tokens": max_tokens,
            "messages": [{"role": "user", "content": "Hello, world"}],
            **params,
        },
    }


# --- Gemini and Vertex AI -------------------------------------------------------------------

GEMINI = "gemini-2.5-flash"


def gemini_response(
    finish: str | None, *, parts: Any = None, model: str = GEMINI, **extra: Any
) -> dict[str, Any]:
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": parts or [{"text": "Why did the chicken"}]},
        "index": 0,
    }
    if finish is not None:
        candidate["finishReason"] = finish
    return {
        "candidates": [candidate],
        "modelVersion": model,
        "responseId": "abc",
        "usageMetadata": {"promptTokenCount": 7, "candidatesTokenCount": 5, "totalTokenCount": 12},
        **extra,
    }


GEMINI_CASES = [
    Case(
        "STOP",
        {"key": "g-1", "response": gemini_response("STOP")},
        {
            "outcome": "replied",
            "reason": "completed",
            "model": GEMINI,
            "id": "g-1",
            "format": "gemini",
        },
    ),
    Case(
        "MAX_TOKENS",
        {"key": "g-2", "response": gemini_response("MAX_TOKENS")},
        {"outcome": "replied", "reason": "output_limit", "detail": "max_tokens"},
    ),
    Case(
        "SAFETY",
        {"key": "g-3", "response": gemini_response("SAFETY")},
        {"outcome": "replied", "reason": "filtered", "detail": "safety"},
    ),
    Case(
        "function call",
        {
            "key": "g-4",
            "response": gemini_response(
                "STOP", parts=[{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]
            ),
        },
        {"outcome": "replied", "reason": "tool_request"},
    ),
    Case(
        "prompt blocked",
        {
            "key": "g-5",
            "response": {
                "promptFeedback": {"blockReason": "SAFETY"},
                "modelVersion": GEMINI,
                "usageMetadata": {"promptTokenCount": 7, "totalTokenCount": 7},
            },
        },
        {"outcome": "replied", "reason": "filtered", "detail": "prompt_blocked"},
    ),
    # A google.rpc.Status (google.genai.types.JobError): its code is a google.rpc.Code number.
    Case(
        "error status",
        {"key": "g-6", "error": {"code": 8, "message": "Resource exhausted"}},
        {"outcome": "errored", "code": "RESOURCE_EXHAUSTED"},
    ),
    Case(
        "error envelope",
        {"key": "g-6b", "error": {"code": 429, "message": "Quota", "status": "RESOURCE_EXHAUSTED"}},
        {"outcome": "errored", "code": "RESOURCE_EXHAUSTED"},
    ),
    Case(
        "grpc status",
        {"key": "g-7", "status": {"code": 3, "message": "Invalid argument"}},
        {"outcome": "errored", "code": "INVALID_ARGUMENT"},
    ),
    Case("no body", {"key": "g-8"}, {"outcome": "no_body", "id": "g-8"}),
    Case(
        "bare response",
        gemini_response("MAX_TOKENS"),
        {"outcome": "replied", "reason": "output_limit", "id": None},
    ),
]

VERTEX = [
    Case(
        "ok",
        {
            "status": "",
            "processed_time": "2024-11-01T18:13:16.826+00:00",
            "request": {
                "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
                "generationConfig": {"maxOutputTokens": 256},
            },
            "response": gemini_response("STOP", model="gemini-2.0-flash-001"),
        },
        {
            "outcome": "replied",
            "reason": "completed",
            "model": "gemini-2.0-flash-001",
            "format": "vertex",
        },
    ),
    Case(
        "truncated",
        {
            "status": "",
            "processed_time": "2024-11-01T18:13:16.826+00:00",
            "request": {
                "contents": [{"role": "user", "parts": [{"text": "Write"}]}],
                "generationConfig": {"maxOutputTokens": 256},
            },
            "response": gemini_response("MAX_TOKENS", model="gemini-2.0-flash-001"),
        },
        {"outcome": "replied", "reason": "output_limit", "detail": "max_tokens"},
    ),
    Case(
        "failed",
        {
            "status": 'Bad Request: {"error": {"code": 400, "message": "Request contains an '
            'invalid argument.", "status": "INVALID_ARGUMENT"}}',
            "processed_time": "2024-11-01T18:13:16.826+00:00",
            "request": {"contents": [{"role": "user", "parts": [{"text": "?"}]}]},
        },
        {"outcome": "errored", "code": "INVALID_ARGUMENT"},
    ),
    Case(
        "failed, plain text",
        {"status": "Internal error occurred.", "processed_time": "x", "request": {"contents": []}},
        {"outcome": "errored", "code": "Internal error occurred."},
    ),
]


def gemini_request(key: str | None, **config: Any) -> dict[str, Any]:
    request: dict[str, Any] = {
        "contents": [{"role": "user", "parts": [{"text": "Tell me a joke."}]}]
    }
    if config:
        request["generationConfig"] = config
    return {"request": request} if key is None else {"key": key, "request": request}


# --- Bedrock --------------------------------------------------------------------------------


def bedrock_input(max_tokens: int = 512) -> dict[str, Any]:
    return {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": max_tokens,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Summarize: ..."}]}],
    }


BEDROCK = [
    Case(
        "end_turn",
        {
            "recordId": "CALL0000001",
            "modelInput": bedrock_input(),
            "modelOutput": message("end_turn", model="claude-3-haiku-20240307"),
        },
        {
            "outcome": "replied",
            "reason": "completed",
            "id": "CALL0000001",
            "format": "bedrock",
            "model": "claude-3-haiku-20240307",
        },
    ),
    Case(
        "max_tokens",
        {
            "recordId": "CALL0000002",
            "modelInput": bedrock_input(),
            "modelOutput": message("max_tokens", model="claude-3-haiku-20240307"),
        },
        {
            "outcome": "replied",
            "reason": "output_limit",
            "detail": "max_tokens",
            "provider": "anthropic",
        },
    ),
    Case(
        "converse max_tokens",
        {
            "recordId": "CALL0000003",
            "modelInput": {
                "messages": [{"role": "user", "content": [{"text": "Hi"}]}],
                "inferenceConfig": {"maxTokens": 50},
            },
            "modelOutput": {
                "output": {"message": {"role": "assistant", "content": [{"text": "Hel"}]}},
                "stopReason": "max_tokens",
                "usage": {"inputTokens": 3, "outputTokens": 50, "totalTokens": 53},
                "metrics": {"latencyMs": 300},
            },
        },
        {"outcome": "replied", "reason": "output_limit", "provider": "bedrock"},
    ),
    Case(
        "error 400",
        {
            "recordId": "CALL0000004",
            "modelInput": bedrock_input(),
            "error": {"errorCode": 400, "errorMessage": "bad request"},
        },
        {"outcome": "errored", "code": "400"},
    ),
    Case(
        "error 429",
        {
            "recordId": "CALL0000005",
            "modelInput": bedrock_input(),
            "error": {"errorCode": 429, "errorMessage": "throttled"},
        },
        {"outcome": "errored", "code": "429"},
    ),
    Case(
        "titan body",
        {
            "recordId": "CALL0000006",
            "modelInput": {"inputText": "Roses are red"},
            "modelOutput": {
                "inputTextTokenCount": 8,
                "results": [
                    {"tokenCount": 3, "outputText": "blue\n", "completionReason": "FINISH"}
                ],
            },
        },
        {"outcome": "replied", "reason": "completed", "provider": "bedrock.invoke"},
    ),
    Case(
        "titan embeddings body",  # an embedding, not a reply: no adapter reads it
        {
            "recordId": "CALL0000007",
            "modelInput": {"inputText": "Roses are red"},
            "modelOutput": {"embedding": [0.12, -0.03, 0.57], "inputTextTokenCount": 4},
        },
        {"outcome": "unreadable"},
    ),
]

ALL = {
    "openai": OPENAI,
    "anthropic": ANTHROPIC,
    "gemini": GEMINI_CASES,
    "vertex": VERTEX,
    "bedrock": BEDROCK,
}
