"""Amazon Bedrock Converse / ConverseStream: `stopReason`, `toolUse` blocks, guardrails.

Replies are the JSON dicts boto3's `bedrock-runtime` client returns (and the HTTP body of the
Converse API): `{"output": {"message": {"role", "content": [...]}}, "stopReason", "usage", ...}`.
boto3 has no reply objects, so there is no SDK-object form to read. Nova bodies read through
InvokeModel have the same shape, with `amazon-bedrock-guardrailAction` / `-trace` beside it.

Example:
    >>> stop = BedrockAdapter().normalize({"output": {"message": {"role": "assistant",
    ...     "content": [{"text": "Hi"}]}}, "stopReason": "end_turn"})
    >>> (stop.reason.value, stop.text)
    ('completed', 'Hi')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from stopkit._json import loads
from stopkit._stop import Stop, ToolCall, ToolResult
from stopkit.adapters._base import BaseAdapter
from stopkit.adapters._bedrock_guardrail import ACTION, TRACE, converse_guardrail
from stopkit.adapters._bedrock_rules import (
    GUARDRAIL_ACTIONS,
    RULES,
    STOP_REASONS,
    STREAM_ERRORS,
)
from stopkit.adapters._bedrock_stream import BedrockStream
from stopkit.adapters._calls import tool_call
from stopkit.adapters._reading import Reading, Verdict, tokens
from stopkit.adapters._wire import listed, wire

__all__ = ["BedrockAdapter"]

#: Top-level reply fields kept in `Stop.details` under their wire names. The two
#: `amazon-bedrock-*` fields come with Nova replies read through InvokeModel.
_DETAIL_FIELDS = ("trace", "additionalModelResponseFields", ACTION, TRACE)


def _read(reply: Any) -> Reading:
    """Read one Converse reply (the dict boto3 returns, or its JSON body) into its facts.

    Example:
        >>> _read({"output": {"message": {"content": [{"text": "Hi"}]}},
        ...       "stopReason": "end_turn"}).text
        'Hi'
    """
    fields = wire(reply)
    # No model and no reply id: service-2.json's ConverseResponse has neither (the request's
    # modelId names the model; boto3's ResponseMetadata.RequestId is the HTTP exchange's).
    reading = Reading(reply, fields.get("stopReason"))
    message = wire(fields.get("output")).get("message")
    if type(message) is dict:
        _read_content(reading, message.get("content"))
    else:
        reading.malformed = f"output.message is a {type(message).__name__}, not an object"
    details = reading.details
    for name in _DETAIL_FIELDS:
        value = fields.get(name)
        if value:
            details[name] = value
    extra = fields.get("additionalModelResponseFields")
    reading.stop_sequence = _matched_sequence(extra)
    if reading.raw_reason == "stop_sequence" and reading.stop_sequence is None:
        reading.notes.append(
            "stopReason 'stop_sequence' without the matched sequence (ask for it with "
            "additionalModelResponseFieldPaths=['/stop_sequence'])"
        )
    # Converse says in its stop value itself that a guardrail intervened (the table filters).
    converse_guardrail(reading, fields)
    usage = fields.get("usage")
    if usage is not None:
        details["usage"] = usage
        counts = wire(usage)
        # Converse's TokenUsage (service-2.json, shape "TokenUsage"): inputTokens excludes the
        # cached prompt, read and written, which have their own fields; Nova through
        # InvokeModel spells those two `cache{Read,Write}InputTokenCount`.
        reading.usage = tokens(
            counts.get("inputTokens"),
            counts.get("outputTokens"),
            None,
            _either(counts, "cacheReadInputTokens", "cacheReadInputTokenCount"),
            _either(counts, "cacheWriteInputTokens", "cacheWriteInputTokenCount"),
            counts.get("totalTokens"),
        )
    return reading


def _either(counts: Any, converse: str, invoke: str) -> Any:
    value = counts.get(converse)
    return counts.get(invoke) if value is None else value


def _read_content(reading: Reading, content: Any) -> None:
    """Read message content blocks: visible text, client calls, answered ids, what is malformed.

    Visible text is `text` blocks and the generated text of `citationsContent` blocks;
    `reasoningContent` is excluded. A `toolUse` run by Bedrock itself (`type:
    "server_tool_use"`) is not a call; one whose `toolResult` sits in the same reply is answered.
    """
    if type(content) is not list:
        reading.malformed = f"output.message.content is a {type(content).__name__}, not a list"
        return
    texts: list[str] = []
    calls: list[ToolCall] = []
    answered: set[str] | None = None
    wrong: list[str] = []
    for i, block in enumerate(content):
        if type(block) is not dict:
            wrong.append(f"content[{i}] is a {type(block).__name__}, not an object")
            continue
        text = block.get("text")
        if text is not None:
            if type(text) is str:
                texts.append(text)
            else:
                wrong.append(f"content[{i}].text is a {type(text).__name__}, not a string")
        elif "toolUse" in block:
            use = wire(block["toolUse"])
            if use.get("type") == "server_tool_use":
                reading.notes.append(
                    f"toolUse {use.get('name')!r} is a server tool, run by Bedrock: not a tool call"
                )
            else:
                calls.append(tool_call(use.get("toolUseId"), use.get("name"), use.get("input")))
        elif "toolResult" in block:
            result_of = wire(block["toolResult"]).get("toolUseId")
            if type(result_of) is str:  # an id of another type names no call (nor hashes)
                if answered is None:
                    answered = set()
                answered.add(result_of)
        elif "citationsContent" in block:
            for part in listed(wire(block["citationsContent"]).get("content")):
                part_text = wire(part).get("text")
                if type(part_text) is str:
                    texts.append(part_text)
    reading.text = "".join(texts)
    reading.calls = calls
    reading.answered = answered
    if wrong:
        reading.malformed = "; ".join(wrong)


def _matched_sequence(extra: Any) -> str | None:
    """The stop sequence named in `additionalModelResponseFields`, when the model names it.

    Anthropic models return it as `stop_sequence` (requested with the field path
    `/stop_sequence`); some recordings nest it as `delta.stop_sequence`.
    """
    if type(extra) is not dict:
        return None
    value = extra.get("stop_sequence")
    if value is None:
        value = wire(extra.get("delta")).get("stop_sequence")
    return value if type(value) is str and value else None


def _blank_text(block: Any) -> bool:
    text = wire(block).get("text")
    return type(text) is str and not text.strip() and "toolUse" not in block


def _result_content(content: str) -> list[dict[str, Any]]:
    """Bedrock takes JSON-object results as a `json` document, anything else as `text`."""
    if content.lstrip().startswith("{"):
        try:
            value = loads(content)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return [{"json": value}]
    return [{"text": content}]


class BedrockAdapter(BaseAdapter):
    """Reads Amazon Bedrock Converse replies and ConverseStream events (boto3's dicts).

    Example:
        >>> stop = BedrockAdapter().normalize({"output": {"message": {"role": "assistant",
        ...     "content": [{"text": "Hi"}]}}, "stopReason": "end_turn"})
        >>> (stop.reason.value, stop.text)
        ('completed', 'Hi')
    """

    name = "bedrock"
    rules = RULES
    otel_provider = "aws.bedrock"  # gen-ai-spans.md's well-known value
    # Converse `inputTokens` leaves out the cached prompt, read and written (TokenUsage).
    counts_apart = frozenset({"cache"})
    read = staticmethod(_read)
    # A Converse reply holds `output.message`: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = ("output",)
    tables: ClassVar[dict[str, dict[str, Verdict]]] = {
        "stopReason": STOP_REASONS,
        "ConverseStream exception event": STREAM_ERRORS,
        ACTION: GUARDRAIL_ACTIONS,
    }
    stream_notes = (
        "ConverseStream sends toolUse input as JSON text fragments, assembled per "
        "contentBlockIndex and parsed once at the end.",
        "The stream ends at messageStop; the metadata event after it (usage, the guardrail "
        "trace) is read, a later block event is not (a note counts them), and a second stop "
        "value wins only when it is stricter. Without messageStop the Stop is "
        "unknown/stream_incomplete.",
        "An exception event (modelStreamErrorException, throttlingException, ...) ends the "
        "stream: unknown/error, with the error in details['error'].",
        "The Stop's raw is the reply reassembled from the events, in the Converse shape.",
    )

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a Converse reply: an `output` object holding a `message`."""
        output = reply.get("output") if type(reply) is dict else None
        return type(output) is dict and "message" in output

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` is a ConverseStream event (boto3's one-key dicts, or flattened)."""
        if type(event) is not dict:
            return False
        kind = event.get("type")
        if kind is not None:
            # A proxy that names the event in the SSE `event:` line gives it flattened.
            return isinstance(kind, str) and kind in _FIRST_EVENTS
        if any(key in event for key in _FIRST_EVENTS):
            return True
        metadata = event.get("metadata")
        return type(metadata) is dict and ("usage" in metadata or "metrics" in metadata)

    def stream(self) -> BedrockStream:
        """Return a fresh accumulator for one ConverseStream."""
        return BedrockStream(_read)

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the assistant message to append: its content blocks as sent.

        Whitespace-only text blocks are left out: Bedrock rejects a blank text block in a
        request. A `Stop` not read from a Converse reply is rebuilt from its text and calls.
        """
        content = wire(wire(wire(stop.raw).get("output")).get("message")).get("content")
        if type(content) is list:
            blocks = [block for block in content if not _blank_text(block)]
        else:
            blocks = [{"text": stop.text}] if stop.text.strip() else []
            blocks += [
                {"toolUse": {"toolUseId": c.id, "name": c.name, "input": c.arguments}}
                for c in stop.tool_calls
            ]
        return [{"role": "assistant", "content": blocks}]

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one user message of `toolResult` blocks, one per result, in order.

        A result whose content is a JSON object is sent as a `json` block, any other as `text`;
        a failed call has `status: "error"`.
        """
        blocks = [
            {
                "toolResult": {
                    "toolUseId": result.call_id,
                    "content": _result_content(result.content),
                    "status": "error" if result.is_error else "success",
                }
            }
            for result in results
        ]
        return [{"role": "user", "content": blocks}]

    def user_message(self, text: str) -> dict[str, Any]:
        """Return a user message saying `text`: a Converse message (content is a list of blocks).

        Example:
            >>> BedrockAdapter().user_message("Go on.")
            {'role': 'user', 'content': [{'text': 'Go on.'}]}
        """
        return {"role": "user", "content": [{"text": text}]}


#: The events a ConverseStream may start with (vercel-ai recordings start at a block delta).
_FIRST_EVENTS = frozenset(
    {
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        *STREAM_ERRORS,
    }
)
