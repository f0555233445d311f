"""Build the openai SDK's Chat Completions objects from wire JSON, the way the SDK itself does.

The SDK builds responses with `construct_type` (no validation; dialect extras such as
`x_groq`, `native_finish_reason` or Azure's `content_filter_results` stay as pydantic extras).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from openai._models import construct_type
from openai.types.chat import ChatCompletion, ChatCompletionChunk

Form = Callable[[dict[str, Any]], object | None]


def choices_forms(reply_type: Any, chunk_type: Any) -> tuple[Form, Form]:
    """The `to_sdk` and `to_sdk_event` of a choices-shaped type (Chat; legacy Completions)."""

    def to_sdk(reply: dict[str, Any]) -> object | None:
        if not isinstance(reply.get("choices"), list):
            return None
        return construct_type(type_=reply_type, value=reply)

    def to_sdk_event(event: dict[str, Any]) -> object | None:
        # A chunk carrying `error` has none: the SDK's stream raises `APIError` on it instead.
        if event.get("error") or not isinstance(event.get("choices"), list):
            return None
        return construct_type(type_=chunk_type, value=event)

    return to_sdk, to_sdk_event


#: The `ChatCompletion` the SDK builds from a body, and the `ChatCompletionChunk` its stream
#: builds from a `data:` object.
to_sdk, to_sdk_event = choices_forms(ChatCompletion, ChatCompletionChunk)
