"""stopkit.integrations.openai_agents: `StopHooks` in real `Runner` runs.

The SDK's `Runner` drives the SDK's own test double, `agents.testing.ScriptedModel` (an
implementation of its `Model` interface), through `run`, `run_sync` and `run_streamed`.
"""

from __future__ import annotations

from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, RunResult, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call
from openai.types.responses import ResponseOutputMessage, ResponseOutputRefusal

import stopkit
from stopkit import StopReason
from stopkit.integrations.openai_agents import StopHooks

_R = StopReason
# Tracing exports to OpenAI's servers when a key is set: never in tests.
NO_TRACING = RunConfig(tracing_disabled=True)
ANSWER = [assistant_message("Sunny in Paris.")]
CALL = [function_call("get_weather", {"city": "Paris"}, call_id="call_1")]
REFUSAL = [
    ResponseOutputMessage(
        id="msg_1",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputRefusal(type="refusal", refusal="I can't help with that.")],
    )
]


@function_tool
def get_weather(city: str) -> str:
    """Say the weather in a city."""
    return f"Sunny in {city}."


def _agent(*steps: Any) -> Agent[Any]:
    return Agent(name="assistant", model=ScriptedModel(steps), tools=[get_weather])


async def test_every_model_response_of_a_run_is_heard() -> None:
    """A tool request, then the answer: on_stop gets what normalize reads in each response."""
    stops: list[stopkit.Stop] = []
    hooks = StopHooks(on_stop=stops.append)
    result: RunResult = await Runner.run(
        _agent(CALL, ANSWER), "Weather in Paris?", hooks=hooks, run_config=NO_TRACING
    )
    assert result.final_output == "Sunny in Paris."
    assert [(s.reason, s.text) for s in stops] == [
        (_R.TOOL_REQUEST, ""),
        (_R.COMPLETED, "Sunny in Paris."),
    ]
    assert stops == [stopkit.normalize(response) for response in result.raw_responses]
    assert stops[0].tool_calls[0].arguments == {"city": "Paris"}


@pytest.mark.usefixtures("sync_runs")
@pytest.mark.parametrize(
    ("output", "error", "detail"),
    [(REFUSAL, stopkit.FilteredReply, "refusal"), ([], stopkit.UnknownStopReason, "missing")],
    ids=["refusal", "no output"],
)
def test_a_reason_in_raise_on_ends_a_sync_run_with_the_typed_error(
    output: list[Any], error: type[stopkit.StopReasonError], detail: str
) -> None:
    """run_sync: a refused reply, or one with no output, raises from the run, not an output."""
    hooks = StopHooks(raise_on={"filtered", "unknown"})
    with pytest.raises(error) as raised:
        Runner.run_sync(_agent(output, ANSWER), "Weather?", hooks=hooks, run_config=NO_TRACING)
    assert raised.value.stop.detail == detail
    assert raised.value.stop == stopkit.normalize(raised.value.stop.raw)


async def test_a_streamed_run_ends_with_the_typed_error() -> None:
    """run_streamed: the refusal raises from the stream's events, and the run has no output."""
    hooks = StopHooks(raise_on="filtered")
    result = Runner.run_streamed(
        _agent(REFUSAL, ANSWER), "Weather?", hooks=hooks, run_config=NO_TRACING
    )
    with pytest.raises(stopkit.FilteredReply):
        async for _event in result.stream_events():
            pass
    assert result.final_output is None


async def test_an_exception_on_stop_raises_carries_the_response() -> None:
    """A failing on_stop propagates from the run, with the model response attached."""

    def fail(stop: stopkit.Stop) -> None:
        raise RuntimeError("audit log down")

    with pytest.raises(RuntimeError, match="audit log down") as raised:
        await Runner.run(_agent(ANSWER), "Hi", hooks=StopHooks(on_stop=fail), run_config=NO_TRACING)
    assert raised.value.stopkit_reply.output == ANSWER  # type: ignore[attr-defined]


def test_a_bad_raise_on_value_is_refused() -> None:
    """raise_on names stop reasons: anything else is a ValueError naming the valid ones."""
    with pytest.raises(ValueError, match="'refused' is not a stop reason"):
        StopHooks(raise_on="refused")
