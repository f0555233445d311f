"""Build the openai SDK's Chat Completions objects from wire JSON, the way the SDK itself does.

The SDK builds responses with `construct_type` (no validation; dialect extras such as
`x_groq`, `native_finish_reason` or Azure's `content_filter_results` stay as pydantic extras).
"""

from __future__ import annotations

from typing import Any

from openai._models import construct_type
from openai.types.chat import ChatCompletion, ChatCompletionChunk


def to_sdk(reply: dict[str, Any]) -> object | None:
    """The `openai.types.chat.ChatCompletion` the SDK builds from this body."""
    if not isinstance(reply.get("choices"), list):
        return None
    return construct_type(type_=ChatCompletion, value=reply)


def to_sdk_event(event: dict[str, Any]) -> object | None:
    """The `ChatCompletionChunk` the SDK's stream builds from this `data:` object.

    A chunk carrying `error` has none: the SDK's stream raises `APIError` on it instead.
    """
    if event.get("error") or not isinstance(event.get("choices"), list):
        return None
    return construct_type(type_=ChatCompletionChunk, value=event)
