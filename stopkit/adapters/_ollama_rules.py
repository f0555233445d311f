"""Ollama `/api/chat`'s rules: its `done_reason` table and the notes some values need.

Everything else an Ollama reply says is a fact the reader records and the engine weighs in
DESIGN order: tool calls under `stop` are pending, a `length` reply's calls are cut, a chunk
with `done: false` is not a finished reply.
"""

from __future__ import annotations

from stopkit._stop import StopReason
from stopkit.adapters._reading import Verdict
from stopkit.adapters._rules import Rules

__all__ = ["DONE_REASON", "PROVIDER", "RULES"]

PROVIDER = "ollama"

# Source: the Ollama server (`llm/server.go` `DoneReason.String()`: "stop", "length", and ""
# for a connection closed mid-generation; `server/routes.go` sets "load" and "unload" on the
# model-management replies) and docs/api.md ("Load a model", "Unload a model"). ollama-python
# 0.6.3 types `done_reason` as a plain `Optional[str]` (`ollama/_types.py`), so these values are
# pinned in tests/adapters/test_ollama.py with this source.
#
# "load" and "unload" answer a request with an empty `messages` list (to load the model, or to
# unload it with keep_alive 0): nothing was generated, so they are not generation stops. A loop
# that meets one has sent the wrong request: unknown (escalated), detail "missing" (the reply
# has no generation stop at all) — never completed, which would end a run with an empty answer.
DONE_REASON: dict[str, Verdict] = {
    "stop": (StopReason.COMPLETED, None),
    "length": (StopReason.OUTPUT_LIMIT, "max_tokens"),
    "load": (StopReason.UNKNOWN, "missing"),
    "unload": (StopReason.UNKNOWN, "missing"),
    "": (StopReason.UNKNOWN, "missing"),
}
"""Native `done_reason` -> (reason, detail): the table the Ollama page shows."""

RULES = Rules(
    PROVIDER,
    "done_reason",
    DONE_REASON,
    value_notes={
        "load": "done_reason 'load': the model was loaded; nothing was generated",
        "unload": "done_reason 'unload': the model was unloaded; nothing was generated",
        "": "done_reason is empty: the generation ended without a stop",
    },
)
