"""Amazon Bedrock Converse's rules: the `stopReason` table, the stream's exception events, one step.

What Bedrock says beside `stopReason` is a fact the reader records and the engine weighs: a
`toolUse` answered by a `toolResult` in the same reply (a server tool) is not pending, and an
InvokeModel body whose `amazon-bedrock-guardrailAction` is `INTERVENED` carries a guardrail
filter (unless its trace shows the guardrail only masked the text). The one step is
`malformed_tool_use`: Bedrock itself says the calls are broken, so they are cut.
"""

from __future__ import annotations

from stopkit._stop import StopReason
from stopkit.adapters._calls import cut
from stopkit.adapters._engine import Rules
from stopkit.adapters._reading import Reading, Verdict

__all__ = [
    "GUARDRAIL_ACTIONS",
    "PROVIDER",
    "RULES",
    "SIGNALS",
    "STOP_REASONS",
    "STREAM_ERRORS",
    "malformed_tool_use",
]

PROVIDER = "bedrock"

# Source: botocore 1.43.11 (and 1.44.8), botocore/data/bedrock-runtime/2023-09-30/service-2.json,
# shape "StopReason" (the enum of ConverseResponse.stopReason and MessageStopEvent.stopReason).
STOP_REASONS: dict[str, Verdict] = {
    "end_turn": (StopReason.COMPLETED, None),
    "tool_use": (StopReason.TOOL_REQUEST, None),
    "max_tokens": (StopReason.OUTPUT_LIMIT, "max_tokens"),
    "stop_sequence": (StopReason.STOP_SEQUENCE, None),
    "guardrail_intervened": (StopReason.FILTERED, "guardrail"),
    "content_filtered": (StopReason.FILTERED, "safety"),
    "malformed_model_output": (StopReason.UNKNOWN, "error"),
    "malformed_tool_use": (StopReason.UNKNOWN, "error"),
    "model_context_window_exceeded": (StopReason.OUTPUT_LIMIT, "context_window"),
}
"""Converse `stopReason` -> (reason, detail): the table the Bedrock page shows."""

# Source: the same service-2.json, shape "ConverseStreamOutput": the exception members a
# ConverseStream can deliver in place of its events. Each one ends the stream.
STREAM_ERRORS: dict[str, Verdict] = {
    "internalServerException": (StopReason.UNKNOWN, "error"),
    "modelStreamErrorException": (StopReason.UNKNOWN, "error"),
    "validationException": (StopReason.UNKNOWN, "error"),
    "throttlingException": (StopReason.UNKNOWN, "error"),
    "serviceUnavailableException": (StopReason.UNKNOWN, "error"),
}
"""A ConverseStream exception event's name -> (reason, detail); each one ends the stream."""

# Source: the Bedrock InvokeModel response headers/fields (`X-Amzn-Bedrock-GuardrailAction`,
# "INTERVENED" | "NONE"), which Nova bodies and stream chunks carry as
# `amazon-bedrock-guardrailAction`; DESIGN section 3 ("any Bedrock body whose ... is INTERVENED").
# Only the intervention is a signal: "NONE" says nothing.
GUARDRAIL_ACTIONS: dict[str, Verdict] = {
    "INTERVENED": (StopReason.FILTERED, "guardrail"),
}

#: Every terminal signal of a ConverseStream, for `stricter`: a stop value or an exception.
SIGNALS: dict[str, Verdict] = {**STOP_REASONS, **STREAM_ERRORS}


def malformed_tool_use(reading: Reading, reason: StopReason, detail: str | None) -> Verdict:
    """Cut every call of a `malformed_tool_use` reply: Bedrock says the tool use is broken.

    Example:
        >>> from stopkit.adapters._calls import tool_call
        >>> reading = Reading(raw={}, raw_reason="malformed_tool_use")
        >>> reading.calls = [tool_call("t1", "f", {})]
        >>> _ = malformed_tool_use(reading, StopReason.UNKNOWN, "error")
        >>> reading.calls[0].complete
        False
    """
    calls = reading.calls
    if calls and reading.raw_reason == "malformed_tool_use":
        reading.calls = [cut(c, "Bedrock reported the tool use as malformed") for c in calls]
        n = len(calls)
        reading.notes.append(
            f"stopReason 'malformed_tool_use': {n} tool call{'' if n == 1 else 's'} "
            "marked incomplete"
        )
    return reason, detail


RULES = Rules(PROVIDER, "stopReason", STOP_REASONS, steps=(malformed_tool_use,))
