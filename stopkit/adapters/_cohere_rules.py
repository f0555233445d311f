"""Cohere v2 Chat's rules: its `finish_reason` table (no provider step is needed).

Everything else a v2 reply says beside `finish_reason` is a fact the reader records and the
engine weighs in DESIGN order: tool calls under `COMPLETE` are pending, a `MAX_TOKENS` reply's
calls are cut, and a stream's `message-end` may carry `delta.error` (an in-band error).
"""

from __future__ import annotations

from stopkit._stop import StopReason
from stopkit.adapters._reading import Verdict
from stopkit.adapters._rules import Rules

__all__ = ["FINISH_REASON", "PROVIDER", "RULES"]

PROVIDER = "cohere"

# Source: cohere-python 7.3.1, `cohere/types/chat_finish_reason.py` (`ChatFinishReason`, used by
# `V2ChatResponse.finish_reason` and the stream's `ChatMessageEndEventDelta.finish_reason`), and
# the API reference (docs.cohere.com/reference/chat, "finish_reason").
FINISH_REASON: dict[str, Verdict] = {
    "COMPLETE": (StopReason.COMPLETED, None),
    "STOP_SEQUENCE": (StopReason.STOP_SEQUENCE, None),
    "MAX_TOKENS": (StopReason.OUTPUT_LIMIT, "max_tokens"),
    "TOOL_CALL": (StopReason.TOOL_REQUEST, None),
    "ERROR": (StopReason.UNKNOWN, "error"),
    "TIMEOUT": (StopReason.UNKNOWN, "timeout"),
}
"""v2 chat `finish_reason` -> (reason, detail): the table the Cohere page shows."""

RULES = Rules(PROVIDER, "finish_reason", FINISH_REASON)
