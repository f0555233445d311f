"""The Anthropic Messages API's rules: its `stop_reason` table (no provider step is needed).

Everything else Anthropic says beside `stop_reason` is a fact the reader records and the engine
weighs in DESIGN order: a `tool_use` block answered in the same reply (programmatic tool
calling, a server tool) is not pending; a `max_tokens` cut inside a `tool_use` block leaves that
call incomplete; `stop_details` carries a refusal's explanation.
"""

from __future__ import annotations

from stopkit._stop import StopReason
from stopkit.adapters._reading import Verdict
from stopkit.adapters._rules import Rules

__all__ = ["PROVIDER", "RULES", "STOP_REASONS"]

PROVIDER = "anthropic"

# Source: anthropic/types/stop_reason.py (GA `StopReason`) and
# anthropic/types/beta/beta_stop_reason.py (`BetaStopReason`, which adds `compaction`).
STOP_REASONS: dict[str, Verdict] = {
    "end_turn": (StopReason.COMPLETED, None),
    "tool_use": (StopReason.TOOL_REQUEST, None),
    "max_tokens": (StopReason.OUTPUT_LIMIT, "max_tokens"),
    "model_context_window_exceeded": (StopReason.OUTPUT_LIMIT, "context_window"),
    "stop_sequence": (StopReason.STOP_SEQUENCE, None),
    "refusal": (StopReason.FILTERED, "refusal"),
    "pause_turn": (StopReason.PAUSED, "server_tool_limit"),
    "compaction": (StopReason.PAUSED, "compaction"),
}
"""`stop_reason` -> (reason, detail): the table the Anthropic page shows."""

RULES = Rules(PROVIDER, "stop_reason", STOP_REASONS)
