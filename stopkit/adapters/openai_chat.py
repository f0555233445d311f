"""The OpenAI Chat Completions adapter, also for the servers that speak its dialect.

A reply says why each choice stopped in `choices[i].finish_reason`; the reader records the
rest of the choice as facts (`message.refusal`, tool calls, Azure's content and prompt filter
results, an in-band error from the choice, the reply or Groq's `x_groq`, vLLM's `stop_reason`,
the legacy `finish_details`, usage) and the engine weighs them in DESIGN order. What a choice
holds beside its `message` (and the reply beside its choices) is read by `_openai_choices.py`,
shared with legacy Completions. The tables and the provider steps live in
`_openai_chat_rules.py`; streams are read by
`_openai_chat_stream.ChatStream`, which rebuilds the whole reply and reads it with `readings`.

Usage is counted as OpenAI counts it (openai/types/completion_usage.py): `prompt_tokens`
includes the cached tokens (`prompt_tokens_details.cached_tokens`, also reported as
`cache_read_tokens`), and `completion_tokens` includes the reasoning tokens
(`completion_tokens_details.reasoning_tokens`).

Example:
    >>> stop = OpenAIChatAdapter().normalize({"object": "chat.completion", "choices": [
    ...     {"index": 0, "message": {"role": "assistant", "content": "Hi"},
    ...      "finish_reason": "stop"}]})
    >>> (stop.reason.value, stop.text)
    ('completed', 'Hi')
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.adapters import _openai_chat_turns, _openai_choices
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._calls import cut, tool_call
from stopkit.adapters._openai_chat_rules import (
    CONTENT_FILTER,
    FINISH_DETAILS_TYPE,
    FINISH_REASON,
    LEGACY_FIELD,
    PROMPT_FILTER,
    PROVIDER,
    RULES,
    VLLM_STOP_REASON,
    visible_text,
)
from stopkit.adapters._openai_chat_stream import ChatStream
from stopkit.adapters._reading import Reading
from stopkit.adapters._wire import raw_value, wire

__all__ = ["OpenAIChatAdapter"]

_R = StopReason
_SEQUENCES = (list, tuple)  # built once: a `list | tuple` union is built at every call
# `object` values of bodies with `choices` that are not chat completions.
_NOT_A_COMPLETION = ("text_completion", "chat.completion.chunk", "response")


def _readings(reply: Any) -> list[Reading]:
    """Read a Chat Completions reply (a JSON dict or an SDK object): one `Reading` per choice.

    The choices come in `index` order; a reply without choices gives one reading.

    Example:
        >>> [r.text for r in _readings({"choices": [
        ...     {"index": 1, "message": {"content": "B"}, "finish_reason": "stop"},
        ...     {"index": 0, "message": {"content": "A"}, "finish_reason": "stop"}]})]
        ['A', 'B']
    """
    return _openai_choices.readings(reply, _message)


def _read(reply: Any) -> Reading:
    """Read the reply's first choice (the lowest `index`): what `normalize` reports.

    Example:
        >>> _read({"choices": [{"message": {"content": "Hi"}, "finish_reason": "stop"}]}).text
        'Hi'
    """
    return _openai_choices.read(reply, _message)


def _message(reading: Reading, said: Mapping[str, Any]) -> None:
    """Read a choice's `message` (text, refusal, tool calls) and the legacy `finish_details`."""
    message = wire(said.get("message"))
    content = message.get("content")
    text = content if type(content) is str else visible_text(content)
    if text is None:
        if isinstance(content, dict):
            # Cloudflare Workers AI answers a JSON-schema request with the object itself.
            text = json.dumps(content, ensure_ascii=False)
            reading.notes.append("message.content is a JSON object, not a string: text is its JSON")
        else:
            text = ""
            reading.malformed = "message.content is neither a string nor a list of parts"
    reading.text = text
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal:
        reading.refusal = refusal
    raw_calls = message.get("tool_calls")
    if raw_calls is not None or message.get("function_call") is not None:
        _calls(message, raw_calls, reading)
    finish_details = said.get("finish_details")  # the legacy gpt-4-vision shape
    if finish_details:
        reading.details["finish_details"] = finish_details
        raw = reading.raw_reason
        legacy = wire(finish_details).get("type")
        if (raw is None or raw == "") and type(legacy) is str and legacy in FINISH_DETAILS_TYPE:
            reading.notes.append(f"no finish_reason: legacy finish_details.type {legacy!r} read")
            reading.raw_reason = legacy
            reading.field = LEGACY_FIELD


def _calls(message: Mapping[str, Any], raw_calls: Any, reading: Reading) -> None:
    """Read a message's tool calls (`raw_calls`: function, custom) or its legacy `function_call`."""
    if raw_calls is not None and not isinstance(raw_calls, _SEQUENCES):
        reading.malformed = reading.malformed or "message.tool_calls is not a list"
        return
    calls: list[ToolCall] = []
    custom: list[str] = []
    for item in raw_calls or ():
        said = wire(item)
        function = said.get("function")
        typed_custom = function is None or raw_value(said.get("type")) == "custom"
        if typed_custom and said.get("custom") is not None:
            call = _custom_call(said)
            custom.append(call.id)
        else:
            named = wire(function)
            call = tool_call(said.get("id"), named.get("name"), named.get("arguments"))
        calls.append(call)
    if custom:
        reading.details["custom_tool_calls"] = custom
    if not calls:
        legacy = wire(message.get("function_call"))
        name = legacy.get("name")
        # Some servers send an empty `{"name": "", "arguments": ""}`: that is no call at all.
        if isinstance(name, str) and name:
            calls.append(tool_call("", name, legacy.get("arguments")))
            reading.details["legacy_function_call"] = True
    reading.calls = calls


def _custom_call(item: Mapping[str, Any]) -> ToolCall:
    """A custom tool's call: its input is free text, not JSON, kept whole under "input"."""
    custom = wire(item.get("custom"))
    text = custom.get("input")
    if not isinstance(text, str):
        return cut(tool_call(item.get("id"), custom.get("name"), None), "custom call has no input")
    return tool_call(item.get("id"), custom.get("name"), {"input": text})


class OpenAIChatAdapter(BaseAdapter):
    """Reads OpenAI Chat Completions replies and the OpenAI-compatible servers' dialects.

    Example:
        >>> stopkit.get_adapter("openai.chat").normalize(completion).reason  # doctest: +SKIP
        <StopReason.TOOL_REQUEST: 'tool_request'>
    """

    name = PROVIDER
    rules = RULES
    # gen-ai-spans.md: the compatible dialects (Azure, Groq, DeepSeek, vLLM...) speak `openai`.
    otel_provider = "openai"
    read = staticmethod(_read)
    readings = staticmethod(_readings)
    # A chat completion has a `choices` list: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = ("choices",)
    tables: ClassVar[dict[str, dict[str, tuple[StopReason, str | None]]]] = {
        "finish_reason": FINISH_REASON,
        "finish_details.type": FINISH_DETAILS_TYPE,
        "stop_reason (vLLM)": VLLM_STOP_REASON,
        "content_filter_results (Azure, filtered: true)": CONTENT_FILTER,
        "prompt_filter_results (Azure)": PROMPT_FILTER,
    }
    stream_notes = (
        "A stream ends at the chunk carrying finish_reason; the usage-only chunk after it "
        "(choices: []) is read for usage only.",
        "Azure's asynchronous filter may send content_filter after stop, or annotation chunks "
        "with filtered: true: the later, stricter signal wins; a milder one never does.",
        "Text or tool calls sent after a choice's finish_reason are ignored (a note counts them), "
        "but the calls of a new tool-call index after a tool_calls finish: servers that finish "
        "each call that way (Together) send the next call after it, in the same turn.",
        "A chunk carrying an error object (Groq, OpenRouter) makes the reply unknown/error "
        "unless it was already filtered or cut off.",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a chat completion: it has a `choices` list (not a chunk).

        An `object` of `"response"` is the Responses API's, whatever else the body holds: the
        two adapters never claim the same reply, so their detection order does not matter.
        """
        fields = wire(reply)
        if not isinstance(fields.get("choices"), _SEQUENCES):
            return False
        kind = fields.get("object")
        return (kind if type(kind) is str else raw_value(kind)) not in _NOT_A_COMPLETION

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a chat completion chunk (Azure's first one has no object).

        Perplexity labels its chunks `chat.completion`: such an event is a chunk when a choice
        carries a `delta` (a whole reply's choices carry a `message` instead).
        """
        fields = wire(event)
        choices = fields.get("choices")
        if not isinstance(choices, _SEQUENCES):
            return False
        kind = raw_value(fields.get("object"))
        if kind == "chat.completion":
            return any(wire(choice).get("delta") is not None for choice in choices)
        return kind not in ("text_completion",)

    def stream(self) -> ChatStream:
        """Return a fresh accumulator for one streamed chat completion."""
        return ChatStream(_readings)

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the assistant message as sent: role, content, tool calls, refusal.

        Example:
            >>> OpenAIChatAdapter().assistant_message(stop)  # doctest: +SKIP
            [{'role': 'assistant', 'content': None, 'tool_calls': [...]}]
        """
        return _openai_chat_turns.assistant_message(stop)

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one `tool` message per call id, in order (`function` for a legacy call).

        Example:
            >>> OpenAIChatAdapter().tool_results(stop, [ToolResult(call_id="call_1",
            ...     name="f", content="42")])  # doctest: +SKIP
            [{'role': 'tool', 'tool_call_id': 'call_1', 'content': '42'}]
        """
        return _openai_chat_turns.tool_results(stop, results)
