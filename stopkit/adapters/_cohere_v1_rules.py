"""Cohere v1 Chat's rules: its `finish_reason` table and the notes its own values need.

v1 Chat's `finish_reason` is the v1 API's `FinishReason`, the type v1 generate's is too, so its
table is the one `bedrock.invoke` maps Cohere Command (generate) bodies with, imported: one table
for one type. The values v1 only sends (`ERROR_LIMIT`, `ERROR_TOXIC`, `USER_CANCEL`) get their
notes here. Everything else a v1 reply says (tool calls under `COMPLETE` are pending, a
`MAX_TOKENS` reply's calls are cut) is a fact the reader records and the engine weighs.
"""

from __future__ import annotations

from stopkit.adapters._bedrock_invoke_rules import COHERE_FINISH_REASON
from stopkit.adapters._reading import Verdict
from stopkit.adapters._rules import Rules

__all__ = ["FINISH_REASON", "PROVIDER", "RULES"]

PROVIDER = "cohere.v1"

# Source: cohere-python 7.3.1, `cohere/types/finish_reason.py` (`FinishReason`, the type of
# `NonStreamedChatResponse.finish_reason`) and `cohere/types/chat_stream_end_event_finish_reason.py`
# (`ChatStreamEndEventFinishReason`, the stream-end event's), whose docstring in
# `chat_stream_end_event.py` says what each means: `ERROR_LIMIT` "the reply was cut off because
# the model reached the maximum number of tokens for its context length", `ERROR_TOXIC` "the
# model generated a reply that was deemed toxic"; `USER_CANCEL`: the caller cancelled the request
# before the reply was finished, so it is not an answer.
FINISH_REASON: dict[str, Verdict] = COHERE_FINISH_REASON
"""v1 chat `finish_reason` -> (reason, detail): v1's `FinishReason`, Cohere Command's too."""

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
