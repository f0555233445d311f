"""A journaled run a hook stopped: a rerun asks the hook again, as a live run would.

The calls a hook left unrun are not the calls' results: they are not recorded, so a rerun of
the same `run_id` replays to the same ending while the hook still refuses, and goes on as an
uninterrupted run once it allows them. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

import stopkit
import stopkit.loop
from stopkit import Termination, ToolCall
from tests.loop.journal._scenario import Trace, TurnModel, record_tool, summary

MODES = ["run_loop", "arun_loop"]
REFUSED = "toolu_1_1"  # the second call of the first turn


def refuse(call: ToolCall, ctx: stopkit.loop.LoopContext) -> None:
    """A `before_tool_call` that refuses the second call of the first turn."""
    if call.id == REFUSED:
        raise PermissionError("the policy service is down")


def allow(call: ToolCall, ctx: stopkit.loop.LoopContext) -> None:
    """A `before_tool_call` that lets every call run."""


def run(mode: str, trace: Trace, hook: Callable[[ToolCall, Any], None], **settings: Any) -> Any:
    """Two tool turns of two calls each, then the final answer; every call traced."""
    model = TurnModel(trace, turns=2, calls=2)
    settings = {"tools": {"record": record_tool(trace)}, "before_tool_call": hook, **settings}
    if mode == "run_loop":
        return stopkit.run_loop(model, "Record.", **settings)
    return asyncio.run(stopkit.arun_loop(model.acall, "Record.", **settings))


@pytest.mark.parametrize("mode", MODES)
def test_a_rerun_of_a_hook_stopped_run_asks_the_hook_again(journal: Any, mode: str) -> None:
    """Still refused: the same ending, nothing made again; allowed: the uninterrupted run."""
    first = Trace()
    stopped = run(mode, first, refuse, journal=journal, run_id="h1")
    assert stopped.termination is Termination.STOPPED_BY_HOOK
    assert sorted(first.lines) == ["model 1", "tool 1.0"]

    again = Trace()
    still = run(mode, again, refuse, journal=journal, run_id="h1")
    assert summary(still) == summary(stopped)
    assert again.lines == []

    whole = run(mode, Trace(), allow)
    later = Trace()
    resumed = run(mode, later, allow, journal=journal, run_id="h1")
    assert summary(resumed) == summary(whole)
    # Only what the stop left undone is made (a turn's calls run concurrently in arun_loop).
    assert sorted(later.lines) == ["model 2", "model 3", "tool 1.1", "tool 2.0", "tool 2.1"]
