"""`stopkit.wrap` on xai_sdk's clients, over gRPC to a local server of the SDK's own service.

The server implements `chat_pb2_grpc.ChatServicer` (the stubs the SDK ships) on 127.0.0.1 and
answers each `GetCompletion` / `GetCompletionChunk` with the protos of a case under
tests/payloads/xai (the proto's JSON, parsed with `ParseDict`). The real `xai_sdk.Client` and
`AsyncClient` (an insecure channel: no TLS on loopback) call it through `chat.create(...)`:
`.sample()`, `.stream()`, and `.append(...)` chained before them. The gRPC client is left out of
recording: `RecordingTransport` and `BotocoreRecorder` sit under HTTP, and gRPC frames no JSON a
payload file could hold (docs/testing.md says so).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
import xai_sdk
from google.protobuf.json_format import ParseDict
from xai_sdk.chat import user
from xai_sdk.proto import chat_pb2, chat_pb2_grpc

import stopkit
from stopkit._errors import error_for
from stopkit._wrap._routes import FAMILIES, watched_forms

PAYLOADS = Path(__file__).parent.parent / "payloads" / "xai"
# case -> the payload of its reply and of its stream. xAI's FinishReason has no filter value:
# a time limit and the proto default stand in for the filter and the unknown cases.
CASES = {
    "tool_request": "tool_calls",
    "completed": "stop",
    "output_limit": "max_len",
    "timeout": "time_limit",
}


class Chat(chat_pb2_grpc.ChatServicer):
    """The SDK's Chat service, answering from a queue of cases (reply protos, chunk protos)."""

    def __init__(self) -> None:
        self.replies: list[chat_pb2.GetChatCompletionResponse] = []
        self.streams: list[list[chat_pb2.GetChatCompletionChunk]] = []
        self.requests: list[chat_pb2.GetCompletionsRequest] = []

    def GetCompletion(self, request: Any, context: Any) -> Any:  # the stub's name
        self.requests.append(request)
        return self.replies.pop(0)

    def GetCompletionChunk(self, request: Any, context: Any) -> Iterator[Any]:
        self.requests.append(request)
        yield from self.streams.pop(0)


@contextlib.contextmanager
def serving() -> Iterator[tuple[Chat, str]]:
    """The SDK's Chat service on a local port, and its address; stopped after."""
    chat = Chat()
    grpc_server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    chat_pb2_grpc.add_ChatServicer_to_server(chat, grpc_server)
    port = grpc_server.add_insecure_port("127.0.0.1:0")
    grpc_server.start()
    try:
        yield chat, f"127.0.0.1:{port}"
    finally:
        grpc_server.stop(grace=None)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[Chat, str]]:
    """The SDK's Chat service on a local port; its address."""
    with serving() as served:
        yield served


def _payload(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PAYLOADS / f"{name}.json").read_text())
    return data


def _queue(chat: Chat, name: str, *, stream: bool, keep: int | None = None) -> None:
    if stream:
        events = _payload(f"{name}.stream")["events"][:keep]
        chat.streams.append([ParseDict(e, chat_pb2.GetChatCompletionChunk()) for e in events])
    else:
        reply = _payload(name)["reply"]
        chat.replies.append(ParseDict(reply, chat_pb2.GetChatCompletionResponse()))


def _reason(name: str, stream: bool) -> str:
    reason: str = _payload(f"{name}.stream" if stream else name)["expect"]["reason"]
    return reason


def _client(address: str, is_async: bool) -> Any:
    kind = xai_sdk.AsyncClient if is_async else xai_sdk.Client
    return kind(api_key="xai-test", api_host=address, use_insecure_channel=True)


def _call(address: str, stream: bool, is_async: bool, append: bool, **settings: Any) -> Any:
    """Make the call on a wrapped client (or a plain one, with `settings` None); read it."""

    async def main() -> Any:
        client = _client(address, is_async)
        if settings.get("plain") is None:
            client = stopkit.wrap(client, **settings)
        chat = client.chat.create(model="grok-4", messages=[user("Weather in Paris?")])
        if append:
            chat = chat.append(user("In Celsius."))
        if not stream:
            reply = chat.sample()
            return (await reply) if is_async else reply
        if is_async:
            return [pair async for pair in chat.stream()]
        return list(chat.stream())

    return asyncio.run(main())


def _dump(result: Any) -> Any:
    if isinstance(result, list):  # (Response, Chunk) pairs: each chunk's proto
        return [chunk.proto.SerializeToString() for _, chunk in result]
    return result.proto.SerializeToString()


FORMS = [
    (stream, is_async, append)
    for stream in (False, True)
    for is_async in (False, True)
    for append in (False, True)
]


def _form_id(form: tuple[bool, bool, bool]) -> str:
    stream, is_async, append = form
    call = "chat.create()" + (".append()" if append else "") + (".stream" if stream else ".sample")
    return f"{call}:{'async' if is_async else 'sync'}"


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("form", FORMS, ids=_form_id)
def test_each_form_reports_each_case(
    server: tuple[Chat, str], form: tuple[bool, bool, bool], case: str
) -> None:
    """The wrapped client returns what the SDK returns; `on_stop` hears it; `raise_on` raises."""
    chat, address = server
    stream, is_async, append = form
    name = CASES[case]
    for _ in range(3):
        _queue(chat, name, stream=stream)
    plain = _call(address, stream, is_async, append, plain=True)
    seen: list[stopkit.Stop] = []
    wrapped = _call(address, stream, is_async, append, on_stop=seen.append)
    assert _dump(wrapped) == _dump(plain)
    assert type(wrapped) is type(plain)
    reason = stopkit.StopReason(_reason(name, stream))
    assert [(s.reason, s.provider) for s in seen] == [(reason, "xai")]
    if not stream:
        assert seen[0].raw is wrapped  # the SDK's own Response, read as it is
    with pytest.raises(stopkit.StopReasonError) as caught:
        _call(address, stream, is_async, append, raise_on={reason})
    assert type(caught.value) is type(error_for(caught.value.stop))
    assert chat.replies == chat.streams == []


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_a_stream_cut_short_and_one_closed_on_purpose(
    server: tuple[Chat, str], is_async: bool
) -> None:
    """A stream the server ends early is `stream_incomplete` (raising); closed early, reported."""
    chat, address = server
    _queue(chat, "stop", stream=True, keep=1)
    _queue(chat, "stop", stream=True, keep=1)
    seen: list[stopkit.Stop] = []
    _call(address, True, is_async, False, on_stop=seen.append)
    with pytest.raises(stopkit.UnknownStopReason):
        _call(address, True, is_async, False, raise_on={"unknown"})
    _queue(chat, "stop", stream=True)

    async def close_after_one() -> None:
        client = stopkit.wrap(_client(address, is_async), on_stop=seen.append)
        stream = client.chat.create(model="grok-4", messages=[user("Hi")]).stream()
        if is_async:
            await anext(aiter(stream))
            await stream.aclose()
        else:
            next(iter(stream))
            stream.close()

    asyncio.run(close_after_one())
    assert [(s.reason, s.detail) for s in seen] == [("unknown", "stream_incomplete")] * 2


def test_the_forms_tested_are_the_ones_the_routes_table_watches() -> None:
    """xai_sdk's watched methods are `chat.create().sample` and `.stream` (`append` rewraps)."""
    (family,) = [f for f in FAMILIES if f.name == "xai_sdk"]
    for is_async in (False, True):
        assert set(watched_forms(family.routes(is_async))) == {
            "chat.create().sample",
            "chat.create().stream",
        }
