"""How a run ends: the outcome as it stands, after the opt-in summing-up call.

`end(run, termination)` is the one way the engine ends a run that had a reply to act on: when
the final answer is empty and `synthesize_on_empty_final` is set, it first makes one tool-less
model call asking the model to sum up (`synthesize`); an empty final answer is logged at INFO.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from typing import Any

from stopkit.loop._handlers import as_list, user_message
from stopkit.loop._requests import Request
from stopkit.loop._run import APPEND_ON_FINISH, Run
from stopkit.loop.events import Outcome, Termination

__all__ = ["SYNTHESIZE_PROMPT", "end", "log_empty_final", "synthesize"]

logger = logging.getLogger("stopkit.loop")

SYNTHESIZE_PROMPT = (
    "Your last reply was empty. Sum up what you did and found so far, as your final answer "
    "to the user. Do not call any tools."
)
"""What the opt-in summing-up call (`synthesize_on_empty_final`) asks the model."""

# The endings after which the summing-up call may be made (never after a filtered or unknown
# reply, a truncated one, a passed deadline or a spent budget).
_SYNTHESIZE_AFTER = frozenset(
    {
        Termination.COMPLETED,
        Termination.STOP_SEQUENCE,
        Termination.MAX_TURNS,
        Termination.LOOP_DETECTED,
        Termination.PAUSE_LIMIT,
    }
)


def end(
    run: Run, termination: Termination, text: str | None = None
) -> Generator[Request, Any, Outcome]:
    """End `run` with `termination` and `text` (default: the last reply's); return the outcome."""
    if text is None:
        text = run.last_stop.text if run.last_stop is not None else ""
    if (
        text == ""
        and run.settings.synthesize_on_empty_final
        and termination in _SYNTHESIZE_AFTER
        and run.adapter is not None
        and run.controls.bound(run.turn + 1) is None  # no control's limit (the budget) is past
    ):
        text = yield from synthesize(run)
    if text == "":
        log_empty_final(termination, run.turn, len(run.tools.runs))
    return run.finish(termination, text)


def log_empty_final(termination: Termination, turn: int, tool_calls: int) -> None:
    """Log at INFO that a run ended with an empty final answer (the loop's, and LangGraph's)."""
    logger.info(
        "stopkit: the run ended with an empty final answer "
        "(termination %s, turn %d, %d tool calls)",
        termination.value,
        turn,
        tool_calls,
    )


def synthesize(run: Run) -> Generator[Request, Any, str]:
    """Make the one extra, tool-less call asking the model to sum up; return its text."""
    adapter = run.adapter
    assert adapter is not None
    messages = [*run.transcript, user_message(adapter, SYNTHESIZE_PROMPT)]
    # `tool_choice="none"` is the documented override meaning "no tool may be called".
    overrides = {**run.base, "tool_choice": "none"}
    stop = yield from run.model_turn(overrides, messages, summing_up=True)
    if stop.reason not in APPEND_ON_FINISH or stop.tool_calls:
        run.discard(stop)
        return ""
    messages.extend(as_list(adapter.assistant_message(stop)))
    run.transcript[:] = messages
    return stop.text
