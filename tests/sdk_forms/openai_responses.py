"""Build the openai SDK's Responses objects from wire JSON, the way the SDK itself does."""

from __future__ import annotations

from typing import Any

from openai._models import construct_type
from openai.types.responses import Response, ResponseStreamEvent


def to_sdk(reply: dict[str, Any]) -> object | None:
    """The `openai.types.responses.Response` the SDK builds from this body."""
    if reply.get("object") != "response":
        return None
    return construct_type(type_=Response, value=reply)


def to_sdk_event(event: dict[str, Any]) -> object | None:
    """The `ResponseStreamEvent` the SDK's stream builds from this `data:` object."""
    if not isinstance(event.get("type"), str):
        return None
    return construct_type(type_=ResponseStreamEvent, value=event)
