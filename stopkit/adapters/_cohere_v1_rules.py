"""Cohere v1 Chat's rules: its `finish_reason` table and the notes its own values need.

The values v1 shares with v2 (`COMPLETE`, `STOP_SEQUENCE`, `MAX_TOKENS`, `ERROR`, `TIMEOUT`) mean
the same in both, so they are v2's table entries, imported; the three only v1 sends are mapped
here as DESIGN section 3 ("Added formats") says. Everything else a v1 reply says (tool calls
under `COMPLETE` are pending, a `MAX_TOKENS` reply's calls are cut) is a fact the reader records
and the engine weighs.
"""

from __future__ import annotations

from stopkit._stop import StopReason
from stopkit.adapters import _cohere_rules as v2
from stopkit.adapters._engine import Rules
from stopkit.adapters._reading import Verdict

__all__ = ["FINISH_REASON", "PROVIDER", "RULES"]

PROVIDER = "cohere.v1"

#: The values v1 and v2 share, with the same meaning.
_SHARED = ("COMPLETE", "STOP_SEQUENCE", "MAX_TOKENS", "ERROR", "TIMEOUT")

# Source: cohere-python 7.3.1, `cohere/types/finish_reason.py` (`FinishReason`, the type of
# `NonStreamedChatResponse.finish_reason`) and `cohere/types/chat_stream_end_event_finish_reason.py`
# (`ChatStreamEndEventFinishReason`, the stream-end event's), whose docstring in
# `chat_stream_end_event.py` says what each means: `ERROR_LIMIT` "the reply was cut off because
# the model reached the maximum number of tokens for its context length", `ERROR_TOXIC` "the
# model generated a reply that was deemed toxic".
FINISH_REASON: dict[str, Verdict] = {
    **{raw: v2.FINISH_REASON[raw] for raw in _SHARED},
    "ERROR_LIMIT": (StopReason.OUTPUT_LIMIT, "context_window"),
    "ERROR_TOXIC": (StopReason.FILTERED, "safety"),
    # The request was cancelled by its caller before the reply was finished: not an answer.
    "USER_CANCEL": (StopReason.UNKNOWN, "cancelled"),
}

RULES = Rules(
    PROVIDER,
    "finish_reason",
    FINISH_REASON,
    value_notes={
        "ERROR_LIMIT": (
            "finish_reason 'ERROR_LIMIT': the model's context length was reached; "
            "treated as output_limit/context_window"
        ),
        "ERROR_TOXIC": (
            "finish_reason 'ERROR_TOXIC': the reply was deemed toxic; treated as filtered/safety"
        ),
        "USER_CANCEL": (
            "finish_reason 'USER_CANCEL': the request was cancelled; treated as unknown/cancelled"
        ),
    },
)
