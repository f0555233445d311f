"""The Gemini API's and Vertex AI's rules: two tables, their enum numberings, the provider steps.

The tables map `finishReason` (per candidate) and `promptFeedback.blockReason` (a reply with no
candidates).

What the reader records and the engine weighs, in DESIGN order: a `functionCall` part is a client
call (a `STOP` candidate with calls is a tool request), server-side parts (code execution,
built-in tools) are not. A reply with no candidates is read by its `promptFeedback.blockReason`
(the reader names that field: `BLOCK_TITLE`, through `BLOCK_REASONS`, a blocked prompt), and a
value the table does not hold as sent — an enum number, or another letter case (google-genai's
enums are case-insensitive) — is decoded by the reader into the table's name (`decode`).
The one provider step: a `CONTINUATION` without a continuationToken cannot be resumed.
Three values say the calls themselves are bad (`BAD_CALLS`): the engine marks every call under
one incomplete.

Example:
    >>> FINISH_REASONS["SAFETY"]
    (<StopReason.FILTERED: 'filtered'>, 'safety')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stopkit._stop import StopReason
from stopkit.adapters._reading import Reading, Verdict
from stopkit.adapters._rules import Rules
from stopkit.adapters._wire import raw_value

__all__ = [
    "BAD_CALLS",
    "BLOCK_REASONS",
    "BLOCK_TITLE",
    "FINISH_REASONS",
    "FINISH_TITLE",
    "GEMINI_API_BLOCK_NUMBERS",
    "GEMINI_API_FINISH_NUMBERS",
    "PROVIDER",
    "RULES",
    "VERTEX_BLOCK_NUMBERS",
    "VERTEX_FINISH_NUMBERS",
    "canonical",
    "continuation_needs_token",
    "decode",
]

PROVIDER = "gemini"
FINISH_TITLE = "finishReason"
BLOCK_TITLE = "promptFeedback.blockReason"

_R = StopReason

# Source: google-genai google/genai/types.py, `class FinishReason` (24 members), and the
# proto comments of google/ai/generativelanguage/v1beta/generative_service.proto.
FINISH_REASONS: dict[str, Verdict] = {
    "STOP": (_R.COMPLETED, None),  # also a stop sequence: Gemini does not say which
    "MAX_TOKENS": (_R.OUTPUT_LIMIT, "max_tokens"),
    "SAFETY": (_R.FILTERED, "safety"),
    "RECITATION": (_R.FILTERED, "recitation"),
    "LANGUAGE": (_R.FILTERED, "policy"),  # an unsupported language: a policy, not harm
    # A terminology blocklist is configured by the caller: a guardrail of theirs.
    "BLOCKLIST": (_R.FILTERED, "guardrail"),
    "PROHIBITED_CONTENT": (_R.FILTERED, "safety"),
    "SPII": (_R.FILTERED, "safety"),
    "IMAGE_SAFETY": (_R.FILTERED, "safety"),
    "IMAGE_PROHIBITED_CONTENT": (_R.FILTERED, "safety"),
    "IMAGE_RECITATION": (_R.FILTERED, "recitation"),
    "MODEL_ARMOR": (_R.FILTERED, "guardrail"),  # Vertex Model Armor templates
    "ESCALATION": (_R.FILTERED, "policy"),  # an escalation rule filtered the request
    "PUP_LIMITED_DISABLED": (_R.FILTERED, "policy"),  # account limited (Prohibited Use)
    "CONTINUATION": (_R.PAUSED, "continuation"),  # resume with the continuationToken
    "MALFORMED_FUNCTION_CALL": (_R.UNKNOWN, "error"),
    "UNEXPECTED_TOOL_CALL": (_R.UNKNOWN, "error"),
    "TOO_MANY_TOOL_CALLS": (_R.UNKNOWN, "error"),
    "MALFORMED_RESPONSE": (_R.UNKNOWN, "error"),
    "MISSING_THOUGHT_SIGNATURE": (_R.UNKNOWN, "error"),  # the request lacked one
    "OTHER": (_R.UNKNOWN, "error"),
    # Image generation stopped "for a reason not otherwise specified": the image twin of OTHER.
    "IMAGE_OTHER": (_R.UNKNOWN, "error"),
    # An image was expected and none came: calling that `completed` would hide the failure,
    # and nothing says it was filtered, so it is escalated as an error.
    "NO_IMAGE": (_R.UNKNOWN, "error"),
    # The proto default, "unused": no real stop signal was given.
    "FINISH_REASON_UNSPECIFIED": (_R.UNKNOWN, "missing"),
}
"""`finishReason` -> (reason, detail): the table the Gemini page shows."""

# Source: google-genai google/genai/types.py, `class BlockedReason` (8 members). Every value
# means the prompt was refused before any candidate was generated.
BLOCK_REASONS: dict[str, Verdict] = {
    "SAFETY": (_R.FILTERED, "prompt_blocked"),
    "OTHER": (_R.FILTERED, "prompt_blocked"),
    "BLOCKLIST": (_R.FILTERED, "prompt_blocked"),
    "PROHIBITED_CONTENT": (_R.FILTERED, "prompt_blocked"),
    "IMAGE_SAFETY": (_R.FILTERED, "prompt_blocked"),
    "MODEL_ARMOR": (_R.FILTERED, "prompt_blocked"),
    "JAILBREAK": (_R.FILTERED, "prompt_blocked"),
    # The proto default; sent with no candidates, the prompt was still refused.
    "BLOCKED_REASON_UNSPECIFIED": (_R.FILTERED, "prompt_blocked"),
    # The same default as the Gemini API proto spells it (generative_service.proto,
    # GenerateContentResponse.PromptFeedback.BlockReason; google-ai-generativelanguage's
    # generative_service.py): a REST body may carry this spelling.
    "BLOCK_REASON_UNSPECIFIED": (_R.FILTERED, "prompt_blocked"),
}
"""`promptFeedback.blockReason` -> (reason, detail): a blocked prompt, before any candidate."""

# Integer encodings (proto JSON with `enum-encoding=int`, e.g. Google's Go clients). The two
# APIs number their enums differently from 6 on. Gemini API: Candidate.FinishReason in
# google/ai/generativelanguage/v1beta/generative_service.proto.
GEMINI_API_FINISH_NUMBERS: dict[int, str] = {
    0: "FINISH_REASON_UNSPECIFIED", 1: "STOP", 2: "MAX_TOKENS", 3: "SAFETY", 4: "RECITATION",
    5: "OTHER", 6: "LANGUAGE", 7: "BLOCKLIST", 8: "PROHIBITED_CONTENT", 9: "SPII",
    10: "MALFORMED_FUNCTION_CALL", 11: "IMAGE_SAFETY", 12: "UNEXPECTED_TOOL_CALL",
    13: "TOO_MANY_TOOL_CALLS", 14: "IMAGE_PROHIBITED_CONTENT", 15: "IMAGE_OTHER",
    16: "NO_IMAGE", 17: "IMAGE_RECITATION",
}  # fmt: skip
# Vertex AI: google.cloud.aiplatform.v1 Candidate.FinishReason (content.proto).
VERTEX_FINISH_NUMBERS: dict[int, str] = {
    0: "FINISH_REASON_UNSPECIFIED", 1: "STOP", 2: "MAX_TOKENS", 3: "SAFETY", 4: "RECITATION",
    5: "OTHER", 6: "BLOCKLIST", 7: "PROHIBITED_CONTENT", 8: "SPII",
    9: "MALFORMED_FUNCTION_CALL", 10: "MODEL_ARMOR",
}  # fmt: skip
# PromptFeedback.BlockReason: the Gemini API proto, then Vertex's `BlockedReason`.
GEMINI_API_BLOCK_NUMBERS: dict[int, str] = {
    0: "BLOCKED_REASON_UNSPECIFIED", 1: "SAFETY", 2: "OTHER", 3: "BLOCKLIST",
    4: "PROHIBITED_CONTENT", 5: "IMAGE_SAFETY",
}  # fmt: skip
VERTEX_BLOCK_NUMBERS: dict[int, str] = {
    0: "BLOCKED_REASON_UNSPECIFIED", 1: "SAFETY", 2: "OTHER", 3: "BLOCKLIST",
    4: "PROHIBITED_CONTENT", 5: "MODEL_ARMOR", 6: "JAILBREAK",
}  # fmt: skip


def decode(
    reading: Reading, table: Mapping[str, Verdict], numbers: Mapping[int, str], title: str
) -> None:
    """Name `reading.raw_reason` as `table` does: an enum number, or another letter case.

    An enum number is decoded with `numbers` (the sending API's numbering) and the name kept
    in `details["decoded_reason"]`; the name goes to `reading.named`, which the engine looks up.
    A number no numbering names stays unnamed (the rules are `numbered`: it is unrecognized).

    Example:
        >>> reading = Reading(raw=None, raw_reason=6)
        >>> decode(reading, FINISH_REASONS, VERTEX_FINISH_NUMBERS, FINISH_TITLE)
        >>> (reading.named, reading.details["decoded_reason"])
        ('BLOCKLIST', 'BLOCKLIST')
    """
    raw = reading.raw_reason
    if type(raw) is int:
        name = numbers.get(raw)
        if name is not None:
            vertex = numbers is VERTEX_FINISH_NUMBERS or numbers is VERTEX_BLOCK_NUMBERS
            numbering = "Vertex AI" if vertex else "Gemini API"
            reading.notes.append(f"{title} {raw} decoded as {name!r} ({numbering} enum numbering)")
            reading.details["decoded_reason"] = name
            reading.named = name
    elif type(raw) is str and raw not in table and raw.upper() in table:
        # google-genai's enums are case-insensitive; so is stopkit.
        reading.notes.append(f"{title} {raw!r} read as {raw.upper()!r} (case-insensitive)")
        reading.named = raw.upper()


def canonical(raw: Any, numbers: Mapping[int, str]) -> Any:
    """Return the table's name for a finishReason as sent (an SDK member, a number, any case).

    Example:
        >>> (canonical(3, GEMINI_API_FINISH_NUMBERS), canonical("stop", {}))
        ('SAFETY', 'STOP')
    """
    raw = raw_value(raw)
    if type(raw) is int:
        return numbers.get(raw, raw)
    if type(raw) is str and raw not in FINISH_REASONS:
        return raw.upper()
    return raw


def continuation_needs_token(reading: Reading, reason: StopReason, detail: str | None) -> Verdict:
    """A `CONTINUATION` without a continuationToken cannot be resumed: unknown/missing.

    Example:
        >>> continuation_needs_token(Reading(None, "CONTINUATION"), *FINISH_REASONS["CONTINUATION"])
        (<StopReason.UNKNOWN: 'unknown'>, 'missing')
    """
    if reason is _R.PAUSED and not reading.details.get("continuation_token"):
        raw = raw_value(reading.raw_reason)
        reading.notes.append(
            f"{FINISH_TITLE} {raw!r} without a continuationToken, nothing to resume from: "
            "unknown/missing"
        )
        return _R.UNKNOWN, "missing"
    return reason, detail


# The finishReasons that say the function calls themselves are bad: a call under one is never
# run. What each says, from google-genai types.py (the docstring of each `FinishReason` value).
BAD_CALLS: dict[str, str] = {
    "MALFORMED_FUNCTION_CALL": "the model generated a function call that is syntactically invalid",
    "UNEXPECTED_TOOL_CALL": (
        "the model generated a function call that is semantically invalid (function calling "
        "not enabled, or a function not declared)"
    ),
    "TOO_MANY_TOOL_CALLS": "the model made too many tool calls in a single request",
}

#: Every documented blockReason says the prompt itself was blocked (no candidate came).
_BLOCKED = dict.fromkeys(BLOCK_REASONS, "no candidates: the prompt itself was blocked")

RULES = Rules(
    PROVIDER,
    FINISH_TITLE,
    FINISH_REASONS,
    steps=(continuation_needs_token,),
    bad_calls=BAD_CALLS,
    fields={BLOCK_TITLE: Rules(PROVIDER, BLOCK_TITLE, BLOCK_REASONS, _BLOCKED, numbered=True)},
    numbered=True,
)
