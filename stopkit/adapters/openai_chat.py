"""The OpenAI Chat Completions adapter, also for the servers that speak its dialect.

One table maps `choices[i].finish_reason` (OpenAI's five values plus the compatible servers' own:
DeepSeek, vLLM, OpenRouter, Together, Mistral); a few named steps then read the rest of the choice
(`message.refusal`, tool calls, Azure content filter results, in-band errors, vLLM `stop_reason`),
each leaving a note on the `Stop`. The tables and steps live in `_openai_chat_rules.py`; streams
are read by `_openai_chat_stream.ChatStream`, which hands what it assembled to the same `decide`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.adapters._common import as_raw, field, make_stop
from stopkit.adapters._openai_chat_rules import (
    CONTENT_FILTER,
    FINISH_DETAILS_TYPE,
    FINISH_REASON,
    PROMPT_FILTER,
    PROVIDER,
    VLLM_STOP_REASON,
    decide,
    filter_detail,
    plain_stop,
    prompt_filtered,
    read_calls,
    reader,
    text_of,
)

if TYPE_CHECKING:
    from stopkit.adapters._openai_chat_stream import ChatStream

__all__ = ["CONTENT_FILTER", "FINISH_DETAILS_TYPE", "FINISH_REASON", "OpenAIChatAdapter"]

_R = StopReason
_EMPTY: tuple[ToolCall, ...] = ()
# `object` values of bodies with `choices` that are not chat completions.
_NOT_A_COMPLETION = ("text_completion", "chat.completion.chunk", "response")
_SCALARS = (str, bytes, int, float, list, tuple)
_SEQUENCES = (list, tuple)  # built once: a `list | tuple` union is built at every call


def _unreadable(reply: Any, details: dict[str, Any], notes: list[str], **why: Any) -> Stop:
    """Decide a reply with no choice to read (`why`: a blocked prompt, or a malformed choice)."""
    return decide(
        None, raw=reply, text="", refusal=None, calls=_EMPTY, details=details, notes=notes, **why
    )


def _read_choice(reply: Any, choice: Any, prompt_hits: list[str]) -> Stop:
    details: dict[str, Any] = {}
    notes: list[str] = []
    if prompt_hits:
        details["prompt_filter_results"] = field(reply, "prompt_filter_results")
    if choice is None or isinstance(choice, _SCALARS):
        return _unreadable(
            reply, details, notes, malformed=f"a choice is a {type(choice).__name__}, not an object"
        )
    get = choice.get if type(choice) is dict else reader(choice)  # reader(), inlined for a dict
    message = get("message")
    message_get = message.get if type(message) is dict else reader(message)
    malformed: str | None = None
    content = message_get("content")
    text = content if type(content) is str else text_of(content)
    if text is None and isinstance(content, dict):
        # Cloudflare Workers AI answers a JSON-schema request with the object itself.
        text = json.dumps(content, ensure_ascii=False)
        notes.append("message.content is a JSON object, not a string: text is its JSON")
    if text is None:
        malformed, text = "message.content is neither a string nor a list of parts", ""
    refusal = message_get("refusal")
    if not isinstance(refusal, str) or not refusal:
        refusal = None
    if message_get("tool_calls") is None and message_get("function_call") is None:
        calls = _EMPTY  # read_calls' answer for a message with no call of any kind
    else:
        calls, custom, legacy, problem = read_calls(message)
        malformed = malformed or problem
        if custom:
            details["custom_tool_calls"] = custom
        if legacy:
            details["legacy_function_call"] = True
    # Dialect extras (OpenRouter, legacy vision, Azure, OpenAI moderation); the in-band error of
    # the choice (OpenRouter), of the reply, or of Groq's x_groq.
    native = get("native_finish_reason")
    if native:
        details["native_finish_reason"] = native
    finish_details = get("finish_details")
    if finish_details:
        details["finish_details"] = finish_details
    filter_results = get("content_filter_results")
    if filter_results:
        details["content_filter_results"] = filter_results
    reply_get = reply.get if type(reply) is dict else reader(reply)
    moderation = reply_get("moderation")
    if moderation is not None:
        details["moderation"] = moderation
    error = get("error")
    if error is None:
        error = reply_get("error")
    if error is None:
        groq = reply_get("x_groq")
        if groq is not None:
            error = reader(groq)("error") or None
    finish_reason = get("finish_reason")
    stop_reason = get("stop_reason")
    if (
        type(finish_reason) is str
        and malformed is None
        and not prompt_hits
        and not filter_results
        and error is None
        and stop_reason is None
    ):  # little for a step to reconcile: decide's first answer, without its keyword call
        plain = plain_stop(finish_reason, reply, text, calls, refusal, notes, details)
        if plain is not None:
            return plain
    return decide(
        finish_reason if type(finish_reason) is str else as_raw(finish_reason),
        raw=reply,
        text=text,
        refusal=refusal,
        calls=calls,
        details=details,
        notes=notes,
        error=error,
        stop_reason=stop_reason,
        filtered=filter_detail(filter_results) if filter_results else None,
        prompt_hits=prompt_hits,
        finish_details_type=field(finish_details, "type") if finish_details else None,
        malformed=malformed,
    )


def _index(choice: Any) -> int:
    index = field(choice, "index")
    return index if type(index) is int else 0


def _no_choice(reply: Any, prompt_hits: list[str]) -> Stop:
    details: dict[str, Any] = {}
    notes: list[str] = []
    error = field(reply, "error")
    if prompt_hits:
        details["prompt_filter_results"] = field(reply, "prompt_filter_results")
        return _unreadable(reply, details, notes, prompt_hits=prompt_hits)
    if error is not None:
        details["error"] = error
        notes.append("no choices, and an error in the reply: unknown/error")
        return make_stop(
            _R.UNKNOWN, provider=PROVIDER, raw=reply, detail="error", notes=notes, details=details
        )
    notes.append("the reply has no choices: unknown/missing")
    return make_stop(_R.UNKNOWN, provider=PROVIDER, raw=reply, detail="missing", notes=notes)


class OpenAIChatAdapter:
    """Reads OpenAI Chat Completions replies and the OpenAI-compatible servers' dialects.

    Example:
        >>> stop = OpenAIChatAdapter().normalize({"object": "chat.completion", "choices": [
        ...     {"index": 0, "message": {"role": "assistant", "content": "Hi"},
        ...      "finish_reason": "stop"}]})
        >>> (stop.reason.value, stop.text)
        ('completed', 'Hi')
    """

    name = PROVIDER
    # A chat completion has a `choices` list: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = ("choices",)
    tables: dict[str, dict[str, tuple[StopReason, str | None]]] = {  # noqa: RUF012
        "finish_reason": FINISH_REASON,
        "finish_details.type": FINISH_DETAILS_TYPE,
        "stop_reason (vLLM)": VLLM_STOP_REASON,
        "content_filter_results (Azure, filtered: true)": CONTENT_FILTER,
        "prompt_filter_results (Azure)": PROMPT_FILTER,
    }
    stream_notes: tuple[str, ...] = (
        "A stream ends at the chunk carrying finish_reason; the usage-only chunk after it "
        "(choices: []) is read for nothing else.",
        "Azure's asynchronous filter may send content_filter after stop, or annotation chunks "
        "with filtered: true: the later, stricter signal wins.",
        "A chunk carrying an error object (Groq, OpenRouter) makes the reply unknown/error "
        "unless it was already filtered or cut off.",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a chat completion: it has a `choices` list (not a chunk).

        An `object` of `"response"` is the Responses API's, whatever else the body holds: the
        two adapters never claim the same reply, so their detection order does not matter.
        """
        if type(reply) is dict:  # the JSON body: `field` inlined
            if not isinstance(reply.get("choices"), _SEQUENCES):
                return False
            kind = reply.get("object")
            if type(kind) is str:
                return kind not in _NOT_A_COMPLETION
            return as_raw(kind) not in _NOT_A_COMPLETION
        choices = field(reply, "choices")
        if not isinstance(choices, _SEQUENCES):
            return False
        kind = as_raw(field(reply, "object"))
        return kind not in _NOT_A_COMPLETION

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a chat completion chunk (Azure's first one has no object)."""
        if not isinstance(field(event, "choices"), list | tuple):
            return False
        return as_raw(field(event, "object")) not in ("text_completion", "chat.completion")

    def normalize(self, reply: Any) -> Stop:
        """Return the `Stop` of the reply's first choice (the lowest `index`)."""
        plain = type(reply) is dict
        choices = reply.get("choices") if plain else field(reply, "choices")
        if not isinstance(choices, _SEQUENCES):
            return decide(
                None,
                raw=reply,
                text="",
                refusal=None,
                calls=_EMPTY,
                details={},
                notes=[],
                malformed="choices is not a list",
            )
        filters = (reply.get if plain else reader(reply))("prompt_filter_results")
        hits = prompt_filtered(reply) if filters else []
        if not choices:
            return _no_choice(reply, hits)
        first = choices[0] if len(choices) == 1 else min(choices, key=_index)
        return _read_choice(reply, first, hits)

    def normalize_all(self, reply: Any) -> tuple[Stop, ...]:
        """Return one `Stop` per choice, in `index` order (`n > 1`)."""
        choices = field(reply, "choices")
        if not isinstance(choices, _SEQUENCES) or not choices:
            return (self.normalize(reply),)
        hits = prompt_filtered(reply) if reader(reply)("prompt_filter_results") else []
        return tuple(_read_choice(reply, c, hits) for c in sorted(choices, key=_index))

    def stream(self) -> ChatStream:
        """Return a fresh accumulator for one streamed chat completion."""
        from stopkit.adapters._openai_chat_stream import ChatStream

        return ChatStream()

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the assistant message as sent: role, content, tool calls, refusal.

        Tool calls carry their arguments as the string the model sent (re-encoded only when
        none was sent); a legacy `function_call` reply gives a `function_call` message.

        Example:
            >>> OpenAIChatAdapter().assistant_message(stop)  # doctest: +SKIP
            [{'role': 'assistant', 'content': None, 'tool_calls': [...]}]
        """
        message: dict[str, Any] = {"role": "assistant"}
        calls = stop.tool_calls
        message["content"] = stop.text if stop.text or not calls else None
        if stop.refusal:
            message["refusal"] = stop.refusal
        if stop.details.get("legacy_function_call") and calls:
            call = calls[0]
            message["function_call"] = {"name": call.name, "arguments": _arguments(call)}
        elif calls:
            custom = set(stop.details.get("custom_tool_calls", ()))
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "custom",
                    "custom": {"name": c.name, "input": c.arguments.get("input", "")},
                }
                if c.id in custom
                else {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": _arguments(c)},
                }
                for c in calls
            ]
        return [message]

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one `tool` message per call id, in order (`function` for a legacy call).

        Example:
            >>> OpenAIChatAdapter().tool_results(stop, [ToolResult(call_id="call_1",
            ...     name="f", content="42")])  # doctest: +SKIP
            [{'role': 'tool', 'tool_call_id': 'call_1', 'content': '42'}]
        """
        if stop.details.get("legacy_function_call"):
            return [{"role": "function", "name": r.name, "content": r.content} for r in results]
        return [{"role": "tool", "tool_call_id": r.call_id, "content": r.content} for r in results]

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


def _arguments(call: ToolCall) -> str:
    if call.arguments_json is not None:
        return call.arguments_json
    return json.dumps(call.arguments, ensure_ascii=False)
