"""The xAI adapter: xai_sdk's gRPC Chat replies (`Response`, its protos, their JSON) and streams.

xai_sdk speaks gRPC: `chat.create(...).sample()` returns a `Response` wrapping the proto
`GetChatCompletionResponse` (`{id, model, outputs: [{index, finish_reason, message: {role,
content, reasoning_content, tool_calls}}], usage}`), and `.stream()` yields `(Response, Chunk)`
pairs, each `Chunk` wrapping a `GetChatCompletionChunk` (`outputs: [{index, delta,
finish_reason}]`). Source: xai-sdk 1.21.0 xai_sdk/chat.py and xai_sdk/proto/v6/chat_pb2.pyi.

A proto is read through its JSON form (`google.protobuf.json_format.MessageToDict`, snake_case
names, enums by name: the library of the object in hand, never xai_sdk), so a proto, its JSON
and the SDK's wrappers read alike. `raw_reason` is the `FinishReason` member's name
(`"REASON_STOP"`), as `Response.finish_reason` gives it. The reply's outputs are its assistant
outputs, the last one per `index` (as `Response` itself reads them); `reasoning_content` is
reasoning, not text (kept in `details["reasoning_content"]`). A tool call of a server-side type
(web search, code execution, MCP, ...) was run by xAI: it is not a tool call.

Example:
    >>> stop = XAIAdapter().normalize({"outputs": [{"finish_reason": "REASON_STOP",
    ...     "message": {"role": "ROLE_ASSISTANT", "content": "Hi"}}]})
    >>> (stop.reason.value, stop.text)
    ('completed', 'Hi')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from stopkit._stop import Stop, ToolCall, ToolResult
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._calls import tool_call
from stopkit.adapters._framework import class_of
from stopkit.adapters._reading import Reading, identify, tokens
from stopkit.adapters._wire import either, listed, wire
from stopkit.adapters._xai_rules import PROVIDER, RULES
from stopkit.adapters._xai_stream import XAIStream

__all__ = ["XAIAdapter"]

#: The proto messages read, by their full name (xai_api's chat.proto).
_REPLY, _CHUNK = "xai_api.GetChatCompletionResponse", "xai_api.GetChatCompletionChunk"
_WRAPPERS = frozenset({"Response", "Chunk"})
#: Tool call types run by the client (`ToolCallType`); every other type is a server-side tool.
_CLIENT_SIDE = ("TOOL_CALL_TYPE_CLIENT_SIDE_TOOL", None)
_ASSISTANT = ("ROLE_ASSISTANT", None)


def _proto_name(obj: Any) -> str | None:
    descriptor = getattr(type(obj), "DESCRIPTOR", None)
    name = getattr(descriptor, "full_name", None)
    return name if type(name) is str else None


def _fields_of(obj: Any) -> Mapping[str, Any]:
    """The fields of a reply or chunk: a JSON dict as is, a proto (or its wrapper) as its JSON.

    Example:
        >>> _fields_of({"outputs": []})
        {'outputs': []}
    """
    if type(obj) is dict:
        return obj
    if class_of(obj, "xai_sdk.", _WRAPPERS) is not None:
        obj = obj.proto  # the SDK's `Response` / `Chunk` decorate their proto
    if _proto_name(obj) in (_REPLY, _CHUNK):
        # The proto's own library (installed with the object; no stubs are): its JSON mapping.
        from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]

        as_json: dict[str, Any] = MessageToDict(obj, preserving_proto_field_name=True)
        return as_json
    return wire(obj)


def _outputs(fields: Mapping[str, Any]) -> list[Any]:
    """The assistant outputs (else every output), the last one per `index`, in `index` order."""
    outputs = [wire(output) for output in listed(fields.get("outputs"))]
    assistant = [o for o in outputs if wire(o.get("message")).get("role") in _ASSISTANT]
    last: dict[int, Any] = {}
    for said in assistant or outputs:
        index = said.get("index")
        last[index if type(index) is int else 0] = said
    return [last[index] for index in sorted(last)]


def _reading(reply: Any, fields: Mapping[str, Any], output: Any) -> Reading:
    said = wire(output)
    reading = Reading(reply, either(said, "finishReason", "finish_reason"))
    # chat.proto GetChatCompletionResponse: `model`, and `id`, the completion's own.
    identify(reading, fields.get("model"), fields.get("id"))
    message = wire(said.get("message"))
    content = message.get("content")
    reading.text = content if type(content) is str else ""
    thinking = either(message, "reasoningContent", "reasoning_content")
    if type(thinking) is str and thinking:
        reading.details["reasoning_content"] = thinking
    calls: list[ToolCall] = []
    for item in listed(either(message, "toolCalls", "tool_calls")):
        call = wire(item)
        function = wire(call.get("function"))
        if call.get("type") in _CLIENT_SIDE:
            calls.append(tool_call(call.get("id"), function.get("name"), function.get("arguments")))
        else:
            reading.notes.append(
                f"tool call {function.get('name')!r} ({call.get('type')}) is a server-side tool, "
                "run by xAI: not a tool call"
            )
    reading.calls = calls
    usage = fields.get("usage")
    if usage is not None:
        counts = wire(usage)
        reading.details["usage"] = usage
        # usage.proto SamplingUsage, as xAI reports it: prompt_tokens (cached ones included,
        # also in cached_prompt_text_tokens), completion_tokens, reasoning_tokens, total_tokens.
        reading.usage = tokens(
            either(counts, "promptTokens", "prompt_tokens"),
            either(counts, "completionTokens", "completion_tokens"),
            either(counts, "reasoningTokens", "reasoning_tokens"),
            either(counts, "cachedPromptTextTokens", "cached_prompt_text_tokens"),
            None,
            either(counts, "totalTokens", "total_tokens"),
        )
    citations = fields.get("citations")
    if citations:
        reading.details["citations"] = citations
    return reading


def _readings(reply: Any) -> list[Reading]:
    """Read a reply into one `Reading` per assistant output (`sample_batch`'s `n`).

    Example:
        >>> _readings({"outputs": [{"message": {"content": "Hi"}}]})[0].text
        'Hi'
    """
    fields = _fields_of(reply)
    outputs = _outputs(fields)
    if not outputs:
        reading = Reading(reply)
        reading.malformed = "outputs holds no output"
        return [reading]
    return [_reading(reply, fields, output) for output in outputs]


def _is_reply(fields: Mapping[str, Any], part: str) -> bool:
    """A JSON reply (`part="message"`) or chunk (`"delta"`): its first output holds `part`."""
    outputs = fields.get("outputs")
    return type(outputs) is list and bool(outputs) and type(outputs[0]) is dict and (
        part in outputs[0]
    )


class XAIAdapter(BaseAdapter):
    """Reads xai_sdk's Chat replies (`Response`, its protos, their JSON) and streams.

    Example:
        >>> stop = XAIAdapter().normalize({"outputs": [{"finish_reason": "REASON_MAX_LEN",
        ...     "message": {"role": "ROLE_ASSISTANT", "content": "Paris is"}}]})
        >>> (stop.reason.value, stop.detail)
        ('output_limit', 'max_tokens')
    """

    name = PROVIDER
    rules = RULES
    # gen-ai-spans.md lists `x_ai` among `gen_ai.provider.name`'s well-known values.
    otel_provider = "x_ai"
    read = staticmethod(lambda reply: _readings(reply)[0])
    readings = staticmethod(_readings)
    # A reply or chunk holds `outputs`: auto-detection skips this adapter for a JSON body with
    # none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = ("outputs",)
    stream_notes: ClassVar[tuple[str, ...]] = (
        "Streams are what `Chat.stream()` yields: `(Response, Chunk)` pairs (a `Chunk`, its "
        "proto or their JSON alone read too); each chunk's deltas are assembled per output "
        "index.",
        "The stream ends at the chunk carrying a finish_reason (not REASON_INVALID, the proto "
        "default); after it only usage and a stricter finish_reason are read. Without one the "
        "Stop is unknown/stream_incomplete.",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is an xAI reply: the SDK's `Response`, its proto, or its JSON."""
        if type(reply) is dict:
            return _is_reply(reply, "message")
        return class_of(reply, "xai_sdk.", {"Response"}) is not None or _proto_name(reply) == _REPLY

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is an xAI stream event: a `(Response, Chunk)` pair, or a chunk."""
        if type(event) is tuple and len(event) == 2:
            event = event[1]
        if type(event) is dict:
            return _is_reply(event, "delta")
        return class_of(event, "xai_sdk.", {"Chunk"}) is not None or _proto_name(event) == _CHUNK

    def stream(self) -> XAIStream:
        """Return a fresh accumulator for one `Chat.stream()`."""
        return XAIStream(lambda reply: _readings(reply)[0], _fields_of)

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the assistant message that appends this reply, as a `chat_pb2.Message`'s JSON.

        A `call_model` turns each message into the proto with
        `google.protobuf.json_format.ParseDict(message, chat_pb2.Message())`.

        Example:
            >>> XAIAdapter().assistant_message(stop)  # doctest: +SKIP
            [{'role': 'ROLE_ASSISTANT', 'content': [{'text': 'Hi'}]}]
        """
        message: dict[str, Any] = {"role": "ROLE_ASSISTANT", "content": [{"text": stop.text}]}
        if stop.tool_calls:
            message["tool_calls"] = [
                {"id": call.id, "type": "TOOL_CALL_TYPE_CLIENT_SIDE_TOOL",
                 "function": {"name": call.name, "arguments": call.arguments_json or "{}"}}
                for call in stop.tool_calls
            ]  # fmt: skip
        return [message]

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one `ROLE_TOOL` message per result, matched to its call by `tool_call_id`.

        Example:
            >>> XAIAdapter().tool_results(stop, [ToolResult(call_id="call_1",
            ...     name="get_weather", content="21C")])  # doctest: +SKIP
            [{'role': 'ROLE_TOOL', 'content': [{'text': '21C'}], 'tool_call_id': 'call_1'}]
        """
        return [
            {"role": "ROLE_TOOL", "content": [{"text": r.content}], "tool_call_id": r.call_id}
            for r in results
        ]

    def user_message(self, text: str) -> dict[str, Any]:
        """Return a user message saying `text`, as a `chat_pb2.Message`'s JSON.

        Example:
            >>> XAIAdapter().user_message("Go on.")
            {'role': 'ROLE_USER', 'content': [{'text': 'Go on.'}]}
        """
        return {"role": "ROLE_USER", "content": [{"text": text}]}
