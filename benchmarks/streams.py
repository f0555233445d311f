"""1,000-event streams, one per core adapter: narration, then two tool calls, then the stop.

Each stream is the list of parsed `data:` objects the provider sends (the same reply as
`replies.REPLIES[adapter]["tool_request"]` in shape: text, a small call, a call writing a file),
built from the documented event shapes: anthropic/types/raw_message_stream_event.py,
openai/types/chat/chat_completion_chunk.py, openai/types/responses/response_stream_event.py,
google/genai/types.py (each Gemini chunk is a whole GenerateContentResponse). `STREAMS[adapter]`
has exactly `EVENTS` events; its last event carries the stop.
"""

from __future__ import annotations

import json
from typing import Any

from benchmarks.replies import ADAPTERS

__all__ = ["EVENTS", "STREAMS", "expected"]

EVENTS = 1000

_SENTENCE = (
    "Sure, I'll write the report to disk and check the weather while I'm at it; first, a "
    "summary of what the quarterly numbers say about each region and product line. "
)
_SMALL_ARGS = json.dumps({"city": "Paris", "country": "FR", "units": "metric"})
_FILE_BODY = ("## Q3 summary\n\nRevenue grew 12% quarter on quarter, led by EMEA. " * 40)[:2400]
_BIG_ARGS = json.dumps({"path": "reports/q3-summary.md", "content": _FILE_BODY})


def _pieces(text: str, count: int) -> list[str]:
    """Split `text` into `count` non-empty fragments in order (the deltas a model sends)."""
    size, extra = divmod(len(text), count)
    out, start = [], 0
    for i in range(count):
        end = start + size + (1 if i < extra else 0)
        out.append(text[start:end])
        start = end
    return out


def _split(fixed: int) -> tuple[list[str], list[str], list[str]]:
    """Fragments for the text and the two calls' arguments, leaving `fixed` framing events."""
    small = _pieces(_SMALL_ARGS, 12)
    big = _pieces(_BIG_ARGS, 400)
    n_text = EVENTS - fixed - len(small) - len(big)
    return _pieces((_SENTENCE * 40)[: n_text * 4], n_text), small, big


def _anthropic() -> list[dict[str, Any]]:
    text, small, big = _split(fixed=9)
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 412, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    events += [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}}
        for t in text
    ]
    events.append({"type": "content_block_stop", "index": 0})
    for index, (call_id, name, parts) in enumerate(
        (("toolu_01HjvK8wAeTCWp6yVeUFY1ke", "get_weather", small),
         ("toolu_01P5bxKuyk1rZCEv6wDv7Y9s", "write_file", big)),
        start=1,
    ):
        events.append(
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
            }
        )
        events += [
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": p},
            }
            for p in parts
        ]
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 1180},
        }
    )
    events.append({"type": "message_stop"})
    return events


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-CHx4Zq7bJ0dTBmLZ9R3yQkYx1vWpA",
        "object": "chat.completion.chunk",
        "created": 1764000000,
        "model": "gpt-4.1-2025-04-14",
        "system_fingerprint": "fp_b3f1157249",
        "service_tier": "default",
        "choices": [
            {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        ],
    }


def _chat() -> list[dict[str, Any]]:
    text, small, big = _split(fixed=4)
    events = [_chunk({"role": "assistant", "content": "", "refusal": None})]
    events += [_chunk({"content": t}) for t in text]
    for index, (call_id, name, parts) in enumerate(
        (("call_Dq2p7iA8hCkXcZ0o5pWnV3Ry", "get_weather", small),
         ("call_Fm5t9kB2jL4yQwE8rUx1N6Sv", "write_file", big))
    ):
        events.append(
            _chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                    ]
                }
            )
        )
        events += [
            _chunk({"tool_calls": [{"index": index, "function": {"arguments": p}}]})
            for p in parts
        ]
    events.append(_chunk({}, "tool_calls"))
    return events


def _responses() -> list[dict[str, Any]]:
    from benchmarks.replies import REPLIES

    text, small, big = _split(fixed=14)
    final = json.loads(json.dumps(REPLIES["openai.responses"]["tool_request"].body))
    message, call_1, call_2 = final["output"][1:]
    message["content"][0]["text"] = "".join(text)
    call_2.update(name="write_file", arguments=_BIG_ARGS)
    call_1["arguments"] = _SMALL_ARGS
    final["output"] = [message, call_1, call_2]
    started = {**final, "status": "in_progress", "output": [], "usage": None}
    seq = iter(range(EVENTS))

    def ev(kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "sequence_number": next(seq), **fields}

    empty_message = {**message, "status": "in_progress", "content": []}
    part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
    events = [
        ev("response.created", response=started),
        ev("response.in_progress", response=started),
        ev("response.output_item.added", output_index=0, item=empty_message),
        ev("response.content_part.added", item_id=message["id"], output_index=0,
           content_index=0, part=part),
    ]
    events += [
        ev("response.output_text.delta", item_id=message["id"], output_index=0,
           content_index=0, delta=t, logprobs=[])
        for t in text
    ]
    events += [
        ev("response.output_text.done", item_id=message["id"], output_index=0,
           content_index=0, text=message["content"][0]["text"], logprobs=[]),
        ev("response.content_part.done", item_id=message["id"], output_index=0,
           content_index=0, part=message["content"][0]),
        ev("response.output_item.done", output_index=0, item=message),
    ]
    for index, (call, parts) in enumerate(((call_1, small), (call_2, big)), start=1):
        events.append(
            ev("response.output_item.added", output_index=index,
               item={**call, "status": "in_progress", "arguments": ""})
        )
        events += [
            ev("response.function_call_arguments.delta", item_id=call["id"],
               output_index=index, delta=p)
            for p in parts
        ]
        events.append(
            ev("response.function_call_arguments.done", item_id=call["id"],
               output_index=index, name=call["name"], arguments=call["arguments"])
        )
        events.append(ev("response.output_item.done", output_index=index, item=call))
    events.append(ev("response.completed", response=final))
    return events


def _gemini() -> list[dict[str, Any]]:
    text = _pieces((_SENTENCE * 40)[: (EVENTS - 1) * 4], EVENTS - 1)

    def chunk(parts: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, "index": 0, **extra}],
            "modelVersion": "gemini-2.5-flash",
            "responseId": "i3qLaO2hN7GtkdUP0vWU8QY",
        }

    events = [chunk([{"text": t}]) for t in text]
    last = chunk(
        [
            {"functionCall": {"name": "get_weather", "args": json.loads(_SMALL_ARGS)}},
            {"functionCall": {"name": "write_file", "args": json.loads(_BIG_ARGS)}},
        ],
        finishReason="STOP",
    )
    last["usageMetadata"] = {
        "promptTokenCount": 412,
        "candidatesTokenCount": 1180,
        "totalTokenCount": 1592,
    }
    events.append(last)
    return events


STREAMS: dict[str, list[dict[str, Any]]] = {
    "anthropic": _anthropic(),
    "openai.chat": _chat(),
    "openai.responses": _responses(),
    "gemini": _gemini(),
}
assert all(len(STREAMS[a]) == EVENTS for a in ADAPTERS), {a: len(s) for a, s in STREAMS.items()}


def expected() -> tuple[str, int, tuple[str, ...]]:
    """Return what every stream must normalize to: reason, call count, and call names."""
    return "tool_request", 2, ("get_weather", "write_file")
