"""Continuing a Gemini conversation: the model content, the function responses, the resume.

Kept apart from `gemini.py` (which reads replies); the loop calls these through the adapter.
Everything returned is REST camelCase JSON, which google-genai also accepts as `contents`.
"""

from __future__ import annotations

import base64
from collections import deque
from collections.abc import Sequence
from typing import Any

from stopkit._json import loads
from stopkit._stop import Stop, StopReason, ToolResult
from stopkit.adapters._wire import listed, to_json, wire

__all__ = ["assistant_message", "rest_bytes", "resume", "tool_results"]


def rest_bytes(value: Any) -> Any:
    """Return bytes as the REST JSON carries them (URL-safe base64); other values unchanged.

    google-genai holds thought signatures and continuation tokens as decoded bytes and sends
    them back this way (`google/genai/_common.py`).

    Example:
        >>> rest_bytes(b"tok")
        'dG9r'
    """
    if isinstance(value, bytes | bytearray):
        return base64.urlsafe_b64encode(bytes(value)).decode("ascii")
    return value


def assistant_message(stop: Stop) -> list[dict[str, Any]]:
    """Return `[{"role": "model", "parts": [...]}]` with the candidate's parts as sent.

    Only blank text parts without a thought signature are left out.
    """
    candidates = listed(wire(stop.raw).get("candidates"))
    index = stop.details.get("candidate_index", 0)
    if not isinstance(index, int) or index >= len(candidates):
        return []
    content = wire(candidates[index]).get("content")
    parts = [to_json(part, drop_none=True) for part in listed(wire(content).get("parts"))]
    # An empty text part (streams end with one) is rejected by Vertex ("empty text parameter");
    # one that carries a thought signature is kept, the signature must go back.
    kept = [p for p in parts if not (isinstance(p, dict) and _blank(p))]
    if not kept:
        return []
    return [{"role": "model", "parts": kept}]


def _blank(part: dict[str, Any]) -> bool:
    return part.get("text") == "" and not part.get(
        "thoughtSignature", part.get("thought_signature")
    )


def _response_body(result: ToolResult) -> dict[str, Any]:
    if result.is_error:
        return {"error": result.content}
    text = result.content
    if text.lstrip()[:1] == "{":
        try:
            value = loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
    return {"result": text}


def tool_results(stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
    """Return one user content of `functionResponse` parts, in the calls' order.

    Gemini wants one `functionResponse` per `functionCall`: results are paired with the calls
    in the order they came, so two calls that share an id (or have none) each get their own.
    """
    synthetic = set(stop.details.get("synthetic_call_ids", ()))
    waiting: dict[str, deque[ToolResult]] = {}
    for result in results:
        waiting.setdefault(result.call_id, deque()).append(result)
    names = {call.id: call.name for call in stop.tool_calls}
    ordered = [waiting[call.id].popleft() for call in stop.tool_calls if waiting.get(call.id)]
    ordered.extend(result for left in waiting.values() for result in left)
    parts: list[dict[str, Any]] = []
    for result in ordered:
        response: dict[str, Any] = {"name": result.name or names.get(result.call_id, "")}
        if result.call_id and result.call_id not in synthetic:
            response["id"] = result.call_id
        response["response"] = _response_body(result)
        parts.append({"functionResponse": response})
    return [{"role": "user", "parts": parts}] if parts else []


def resume(stop: Stop) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Return `([], {"continuation_token": <base64 str>})` for a paused `CONTINUATION` Stop."""
    if stop.reason is not StopReason.PAUSED:
        raise ValueError(f"resume() needs a paused Stop, not {stop.reason.value!r}")
    token = rest_bytes(stop.details.get("continuation_token"))
    if not isinstance(token, str) or not token:
        raise ValueError("this paused Stop has no continuation token to resume from")
    return [], {"continuation_token": token}
