"""Request lines of each provider's batch input file: their id, and where their ceiling is.

The shapes, and where each is documented:

- OpenAI — `BatchRequestInput` (platform.openai.com/docs/api-reference/batch/request-input):
  `{"custom_id", "method": "POST", "url", "body"}`; the ceiling is `body.max_completion_tokens`
  (or the older `body.max_tokens`) for /v1/chat/completions, `body.max_output_tokens` for
  /v1/responses (`openai.types.chat.CompletionCreateParams`, `responses.ResponseCreateParams`).
- Anthropic — `anthropic.types.messages.batch_create_params.Request`: `{"custom_id", "params"}`
  with the ceiling at `params.max_tokens` and thinking at `params.thinking.budget_tokens`.
- Gemini — ai.google.dev/gemini-api/docs/batch-api, "Input file": `{"key", "request":
  GenerateContentRequest}`; the ceiling is `request.generationConfig.maxOutputTokens` and the
  thinking budget `generationConfig.thinkingConfig.thinkingBudget` (proto JSON also accepts
  the snake_case names the Python examples use; a line's own spelling is kept).
- Vertex AI — `{"request": GenerateContentRequest}` (batch prediction from Cloud Storage).
- Bedrock — docs.aws.amazon.com/bedrock/latest/userguide/batch-inference-data.html:
  `{"recordId", "modelInput"}`; `modelInput` is the InvokeModel body (Anthropic Messages:
  `max_tokens`, `thinking.budget_tokens`) or a Converse request (`inferenceConfig.maxTokens`).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, NamedTuple

__all__ = [
    "COMPATIBLE",
    "Budget",
    "Ceiling",
    "budget",
    "ceiling",
    "format_of",
    "key_of",
    "model_of",
    "new_id",
    "with_id",
]

#: Results format -> the request formats its input may be in (a keyless `{"request"}` line
#: is both Gemini's and Vertex's).
COMPATIBLE = {
    "openai": {"openai"},
    "anthropic": {"anthropic"},
    "bedrock": {"bedrock"},
    "gemini": {"gemini", "google"},
    "vertex": {"vertex", "google"},
}


def format_of(line: Any) -> str | None:
    """The batch input format of a parsed request line, or None when it is none of them."""
    if type(line) is not dict:
        return None
    if "custom_id" in line:
        if type(line.get("params")) is dict:
            return "anthropic"
        if type(line.get("body")) is dict:
            return "openai"
        return None
    if type(line.get("modelInput")) is dict:
        return "bedrock"
    if type(line.get("request")) is dict:
        return "gemini" if "key" in line else "google"
    if "contents" in line:  # a bare GenerateContentRequest line (Gemini, joined by position)
        return "gemini"
    return None


def key_of(line: dict[str, Any], fmt: str, number: int) -> str:
    """The id that joins a request to its result: custom_id, key, recordId, else `#<line>`."""
    field = {"openai": "custom_id", "anthropic": "custom_id", "bedrock": "recordId"}.get(fmt, "key")
    value = line.get(field)
    return f"#{number}" if value is None else str(value)


def _params(line: dict[str, Any], fmt: str) -> tuple[str | None, dict[str, Any]]:
    """The request body's field name in the line, and the body ("" for a bare request)."""
    name = {"openai": "body", "anthropic": "params", "bedrock": "modelInput"}.get(fmt, "request")
    body = line.get(name)
    if type(body) is dict:
        return name, body
    return None, line  # a bare GenerateContentRequest line


def model_of(line: dict[str, Any], fmt: str) -> str | None:
    """The model a request names, when it names one (Gemini and Bedrock name it per batch)."""
    model = _params(line, fmt)[1].get("model")
    return model if isinstance(model, str) else None


class Ceiling(NamedTuple):
    """Where a request's output ceiling is: the path of dict keys, and its value (None: unset)."""

    path: tuple[str, ...]
    value: int | None


def _google_config(body: dict[str, Any]) -> str:
    return "generation_config" if "generation_config" in body else "generationConfig"


_LEGACY_DEFAULT = 16


def ceiling(line: dict[str, Any], fmt: str) -> Ceiling | None:
    """Where the line's output ceiling is (None: no known ceiling field for this shape)."""
    name, body = _params(line, fmt)
    base: tuple[str, ...] = (name,) if name else ()
    if fmt == "openai":
        return _openai_ceiling(str(line.get("url", "")), body, base)
    if fmt == "anthropic":
        return Ceiling((*base, "max_tokens"), _int(body.get("max_tokens")))
    if fmt == "bedrock":
        return _bedrock_ceiling(body, base)
    config = _google_config(body)
    field = "max_output_tokens" if config == "generation_config" else "maxOutputTokens"
    found = body.get(config)
    return Ceiling((*base, config, field), _int(found.get(field) if type(found) is dict else None))


def _openai_ceiling(url: str, body: dict[str, Any], base: tuple[str, ...]) -> Ceiling | None:
    """An OpenAI request's ceiling: the field its endpoint reads (the one set, for Chat)."""
    if url.endswith("/embeddings"):
        return None
    newer, older = _int(body.get("max_completion_tokens")), _int(body.get("max_tokens"))
    legacy = url.endswith("/v1/completions")  # text completions: max_tokens only
    if url.endswith("/responses") or "max_output_tokens" in body:
        field = "max_output_tokens"
    elif legacy or (newer is None and older is not None):  # the one set (null: unset)
        field = "max_tokens"
    else:
        field = "max_completion_tokens"
    if legacy and older is None and body.get(field) is None:
        # Unset is not the model's maximum here: OpenAI's OpenAPI spec gives
        # `CreateCompletionRequest.max_tokens` a default of 16.
        return Ceiling((*base, field), _LEGACY_DEFAULT)
    return Ceiling((*base, field), _int(body.get(field)))


def _bedrock_ceiling(body: dict[str, Any], base: tuple[str, ...]) -> Ceiling | None:
    """A Bedrock request's ceiling: an Anthropic body's `max_tokens`, or Converse's config."""
    if "messages" in body and ("anthropic_version" in body or "max_tokens" in body):
        return Ceiling((*base, "max_tokens"), _int(body.get("max_tokens")))
    if "inferenceConfig" in body or "messages" in body:  # a Converse request
        config = body.get("inferenceConfig")
        value = config.get("maxTokens") if type(config) is dict else None
        return Ceiling((*base, "inferenceConfig", "maxTokens"), _int(value))
    return None  # Titan, Llama, Mistral, Cohere Command: their ceilings are not read yet


class Budget(NamedTuple):
    """Where a thinking budget goes: the config's path, its key, what else to set or drop there."""

    path: tuple[str, ...]
    key: str
    extra: dict[str, Any]
    replaces: tuple[str, ...] = ()
    """Keys the budget takes the place of: Gemini 3's `thinkingLevel` (a request with both is
    refused, HTTP 400: ai.google.dev/gemini-api/docs/gemini-3, "Thinking level")."""


_LEVELS = ("thinkingLevel", "thinking_level")


def budget(line: dict[str, Any], fmt: str) -> Budget | None:
    """Where a thinking budget goes in the request; None where it has no token budget.

    None for OpenAI and Converse requests: their APIs take no thinking token budget.
    """
    name, body = _params(line, fmt)
    base: tuple[str, ...] = (name,) if name else ()
    if fmt == "anthropic" or (fmt == "bedrock" and "anthropic_version" in body):
        return Budget((*base, "thinking"), "budget_tokens", {"type": "enabled"})
    if fmt in ("gemini", "vertex", "google"):
        config = _google_config(body)
        if config == "generation_config":
            return Budget((*base, config, "thinking_config"), "thinking_budget", {}, _LEVELS)
        return Budget((*base, config, "thinkingConfig"), "thinkingBudget", {}, _LEVELS)
    return None


def _int(value: Any) -> int | None:
    """A ceiling's value: an int, or a float holding a whole number (`300.0`), else None."""
    if type(value) is float and value.is_integer():
        return int(value)  # JSON has one number type: the API read it as the integer it is
    return value if type(value) is int else None


#: The id field of each format's request lines, and the most its ids may hold.
_ID_FIELD = {
    "openai": "custom_id",
    "anthropic": "custom_id",
    "bedrock": "recordId",
    "gemini": "key",
}
# Anthropic: custom_id matches ^[a-zA-Z0-9_-]{1,64}$ (Message Batches API reference);
# Bedrock: recordId is "alphanumeric" (batch-inference-data.html), so its suffix has no dash.
_ID_LIMIT = {"anthropic": 64}
_RETRY = re.compile(r"-r([1-9][0-9]*)$")
_RETRY_BEDROCK = re.compile(r"R([1-9][0-9]*)$")


def new_id(old: str, fmt: str) -> str:
    """The id of a resubmitted request: `<id>-r1`, `<id>-r2` for a retry of a retry, ...

    Distinct old ids always give distinct new ids. Bedrock ids get `R1` (alphanumeric only);
    an id over the format's length limit becomes a hash of the old one.

    Example:
        >>> new_id("req-7", "openai"), new_id("req-7-r1", "openai")
        ('req-7-r1', 'req-7-r2')
    """
    pattern, mark = (_RETRY_BEDROCK, "R") if fmt == "bedrock" else (_RETRY, "-r")
    found = pattern.search(old)
    new = f"{old[: found.start()]}{mark}{int(found[1]) + 1}" if found else f"{old}{mark}1"
    limit = _ID_LIMIT.get(fmt)
    if limit is not None and len(new) > limit:
        new = "h" + hashlib.blake2b(old.encode(), digest_size=24).hexdigest()
        new = new[: limit - 3] + "-r1"
    return new


def with_id(line: dict[str, Any], fmt: str, new: str) -> dict[str, Any]:
    """The line with its id replaced (lines without an id field are returned as they are)."""
    field = _ID_FIELD.get(fmt)
    if field is None or field not in line:
        return line
    return {**line, field: new}
