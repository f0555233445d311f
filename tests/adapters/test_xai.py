"""The `xai` adapter: xai_sdk's gRPC replies, read from its own objects, protos and their JSON.

What the payload table (tests/payloads/xai) cannot say: that the table covers the SDK's own
`FinishReason` enum, what detection claims, the pairs `Chat.stream()` yields, and the
conversation turns as the SDK's proto `Message`.
"""

from __future__ import annotations

import json
from pathlib import Path

from google.protobuf.json_format import ParseDict
from xai_sdk.chat import Chunk, Response
from xai_sdk.proto import chat_pb2, sample_pb2

import stopkit
from stopkit import StopReason, ToolResult
from stopkit.adapters._xai_rules import FINISH_REASON

PAYLOADS = Path(__file__).parent.parent / "payloads" / "xai"
ADAPTER = stopkit.get_adapter("xai")


def _case(name: str) -> dict:  # type: ignore[type-arg]
    data: dict = json.loads((PAYLOADS / name).read_text())  # type: ignore[type-arg]
    return data


def test_every_value_of_the_sdks_finish_reason_enum_is_mapped() -> None:
    """The table holds each `sample_pb2.FinishReason` member by its name, and nothing else."""
    assert set(FINISH_REASON) == set(sample_pb2.FinishReason.keys())


def test_detection_claims_the_sdks_objects_and_no_other_adapters_reply() -> None:
    """`Response`, `Chunk` and their protos are xai's (a `Chunk` has `choices` too: not Chat's)."""
    reply = ParseDict(_case("stop.json")["reply"], chat_pb2.GetChatCompletionResponse())
    chunk = ParseDict(_case("stop.stream.json")["events"][0], chat_pb2.GetChatCompletionChunk())
    assert stopkit.detect(Response(reply, 0)).name == "xai"
    assert stopkit.detect(reply).name == "xai"
    for event in (Chunk(chunk, 0), chunk, (Response(reply, 0), Chunk(chunk, 0))):
        first = next(a for a in stopkit.registered_adapters() if a.detects_event(event))
        assert first.name == "xai"
    mistral_on_bedrock = {"outputs": [{"text": "Hi", "stop_reason": "stop"}]}
    assert stopkit.detect(mistral_on_bedrock).name == "bedrock.invoke"
    assert not ADAPTER.detects({"choices": []})


def test_the_pairs_chat_stream_yields_give_the_stop_of_the_whole_reply() -> None:
    """`(Response, Chunk)` pairs, as `Chat.stream()` yields them, read as the reply reads."""
    events = _case("tool_calls.stream.json")["events"]
    whole = Response(chat_pb2.GetChatCompletionResponse(), 0)
    pairs = []
    for event in events:
        proto = ParseDict(event, chat_pb2.GetChatCompletionChunk())
        whole.process_chunk(proto)  # the SDK's own accumulation, as its stream() does
        pairs.append((whole, Chunk(proto, 0)))
    streamed = stopkit.normalize_stream(pairs)
    assert streamed.reason is StopReason.TOOL_REQUEST
    assert [c.arguments for c in streamed.tool_calls] == [{"city": "Paris"}]
    assert stopkit.normalize(whole).tool_calls == streamed.tool_calls  # the SDK's own Response


def test_the_conversation_goes_back_as_the_sdks_proto_messages() -> None:
    """The assistant turn and the tool results parse into `chat_pb2.Message`, ids matched."""
    stop = stopkit.normalize(_case("tool_calls.json")["reply"])
    turn = ADAPTER.assistant_message(stop)
    results = ADAPTER.tool_results(stop, [ToolResult(call_id="call_1", name="get_weather",
                                                     content="18 °C")])  # fmt: skip
    messages = [ParseDict(m, chat_pb2.Message()) for m in [*turn, *results]]
    assert messages[0].role == chat_pb2.ROLE_ASSISTANT
    assert messages[0].tool_calls[0].function.arguments == '{"city": "Paris"}'
    assert (messages[1].role, messages[1].tool_call_id) == (chat_pb2.ROLE_TOOL, "call_1")
    assert messages[1].content[0].text == "18 °C"
    user = ParseDict(ADAPTER.user_message("Go on."), chat_pb2.Message())
    assert (user.role, user.content[0].text) == (chat_pb2.ROLE_USER, "Go on.")
