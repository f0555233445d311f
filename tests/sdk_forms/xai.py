"""Official xai_sdk objects built from the proto's JSON, as the SDK builds them from the wire.

`Chat.sample()` wraps the `GetChatCompletionResponse` it receives in a `Response` (index 0);
`Chat.stream()` yields each `GetChatCompletionChunk` wrapped in a `Chunk`, beside the
accumulating `Response` (xai_sdk/sync/chat.py). The JSON is parsed into the protos with
`google.protobuf.json_format.ParseDict`.
"""

from __future__ import annotations

from typing import Any

import pytest


def to_sdk(reply: dict[str, Any]) -> object | None:
    """A `Response` over the `GetChatCompletionResponse` the JSON describes."""
    pytest.importorskip("xai_sdk", reason="xai_sdk is not installed")
    from google.protobuf.json_format import ParseDict, ParseError
    from xai_sdk.chat import Response
    from xai_sdk.proto import chat_pb2

    try:
        return Response(ParseDict(reply, chat_pb2.GetChatCompletionResponse()), 0)
    except ParseError:  # an enum value the SDK's proto does not have: no object to read
        return None


def to_sdk_event(event: dict[str, Any]) -> object | None:
    """A `Chunk` over the `GetChatCompletionChunk` the JSON describes."""
    pytest.importorskip("xai_sdk", reason="xai_sdk is not installed")
    from google.protobuf.json_format import ParseDict, ParseError
    from xai_sdk.chat import Chunk
    from xai_sdk.proto import chat_pb2

    try:
        return Chunk(ParseDict(event, chat_pb2.GetChatCompletionChunk()), 0)
    except ParseError:
        return None
