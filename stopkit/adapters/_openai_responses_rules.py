"""The OpenAI Responses API's rules: `status`, refined by its incomplete reason and error code.

A Response says why it stopped in `status`; two provider steps refine it. An `incomplete`
response names its cause in `incomplete_details.reason` (a token ceiling, a content filter, an
item ceiling, a steer); a `failed` response whose `error.code` is a policy code was blocked by
a policy, which is a filter, not an error. The pauses are table rows: `queued` and
`in_progress` (a background response still being generated: poll it), `max_messages` and
`steered` (the turn continues in a next request). Everything else a Response says (a refusal
content part, client calls answered in the same reply, an image generation blocked by
moderation (`IMAGE_ERROR_CODE`: a filter when nothing else came), usage, the request's
`max_output_tokens`) is a fact the reader records and the engine weighs in DESIGN order.

A stream may send its terminal event twice; `signal` names the most specific stop value of a
Response, and `SIGNALS` maps every such value, so the stream keeps the stricter of the two.
`message_parts` is how both the reader and the stream accumulator read a message item's text.

Example:
    >>> signal({"status": "incomplete", "incomplete_details": {"reason": "content_filter"}})
    'content_filter'
    >>> SIGNALS["content_filter"]
    (<StopReason.FILTERED: 'filtered'>, 'safety')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stopkit._stop import StopReason
from stopkit.adapters._reading import Reading, Verdict
from stopkit.adapters._rules import Rules, look_up
from stopkit.adapters._wire import listed, raw_value, wire

__all__ = [
    "ERROR_CODE",
    "IMAGE_ERROR_CODE",
    "INCOMPLETE_REASON",
    "PROVIDER",
    "RULES",
    "SIGNALS",
    "STATUS",
    "incomplete_reason",
    "message_parts",
    "policy_error",
    "signal",
]

PROVIDER = "openai.responses"

# `Response.status`: openai/types/responses/response_status.py (ResponseStatus).
# `incomplete` is decided by `incomplete_reason` (INCOMPLETE_REASON); its row here is what it
# means when no reason came with it.
STATUS: dict[str, Verdict] = {
    "completed": (StopReason.COMPLETED, None),
    "incomplete": (StopReason.UNKNOWN, "missing"),
    "failed": (StopReason.UNKNOWN, "error"),
    "cancelled": (StopReason.UNKNOWN, "cancelled"),
    # Background mode: the response is still being generated; poll it (see `resume`).
    "queued": (StopReason.PAUSED, "background"),
    "in_progress": (StopReason.PAUSED, "background"),
}
"""`Response.status` -> (reason, detail): the table the OpenAI Responses page shows."""

# `Response.incomplete_details.reason`: openai/types/responses/response.py (IncompleteDetails).
INCOMPLETE_REASON: dict[str, Verdict] = {
    "max_output_tokens": (StopReason.OUTPUT_LIMIT, "max_tokens"),
    "content_filter": (StopReason.FILTERED, "safety"),
    # `max_messages` is a ceiling on the number of items one response may produce, not a token
    # ceiling: every item sent is whole, so a bigger `max_output_tokens` cannot help and
    # dropping the reply would throw finished work away. The turn is continued instead, by
    # sending the items back (`resume`), like Anthropic's `pause_turn`.
    "max_messages": (StopReason.PAUSED, "continuation"),
    # Stopped at a safe boundary after a WebSocket `response.steer`; a successor follows.
    "steered": (StopReason.PAUSED, "steered"),
}
"""`incomplete_details.reason` -> (reason, detail): why an `incomplete` reply stopped."""

# `Response.error.code` of a `failed` response: openai/types/responses/response_error.py
# (ResponseError.code). The policy codes say a policy blocked the reply: filtered, not an error.
# Every other code (server_error, rate_limit_exceeded, invalid_prompt, the image codes, ...)
# keeps the `failed` row of STATUS: unknown/error, with the error in `details["error"]`.
ERROR_CODE: dict[str, Verdict] = {
    "bio_policy": (StopReason.FILTERED, "policy"),
    "misalignment_policy_violation": (StopReason.FILTERED, "policy"),
    "image_content_policy_violation": (StopReason.FILTERED, "policy"),
}
"""A `failed` reply's policy `error.code` -> (reason, detail): filtered, not an error."""

# A failed `image_generation_call` item's `error.code`: openai/types/responses/
# response_output_item.py (ImageGenerationCallError: "Details of a moderation failure";
# `moderation_details` are "public details for a `moderation_blocked` error"). An image the
# moderation blocked, as the reply's only output, is a filtered reply; beside other output, a note.
IMAGE_ERROR_CODE: dict[str, str] = {
    "moderation_blocked": "safety",
}
"""A failed image_generation_call's `error.code` -> the filter's detail (the only output)."""

#: Every stop value `signal` may name, for a stream's `stricter` (the three tables' keys are
#: distinct, which a test pins).
SIGNALS: dict[str, Verdict] = {**STATUS, **INCOMPLETE_REASON, **ERROR_CODE}


def _incomplete_why(details: Any) -> Any:
    return raw_value(wire(details).get("reason"))


def _policy_code(error: Any) -> str | None:
    code = raw_value(wire(error).get("code"))
    return code if type(code) is str and code in ERROR_CODE else None


def signal(response: Any) -> Any:
    """Name the most specific stop value a Response states (a key of `SIGNALS` when known).

    A policy error code of a `failed` response, the reason of an `incomplete` one, else the
    status itself.
    """
    fields = wire(response)
    status = raw_value(fields.get("status"))
    if status == "incomplete":
        why = _incomplete_why(fields.get("incomplete_details"))
        return status if why is None else why
    if status == "failed":
        return _policy_code(fields.get("error")) or status
    return status


def incomplete_reason(reading: Reading, reason: StopReason, detail: str | None) -> Verdict:
    """Step: an `incomplete` status means what its `incomplete_details.reason` says."""
    if reading.raw_reason != "incomplete":
        return reason, detail
    why = _incomplete_why(reading.details.get("incomplete_details"))
    return look_up(INCOMPLETE_REASON, "incomplete_details.reason", why, reading.notes)


def policy_error(reading: Reading, reason: StopReason, detail: str | None) -> Verdict:
    """Step: a `failed` status whose `error.code` is a policy code was filtered."""
    if reading.raw_reason != "failed":
        return reason, detail
    code = _policy_code(reading.details.get("error"))
    if code is None:
        return reason, detail
    verdict = ERROR_CODE[code]
    reading.notes.append(
        f"status 'failed' with error code {code!r}: {verdict[0].value}/{verdict[1]}"
    )
    return verdict


RULES = Rules(PROVIDER, "status", STATUS, steps=(incomplete_reason, policy_error))


def message_parts(fields: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """Return a message item's visible text pieces (`output_text`) and refusal pieces, in order.

    Example:
        >>> message_parts({"content": [{"type": "output_text", "text": "Hi"},
        ...                            {"type": "refusal", "refusal": "No."}]})
        (['Hi'], ['No.'])
    """
    text: list[str] = []
    refusal: list[str] = []
    for part in listed(fields.get("content")):
        said = wire(part)
        part_type = said.get("type")
        if part_type == "output_text":
            value = said.get("text")
            if type(value) is str:
                text.append(value)
        elif part_type == "refusal":
            value = said.get("refusal")
            if type(value) is str:
                refusal.append(value)
    return text, refusal
