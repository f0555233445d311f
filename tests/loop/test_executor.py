"""The tool executor (`stopkit/loop/_executor.py`): which calls of a reply run, and their answers.

Only the calls of a tool request run, each at most once, and every call gets exactly one result.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import stopkit
import stopkit.loop
from stopkit import StopReason
from stopkit.loop import DEFAULT_HANDLERS, Finish, LoopContext
from stopkit.testing import ScriptedModel
from tests._adapters import TOOL_NAMES
from tests._payloads import PAYLOADS
from tests.loop._fake import FAKE, USER, call, reply
from tests.loop._shapes import PROVIDERS


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


def payload(folder: str, name: str) -> Any:
    return copy.deepcopy(json.loads((PAYLOADS / folder / name).read_text())["reply"])


def bedrock_duplicate() -> Any:
    body = payload("bedrock", "tool_use_parallel.json")
    for block, city in zip(body["output"]["message"]["content"], ("Paris", "Tokyo"), strict=True):
        block["toolUse"].update(toolUseId="dup", name="get_weather", input={"city": city})
    return body


def cohere_duplicate() -> Any:
    body = payload("cohere", "tool_call.json")
    for item, city in zip(body["message"]["tool_calls"], ("Paris", "Tokyo"), strict=True):
        item.update(
            id="dup", function={"name": "get_weather", "arguments": json.dumps({"city": city})}
        )
    return body


def ollama_duplicate() -> Any:
    body = payload("ollama", "stop_tool_calls.json")
    for item, city in zip(body["message"]["tool_calls"], ("Paris", "Tokyo"), strict=True):
        item["function"] = {"name": "get_weather", "arguments": {"city": city}}
    return body


def cohere_v1_duplicate() -> Any:
    body = payload("cohere_v1", "tool_calls.json")
    for item, city in zip(body["tool_calls"], ("Paris", "Tokyo"), strict=True):
        item.update(name="get_weather", parameters={"city": city})
    return body


def xai_duplicate() -> Any:
    body = payload("xai", "tool_calls.json")
    call = body["outputs"][0]["message"]["tool_calls"][0]
    body["outputs"][0]["message"]["tool_calls"] = [
        {**call, "id": "dup",
         "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}
        for city in ("Paris", "Tokyo")
    ]
    return body


def cohere_v1_answers(messages: list[Any]) -> list[tuple[str, str]]:
    return [
        (r["call"]["name"], "")
        for m in messages if m.get("role") == "TOOL"
        for r in m["tool_results"]
    ]  # fmt: skip


def bedrock_answers(messages: list[Any]) -> list[tuple[str, str]]:
    return [
        (b["toolResult"]["toolUseId"], b["toolResult"]["status"])
        for m in messages if isinstance(m.get("content"), list)
        for b in m["content"] if "toolResult" in b
    ]  # fmt: skip


def by_role_tool(key: str, role: str = "tool") -> Any:
    def answers(messages: list[Any]) -> list[tuple[str, str]]:
        return [(m[key], "") for m in messages if m.get("role") == role]

    return answers


def shapes_answers(name: str) -> Any:
    p = {s.name: s for s in PROVIDERS}[name]

    def answers(messages: list[Any]) -> list[tuple[str, str]]:
        return [(i, "") for i in p.pairs(messages)[1]]

    return answers


def shapes_duplicate(name: str) -> Any:
    p = {s.name: s for s in PROVIDERS}[name]
    return p.tools(
        [("dup", "get_weather", {"city": "Paris"}), ("dup", "get_weather", {"city": "Tokyo"})]
    )


DUP_ERROR = "not run: an earlier call of this reply has the same id ('dup')"

# adapter -> (reply, what the transcript answers, cities that ran, results the provider is sent)
# How each provider matches a result to its call decides what can be sent:
DUPLICATES = {
    # by id, and the Messages API wants one tool_result per tool_use id: one answer, the first
    "anthropic": (shapes_duplicate("anthropic"), shapes_answers("anthropic"), ["Paris"],
                  [("dup", "")]),
    # by tool_call_id: both results go back, the second one the error
    "openai.chat": (shapes_duplicate("openai.chat"), by_role_tool("tool_call_id"), ["Paris"],
                    [("dup", ""), ("dup", "")]),
    # by call_id: both function_call_output items go back
    "openai.responses": (shapes_duplicate("openai.responses"), shapes_answers("openai.responses"),
                         ["Paris"], [("dup", ""), ("dup", "")]),
    # one functionResponse per functionCall, in order: both go back, the second the error
    "gemini": (shapes_duplicate("gemini"), shapes_answers("gemini"), ["Paris"],
               [("dup", ""), ("dup", "")]),
    # by toolUseId: both toolResult blocks, the second with status error
    "bedrock": (bedrock_duplicate(), bedrock_answers, ["Paris"],
                [("dup", "success"), ("dup", "error")]),
    # by tool_call_id: both tool messages
    "cohere": (cohere_duplicate(), by_role_tool("tool_call_id"), ["Paris"],
               [("dup", ""), ("dup", "")]),
    # Ollama sends no ids (stopkit makes distinct ones) and matches by name and order: both run
    "ollama": (ollama_duplicate(), by_role_tool("tool_name"), ["Paris", "Tokyo"],
               [("get_weather", ""), ("get_weather", "")]),
    # Cohere v1 sends no ids either (call_<n>) and matches a result by its call: both run
    "cohere.v1": (cohere_v1_duplicate(), cohere_v1_answers, ["Paris", "Tokyo"],
                  [("get_weather", ""), ("get_weather", "")]),
    # by tool_call_id: both ROLE_TOOL messages, the second the error
    "xai": (xai_duplicate(), by_role_tool("tool_call_id", "ROLE_TOOL"), ["Paris"],
            [("dup", ""), ("dup", "")]),
}  # fmt: skip


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_duplicate_call_ids_are_each_answered_once(name: str) -> None:
    """Two calls with one id: the later one is not run and gets an error result (per adapter)."""
    duplicate, answers, ran_cities, sent = DUPLICATES[name]  # a new adapter needs its row
    ran: list[str] = []
    final = {s.name: s for s in PROVIDERS}.get(name)
    end = final.text("done") if final is not None else None
    if end is None:
        end = {"bedrock": lambda: payload("bedrock", "end_turn.json"),
               "cohere": lambda: payload("cohere", "complete.json"),
               "ollama": lambda: payload("ollama", "stop.json"),
               "cohere.v1": lambda: payload("cohere_v1", "complete.json"),
               "xai": lambda: payload("xai", "stop.json")}[name]()  # fmt: skip
    model = ScriptedModel([duplicate, end])
    outcome = stopkit.run_loop(
        model, "Weather?", tools={"get_weather": lambda city: ran.append(city) or city}
    )
    assert outcome.stop is not None
    assert outcome.stop.provider == name
    assert ran == ran_cities
    runs = outcome.tool_runs
    assert len(runs) == 2  # every call answered exactly once
    if len(ran_cities) == 1:
        assert [r.result.is_error for r in runs] == [False, True]
        assert runs[1].result.content == DUP_ERROR
    assert answers(list(model.calls[1].messages)) == sent
