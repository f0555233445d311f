"""The OpenAI Chat Completions adapter, also for the servers that speak its dialect.

A reply says why each choice stopped in `choices[i].finish_reason`; the reader records the
rest of the choice as facts (`message.refusal`, tool calls, Azure's content and prompt filter
results, an in-band error from the choice, the reply or Groq's `x_groq`, vLLM's `stop_reason`,
the legacy `finish_details`, usage) and the engine weighs them in DESIGN order. The tables and
the provider steps live in `_openai_chat_rules.py`; streams are read by
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

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult, Usage
from stopkit.adapters import _openai_chat_turns
from stopkit.adapters._calls import cut, tool_call
from stopkit.adapters._engine import decide
from stopkit.adapters._openai_chat_rules import (
    CONTENT_FILTER,
    FINISH_DETAILS_TYPE,
    FINISH_REASON,
    PROMPT_FILTER,
    PROVIDER,
    RULES,
    VLLM_STOP_REASON,
    category_detail,
    filter_hits,
    visible_text,
)
from stopkit.adapters._openai_chat_stream import ChatStream
from stopkit.adapters._reading import Reading, tokens
from stopkit.adapters._wire import listed, raw_value, wire

__all__ = [
    "CONTENT_FILTER",
    "FINISH_DETAILS_TYPE",
    "FINISH_REASON",
    "OpenAIChatAdapter",
    "read",
    "readings",
]

_R = StopReason
_SEQUENCES = (list, tuple)  # built once: a `list | tuple` union is built at every call
# A choice of one of these is not an object (a bool is an int).
_NOT_AN_OBJECT = (str, bytes, int, float, list, tuple)
# `object` values of bodies with `choices` that are not chat completions.
_NOT_A_COMPLETION = ("text_completion", "chat.completion.chunk", "response")

# What a reply says beside its choices, read once for all of them: details, the in-band
# error, a blocked prompt (detail, what said so), usage.
_Around = tuple[dict[str, Any], Any, "tuple[str, str] | None", "Usage | None"]


def readings(reply: Any) -> list[Reading]:
    """Read a Chat Completions reply (a JSON dict or an SDK object): one `Reading` per choice.

    The choices come in `index` order; a reply without choices gives one reading.

    Example:
        >>> [r.text for r in readings({"choices": [
        ...     {"index": 1, "message": {"content": "B"}, "finish_reason": "stop"},
        ...     {"index": 0, "message": {"content": "A"}, "finish_reason": "stop"}]})]
        ['A', 'B']
    """
    fields = wire(reply)
    choices = fields.get("choices")
    around = _around(fields)
    if not isinstance(choices, _SEQUENCES):
        reading = _base(reply, None, around)
        reading.verdict = _R.UNKNOWN, "malformed"  # there is no stop value to look up
        reading.malformed = "choices is not a list"
        return [reading]
    if not choices:
        return [_no_choice(reply, around)]
    if len(choices) > 1:
        choices = sorted(choices, key=_index)
    return [_choice(reply, choice, around) for choice in choices]


def read(reply: Any) -> Reading:
    """Read the reply's first choice (the lowest `index`): what `normalize` reports.

    Example:
        >>> read({"choices": [{"message": {"content": "Hi"}, "finish_reason": "stop"}]}).text
        'Hi'
    """
    fields = wire(reply)
    choices = fields.get("choices")
    if not isinstance(choices, _SEQUENCES) or not choices:
        return readings(reply)[0]
    first = choices[0] if len(choices) == 1 else min(choices, key=_index)
    return _choice(reply, first, _around(fields))


def _index(choice: Any) -> int:
    index = wire(choice).get("index")
    return index if type(index) is int else 0


def _around(fields: Mapping[str, Any]) -> _Around:
    details: dict[str, Any] = {}
    usage: Usage | None = None
    counts = fields.get("usage")
    if counts is not None:
        details["usage"] = counts
        usage = _usage(counts)
    moderation = fields.get("moderation")
    if moderation is not None:
        details["moderation"] = moderation
    error = fields.get("error")
    if error is None:
        groq = fields.get("x_groq")
        if groq is not None:
            error = wire(groq).get("error") or None
    blocked: tuple[str, str] | None = None
    prompt = fields.get("prompt_filter_results")
    if prompt:
        hits: dict[str, None] = {}  # the categories, each named once, in order
        for entry in listed(prompt):
            hits.update(dict.fromkeys(filter_hits(wire(entry).get("content_filter_results"))))
        if hits:
            details["prompt_filter_results"] = prompt
            detail = PROMPT_FILTER["filtered: true"][1] or "prompt_blocked"
            blocked = detail, f"prompt_filter_results filtered {', '.join(hits)}"
    return details, error, blocked, usage


def _usage(usage: Any) -> Usage | None:
    """The token counts of a Chat `usage` (openai/types/completion_usage.py: CompletionUsage)."""
    counts = wire(usage)
    prompt = wire(counts.get("prompt_tokens_details"))
    return tokens(
        counts.get("prompt_tokens"),
        counts.get("completion_tokens"),
        wire(counts.get("completion_tokens_details")).get("reasoning_tokens"),
        prompt.get("cached_tokens"),
        prompt.get("cache_write_tokens"),
        counts.get("total_tokens"),
    )


def _base(reply: Any, raw_reason: Any, around: _Around) -> Reading:
    """A reading holding what the reply says beside its choices."""
    details, error, _, reading_usage = around
    reading = Reading(reply, raw_reason)
    reading.details.update(details)
    reading.usage = reading_usage
    if error is not None:
        reading.error = reading.details["error"] = error
    return reading


def _no_choice(reply: Any, around: _Around) -> Reading:
    """A reply with `choices: []`: a blocked prompt, an error, or nothing to read."""
    reading = _base(reply, None, around)
    reading.verdict = _R.UNKNOWN, "missing"
    blocked = around[2]
    if blocked is not None:
        reading.filter = blocked
    elif reading.error is not None:
        reading.verdict = _R.UNKNOWN, "error"
        reading.notes.append("no choices, and an in-band error in the reply: unknown/error")
    else:
        reading.notes.append("the reply has no choices: unknown/missing")
    return reading


def _choice(reply: Any, choice: Any, around: _Around) -> Reading:
    """Read one choice into its facts."""
    said = wire(choice)
    reading = _base(reply, said.get("finish_reason"), around)
    if choice is None or isinstance(choice, _NOT_AN_OBJECT):
        reading.verdict = _R.UNKNOWN, "malformed"  # there is no stop value to look up
        reading.malformed = f"a choice is a {type(choice).__name__}, not an object"
        return reading
    details = reading.details
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
    if message.get("tool_calls") is not None or message.get("function_call") is not None:
        _calls(message, reading)
    # Dialect extras: OpenRouter's own value, the legacy vision shape, Azure's filters.
    native = said.get("native_finish_reason")
    if native:
        details["native_finish_reason"] = native
    finish_details = said.get("finish_details")
    if finish_details:
        details["finish_details"] = finish_details
        raw = reading.raw_reason
        legacy = wire(finish_details).get("type")
        if (raw is None or raw == "") and type(legacy) is str and legacy in FINISH_DETAILS_TYPE:
            reading.notes.append(f"no finish_reason: legacy finish_details.type {legacy!r} read")
            reading.raw_reason = legacy
            reading.verdict = FINISH_DETAILS_TYPE[legacy]
    results = said.get("content_filter_results")
    if results:
        details["content_filter_results"] = results
        hits = filter_hits(results)
        if hits:
            why = f"content_filter_results filtered {', '.join(hits)}"
            reading.filter = category_detail(hits) or "safety", why
    if reading.filter is None:
        reading.filter = around[2]
    error = said.get("error")  # the choice's own (OpenRouter) before the reply's
    if error is not None:
        reading.error = details["error"] = error
    stop_reason = said.get("stop_reason")  # vLLM: the stop string, or a stop token's id
    if stop_reason is not None:
        details["stop_reason"] = stop_reason
        if type(stop_reason) is str:
            reading.stop_sequence = stop_reason
    return reading


def _calls(message: Mapping[str, Any], reading: Reading) -> None:
    """Read a message's tool calls (function, custom, or one legacy `function_call`)."""
    raw_calls = message.get("tool_calls")
    if raw_calls is not None and not isinstance(raw_calls, _SEQUENCES):
        reading.malformed = reading.malformed or "message.tool_calls is not a list"
        return
    calls: list[ToolCall] = []
    custom: list[str] = []
    for item in raw_calls or ():
        said = wire(item)
        function = said.get("function")
        if said.get("custom") is not None and (
            function is None or raw_value(said.get("type")) == "custom"
        ):
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


class OpenAIChatAdapter:
    """Reads OpenAI Chat Completions replies and the OpenAI-compatible servers' dialects.

    Example:
        >>> stopkit.get_adapter("openai.chat").normalize(completion).reason  # doctest: +SKIP
        <StopReason.TOOL_REQUEST: 'tool_request'>
    """

    name = PROVIDER
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
    stream_notes: tuple[str, ...] = (
        "A stream ends at the chunk carrying finish_reason; the usage-only chunk after it "
        "(choices: []) is read for usage only.",
        "Azure's asynchronous filter may send content_filter after stop, or annotation chunks "
        "with filtered: true: the later, stricter signal wins; a milder one never does.",
        "Text or tool calls sent after a choice's finish_reason are ignored (a note counts them).",
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

    def normalize(self, reply: Any) -> Stop:
        """Return the `Stop` of the reply's first choice (the lowest `index`)."""
        return decide(read(reply), RULES)

    def normalize_all(self, reply: Any) -> tuple[Stop, ...]:
        """Return one `Stop` per choice, in `index` order (`n > 1`)."""
        return tuple(decide(reading, RULES) for reading in readings(reply))

    def stream(self) -> ChatStream:
        """Return a fresh accumulator for one streamed chat completion."""
        return ChatStream(readings)

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

    def resume(self, stop: Stop) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Not applicable: Chat Completions never pauses a turn, so there is nothing to resume.

        Raises:
            ValueError: always, naming the stop's reason.
        """
        raise ValueError(
            f"openai.chat replies cannot be resumed: Chat Completions has no paused stop "
            f"(this stop is {stop.reason.value!r}, raw {stop.raw_reason!r})"
        )

    def user_message(self, text: str) -> dict[str, Any]:
        """Return a user message saying `text`: a Chat Completions message.

        Example:
            >>> OpenAIChatAdapter().user_message("Go on.")
            {'role': 'user', 'content': 'Go on.'}
        """
        return {"role": "user", "content": text}
