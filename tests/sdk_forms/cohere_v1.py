"""Official cohere SDK objects of the v1 Chat API, built from wire JSON the way the SDK builds them.

`cohere/raw_base_client.py` builds a reply with `construct_type` (no validation) and each line
of a stream with `construct_type(type_=StreamedChatResponse, ...)`, the union told apart by
`event_type`.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.sdk_forms.cohere import constructed


def to_sdk(reply: dict[str, Any]) -> object | None:
    """A `NonStreamedChatResponse`, as `RawBaseCohere.chat` builds it (`construct_type`)."""
    return constructed("NonStreamedChatResponse", "cohere.types", reply)


def to_sdk_event(event: dict[str, Any]) -> object | None:
    """A `StreamedChatResponse` member, as `RawBaseCohere.chat_stream` builds each line."""
    pytest.importorskip("cohere", reason="the cohere SDK is not installed")
    from cohere.core.unchecked_base_model import construct_type
    from cohere.types import StreamedChatResponse

    return construct_type(type_=StreamedChatResponse, object_=event)  # type: ignore[arg-type]
