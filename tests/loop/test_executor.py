"""The tool executor (`stopkit/loop/_executor.py`): which calls of a reply run, and their answers.

Only the calls of a tool request run, each at most once, and every call gets exactly one result.
"""

from __future__ import annotations

import pytest

import stopkit
import stopkit.loop
from stopkit import StopReason
from stopkit.loop import DEFAULT_HANDLERS, Finish, LoopContext
from stopkit.testing import ScriptedModel
from tests._adapters import BY_NAME, TOOL_NAMES
from tests.loop._fake import FAKE, USER, call, reply
from tests.loop._validate import assert_valid_transcript


@pytest.mark.parametrize(
    ("reason", "detail"),
    [("unknown", "unrecognized"), ("filtered", "refusal"), ("output_limit", "max_tokens")],
)
@pytest.mark.parametrize("mode", ["run_tools", "arun_tools"])
def test_run_tools_runs_the_calls_of_a_tool_request_only(
    reason: str, detail: str, mode: str
) -> None:
    """Under any other stop, `ctx.run_tools()` runs nothing: each call gets a `not run` result."""
    ran: list[int] = []
    seen: list[list[stopkit.ToolResult]] = []

    def curious(ctx: LoopContext) -> stopkit.loop.Action:
        seen.append(ctx.run_tools())
        return Finish()

    async def acurious(ctx: LoopContext) -> stopkit.loop.Action:
        seen.append(await ctx.arun_tools())
        return Finish()

    script = [reply(reason, calls=[call("c1", a=1, b=2), call("c2", a=3, b=4)], detail=detail)]
    handlers = {**DEFAULT_HANDLERS, StopReason(reason): curious}
    tools = {"add": lambda a, b: ran.append(a)}
    if mode == "run_tools":
        stopkit.run_loop(
            ScriptedModel(script), [USER], adapter=FAKE, handlers=handlers, tools=tools
        )
    else:
        import asyncio

        handlers[StopReason(reason)] = acurious
        asyncio.run(
            stopkit.arun_loop(
                ScriptedModel(script), [USER], adapter=FAKE, handlers=handlers, tools=tools
            )
        )
    assert ran == []
    assert [(r.call_id, r.is_error) for r in seen[0]] == [("c1", True), ("c2", True)]
    assert all(r.content == f"not run: the reply stopped as {reason}" for r in seen[0])


def test_run_tools_still_runs_every_runnable_call_of_a_tool_request() -> None:
    """Under a tool request the default runs its complete calls and answers the cut ones."""
    ran: list[int] = []
    script = [
        reply("tool_request", calls=[call("ok", a=1, b=2), call("cut", complete=False, a=3)]),
        reply("completed", "done"),
    ]
    outcome = stopkit.run_loop(
        ScriptedModel(script), [USER], adapter=FAKE, tools={"add": lambda a, b: ran.append(a)}
    )
    assert ran == [1]
    assert [r.call.id for r in outcome.tool_runs] == ["ok", "cut"]
    assert outcome.tool_runs[1].result.content.startswith("not run: this call was cut off")


# --- duplicate call ids -------------------------------------------------------------------------

DUP_ERROR = "not run: an earlier call of this reply has the same id ('dup')"


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_duplicate_call_ids_are_each_answered_once(name: str) -> None:
    """Two calls with one id: the later one is not run and gets an error result (per adapter)."""
    case = BY_NAME[name].duplicates
    assert case is not None, f"{name}'s row in tests/_adapters.py needs its `duplicates`"
    ran: list[str] = []
    model = ScriptedModel([case.reply(), case.done()])
    outcome = stopkit.run_loop(
        model, "Weather?", tools={"get_weather": lambda city: ran.append(city) or city}
    )
    assert outcome.stop is not None
    assert outcome.stop.provider == name
    assert tuple(ran) == case.ran
    runs = outcome.tool_runs
    assert len(runs) == 2  # every call answered exactly once
    if len(case.ran) == 1:
        assert [r.result.is_error for r in runs] == [False, True]
        assert runs[1].result.content == DUP_ERROR
    assert tuple(case.answers(list(model.calls[1].messages))) == case.sent
    assert_valid_transcript(name, outcome.messages)  # what was sent back, the SDK accepts
