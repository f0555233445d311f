"""stopkit.integrations.pydantic_ai: `StopkitModel` under pydantic-ai's own `Agent`.

The model under it is pydantic-ai's `FunctionModel`, answering with the `ModelResponse` each
provider's model class builds (its raw stop value in `provider_details["finish_reason"]`), or
streaming text and tool-call deltas; and AnthropicModel streaming a recorded reply.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import ContentFilterError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

import stopkit
from stopkit import StopReason
from stopkit.integrations.pydantic_ai import StopkitModel
from tests._pydantic_ai_models import model as recorded_model

_R = StopReason


def _response(text: str, provider: str, raw: str, own: str | None, *parts: Any) -> ModelResponse:
    """A response as the provider's pydantic-ai model builds it (raw value kept, its own beside)."""
    return ModelResponse(
        parts=[TextPart(text), *parts] if text else list(parts),
        provider_name=provider,
        provider_details={"finish_reason": raw},
        finish_reason=own,  # type: ignore[arg-type]
    )


DONE = _response("Sunny in Paris.", "anthropic", "end_turn", "stop")
WEATHER = ToolCallPart("get_weather", {"city": "Paris"}, tool_call_id="call_1")

# The reply the model gives, and the reason stopkit reads in it.
CUT = "Paris is"
REPLIES = {
    "anthropic end_turn": (DONE, _R.COMPLETED),
    "anthropic max_tokens": (_response(CUT, "anthropic", "max_tokens", "length"), _R.OUTPUT_LIMIT),
    "anthropic refusal": (_response("", "anthropic", "refusal", "content_filter"), _R.FILTERED),
    "openai length": (_response(CUT, "openai", "length", "length"), _R.OUTPUT_LIMIT),
    "google SAFETY": (_response("", "google-gla", "SAFETY", "content_filter"), _R.FILTERED),
    "an unknown raw value": (_response("Paris.", "openai", "brand_new", None), _R.UNKNOWN),
}  # fmt: skip


def _answering(*replies: ModelResponse) -> FunctionModel:
    """A FunctionModel giving `replies` in turn."""
    queue = list(replies)

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return queue.pop(0)

    return FunctionModel(answer)


def _agent(model: Any, **options: Any) -> Agent[None, str]:
    agent = Agent(model, **options)

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """Say the weather in a city."""
        return f"Sunny in {city}."

    return agent


@pytest.mark.usefixtures("sync_runs")
@pytest.mark.parametrize(("reply", "reason"), REPLIES.values(), ids=list(REPLIES))
def test_on_stop_gets_what_normalize_reads_in_each_response(
    reply: ModelResponse, reason: StopReason
) -> None:
    """A sync run: on_stop gets the Stop stopkit.normalize gives for the model's response.

    pydantic-ai raises its own ContentFilterError for a filtered reply, after on_stop heard it.
    """
    stops: list[stopkit.Stop] = []
    with contextlib.suppress(ContentFilterError):
        _agent(StopkitModel(_answering(reply), on_stop=stops.append)).run_sync("Weather?")
    assert [stop.reason for stop in stops] == [reason]
    assert stops == [stopkit.normalize(reply)]


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (REPLIES["anthropic max_tokens"][0], stopkit.TruncatedReply),
        (REPLIES["anthropic refusal"][0], stopkit.FilteredReply),
        (REPLIES["google SAFETY"][0], stopkit.FilteredReply),
        (REPLIES["an unknown raw value"][0], stopkit.UnknownStopReason),
    ],
    ids=["truncated", "refused", "filtered", "unknown"],
)
@pytest.mark.usefixtures("sync_runs")
def test_a_reason_in_raise_on_is_never_the_agents_output(
    reply: ModelResponse, error: type[stopkit.StopReasonError]
) -> None:
    """A cut, refused or unknown reply raises the typed error from the run instead of an output."""
    model = StopkitModel(_answering(reply), raise_on={"output_limit", "filtered", "unknown"})
    with pytest.raises(error) as raised:
        _agent(model).run_sync("Weather?")
    assert raised.value.stop.raw is reply


@pytest.mark.usefixtures("sync_runs")
def test_every_turn_of_a_tool_run_is_read() -> None:
    """A tool request and the answer after it: one Stop each, and the run finishes."""
    stops: list[stopkit.Stop] = []
    tool_request = _response("", "anthropic", "tool_use", "tool_call", WEATHER)
    model = StopkitModel(_answering(tool_request, DONE), on_stop=stops.append, raise_on="unknown")
    result = _agent(model).run_sync("Weather in Paris?")
    assert result.output == "Sunny in Paris."
    assert [(s.reason, [c.name for c in s.tool_calls]) for s in stops] == [
        (_R.TOOL_REQUEST, ["get_weather"]),
        (_R.COMPLETED, []),
    ]


async def _streaming(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield "Paris "
    yield "is"


async def _stream(agent: Agent[None, str], texts: list[str], outputs: list[str]) -> None:
    """Stream a run as a reader does: its text as it grows, then its output."""
    async with agent.run_stream("Weather?") as run:
        async for text in run.stream_text(debounce_by=None):
            texts.append(text)
        outputs.append(await run.get_output())


async def test_a_streamed_run_raises_before_its_output() -> None:
    """run_stream: the text streams, then get_output raises; FunctionModel's stream keeps no stop.

    A FunctionModel stream ends with no stop value: stopkit reads it unknown/missing, as
    `stopkit.normalize` does the response pydantic-ai builds of it.
    """
    stops: list[stopkit.Stop] = []
    model = StopkitModel(
        FunctionModel(stream_function=_streaming), on_stop=stops.append, raise_on="unknown"
    )
    texts: list[str] = []
    outputs: list[str] = []
    with pytest.raises(stopkit.UnknownStopReason):
        await _stream(_agent(model), texts, outputs)
    assert outputs == []  # never produced
    assert texts[-1] == "Paris is"
    assert [(s.reason, s.detail, s.text) for s in stops] == [(_R.UNKNOWN, "missing", "Paris is")]


async def test_without_raise_on_a_streamed_run_goes_on_and_each_turn_is_heard() -> None:
    """A streamed tool call, then the answer: on_stop hears both, and the run finishes.

    FunctionModel's streams keep no stop value: each reads unknown/missing, the call listed.
    """
    turns: list[DeltaToolCalls | str] = [
        {0: DeltaToolCall("get_weather", '{"city": "Paris"}', tool_call_id="call_1")},
        "Sunny in Paris.",
    ]

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        yield turns.pop(0)

    stops: list[stopkit.Stop] = []
    model = StopkitModel(FunctionModel(stream_function=stream), on_stop=stops.append)
    async with _agent(model).run_stream("Weather in Paris?") as run:
        assert await run.get_output() == "Sunny in Paris."
    assert [(s.reason, s.detail, len(s.tool_calls)) for s in stops] == [
        (_R.UNKNOWN, "missing", 1),
        (_R.UNKNOWN, "missing", 0),
    ]


@pytest.mark.parametrize(
    ("case", "error"),
    [("refusal", stopkit.FilteredReply), ("max_tokens_in_tool_use", stopkit.TruncatedReply)],
)
async def test_a_recorded_anthropic_stream_raises_through_the_agent(
    case: str, error: type[stopkit.StopReasonError]
) -> None:
    """AnthropicModel streaming a recorded refusal or cut tool call: the agent run raises."""
    model = StopkitModel(recorded_model("anthropic", case), raise_on={"filtered", "output_limit"})

    async def handler(ctx: Any, events: AsyncIterator[Any]) -> None:
        async for _event in events:
            pass

    with pytest.raises(error) as raised:
        await _agent(model).run("Weather in Paris?", event_stream_handler=handler)
    assert raised.value.stop == stopkit.normalize(raised.value.stop.raw)
    assert raised.value.stop.raw.state == "complete"


class _AfterRequest(AbstractCapability[Any]):
    """The capability alternative: raise from `after_model_request`."""

    async def after_model_request(
        self, ctx: Any, *, request_context: Any, response: ModelResponse
    ) -> ModelResponse:
        stop = stopkit.normalize(response)
        if stop.reason is not _R.COMPLETED:
            raise stopkit.UnknownStopReason(stop)
        return response


async def test_a_capability_hook_would_come_after_the_streamed_output() -> None:
    """Why a WrapperModel: `after_model_request` runs after run_stream's get_output returned.

    Pins pydantic-ai's order: should the hook come first one day, the docstring's reason goes.
    """
    outputs: list[str] = []
    agent = _agent(FunctionModel(stream_function=_streaming), capabilities=[_AfterRequest()])
    with pytest.raises(stopkit.UnknownStopReason):
        await _stream(agent, [], outputs)
    assert outputs == ["Paris is"]


def test_a_bad_raise_on_value_is_refused() -> None:
    """raise_on names stop reasons: anything else is a ValueError naming the valid ones."""
    with pytest.raises(ValueError, match="'truncated' is not a stop reason"):
        StopkitModel(_answering(DONE), raise_on={"truncated"})


def test_the_wrapped_model_is_the_agents_model() -> None:
    """StopkitModel forwards what the agent asks of a model: its name and system."""
    inner = _answering(DONE)
    model = StopkitModel(inner)
    assert (model.wrapped, model.model_name, model.system) == (inner, inner.model_name, "function")
