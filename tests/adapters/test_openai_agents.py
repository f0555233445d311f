"""The OpenAI Agents SDK adapter: run results and model responses, built by the SDK itself.

Runs are real: the SDK's `Runner` drives the SDK's own test double (`agents.testing.ScriptedModel`,
an implementation of its `Model` interface), so each `RunResult` is built the way the SDK builds
one; model responses are built with the SDK's constructors and the openai SDK's item types.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, RunResult, function_tool
from agents.items import ModelResponse, ToolApprovalItem, TResponseOutputItem
from agents.result import RunResultStreaming
from agents.testing import ScriptedModel, assistant_message, function_call
from agents.usage import Usage
from openai.types.responses import (
    ResponseOutputItem,
    ResponseOutputMessage,
    ResponseOutputRefusal,
)
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails
from pydantic import BaseModel

import stopkit
from stopkit import StopReason, ToolResult
from stopkit.adapters.openai_agents import _ITEMS as ITEMS
from stopkit.adapters.openai_agents import _RUN as RUN
from stopkit.adapters.openai_agents import OpenAIAgentsAdapter
from tests._payloads import PAYLOADS
from tests.sdk_forms.openai_responses import to_sdk

ADAPTER = OpenAIAgentsAdapter()
# Tracing exports to OpenAI's servers when a key is set: never in tests.
NO_TRACING = RunConfig(tracing_disabled=True)
_R = StopReason


@function_tool
def get_weather(city: str) -> str:
    """Say the weather in a city."""
    return f"Sunny in {city}."


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file (asks for approval first)."""
    return f"deleted {path}"


def _agent(steps: list[Any], **options: Any) -> Agent[Any]:
    return Agent(name="assistant", model=ScriptedModel(steps), **options)


async def _run(steps: list[Any], **options: Any) -> RunResult:
    run_options = {k: options.pop(k) for k in ("error_handlers",) if k in options}
    return await Runner.run(_agent(steps, **options), "hi", run_config=NO_TRACING, **run_options)


def _usage(reasoning: int = 0) -> Usage:
    return Usage(
        requests=1,
        input_tokens=120,
        output_tokens=40,
        total_tokens=160,
        input_tokens_details=InputTokensDetails(cached_tokens=100, cache_write_tokens=0),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=reasoning),
    )


def _refusal(text: str = "I can't help with that.") -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id="msg_1",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputRefusal(type="refusal", refusal=text)],
    )


def _shell_pair() -> list[Any]:
    """A hosted shell call and its output in the same response (run by the provider), recorded."""
    reply = json.loads((PAYLOADS / "openai_responses" / "shell_call_hosted.json").read_text())
    return list(to_sdk(reply["reply"]).output)


# --- the SDK's own types ----------------------------------------------------------------------


def test_the_sdk_output_items_are_the_responses_items() -> None:
    """An Agents ModelResponse holds Responses output items: the Responses item table decides."""

    def kinds(union: Any) -> set[str]:
        members = typing.get_args(typing.get_args(union)[0])
        return {typing.get_args(m.model_fields["type"].annotation)[0] for m in members}

    assert kinds(TResponseOutputItem) == kinds(ResponseOutputItem)


def test_the_fields_read_are_the_sdks() -> None:
    """The run and response fields the adapter reads are the SDK's own."""
    names = {f.name for f in dataclasses.fields(RunResult)}
    assert {"raw_responses", "final_output", "interruptions", "context_wrapper"} <= names
    assert "is_complete" in {f.name for f in dataclasses.fields(RunResultStreaming)}
    assert {"output", "usage", "raw_usage"} <= {f.name for f in dataclasses.fields(ModelResponse)}
    assert {"raw_item", "tool_name"} <= {f.name for f in dataclasses.fields(ToolApprovalItem)}


def test_the_adapter_exposes_its_tables() -> None:
    """The README's table shows a run's two rows and the item rows of a bare response."""
    assert list(ADAPTER.tables.values()) == [RUN, ITEMS]
    assert ADAPTER.name == "openai.agents"


# --- runs -------------------------------------------------------------------------------------


async def test_a_run_that_produced_its_final_output_is_completed() -> None:
    """Calls along the way were run by the SDK: the run is completed with its final output."""
    result = await _run(
        [
            {"output": [function_call("get_weather", {"city": "Paris"}, call_id="c1")]},
            {"output": [assistant_message("Sunny in Paris.")], "usage": _usage()},
        ],
        tools=[get_weather],
    )
    stop = stopkit.normalize(result)
    assert (stop.provider, stop.reason, stop.detail, stop.raw_reason) == (
        "openai.agents",
        _R.COMPLETED,
        None,
        None,
    )
    assert (stop.text, stop.tool_calls) == ("Sunny in Paris.", ())
    assert stop.notes == ("the run produced its final output: completed",)
    assert stop.raw is result
    assert stop.usage is not None
    assert (stop.usage.input_tokens, stop.usage.cache_read_tokens) == (120, 100)
    assert stop.details["run_usage"].requests == 2


async def test_a_structured_final_output_keeps_the_reply_text() -> None:
    """A final output that is not a string is kept in details; the text is the reply's."""

    class Weather(BaseModel):
        city: str

    result = await _run([[assistant_message('{"city": "Paris"}')]], output_type=Weather)
    stop = stopkit.normalize(result)
    assert (stop.reason, stop.text) == (_R.COMPLETED, '{"city": "Paris"}')
    assert stop.details["final_output"] == Weather(city="Paris")


async def test_a_run_waiting_on_approvals_asks_for_those_calls() -> None:
    """Interruptions are the pending calls; a call the SDK already ran is not among them."""
    result = await _run(
        [
            [
                function_call("delete_file", {"path": "/tmp/x"}, call_id="c_delete"),
                function_call("get_weather", {"city": "Paris"}, call_id="c_weather"),
            ]
        ],
        tools=[get_weather, delete_file],
    )
    stop = stopkit.normalize(result)
    assert (stop.reason, stop.detail) == RUN["interruptions"]
    assert [(c.id, c.name, c.arguments) for c in stop.tool_calls] == [
        ("c_delete", "delete_file", {"path": "/tmp/x"})
    ]
    assert "1 tool call(s) await approval" in stop.notes[-1]
    assert stop.details["interruptions"] == result.interruptions
    # The approval items hold the agent and its tools (functions): the JSON form still dumps.
    assert json.loads(stop.model_dump_json())["reason"] == "tool_request"


async def test_a_refusal_the_error_handler_answered_is_still_filtered() -> None:
    """A model_refusal handler gives the run an output; the model refused all the same."""
    result = await _run([[_refusal()]], error_handlers={"model_refusal": lambda data: "Sorry."})
    assert result.final_output == "Sorry."
    stop = stopkit.normalize(result)
    assert (stop.reason, stop.detail, stop.refusal) == (
        _R.FILTERED,
        "refusal",
        "I can't help with that.",
    )
    assert stop.details["final_output"] == "Sorry."
    assert "its last model response is a refusal" in stop.notes[-1]


async def test_a_streamed_run_is_incomplete_until_it_finishes() -> None:
    """RunResultStreaming: stream_incomplete while running, then its non-streamed twin's Stop."""
    steps = [[assistant_message("Hello.")]]
    streamed = Runner.run_streamed(_agent(steps), "hi", run_config=NO_TRACING)
    running = stopkit.normalize(streamed)
    assert (running.reason, running.detail) == (_R.UNKNOWN, "stream_incomplete")
    async for _event in streamed.stream_events():
        pass
    done = stopkit.normalize(streamed)
    twin = stopkit.normalize(await _run(steps))
    assert (done.reason, done.text, done.notes) == (twin.reason, twin.text, twin.notes)


async def test_a_cancelled_streamed_run_has_no_final_output() -> None:
    """A run cancelled before any model response is unknown/missing, and says why."""
    streamed = Runner.run_streamed(
        _agent([[function_call("get_weather", {"city": "Paris"}, call_id="c1")]], tools=[]),
        "hi",
        run_config=NO_TRACING,
    )
    async for _event in streamed.stream_events():
        streamed.cancel()
    stop = stopkit.normalize(streamed)
    assert (stop.reason, stop.detail) == (_R.UNKNOWN, "missing")
    assert "ended without a final output" in stop.notes[-1]


# --- one model response, read from its items -------------------------------------------------

ITEM_CASES = [
    pytest.param([_refusal()], "refusal", id="refusal"),
    pytest.param(
        [assistant_message("Checking."), function_call("get_weather", "{}", call_id="c1")],
        "client call",
        id="client-call",
    ),
    pytest.param([assistant_message("Done.")], "other items", id="message"),
    pytest.param(_shell_pair(), "other items", id="hosted-shell-answered-in-the-reply"),
    pytest.param([], "no items", id="no-items"),
]


@pytest.mark.parametrize(("output", "row"), ITEM_CASES)
def test_a_model_response_is_read_from_its_items(output: list[Any], row: str) -> None:
    """Each ITEMS row, reached by a response holding those items; a note says why."""
    response = ModelResponse(output=output, usage=Usage(), response_id="resp_1")
    stop = stopkit.normalize(response)
    assert (stop.reason, stop.detail, stop.raw_reason) == (*ITEMS[row], None)
    assert "an Agents ModelResponse keeps no status: read from its output items" in stop.notes


def test_a_model_responses_usage_is_the_responses_usage() -> None:
    """Usage: cached and reasoning counts from the details; a cut reasoning reply says so."""
    response = ModelResponse(
        output=[assistant_message("Hi")], usage=_usage(reasoning=30), response_id=None
    )
    stop = stopkit.normalize(response)
    assert stop.usage is not None
    assert stop.usage.model_dump() == {
        "input_tokens": 120,
        "output_tokens": 40,
        "reasoning_tokens": 30,
        "cache_read_tokens": 100,
        "cache_write_tokens": 0,
        "total_tokens": 160,
    }
    assert stop.details["usage"] is response.usage


# --- detection and the loop methods -----------------------------------------------------------


async def test_detected_by_class_and_nothing_else() -> None:
    """Run results and model responses are detected by module; their look-alikes are not."""
    result = await _run([[assistant_message("Hi")]])
    for obj in (result, result.raw_responses[0]):
        assert stopkit.detect(obj) is stopkit.get_adapter("openai.agents")
        assert [a.name for a in stopkit.registered_adapters() if a.detects(obj)] == [
            "openai.agents"
        ]
    assert not ADAPTER.detects({"raw_responses": [], "final_output": "Hi"})
    assert not ADAPTER.detects(assistant_message("Hi"))
    assert not ADAPTER.detects_event(result)


async def test_tool_results_answer_the_last_responses_calls() -> None:
    """The items go back as Responses input; each result answers its call by call_id."""
    response = ModelResponse(
        output=[function_call("get_weather", {"city": "Paris"}, call_id="c1")],
        usage=Usage(),
        response_id="resp_1",
    )
    stop = stopkit.normalize(response)
    assert ADAPTER.assistant_message(stop)[0]["call_id"] == "c1"
    [answer] = ADAPTER.tool_results(
        stop, [ToolResult(call_id="c1", name="get_weather", content="Sunny")]
    )
    assert answer == {"type": "function_call_output", "call_id": "c1", "output": "Sunny"}
    run = stopkit.normalize(await _run([[assistant_message("Hi")]]))
    assert ADAPTER.assistant_message(run)[0]["type"] == "message"
    assert ADAPTER.user_message("Go on.") == {"role": "user", "content": "Go on."}
    with pytest.raises(ValueError, match="only a paused reply"):
        ADAPTER.resume(stop)
