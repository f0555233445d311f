"""Build google-genai's own objects from wire JSON, the way the SDK does.

The SDK's `Models.generate_content` (and each chunk of `generate_content_stream`) turns the
body into a `GenerateContentResponse` with its own converters: `_GenerateContentResponse_from_
mldev` (Gemini API) or `_from_vertex` (Vertex AI, recognized here by `createTime`), then
`GenerateContentResponse._from_response`, which drops fields this SDK version does not know and
validates the rest (camelCase aliases). Its enums are case-insensitive and keep an unknown
string as a pseudo-member (with a warning, silenced here as the SDK's users see it); an
integer-encoded enum cannot be validated at all, so such bodies have no SDK form (None).
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

from google.genai import models
from google.genai.types import GenerateContentResponse
from pydantic import ValidationError


def to_sdk(reply: dict[str, Any]) -> object | None:
    """Return the `GenerateContentResponse` for a reply body, or None when the SDK rejects it."""
    body = copy.deepcopy(reply)
    convert = (
        models._GenerateContentResponse_from_vertex
        if "createTime" in body
        else models._GenerateContentResponse_from_mldev
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return GenerateContentResponse._from_response(
                response=convert(body, None, None), kwargs={"config": {}}
            )
        except (ValidationError, AttributeError, ValueError):
            return None


def to_sdk_event(event: dict[str, Any]) -> object | None:
    """Return the `GenerateContentResponse` chunk for one stream chunk (the SDK yields these)."""
    return to_sdk(event)
