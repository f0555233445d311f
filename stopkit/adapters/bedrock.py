"""Amazon Bedrock Converse / ConverseStream: `stopReason`, `toolUse` blocks, guardrails.

Replies are the JSON dicts boto3's `bedrock-runtime` client returns (and the HTTP body of the
Converse API): `{"output": {"message": {"role", "content": [...]}}, "stopReason", ...}`.
boto3 has no reply objects, so there is no SDK-object form to read.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.adapters._common import as_list, field, make_stop, tool_call

if TYPE_CHECKING:
    from stopkit.adapters._bedrock_stream import BedrockStream

__all__ = ["STOP_REASONS", "STREAM_ERRORS", "BedrockAdapter"]

PROVIDER = "bedrock"

# Source: botocore 1.43.11, botocore/data/bedrock-runtime/2023-09-30/service-2.json, shape
# "StopReason" (the enum of ConverseResponse.stopReason and MessageStopEvent.stopReason).
STOP_REASONS: dict[str, tuple[StopReason, str | None]] = {
    "end_turn": (StopReason.COMPLETED, None),
    "tool_use": (StopReason.TOOL_REQUEST, None),
    "max_tokens": (StopReason.OUTPUT_LIMIT, "max_tokens"),
    "stop_sequence": (StopReason.STOP_SEQUENCE, None),
    "guardrail_intervened": (StopReason.FILTERED, "guardrail"),
    "content_filtered": (StopReason.FILTERED, "safety"),
    "malformed_model_output": (StopReason.UNKNOWN, "error"),
    "malformed_tool_use": (StopReason.UNKNOWN, "error"),
    "model_context_window_exceeded": (StopReason.OUTPUT_LIMIT, "context_window"),
}

# Source: the same service-2.json, shape "ConverseStreamOutput": the exception members a
# ConverseStream can deliver in place of its events. Each one ends the stream.
STREAM_ERRORS: dict[str, tuple[StopReason, str | None]] = {
    "internalServerException": (StopReason.UNKNOWN, "error"),
    "modelStreamErrorException": (StopReason.UNKNOWN, "error"),
    "validationException": (StopReason.UNKNOWN, "error"),
    "throttlingException": (StopReason.UNKNOWN, "error"),
    "serviceUnavailableException": (StopReason.UNKNOWN, "error"),
}

#: Top-level reply fields kept in `Stop.details` under their wire names. The two
#: `amazon-bedrock-*` fields come with Nova replies read through InvokeModel.
_DETAIL_FIELDS = (
    "trace",
    "additionalModelResponseFields",
    "amazon-bedrock-guardrailAction",
    "amazon-bedrock-trace",
)

_MALFORMED = "malformed"


def _plural(n: int) -> str:
    return f"{n} tool call" + ("" if n == 1 else "s")


def _matched_sequence(extra: Any) -> str | None:
    """The stop sequence named in `additionalModelResponseFields`, when the model names it.

    Anthropic models return it as `stop_sequence` (requested with the field path
    `/stop_sequence`); some recordings nest it as `delta.stop_sequence`.
    """
    if type(extra) is not dict:
        return None
    value = extra.get("stop_sequence")
    if value is None:
        delta = extra.get("delta")
        if type(delta) is dict:
            value = delta.get("stop_sequence")
    return value if isinstance(value, str) and value else None


def read_content(content: Any, notes: list[str]) -> tuple[str, list[ToolCall], bool]:
    """Read message content blocks into `(text, client tool calls, malformed)`.

    Visible text is `text` blocks and the generated text of `citationsContent` blocks;
    `reasoningContent` is excluded. A `toolUse` run by Bedrock itself (`type:
    "server_tool_use"`, or one whose `toolResult` sits in the same reply) is not a tool call.
    """
    if type(content) is not list:
        notes.append(f"output.message.content is a {type(content).__name__}, not a list")
        return "", [], True
    texts: list[str] = []
    uses: list[Any] = []
    answered: set[Any] = set()
    malformed = False
    for i, block in enumerate(content):
        if type(block) is not dict:
            notes.append(f"content[{i}] is a {type(block).__name__}, not an object: ignored")
            malformed = True
            continue
        text = block.get("text")
        if text is not None:
            if isinstance(text, str):
                texts.append(text)
            else:
                notes.append(f"content[{i}].text is a {type(text).__name__}: ignored")
                malformed = True
        elif "toolUse" in block:
            uses.append(block["toolUse"])
        elif "toolResult" in block:
            result_of = field(block["toolResult"], "toolUseId")
            if isinstance(result_of, str):  # an id of another type names no call (and hashes not)
                answered.add(result_of)
        elif "citationsContent" in block:
            for part in as_list(field(block["citationsContent"], "content")):
                part_text = field(part, "text")
                if isinstance(part_text, str):
                    texts.append(part_text)
    calls: list[ToolCall] = []
    for use in uses:
        call_id = field(use, "toolUseId")
        if field(use, "type") == "server_tool_use" or (
            isinstance(call_id, str) and call_id in answered
        ):
            notes.append(
                f"toolUse {field(use, 'name')!r} was run by Bedrock (server tool, result in "
                "the reply): not a tool call"
            )
            continue
        calls.append(tool_call(call_id, field(use, "name"), field(use, "input")))
    return "".join(texts), calls, malformed


def _mark_incomplete(calls: list[ToolCall], error: str) -> list[ToolCall]:
    return [
        call.model_copy(update={"complete": False, "error": call.error or error}) for call in calls
    ]


def decide(
    raw_reason: Any, calls: list[ToolCall], notes: list[str]
) -> tuple[StopReason, str | None, list[ToolCall]]:
    """Apply the table, then the reconciliation steps (DESIGN section 3) to one reply."""
    reason: StopReason
    detail: str | None
    if raw_reason is None or raw_reason == "":
        notes.append("no stopReason in the reply")
        reason, detail = StopReason.UNKNOWN, "missing"
    elif not isinstance(raw_reason, str):
        notes.append(f"stopReason is a {type(raw_reason).__name__}, not a string")
        reason, detail = StopReason.UNKNOWN, _MALFORMED
    else:
        entry = STOP_REASONS.get(raw_reason)
        if entry is None:
            notes.append(f"stopReason {raw_reason!r} is not one stopkit knows: unknown")
            reason, detail = StopReason.UNKNOWN, "unrecognized"
        else:
            reason, detail = entry
    if not calls:
        if reason is StopReason.TOOL_REQUEST:
            notes.append(f"stopReason {raw_reason!r} with no pending toolUse block: unknown")
            return StopReason.UNKNOWN, "no_pending_call", calls
        return reason, detail, calls
    # Steps with tool calls present, in the order of DESIGN section 3.
    if reason is StopReason.OUTPUT_LIMIT:
        notes.append(f"stopReason {raw_reason!r} with {_plural(len(calls))}: marked incomplete")
        calls = _mark_incomplete(calls, f"the reply was cut off ({raw_reason}) in or after it")
    elif reason is StopReason.FILTERED:
        notes.append(f"stopReason {raw_reason!r} with {_plural(len(calls))}: not run")
    elif raw_reason == "malformed_tool_use":
        notes.append(f"stopReason {raw_reason!r}: {_plural(len(calls))} marked incomplete")
        calls = _mark_incomplete(calls, "Bedrock reported the tool use as malformed")
    elif reason in (StopReason.COMPLETED, StopReason.STOP_SEQUENCE):
        notes.append(
            f"stopReason {raw_reason!r} with {_plural(len(calls))}: treated as tool_request"
        )
        return StopReason.TOOL_REQUEST, None, calls
    elif reason is StopReason.UNKNOWN:
        notes.append(f"{_plural(len(calls))} under an unknown stopReason: they will not be run")
    return reason, detail, calls


def read_reply(reply: Any, raw: Any) -> Stop:
    """Return the `Stop` of a Converse reply dict (`raw` is what the Stop keeps as `raw`)."""
    notes: list[str] = []
    message = field(field(reply, "output"), "message")
    if type(message) is dict:
        text, calls, malformed = read_content(message.get("content"), notes)
    else:
        notes.append(f"output.message is a {type(message).__name__}, not an object")
        text, calls, malformed = "", [], True
    raw_reason = field(reply, "stopReason")
    reason, detail, calls = decide(raw_reason, calls, notes)
    if malformed and reason is not StopReason.UNKNOWN:
        notes.append(f"malformed content: {reason.value} not trusted, unknown instead")
        reason, detail = StopReason.UNKNOWN, _MALFORMED
    details: dict[str, Any] | None = None
    for name in _DETAIL_FIELDS:
        value = field(reply, name)
        if value:
            if details is None:
                details = {}
            details[name] = value
    sequence = _matched_sequence(field(reply, "additionalModelResponseFields"))
    if raw_reason == "stop_sequence" and sequence is None:
        notes.append(
            "stopReason 'stop_sequence' without the matched sequence (ask for it with "
            "additionalModelResponseFieldPaths=['/stop_sequence'])"
        )
    return make_stop(
        reason,
        provider=PROVIDER,
        raw=raw,
        raw_reason=raw_reason,
        detail=detail,
        text=text,
        tool_calls=tuple(calls),
        stop_sequence=sequence,
        notes=notes,
        details=details,
    )


def _blank_text(block: Any) -> bool:
    text = field(block, "text")
    return isinstance(text, str) and not text.strip() and "toolUse" not in block


def _result_content(content: str) -> list[dict[str, Any]]:
    """Bedrock takes JSON-object results as a `json` document, anything else as `text`."""
    if content.lstrip().startswith("{"):
        try:
            value = json.loads(content)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return [{"json": value}]
    return [{"text": content}]


class BedrockAdapter:
    """Reads Amazon Bedrock Converse replies and ConverseStream events (boto3's dicts).

    Example:
        >>> stop = BedrockAdapter().normalize({"output": {"message": {"role": "assistant",
        ...     "content": [{"text": "Hi"}]}}, "stopReason": "end_turn"})
        >>> (stop.reason.value, stop.text)
        ('completed', 'Hi')
    """

    name = "bedrock"
    # A Converse reply holds `output.message`: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = ("output",)
    tables: ClassVar[dict[str, dict[str, tuple[StopReason, str | None]]]] = {
        "stopReason": STOP_REASONS,
        "ConverseStream exception event": STREAM_ERRORS,
    }
    stream_notes: ClassVar[tuple[str, ...]] = (
        "ConverseStream sends toolUse input as JSON text fragments, assembled per "
        "contentBlockIndex and parsed once at the end.",
        "The stream ends at messageStop (metadata with usage and the guardrail trace may "
        "follow); without it the Stop is unknown/stream_incomplete.",
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

    def normalize(self, reply: Any) -> Stop:
        """Return the `Stop` of one Converse reply."""
        return read_reply(reply, reply)

    def normalize_all(self, reply: Any) -> tuple[Stop, ...]:
        """Return the reply's `Stop` in a 1-tuple (Converse has one message per reply)."""
        return (read_reply(reply, reply),)

    def stream(self) -> BedrockStream:
        """Return a fresh accumulator for one ConverseStream."""
        from stopkit.adapters._bedrock_stream import BedrockStream

        return BedrockStream()

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the assistant message to append: its content blocks as sent.

        Whitespace-only text blocks are left out: Bedrock rejects a blank text block in a
        request. A `Stop` not read from a Converse reply is rebuilt from its text and calls.
        """
        message = field(field(stop.raw, "output"), "message")
        content = field(message, "content")
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

    def resume(self, stop: Stop) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Refuse: Bedrock Converse has no paused stop, so there is nothing to resume."""
        raise ValueError(
            "Bedrock Converse has no paused stopReason: a bedrock Stop "
            f"({stop.reason.value}, raw {stop.raw_reason!r}) cannot be resumed"
        )

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
