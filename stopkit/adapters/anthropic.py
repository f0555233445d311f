"""The Anthropic Messages API adapter (`anthropic.types.Message`, beta `BetaMessage`, raw JSON).

A reply says why it stopped in `stop_reason`; the content blocks decide the rest: `tool_use`
blocks are client tool calls (unless their result already sits in the reply), server tools
(`server_tool_use`, `mcp_tool_use`, every `*_tool_result`) are not, and a `max_tokens` reply
that ends inside a `tool_use` block carries a call that must never run.

Example:
    >>> stop = AnthropicAdapter().normalize({"type": "message", "role": "assistant",
    ...     "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn"})
    >>> (stop.reason.value, stop.text)
    ('completed', 'Hi')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.adapters._anthropic_rules import RULES
from stopkit.adapters._anthropic_stream import AnthropicStream
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._calls import tool_call
from stopkit.adapters._reading import Reading, identify, tokens
from stopkit.adapters._wire import listed, to_json, wire

__all__ = ["AnthropicAdapter"]


def _read(reply: Any) -> Reading:
    """Read one Messages API reply (a JSON dict or an SDK `Message`) into its facts."""
    fields = wire(reply)
    reading = Reading(reply, fields.get("stop_reason"))
    identify(reading, fields.get("model"), fields.get("id"))  # anthropic/types/message.py
    content = fields.get("content")
    if type(content) is not list:
        shown = "missing" if content is None else f"a {type(content).__name__}"
        reading.malformed = f"content is {shown}, not a list of blocks"
        content = listed(content)
    _read_blocks(reading, content)
    stop_sequence = fields.get("stop_sequence")
    if type(stop_sequence) is str:
        reading.stop_sequence = stop_sequence
    elif stop_sequence is not None:
        reading.notes.append(f"stop_sequence {stop_sequence!r} is not a string: ignored")
    stop_details = fields.get("stop_details")
    if stop_details is not None:
        reading.details["stop_details"] = to_json(stop_details, drop_none=True)
        said = wire(stop_details)
        if said.get("type") == "refusal":
            explanation = said.get("explanation")
            reading.refusal = explanation if type(explanation) is str and explanation else None
    usage = fields.get("usage")
    if usage is not None:
        reading.details["usage"] = usage
        counts = wire(usage)
        reading.usage = tokens(
            counts.get("input_tokens"),
            counts.get("output_tokens"),
            wire(counts.get("output_tokens_details")).get("thinking_tokens"),
            counts.get("cache_read_input_tokens"),
            counts.get("cache_creation_input_tokens"),
        )
    return reading


def _read_blocks(reading: Reading, content: list[Any]) -> None:
    """Read the content blocks: visible text, client calls, the ids of calls answered in it."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    answered: set[str] | None = None
    kind: Any = None
    for block in content:
        said = wire(block)
        kind = said.get("type")
        if kind == "text":
            value = said.get("text")
            if type(value) is str:
                texts.append(value)
        elif kind == "tool_use":
            calls.append(tool_call(said.get("id"), said.get("name"), said.get("input")))
        elif type(kind) is str and kind.endswith("tool_result"):
            # Results (`*_tool_result`, `mcp_tool_result`, `tool_result`) name their call.
            result_of = said.get("tool_use_id")
            if type(result_of) is str:  # an id of another type names no call (nor hashes)
                if answered is None:
                    answered = set()
                answered.add(result_of)
    reading.text = "".join(texts)
    reading.calls = calls
    reading.answered = answered
    reading.cut_in_call = kind == "tool_use"


def _sendable(block: Any) -> bool:
    """Say whether a reply block may be sent back: the API rejects blank text blocks."""
    fields = wire(block)
    if fields.get("type") != "text":
        return True
    text = fields.get("text")
    return isinstance(text, str) and text.strip() != ""


class AnthropicAdapter(BaseAdapter):
    """Reads Anthropic Messages API replies and streams, and continues their conversations.

    Example:
        >>> stopkit.get_adapter("anthropic").normalize(message).reason  # doctest: +SKIP
        <StopReason.TOOL_REQUEST: 'tool_request'>
    """

    name = "anthropic"
    rules = RULES
    otel_provider = "anthropic"  # gen-ai-spans.md's well-known value
    # `input_tokens` leaves out cache reads and writes (anthropic/types/usage.py).
    counts_apart = frozenset({"cache"})
    read = staticmethod(_read)
    # A body without `type` is never a Messages reply: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = ("type",)
    stream_notes = (
        "The stop_reason arrives in `message_delta`; the reply has ended only at "
        "`message_stop` (a stream without it is unknown/stream_incomplete).",
        "An `error` event in the stream (e.g. `overloaded_error`) makes the reply "
        "unknown/error, with the error kept in details['error'].",
        "Tool input arrives as `input_json_delta` fragments, parsed at `content_block_stop`; "
        "a tool_use block that never stopped is complete=False.",
        "A streamed Stop's `raw` is the reply rebuilt from the events (a Messages-shaped dict), "
        "which is what `assistant_message` sends back.",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a Messages API reply (`type == "message"`, dict or SDK object)."""
        if type(reply) is dict:  # the JSON body: `field` inlined
            if reply.get("type") != "message":
                return False
            return reply.get("role") == "assistant" or reply.get("content") is not None
        fields = wire(reply)
        if fields.get("type") != "message":
            return False
        return fields.get("role") == "assistant" or fields.get("content") is not None

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` starts a Messages API stream (`message_start`, or an error event)."""
        fields = wire(event)
        kind = fields.get("type")
        if kind == "message_start" or kind == "ping":
            return True
        return kind == "error" and wire(fields.get("error")).get("type") is not None

    def stream(self) -> AnthropicStream:
        """Return a fresh accumulator for one streamed reply (SDK events or JSON dicts)."""
        return AnthropicStream(_read)

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the assistant message that appends this reply to the transcript.

        The content blocks go back as sent (thinking blocks with their signatures, server tool
        blocks, compaction blocks), except blank text blocks, which the API rejects.
        """
        content = wire(stop.raw).get("content")
        if not isinstance(content, list):
            raise ValueError("this Stop's raw reply has no content list to send back")
        blocks = [to_json(block, drop_none=True) for block in content if _sendable(block)]
        if not blocks:
            return []
        return [{"role": "assistant", "content": blocks}]

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one user message of `tool_result` blocks, one per call id, in the calls' order.

        Results for ids the reply did not ask for follow, in the order given; a repeated id is
        sent once (its first result).
        """
        by_id: dict[str, ToolResult] = {}
        for result in results:
            by_id.setdefault(result.call_id, result)
        ordered = [by_id.pop(call.id) for call in stop.tool_calls if call.id in by_id]
        ordered.extend(by_id.values())
        if not ordered:
            return []
        blocks: list[dict[str, Any]] = []
        for result in ordered:
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": result.call_id,
                "content": result.content,
            }
            if result.is_error:
                block["is_error"] = True
            blocks.append(block)
        return [{"role": "user", "content": blocks}]

    def resume(self, stop: Stop) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Return the messages and call overrides that resume a paused turn.

        `pause_turn` and `compaction`: the reply goes back as the last assistant message and the
        same request is sent again; the API continues the turn from it. No override is needed,
        so the overrides are always `{}`.
        """
        if stop.reason is not StopReason.PAUSED:
            raise ValueError(f"only a paused Stop can be resumed; this one is {stop.reason.value}")
        return self.assistant_message(stop), {}
