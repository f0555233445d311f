"""xAI's gRPC Chat API rules (xai_sdk): its `FinishReason` table.

Everything else an xAI reply says is a fact the reader records and the engine weighs in DESIGN
order: client tool calls under `REASON_STOP` are pending, a cut reply's calls are not run, a
server-side tool call (web search, code execution, ...) was run by xAI and is no tool call.
"""

from __future__ import annotations

from stopkit._stop import StopReason
from stopkit.adapters._reading import Verdict
from stopkit.adapters._rules import Rules

__all__ = ["FINISH_REASON", "PROVIDER", "RULES"]

PROVIDER = "xai"

_R = StopReason

# Source: xai-sdk 1.21.0 xai_sdk/proto/v6/sample_pb2.pyi, `FinishReason` (xai_api's
# sample.proto): REASON_INVALID = 0 (the proto default: no reason set), REASON_MAX_LEN,
# REASON_MAX_CONTEXT, REASON_STOP, REASON_TOOL_CALLS, REASON_TIME_LIMIT. Keyed by the enum's
# names, as xai_sdk's `Response.finish_reason` and the proto's JSON give them;
# tests/adapters/test_xai.py checks that every member of the SDK's own enum is here.
FINISH_REASON: dict[str, Verdict] = {
    "REASON_STOP": (_R.COMPLETED, None),
    "REASON_TOOL_CALLS": (_R.TOOL_REQUEST, None),
    "REASON_MAX_LEN": (_R.OUTPUT_LIMIT, "max_tokens"),
    "REASON_MAX_CONTEXT": (_R.OUTPUT_LIMIT, "context_window"),
    "REASON_TIME_LIMIT": (_R.UNKNOWN, "timeout"),
    "REASON_INVALID": (_R.UNKNOWN, "missing"),
}
"""`finish_reason` -> (reason, detail): the table the xAI page shows."""

RULES = Rules(
    PROVIDER,
    "finish_reason",
    FINISH_REASON,
    value_notes={
        "REASON_MAX_CONTEXT": (
            "finish_reason 'REASON_MAX_CONTEXT': the context window is full; "
            "treated as output_limit/context_window"
        ),
        "REASON_TIME_LIMIT": "finish_reason 'REASON_TIME_LIMIT': the request ran out of time",
        "REASON_INVALID": "finish_reason 'REASON_INVALID' is the proto default: no reason set",
    },
)
