"""The Ollama native adapter (`POST /api/chat` and `/api/generate`): replies and NDJSON streams.

A chat reply is `{"model", "created_at", "message": {"role", "content", "thinking",
"tool_calls"}, "done", "done_reason", "prompt_eval_count", "eval_count", ...timings}`; a
generate reply holds the same fields around `response` (the text) and `thinking` instead of a
`message` (ollama/_types.py: `ChatResponse` and `GenerateResponse`, both `BaseGenerateResponse`),
with no tool calls. The two endpoints share their `done_reason` values, their token counts and
their stream protocol, so one adapter reads both. Tool calls carry their
arguments as a JSON *object*, and older servers send no call id: such a call gets the id
`call_<i>`, `i` being its position among the reply's calls (stable between a reply and its
stream, and between runs). `thinking` is reasoning, not text: it is kept in
`details["thinking"]`. The stream accumulator lives in `_ollama_stream.py`.

`/api/generate` takes a prompt, not messages: the conversation turns are `/api/chat`'s messages,
which a caller's `call_model` renders into its next prompt (or sends to `/api/chat`).

Ollama's OpenAI-compatible `/v1/chat/completions` replies are read by `openai.chat`, not here.

Example:
    >>> stop = OllamaAdapter().normalize({"model": "llama3.2", "created_at": "...",
    ...     "message": {"role": "assistant", "content": "Hi"}, "done": True,
    ...     "done_reason": "stop"})
    >>> (stop.reason.value, stop.text)
    ('completed', 'Hi')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from stopkit._stop import Stop, ToolCall, ToolResult
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._calls import stable_id, tool_call
from stopkit.adapters._ollama_rules import DONE_REASON, PROVIDER, RULES
from stopkit.adapters._ollama_stream import OllamaStream
from stopkit.adapters._reading import Reading, Verdict, identify, tokens
from stopkit.adapters._wire import listed, not_an_object, wire

__all__ = ["OllamaAdapter"]

_ABSENT: Any = object()


def _read(reply: Any) -> Reading:
    """Read one reply or chunk (a JSON dict, or the SDK's `ChatResponse` / `GenerateResponse`).

    Example:
        >>> _read({"message": {"content": "Hi"}, "done": True, "done_reason": "stop"}).text
        'Hi'
        >>> _read({"response": "Hi", "done": True, "done_reason": "stop"}).text
        'Hi'
    """
    fields = wire(reply)
    reading = Reading(reply, fields.get("done_reason"))
    # ollama/_types.py `BaseGenerateResponse.model`; Ollama gives a reply no id.
    identify(reading, fields.get("model"), None)
    message = fields.get("message")
    if message is None and fields.get("response", _ABSENT) is not _ABSENT:
        # /api/generate: the text and the thinking are top-level
        _read_body(reading, fields, fields.get("response"))
    else:
        reading.malformed = not_an_object(message, "message")
        if reading.malformed is None:
            said = wire(message)
            _read_body(reading, said, said.get("content"))
            reading.calls = [
                _build_call(i, item) for i, item in enumerate(listed(said.get("tool_calls")))
            ]
    done = fields.get("done")
    if done is False:
        reading.ended = False
        reading.notes.append("done is false: the reply is not finished (a chunk of a stream)")
    elif done is not True and reading.malformed is None:
        reading.malformed = f"done is {done!r}, not a boolean"
    # ollama/_types.py, BaseGenerateResponse: prompt_eval_count ("Number of tokens evaluated in
    # the prompt") and eval_count ("Number of tokens evaluated in inference", thinking
    # included); the server leaves prompt_eval_count out when the whole prompt was cached.
    prompt, output = fields.get("prompt_eval_count"), fields.get("eval_count")
    if prompt is not None or output is not None:
        reading.details["usage"] = {"prompt_eval_count": prompt, "eval_count": output}
        reading.usage = tokens(prompt, output)
    return reading


def _read_body(reading: Reading, said: Any, text: Any) -> None:
    """Read the text (`message.content` or `response`) and the `thinking` beside it."""
    reading.text = text if type(text) is str else ""
    thinking = said.get("thinking")
    if type(thinking) is str and thinking:
        reading.details["thinking"] = thinking


def _build_call(position: int, item: Any) -> ToolCall:
    """Build the `ToolCall` of one `message.tool_calls` entry; `call_<position>` when no id.

    Example:
        >>> _build_call(1, {"function": {"name": "f", "arguments": {}}}).id
        'call_1'
    """
    said = wire(item)
    function = wire(said.get("function"))
    call_id = stable_id(said.get("id"), position)
    return tool_call(call_id, function.get("name"), function.get("arguments"))


def _is_chunk(obj: Any) -> bool:
    """A reply or chunk: `message` (chat) or `response` (generate), `done`, `model`/`created_at`."""
    fields = wire(obj)
    return (
        (
            fields.get("message", _ABSENT) is not _ABSENT
            or fields.get("response", _ABSENT) is not _ABSENT
        )
        and fields.get("done", _ABSENT) is not _ABSENT
        and (
            fields.get("model", _ABSENT) is not _ABSENT
            or fields.get("created_at", _ABSENT) is not _ABSENT
        )
        and fields.get("choices", _ABSENT) is _ABSENT
    )


class OllamaAdapter(BaseAdapter):
    """Reads Ollama `/api/chat` and `/api/generate` replies (dicts or SDK objects) and streams.

    Example:
        >>> stop = OllamaAdapter().normalize({"model": "llama3.2", "created_at": "...",
        ...     "message": {"role": "assistant", "content": "Hi"}, "done": True,
        ...     "done_reason": "length"})
        >>> (stop.reason.value, stop.detail, stop.text)
        ('output_limit', 'max_tokens', 'Hi')
    """

    name = PROVIDER
    rules = RULES
    read = staticmethod(_read)
    # An `/api/chat` or `/api/generate` reply has `done`: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = ("done",)
    tables: ClassVar[dict[str, dict[str, Verdict]]] = {"done_reason": DONE_REASON}
    stream_notes = (
        "Streams are newline-delimited JSON chunks, not SSE; the chunk with `done: true` ends it.",
        "A chunk holding only an `error` object ends the stream as unknown/error.",
        "After the `done: true` chunk no text or call changes the reply (a note counts the "
        "chunks); a later chunk is read for its token counts, and for its done_reason only "
        "when that is stricter.",
        "A streamed Stop's `raw` is the reply rebuilt from the chunks (a dict shaped as the "
        "endpoint's reply: `message` for /api/chat, `response` for /api/generate).",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is an Ollama reply: `message` or `response`, `done`, `model`.

        `message` for `/api/chat`, `response` for `/api/generate`; `created_at` may stand in for
        `model`.
        """
        return _is_chunk(reply)

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is an Ollama stream chunk (the same shape as a reply)."""
        return _is_chunk(event)

    def stream(self) -> OllamaStream:
        """Return a fresh accumulator for one `/api/chat` or `/api/generate` NDJSON stream."""
        return OllamaStream(_read)

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the assistant message that appends this reply to an `/api/chat` `messages` list.

        For an `/api/generate` reply too: that endpoint takes a prompt, so the conversation is
        kept as `/api/chat` messages, which the caller's `call_model` renders into its next
        prompt (or sends to `/api/chat`). Tool calls go back with their arguments as objects,
        as Ollama sent them; `thinking` is sent back too (Ollama's reasoning models read it on
        the next turn).

        Example:
            >>> OllamaAdapter().assistant_message(stop)  # doctest: +SKIP
            [{'role': 'assistant', 'content': '', 'tool_calls': [{'function': {...}}]}]
        """
        message: dict[str, Any] = {"role": "assistant", "content": stop.text}
        thinking = stop.details.get("thinking")
        if isinstance(thinking, str) and thinking:
            message["thinking"] = thinking
        if stop.tool_calls:
            message["tool_calls"] = [
                {"function": {"name": call.name, "arguments": dict(call.arguments)}}
                for call in stop.tool_calls
            ]
        return [message]

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one `{"role": "tool", "content", "tool_name"}` message per result, in order.

        Ollama matches a result to its call by `tool_name` and order (ollama-python's
        `Message.tool_name`, "Name of the executed tool"); it has no error flag, so an error
        result's content says what went wrong.

        Example:
            >>> OllamaAdapter().tool_results(stop, [ToolResult(call_id="call_0",
            ...     name="get_weather", content="21C")])  # doctest: +SKIP
            [{'role': 'tool', 'content': '21C', 'tool_name': 'get_weather'}]
        """
        return [
            {"role": "tool", "content": result.content, "tool_name": result.name}
            for result in results
        ]

