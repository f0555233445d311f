"""The reply forms the journal tests run: each a tool request of turn 1 and a final answer.

Every form `normalize` and `normalize_stream` accept from an SDK or a framework (LangChain
messages and chunks, pydantic-ai, LiteLLM, OpenAI Agents, the anthropic and google-genai SDK
objects), and two a journal cannot keep so that they read back the same (`litellm_hidden`,
`Opaque`). `Model` answers with them by the turn; `Tool` is any tool they call.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import stopkit
from stopkit import Stop
from tests.loop.journal._scenario import final_reply, tool_reply

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # LiteLLM stays offline

FINAL = "All steps are recorded."
PAYLOADS = Path(__file__).resolve().parents[2] / "payloads"
Replies = tuple[Any, Any]
"""The tool request of turn 1 (calling `record(turn=1, i=0)`) and the final answer."""


def _langchain() -> Replies:
    from langchain_core.messages import AIMessage

    meta = {"model_provider": "anthropic", "model_name": "claude-sonnet-4-5"}
    call = {"name": "record", "args": {"turn": 1, "i": 0}, "id": "toolu_1_0"}
    return (
        AIMessage("Recording.", tool_calls=[call],
                  response_metadata={**meta, "stop_reason": "tool_use"}),
        AIMessage(FINAL, response_metadata={**meta, "stop_reason": "end_turn"},
                  usage_metadata={"input_tokens": 9, "output_tokens": 4, "total_tokens": 13}),
    )  # fmt: skip


def _langchain_stream() -> Replies:
    from langchain_core.messages import AIMessageChunk

    meta = {"model_provider": "anthropic"}
    piece = {"name": "record", "args": '{"turn": 1, "i": 0}', "id": "toolu_1_0", "index": 1}
    return (
        [AIMessageChunk(content="Recording.", response_metadata=meta),
         AIMessageChunk(content="", tool_call_chunks=[piece], response_metadata=meta),
         AIMessageChunk(content="", response_metadata={**meta, "stop_reason": "tool_use"},
                        chunk_position="last")],
        [AIMessageChunk(content=FINAL, response_metadata=meta),
         AIMessageChunk(content="", response_metadata={**meta, "stop_reason": "end_turn"},
                        chunk_position="last")],
    )  # fmt: skip


def _pydantic_ai(parts: list[Any], raw: str, **fields: Any) -> Any:
    from pydantic_ai.messages import ModelResponse

    return ModelResponse(parts=parts, provider_name="anthropic", model_name="claude-sonnet-4-5",
                         provider_details={"finish_reason": raw}, **fields)  # fmt: skip


def _pydantic_ai_replies() -> Replies:
    from pydantic_ai.messages import TextPart, ToolCallPart

    call = ToolCallPart("record", {"turn": 1, "i": 0}, tool_call_id="toolu_1_0")
    return (
        _pydantic_ai([TextPart("Recording."), call], "tool_use", finish_reason="tool_call"),
        _pydantic_ai([TextPart(FINAL)], "end_turn", finish_reason="stop"),
    )


def _pydantic_ai_stream() -> Replies:
    from pydantic_ai.messages import TextPart

    tool, final = _pydantic_ai_replies()
    partial = _pydantic_ai([TextPart("Record")], "tool_use", state="incomplete")
    return [partial, tool], [_pydantic_ai([TextPart("All")], "end_turn", state="incomplete"), final]


def _litellm_reply(**message: Any) -> Any:
    """A LiteLLM reply with its id given (LiteLLM makes one anew for each reply without)."""
    from litellm.types.utils import Choices, Message, ModelResponse

    finish = "tool_calls" if message.get("tool_calls") else "stop"
    choice = Choices(index=0, finish_reason=finish, message=Message(role="assistant", **message))
    return ModelResponse(id=f"chatcmpl-{finish}", model="claude-sonnet-4-5", choices=[choice])


def _litellm() -> Replies:
    call = {"id": "toolu_1_0", "type": "function",
            "function": {"name": "record", "arguments": '{"turn": 1, "i": 0}'}}  # fmt: skip
    return _litellm_reply(content="Recording.", tool_calls=[call]), _litellm_reply(content=FINAL)


def _litellm_stream() -> Replies:
    from litellm.types.utils import ModelResponseStream

    def chunks(*deltas: dict[str, Any], finish: str) -> list[Any]:
        choices = [{"index": 0, "delta": delta} for delta in deltas]
        choices.append({"index": 0, "delta": {}, "finish_reason": finish})
        return [ModelResponseStream(id=f"chatcmpl-{finish}", model="claude-sonnet-4-5",
                                    choices=[c]) for c in choices]  # fmt: skip

    call = {"index": 0, "id": "toolu_1_0", "type": "function",
            "function": {"name": "record", "arguments": '{"turn": 1, "i": 0}'}}  # fmt: skip
    return (
        chunks({"role": "assistant", "content": "Recording."}, {"tool_calls": [call]},
               finish="tool_calls"),
        chunks({"role": "assistant", "content": FINAL}, finish="stop"),
    )  # fmt: skip


def _agents() -> Replies:
    from agents.items import ModelResponse
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    def said(text: str) -> Any:
        content = [ResponseOutputText(type="output_text", text=text, annotations=[])]
        return ResponseOutputMessage(id="msg", type="message", role="assistant",
                                     status="completed", content=content)  # fmt: skip

    call = ResponseFunctionToolCall(type="function_call", call_id="toolu_1_0", name="record",
                                    arguments='{"turn": 1, "i": 0}')  # fmt: skip
    return (
        ModelResponse(output=[said("Recording."), call], usage=Usage(), response_id="r1"),
        ModelResponse(output=[said(FINAL)], usage=Usage(), response_id="r2"),
    )


def _gemini() -> Replies:
    from tests.sdk_forms.gemini import to_sdk

    def case(name: str) -> Any:
        reply = json.loads((PAYLOADS / "gemini" / name).read_text())["reply"]
        return to_sdk(reply)

    return case("stop_function_call_with_id.json"), case("stop_text.json")


def _anthropic() -> Replies:
    from anthropic.types import Message

    return Message.model_validate(tool_reply(1)), Message.model_validate(final_reply())


FORMS: dict[str, Callable[[], Replies]] = {
    "anthropic-sdk": _anthropic,
    "gemini-sdk": _gemini,
    "langchain": _langchain,
    "langchain-stream": _langchain_stream,
    "pydantic-ai": _pydantic_ai_replies,
    "pydantic-ai-stream": _pydantic_ai_stream,
    "litellm": _litellm,
    "litellm-stream": _litellm_stream,
    "openai-agents": _agents,
}


class Model:
    """`call_model`: the tool request first, then the final answer; streams as iterators."""

    def __init__(self, replies: Replies) -> None:
        self.replies = replies
        self.calls = 0

    def __call__(self, messages: Any, **overrides: Any) -> Any:
        self.calls += 1
        reply = self.replies[0 if len(messages) == 1 else 1]
        return iter(reply) if isinstance(reply, list) else reply

    async def acall(self, messages: Any, **overrides: Any) -> Any:
        """`call_model` for `arun_loop`: the same replies, a stream as an async iterator."""
        reply = self(messages, **overrides)
        if not isinstance(reply, Iterator):
            return reply

        async def events() -> AsyncIterator[Any]:
            for event in reply:
                yield event

        return events()


class Tool:
    """Any tool the replies call: counts its runs; `crash` stops the process in the first."""

    def __init__(self, crash: bool = False) -> None:
        self.crash = crash
        self.runs = 0

    def __call__(self, **arguments: Any) -> str:
        self.runs += 1
        if self.crash:
            raise KeyboardInterrupt
        return "recorded"


class Opaque:
    """A reply object of a user's own, read by a user adapter: it has no JSON form at all."""

    def __init__(self, text: str) -> None:
        self.text = text


class OpaqueAdapter:
    """Reads `Opaque` replies (by their class, as a framework adapter does)."""

    name = "opaque"

    def detects(self, reply: Any) -> bool:
        return isinstance(reply, Opaque)

    def detects_event(self, event: Any) -> bool:
        return False

    def normalize(self, reply: Any) -> Stop:
        return Stop(reason=stopkit.StopReason.COMPLETED, provider=self.name, text=reply.text,
                    raw=reply)  # fmt: skip

    def normalize_all(self, reply: Any) -> tuple[Stop, ...]:
        return (self.normalize(reply),)

    def assistant_message(self, stop: Stop) -> Any:
        return {"role": "assistant", "content": stop.text}

    def tool_results(self, stop: Stop, results: Any) -> list[Any]:
        return []


def litellm_hidden() -> Any:
    """A LiteLLM reply whose provider only its `_hidden_params` name (lost in its JSON)."""
    reply = _litellm_reply(content=FINAL)
    reply.model = "anthropic.claude-3-5-sonnet-20240620-v1:0"
    reply._hidden_params = {"custom_llm_provider": "bedrock"}
    return reply


REFUSED: dict[str, tuple[Callable[[], Any], Any, str]] = {
    "litellm-hidden-params": (litellm_hidden, None, "litellm.types.utils.ModelResponse"),
    "no-json-form": (lambda: Opaque(FINAL), OpaqueAdapter(), "Opaque"),
}
"""The replies no journal can keep: how to make one, the adapter to read it with, its form."""
