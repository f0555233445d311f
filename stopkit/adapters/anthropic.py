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
from typing import TYPE_CHECKING, Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult
from stopkit.adapters._common import as_list, as_raw, field, make_stop, tool_call

if TYPE_CHECKING:
    from stopkit.adapters._anthropic_stream import AnthropicStream

__all__ = ["STOP_REASONS", "AnthropicAdapter"]

# Source: anthropic/types/stop_reason.py (GA `StopReason`) and
# anthropic/types/beta/beta_stop_reason.py (`BetaStopReason`, which adds `compaction`).
STOP_REASONS: dict[str, tuple[StopReason, str | None]] = {
    "end_turn": (StopReason.COMPLETED, None),
    "tool_use": (StopReason.TOOL_REQUEST, None),
    "max_tokens": (StopReason.OUTPUT_LIMIT, "max_tokens"),
    "model_context_window_exceeded": (StopReason.OUTPUT_LIMIT, "context_window"),
    "stop_sequence": (StopReason.STOP_SEQUENCE, None),
    "refusal": (StopReason.FILTERED, "refusal"),
    "pause_turn": (StopReason.PAUSED, "server_tool_limit"),
    "compaction": (StopReason.PAUSED, "compaction"),
}

PROVIDER = "anthropic"

_NATURAL_END = (StopReason.COMPLETED, StopReason.STOP_SEQUENCE)


def plain(obj: Any) -> Any:
    """Return a JSON-ready copy of one small wire object (a dict is copied, an SDK model dumped)."""
    if isinstance(obj, dict):
        return dict(obj)
    dump = getattr(obj, "model_dump", None)
    if dump is not None:
        # warnings=False: the SDK keeps off-spec values as sent (construct_type), and dumping
        # them must not warn (a warning is an exception under -W error); a value nested
        # deeper than pydantic serializes stays the SDK object.
        try:
            return dump(mode="json", by_alias=True, exclude_none=True, warnings=False)
        except (ValueError, RecursionError):
            return obj
    return obj


def _blocks_phrase(n: int) -> str:
    return f"{n} tool_use block" + ("" if n == 1 else "s")


def decide(
    *,
    raw: Any,
    raw_reason: Any,
    text: str,
    calls: list[ToolCall],
    answered: set[Any] | None,
    ends_in_tool_use: bool,
    stop_sequence: Any,
    stop_details: Any,
    notes: list[str],
    details: dict[str, Any],
    forced: tuple[StopReason, str, str] | None = None,
) -> Stop:
    """Apply the table and the reconciliation steps to what a reply (or a stream) held (internal).

    `forced` (reason, detail, note) overrides the table: a malformed reply, a stream that broke.
    """
    raw_reason = as_raw(raw_reason)
    reason: StopReason
    detail: str | None
    if forced is not None:
        reason, detail, note = forced
        notes.append(note)
    elif raw_reason is None:
        reason, detail = StopReason.UNKNOWN, "missing"
        notes.append("no stop_reason in the reply")
    elif type(raw_reason) is not str:
        reason, detail = StopReason.UNKNOWN, "malformed"
        notes.append(f"stop_reason {raw_reason!r} is not a string")
    else:
        entry = STOP_REASONS.get(raw_reason)
        if entry is None:
            reason, detail = StopReason.UNKNOWN, "unrecognized"
            notes.append(f"stop_reason {raw_reason!r} is not one stopkit knows: treated as unknown")
        else:
            reason, detail = entry

    # Step: a tool_use block whose result sits in the same reply was run already (programmatic
    # tool calling, a server tool answering it); it is not pending.
    if answered and calls:
        pending = [c for c in calls if c.id not in answered]
        if len(pending) != len(calls):
            notes.append(
                f"{_blocks_phrase(len(calls) - len(pending))} answered in the same reply: "
                "not pending"
            )
            calls = pending

    if reason is StopReason.OUTPUT_LIMIT:
        # Step: the ceiling cut the reply inside its last tool_use block: that call is partial.
        if ends_in_tool_use and calls:
            cut = calls[-1]
            calls[-1] = cut.model_copy(
                update={
                    "complete": False,
                    "error": f"the reply was cut off ({raw_reason}) while this call's input "
                    "was being written",
                }
            )
            notes.append(
                f"stop_reason {raw_reason!r} ended inside tool_use {cut.name!r}: "
                "the call is incomplete and must not run"
            )
    elif reason is StopReason.TOOL_REQUEST and not calls:
        # Step: a tool_use stop with nothing for the caller to run.
        reason, detail = StopReason.UNKNOWN, "no_pending_call"
        notes.append(
            f"stop_reason {raw_reason!r} with no pending tool_use block: treated as unknown"
        )
    elif reason in _NATURAL_END and calls:
        # Step: pending client calls under a natural end (e.g. programmatic tool calling).
        notes.append(
            f"stop_reason {raw_reason!r} with {_blocks_phrase(len(calls))}: treated as tool_request"
        )
        reason, detail = StopReason.TOOL_REQUEST, None

    refusal: str | None = None
    if stop_details is not None:
        details["stop_details"] = plain(stop_details)
        if field(stop_details, "type") == "refusal":
            explanation = field(stop_details, "explanation")
            refusal = explanation if isinstance(explanation, str) else None
    if stop_sequence is not None and not isinstance(stop_sequence, str):
        notes.append(f"stop_sequence {stop_sequence!r} is not a string: ignored")
        stop_sequence = None
    return make_stop(
        reason,
        provider=PROVIDER,
        raw=raw,
        raw_reason=raw_reason,
        detail=detail,
        text=text,
        tool_calls=tuple(calls),
        refusal=refusal,
        stop_sequence=stop_sequence,
        notes=notes,
        details=details,
    )


def _normalize(reply: Any) -> Stop:
    notes: list[str] = []
    content = field(reply, "content")
    forced: tuple[StopReason, str, str] | None = None
    if not isinstance(content, list):
        forced = (
            StopReason.UNKNOWN,
            "malformed",
            f"content is {'missing' if content is None else 'a ' + type(content).__name__}, "
            "not a list of blocks",
        )
        content = as_list(content)
    parts: list[str] = []
    calls: list[ToolCall] = []
    answered: set[Any] | None = None
    kind: Any = None
    for block in content:
        kind = field(block, "type")
        if kind == "text":
            value = field(block, "text")
            if type(value) is str:
                parts.append(value)
        elif kind == "tool_use":
            calls.append(tool_call(field(block, "id"), field(block, "name"), field(block, "input")))
        elif type(kind) is str and kind.endswith("tool_result"):
            # Results (`*_tool_result`, `mcp_tool_result`, `tool_result`) name their call.
            result_of = field(block, "tool_use_id")
            if isinstance(result_of, str):  # an id of another type names no call (nor hashes)
                if answered is None:
                    answered = set()
                answered.add(result_of)
    return decide(
        raw=reply,
        raw_reason=field(reply, "stop_reason"),
        text="".join(parts),
        calls=calls,
        answered=answered,
        ends_in_tool_use=kind == "tool_use",
        stop_sequence=field(reply, "stop_sequence"),
        stop_details=field(reply, "stop_details"),
        notes=notes,
        details={},
        forced=forced,
    )


def _sendable(block: Any) -> bool:
    """Say whether a reply block may be sent back: the API rejects blank text blocks."""
    if field(block, "type") != "text":
        return True
    text = field(block, "text")
    return isinstance(text, str) and text.strip() != ""


class AnthropicAdapter:
    """Reads Anthropic Messages API replies and streams, and continues their conversations.

    Example:
        >>> stopkit.get_adapter("anthropic").normalize(message).reason  # doctest: +SKIP
        <StopReason.TOOL_REQUEST: 'tool_request'>
    """

    name = "anthropic"
    # A body without `type` is never a Messages reply: auto-detection skips this adapter
    # for a JSON body with none of these keys.
    detect_keys: ClassVar[tuple[str, ...]] = ("type",)
    tables: ClassVar[dict[str, dict[str, tuple[StopReason, str | None]]]] = {
        "stop_reason": STOP_REASONS
    }
    stream_notes: tuple[str, ...] = (
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
        if field(reply, "type") != "message":
            return False
        return field(reply, "role") == "assistant" or field(reply, "content") is not None

    def detects_event(self, event: Any) -> bool:
        """Say whether `event` starts a Messages API stream (`message_start`, or an error event)."""
        kind = field(event, "type")
        if kind == "message_start" or kind == "ping":
            return True
        return kind == "error" and field(field(event, "error"), "type") is not None

    def normalize(self, reply: Any) -> Stop:
        """Return the `Stop` of one Messages API reply; never raises for a reply of this shape."""
        return _normalize(reply)

    def normalize_all(self, reply: Any) -> tuple[Stop, ...]:
        """Return the reply's one `Stop` as a 1-tuple (a Messages reply has a single turn)."""
        return (_normalize(reply),)

    def stream(self) -> AnthropicStream:
        """Return a fresh accumulator for one streamed reply (SDK events or JSON dicts)."""
        from stopkit.adapters._anthropic_stream import AnthropicStream

        return AnthropicStream()

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the assistant message that appends this reply to the transcript.

        The content blocks go back as sent (thinking blocks with their signatures, server tool
        blocks, compaction blocks), except blank text blocks, which the API rejects.
        """
        content = field(stop.raw, "content")
        if not isinstance(content, list):
            raise ValueError("this Stop's raw reply has no content list to send back")
        blocks = [plain(block) for block in content if _sendable(block)]
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

    def user_message(self, text: str) -> dict[str, Any]:
        """Return a user message saying `text`: a Messages API message.

        Example:
            >>> AnthropicAdapter().user_message("Go on.")
            {'role': 'user', 'content': 'Go on.'}
        """
        return {"role": "user", "content": text}
