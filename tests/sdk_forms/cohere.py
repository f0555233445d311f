"""Official cohere SDK objects built from wire JSON the way the SDK builds them.

The cohere SDK is not a dev dependency: where it is not importable these forms skip (so the
SDK-object rows of the payload table run wherever it is installed).
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest


def constructed(type_name: str, module: str, reply: dict[str, Any]) -> object | None:
    """The SDK object `construct_type` builds from a reply, as the SDK's raw clients build one."""
    pytest.importorskip("cohere", reason="the cohere SDK is not installed")
    from cohere.core.unchecked_base_model import construct_type

    reply_type = getattr(importlib.import_module(module), type_name)
    try:
        return construct_type(type_=reply_type, object_=reply)  # type: ignore[no-any-return]
    except (TypeError, ValueError):
        return None  # a malformed reply the SDK itself cannot build: no object to read


def to_sdk(reply: dict[str, Any]) -> object | None:
    """A `V2ChatResponse`, as `cohere/v2/raw_client.py` builds it (`construct_type`)."""
    return constructed("V2ChatResponse", "cohere.v2.types", reply)


def to_sdk_event(event: dict[str, Any]) -> object | None:
    """A `V2ChatStreamResponse` member, as `parse_sse_obj` builds it (`parse_obj_as`)."""
    pytest.importorskip("cohere", reason="the cohere SDK is not installed")
    from cohere.core.pydantic_utilities import parse_obj_as
    from cohere.v2.types import V2ChatStreamResponse

    return parse_obj_as(V2ChatStreamResponse, event)  # type: ignore[arg-type]
