"""Build the anthropic SDK's own objects from wire JSON, the way the SDK does.

Replies: `Message` when the body validates as one, else the beta `BetaMessage` (compaction,
MCP blocks, ...), else what the SDK itself builds from a body it cannot validate
(`construct_type`, its non-strict response path: unknown values are kept as sent).
Stream events: `RawMessageStreamEvent` (or the beta union) through `construct_type`.
"""

from __future__ import annotations

from typing import Any

from anthropic._models import construct_type
from anthropic.types import Message, RawMessageStreamEvent
from anthropic.types.beta import BetaMessage, BetaRawMessageStreamEvent
from pydantic import ValidationError


def to_sdk(reply: dict[str, Any]) -> object | None:
    """Return the SDK message for a reply body (`Message`, else `BetaMessage`)."""
    for model in (Message, BetaMessage):
        try:
            return model.model_validate(reply)
        except ValidationError:
            continue
    return construct_type(type_=BetaMessage, value=reply)


def to_sdk_event(event: dict[str, Any]) -> object | None:
    """Return the SDK event object for one stream event, as the SDK's `Stream` yields it.

    The SDK drops `ping` before the caller sees it; the dict stands in for it so that the rest
    of the stream is still checked as SDK objects. An `error` event is raised by the SDK, not
    yielded: there is no object for it (None).
    """
    kind = event.get("type")
    if kind == "ping":
        return event
    if kind == "error":
        return None
    if _is_beta(event):
        return construct_type(type_=BetaRawMessageStreamEvent, value=event)
    return construct_type(type_=RawMessageStreamEvent, value=event)


_BETA_ONLY = ("compaction", "mcp_tool_use", "mcp_tool_result", "fallback", "mcp_tool_listing")


def _is_beta(event: dict[str, Any]) -> bool:
    block = event.get("content_block") or event.get("delta") or {}
    delta_reason = (event.get("delta") or {}).get("stop_reason")
    return block.get("type") in (*_BETA_ONLY, "compaction_delta") or delta_reason == "compaction"
