"""Amazon Bedrock Converse's rules: the `stopReason` table, the stream's exception events.

What Bedrock says beside `stopReason` is a fact the reader records and the engine weighs: a
`toolUse` answered by a `toolResult` in the same reply (a server tool) is not pending, and an
InvokeModel body whose `amazon-bedrock-guardrailAction` is `INTERVENED` carries a guardrail
filter (unless its trace shows the guardrail only masked the text). Two values say the calls
themselves are broken (`BAD_CALLS`): the engine marks every call under one incomplete.
"""

from __future__ import annotations

from stopkit._stop import StopReason
from stopkit.adapters._reading import Verdict
from stopkit.adapters._rules import Rules

__all__ = [
    "BAD_CALLS",
    "GUARDRAIL_ACTIONS",
    "PROVIDER",
    "RULES",
    "SIGNALS",
    "STOP_REASONS",
    "STREAM_ERRORS",
    "STREAM_ERROR_FIELD",
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


# The stopReasons that say the model's tool use or output is broken: a call under one is never
# run. botocore describes no value; the words are Bedrock's names, spelled out.
BAD_CALLS: dict[str, str] = {
    "malformed_model_output": "Bedrock reported the model's output as malformed",
    "malformed_tool_use": "Bedrock reported the tool use as malformed",
}

STREAM_ERROR_FIELD = "ConverseStream exception event"
"""The stop field a stream names when an exception event ended it (`Reading.field`)."""

RULES = Rules(
    PROVIDER,
    "stopReason",
    STOP_REASONS,
    bad_calls=BAD_CALLS,
    fields={STREAM_ERROR_FIELD: Rules(PROVIDER, STREAM_ERROR_FIELD, STREAM_ERRORS)},
)
