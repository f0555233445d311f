"""stopkit.integrations.langchain: `StopCallback` on real LangChain chat models.

ChatOpenAI and ChatAnthropic talk to a loopback HTTP server answering with recorded replies
(their whole HTTP stack runs); langchain-core's fake chat models give AI messages carrying in
`response_metadata` what an integration keeps of its stop value.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.language_models import FakeMessagesListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

import stopkit
from stopkit import StopReason
from stopkit.integrations.langchain import StopCallback
from tests._loopback import Loopback

_R = StopReason
ROOT = Path(__file__).resolve().parent.parent
RECORDINGS = ROOT / "recordings"


@pytest.fixture(scope="module")
def loopback() -> Iterator[Loopback]:
    """One loopback server for the module (stopping one takes its poll interval, 0.5 s)."""
    server = Loopback()
    yield server
    server.close()


@pytest.fixture
def server(loopback: Loopback) -> Iterator[Loopback]:
    """The loopback server; each test queues the recordings it is answered with, and uses all."""
    loopback.queue.clear()
    yield loopback
    assert not loopback.queue, "a recording was never asked for"


@tool
def get_weather(city: str) -> str:
    """Say the weather in a city."""
    return f"Sunny in {city}."


def _chat(folder: str, server: Loopback, **options: Any) -> Any:
    """The LangChain integration for a recordings folder, pointed at the loopback server."""
    if folder == "anthropic":
        chat = ChatAnthropic(
            model="claude-sonnet-4-5", base_url=server.url, api_key="sk-ant-test", max_retries=0,
            **options,
        )  # fmt: skip
        # With no tool bound, ChatAnthropic's stream warns of a tool_use block it then drops.
        return chat.bind_tools([get_weather])
    return ChatOpenAI(
        model="gpt-4o", base_url=server.url + "/v1", api_key="sk-test", max_retries=0, **options
    )


CASES = [
    ("openai_chat", "stop", _R.COMPLETED),
    ("openai_chat", "length", _R.OUTPUT_LIMIT),
    ("openai_chat", "tool_calls", _R.TOOL_REQUEST),
    ("openai_chat", "refusal", _R.FILTERED),
    ("openai_chat", "content_filter", _R.FILTERED),
    ("openai_chat", "unrecognized", _R.UNKNOWN),
    ("anthropic", "end_turn", _R.COMPLETED),
    ("anthropic", "max_tokens", _R.OUTPUT_LIMIT),
    ("anthropic", "tool_use", _R.TOOL_REQUEST),
    ("anthropic", "refusal", _R.FILTERED),
    ("anthropic", "pause_turn", _R.PAUSED),
    ("anthropic", "stop_sequence", _R.STOP_SEQUENCE),
    ("anthropic", "unrecognized", _R.UNKNOWN),
]
IDS = [f"{folder}/{name}" for folder, name, _ in CASES]


def _comparable(stop: stopkit.Stop) -> dict[str, Any]:
    """A Stop's fields, without `raw` (the callback reads the result, normalize the message)."""
    return stop.model_dump()


@pytest.mark.parametrize(("folder", "name", "reason"), CASES, ids=IDS)
def test_each_reply_gives_the_stop_normalize_gives(
    server: Loopback, folder: str, name: str, reason: StopReason
) -> None:
    """invoke: on_stop gets the Stop of the message the model returned, read from its result."""
    server.serve(RECORDINGS / folder / f"{name}.json")
    stops: list[stopkit.Stop] = []
    message = _chat(folder, server, callbacks=[StopCallback(on_stop=stops.append)]).invoke("Hi")
    assert [stop.reason for stop in stops] == [reason]
    assert _comparable(stops[0]) == _comparable(stopkit.normalize(message))
    assert stops[0].raw.generations[0][0].message is message


@pytest.mark.parametrize(("folder", "name", "reason"), CASES, ids=IDS)
def test_a_stream_is_read_once_at_its_end(
    server: Loopback, folder: str, name: str, reason: StopReason
) -> None:
    """stream: one Stop, of the merged chunks, as normalize_stream reads the chunks yielded."""
    path = RECORDINGS / folder / f"{name}.stream.json"
    server.serve(path)
    stops: list[stopkit.Stop] = []
    model = _chat(folder, server, callbacks=[StopCallback(on_stop=stops.append)])
    chunks = list(model.stream("Hi"))
    assert len(stops) == 1
    streamed = stopkit.normalize_stream(chunks)
    assert (stops[0].reason, stops[0].detail, stops[0].text) == (
        streamed.reason,
        streamed.detail,
        streamed.text,
    )


@pytest.mark.parametrize(
    ("folder", "name", "error"),
    [
        ("openai_chat", "length", stopkit.TruncatedReply),
        ("openai_chat", "refusal", stopkit.FilteredReply),
        ("anthropic", "max_tokens", stopkit.TruncatedReply),
        ("anthropic", "unrecognized", stopkit.UnknownStopReason),
    ],
)
async def test_a_reason_in_raise_on_raises_from_the_call(
    server: Loopback, folder: str, name: str, error: type[stopkit.StopReasonError]
) -> None:
    """Both invoke and ainvoke raise the typed error instead of returning the reply."""
    server.serve(RECORDINGS / folder / f"{name}.json", RECORDINGS / folder / f"{name}.json")
    callback = StopCallback(raise_on={"output_limit", "filtered", "unknown"})
    model = _chat(folder, server)
    with pytest.raises(error):
        model.invoke("Hi", config={"callbacks": [callback]})
    with pytest.raises(error):
        await model.ainvoke("Hi", config={"callbacks": [callback]})


async def test_in_an_async_call_on_stop_runs_in_the_callers_thread(server: Loopback) -> None:
    """ainvoke: on_stop is called on the caller's thread (its event loop), not in an executor."""
    server.serve(RECORDINGS / "openai_chat" / "stop.json")
    threads: list[int] = []
    callback = StopCallback(on_stop=lambda stop: threads.append(threading.get_ident()))
    await _chat("openai_chat", server).ainvoke("Hi", config={"callbacks": [callback]})
    assert threads == [threading.get_ident()]


def test_a_truncated_stream_raises_at_its_end(server: Loopback) -> None:
    """A streamed reply cut by max_tokens: its chunks are yielded, then the error is raised."""
    server.serve(RECORDINGS / "anthropic" / "max_tokens.stream.json")
    model = _chat("anthropic", server, callbacks=[StopCallback(raise_on="output_limit")])
    chunks: list[Any] = []
    with pytest.raises(stopkit.TruncatedReply) as raised:
        chunks.extend(model.stream("Hi"))  # appended one by one, until the error
    assert chunks
    assert raised.value.stop.text == stopkit.normalize_stream(chunks).text != ""


def test_several_choices_give_one_stop_each(server: Loopback) -> None:
    """ChatOpenAI with n=2: one Stop per generation, the cut one and the whole one."""
    server.serve(ROOT / "payloads" / "openai_chat" / "multiple_choices.json")
    stops: list[stopkit.Stop] = []
    _chat("openai_chat", server, n=2, callbacks=[StopCallback(on_stop=stops.append)]).invoke("Hi")
    assert sorted((s.text, s.reason, s.details["generation"]) for s in stops) == [
        ("Blue.", _R.COMPLETED, 1),
        ("Green is", _R.OUTPUT_LIMIT, 0),
    ]


def _said(text: str, provider: str = "", **stop: str) -> AIMessage:
    """An AI message as an integration returns it (none: as a message built by hand)."""
    return AIMessage(text, response_metadata={"model_provider": provider, **stop} if stop else {})


FAKE = [
    (_said("Sunny.", "anthropic", stop_reason="end_turn"), _R.COMPLETED),
    (_said("Sunny", "anthropic", stop_reason="max_tokens"), _R.OUTPUT_LIMIT),
    (_said("", "openai", finish_reason="content_filter"), _R.FILTERED),
    (_said("Sunny."), _R.UNKNOWN),
]


@pytest.mark.parametrize(("message", "reason"), FAKE, ids=lambda v: getattr(v, "value", ""))
@pytest.mark.parametrize(
    "make",
    [
        lambda message: GenericFakeChatModel(messages=iter([message])),
        lambda message: FakeMessagesListChatModel(responses=[message]),
    ],
    ids=["GenericFakeChatModel", "FakeMessagesListChatModel"],
)
def test_the_fake_chat_models_are_read_as_their_messages(
    make: Any, message: AIMessage, reason: StopReason
) -> None:
    """Each fake chat model's reply: the Stop normalize gives for the message it returned."""
    stops: list[stopkit.Stop] = []
    returned = make(message).invoke("Hi", config={"callbacks": [StopCallback(stops.append)]})
    assert [stop.reason for stop in stops] == [reason]
    assert _comparable(stops[0]) == _comparable(stopkit.normalize(returned))


def test_a_chain_reports_its_model_calls(server: Loopback) -> None:
    """A callback given to a chain's invoke hears the model call inside it."""
    from langchain_core.output_parsers import StrOutputParser

    server.serve(RECORDINGS / "openai_chat" / "length.json")
    chain = _chat("openai_chat", server) | StrOutputParser()
    with pytest.raises(stopkit.TruncatedReply):
        chain.invoke("Hi", config={"callbacks": [StopCallback(raise_on="output_limit")]})


def test_an_exception_on_stop_raises_carries_the_result() -> None:
    """A failing on_stop propagates from the call, with LangChain's result attached."""

    def fail(stop: stopkit.Stop) -> None:
        raise RuntimeError("audit log down")

    model = GenericFakeChatModel(messages=iter([FAKE[0][0]]), callbacks=[StopCallback(fail)])
    with pytest.raises(RuntimeError, match="audit log down") as raised:
        model.invoke("Hi")
    assert type(raised.value.stopkit_reply).__name__ == "LLMResult"  # type: ignore[attr-defined]


def test_a_bad_raise_on_value_is_refused() -> None:
    """raise_on names stop reasons: anything else is a ValueError naming the valid ones."""
    with pytest.raises(ValueError, match="'max_tokens' is not a stop reason"):
        StopCallback(raise_on="max_tokens")
