"""Official ollama SDK objects built from wire JSON the way the SDK builds them.

The ollama SDK is not a dev dependency: where it is not importable these forms skip (so the
SDK-object rows of the payload table run wherever it is installed).
"""

from __future__ import annotations

from typing import Any

import pytest


def to_sdk(reply: dict[str, Any]) -> object | None:
    """A `ChatResponse` or `GenerateResponse`, as `ollama/_client.py` builds it (`cls(**r.json())`).

    A body with `response` and no `message` is `/api/generate`'s.
    """
    pytest.importorskip("ollama", reason="the ollama SDK is not installed")
    from ollama import ChatResponse, GenerateResponse
    from pydantic import ValidationError

    kind = GenerateResponse if "message" not in reply and "response" in reply else ChatResponse
    try:
        return kind(**reply)
    except ValidationError:
        return None  # a malformed reply the SDK itself refuses: no object to read


def to_sdk_event(event: dict[str, Any]) -> object | None:
    """A streamed `ChatResponse` chunk; an `error` chunk is raised by the SDK, so has none."""
    if "error" in event:
        return None
    return to_sdk(event)
