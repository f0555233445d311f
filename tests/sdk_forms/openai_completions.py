"""Build the openai SDK's legacy Completions objects from wire JSON, the way the SDK itself does.

`client.completions.create` builds a `openai.types.Completion` with `construct_type` (no
validation; dialect extras such as vLLM's `stop_reason` or Azure's `content_filter_results` stay
as pydantic extras), and a streamed chunk is the same type.
"""

from __future__ import annotations

from typing import Any

from openai._models import construct_type
from openai.types import Completion


def to_sdk(reply: dict[str, Any]) -> object | None:
    """The `openai.types.Completion` the SDK builds from this body."""
    if not isinstance(reply.get("choices"), list):
        return None
    return construct_type(type_=Completion, value=reply)


def to_sdk_event(event: dict[str, Any]) -> object | None:
    """The `Completion` the SDK's stream builds from this `data:` object.

    A chunk carrying `error` has none: the SDK's stream raises `APIError` on it instead.
    """
    if event.get("error") or not isinstance(event.get("choices"), list):
        return None
    return construct_type(type_=Completion, value=event)
