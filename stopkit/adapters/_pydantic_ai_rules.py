"""The pydantic-ai adapter's rules: whose table reads the raw value, and pydantic-ai's own values.

pydantic-ai's model classes keep the provider's own stop value in
`ModelResponse.provider_details["finish_reason"]` and name the provider in `provider_name`;
that value is read with the table of the wire format the provider speaks, imported from the
built-in adapter that reads it (`WIRE_OF` says which). pydantic-ai's own `finish_reason` (five
values, `FINISH_REASON`) is read only when the raw value was not kept, or when the raw value is
off the wire format's table but pydantic-ai mapped it (its table per provider knows dialect
values stopkit has no table for: Hugging Face's `eos_token`, Z.AI's `sensitive`, ...); a note
says so either way. `state` (`STATE`) says what pydantic-ai knows beside the stop value: a
suspended response is paused, one still streaming (or cut) is incomplete.

Example:
    >>> wire_of("groq", "stop")
    'openai.chat'
    >>> wire_of("openai", "max_output_tokens")
    'openai.responses'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stopkit._stop import StopReason
from stopkit.adapters._framework import BAD_CALLS, WIRES
from stopkit.adapters._gemini_rules import BLOCK_REASONS
from stopkit.adapters._openai_responses_rules import SIGNALS as RESPONSES
from stopkit.adapters._reading import Reading, Verdict
from stopkit.adapters._rules import Rules

__all__ = [
    "BLOCK_FIELD",
    "BLOCK_REASONS",
    "FINISH_REASON",
    "PROVIDER",
    "REFUSAL_FIELD",
    "REFUSAL_KEPT",
    "RULES",
    "STATE",
    "TABLES",
    "VALUE_NOTES",
    "WIRE_OF",
    "suspended",
    "wire_of",
]

PROVIDER = "pydantic_ai"
_R = StopReason

# pydantic-ai's own `ModelResponse.finish_reason`: pydantic_ai/messages.py (`FinishReason`, a
# Literal of five values "mostly normalized to OpenTelemetry semantic convention values").
# Read only when the provider's raw value was not kept (or is off its wire format's table).
FINISH_REASON: dict[str, Verdict] = {
    "stop": (_R.COMPLETED, None),
    "length": (_R.OUTPUT_LIMIT, "max_tokens"),
    "content_filter": (_R.FILTERED, "safety"),
    "tool_call": (_R.TOOL_REQUEST, None),
    "error": (_R.UNKNOWN, "error"),
}
"""pydantic-ai's own `finish_reason` values, read when the provider's raw value was not kept."""

# `ModelResponse.state`: pydantic_ai/messages.py (`ModelResponseState`). `complete` says
# nothing beyond the stop value. `suspended`: "the model paused mid-turn and expects a
# continuation request" (Anthropic `pause_turn`, OpenAI background mode), read where the stop
# value does not already pause (see `suspended`). `incomplete`: still streaming, or stopped
# before completion; `interrupted`: cut off before the model finished (a cancelled stream, a
# barge-in), or a complete response the run stopped acting on (a usage limit) — the stream's
# end is missing only when no stop value came with it.
STATE: dict[str, Verdict] = {
    "suspended": (_R.PAUSED, "continuation"),
    "incomplete": (_R.UNKNOWN, "stream_incomplete"),
    "interrupted": (_R.UNKNOWN, "stream_incomplete"),
}
"""`ModelResponse.state` values that decide the reply beyond its stop value."""

# `ModelResponse.provider_name` -> the wire format its raw finish_reason belongs to, from the
# providers' `name` (pydantic_ai/providers/*.py) and the model class each one drives
# (pydantic_ai/models/*.py, which fill `provider_details["finish_reason"]`): AnthropicModel a
# Messages `stop_reason`; GoogleModel a Gemini `finishReason` (and `block_reason` for a blocked
# prompt; `google-gla`/`google-vertex` are the names before pydantic-ai 2); BedrockConverseModel
# a Converse `stopReason`; CohereModel a v2 `finish_reason`. Every other provider (openai,
# azure, groq, mistral, deepseek, openrouter, ollama, together, ...) speaks OpenAI's formats:
# a Chat `finish_reason`, or a Responses status / incomplete reason (OpenAIResponsesModel keeps
# `incomplete_details.reason` when there is one, else `status`), told apart by the value.
WIRE_OF: dict[str, str] = {
    "anthropic": "anthropic",
    "google": "gemini",
    "google-gla": "gemini",
    "google-cloud": "gemini",
    "google-vertex": "gemini",
    "bedrock": "bedrock",
    "cohere": "cohere",
}

#: wire format -> its built-in adapter's table of stop values (the framework adapters' shared
#: `WIRES`). The Responses API's is its status and incomplete reasons together
#: (`SIGNALS`): OpenAIResponsesModel keeps either in `finish_reason`'s place.
TABLES: dict[str, Mapping[str, Verdict]] = {
    **{name: WIRES[name].table for name in ("anthropic", "gemini", "bedrock", "cohere")},
    "openai.chat": WIRES["openai.chat"].table,
    "openai.responses": RESPONSES,
}

#: The note a raw value leaves, where its wire format's adapter has one (the Chat dialects).
VALUE_NOTES: dict[str, Mapping[str, str]] = {"openai.chat": WIRES["openai.chat"].value_notes}


def wire_of(provider: Any, raw: Any) -> str:
    """Name the wire format whose table reads `raw`, a stop value the provider `provider` sent.

    Example:
        >>> wire_of("anthropic", "end_turn")
        'anthropic'
    """
    wire = WIRE_OF.get(provider) if type(provider) is str else None
    if wire is not None:
        return wire
    if type(raw) is str and raw not in TABLES["openai.chat"] and raw in RESPONSES:
        return "openai.responses"
    return "openai.chat"


def suspended(reading: Reading, reason: StopReason, detail: str | None) -> Verdict:
    """Step: a `suspended` response is paused, unless its stop value filtered, cut or paused it."""
    if reading.details.get("state") != "suspended" or reason in (
        _R.FILTERED,
        _R.OUTPUT_LIMIT,
        _R.PAUSED,
    ):
        return reason, detail
    verdict = STATE["suspended"]
    reading.notes.append(
        "pydantic-ai state 'suspended': the model paused mid-turn and expects a continuation "
        f"request ({verdict[0].value}/{verdict[1]})"
    )
    return verdict


#: pydantic-ai's OpenAI models drop the raw value of a refusal and say `content_filter`: beside
#: a refusal kept in `provider_details`, that value is the refusal.
REFUSAL_KEPT: dict[str, Verdict] = {"content_filter": (_R.FILTERED, "refusal")}

BLOCK_FIELD = "block_reason"
"""The field a blocked Gemini prompt's reason is read from (GoogleModel keeps it there)."""
REFUSAL_FIELD = "finish_reason (beside a kept refusal)"


def _field(title: str, table: Mapping[str, Verdict], notes: Mapping[str, str]) -> Rules:
    return Rules(PROVIDER, title, table, notes, steps=(suspended,))


# The raw value is decided under these rules whichever table read it (a reading names the wire
# format's field, `Reading.field`: its name in `TABLES`): the wire formats' values that say the
# calls themselves are bad come along (a call under one is never run).
RULES = Rules(
    PROVIDER,
    "finish_reason",
    FINISH_REASON,
    steps=(suspended,),
    bad_calls=BAD_CALLS,
    fields={
        **{wire: _field("finish_reason", table, VALUE_NOTES.get(wire, {}))
           for wire, table in TABLES.items()},
        BLOCK_FIELD: _field(BLOCK_FIELD, BLOCK_REASONS, {}),
        REFUSAL_FIELD: _field("finish_reason", REFUSAL_KEPT, {}),
    },
)  # fmt: skip
