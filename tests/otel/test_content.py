"""Message content on spans when opted in: the conventions' JSON shapes, redacted as logs are."""

from __future__ import annotations

import json
from typing import Any

import pydantic_ai.messages as pai
import pytest

import stopkit
from stopkit import Stop, StopReason, ToolCall, ToolResult
from stopkit.otel._content import input_messages, output_messages, tool_arguments, tool_result
from stopkit.testing import ScriptedModel
from tests.loop._shapes import PROVIDERS, TOOLS, Shapes, paris
from tests.otel._telemetry import recording

CALL = {"type": "tool_call", "id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}
ANSWER = {"type": "tool_call_response", "id": "c1", "response": '{"temp": 18}'}
USER = {"role": "user", "parts": [{"type": "text", "content": "Weather?"}]}


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        pytest.param(
            [{"role": "user", "content": "Weather?"},
             {"role": "assistant", "content": [
                 {"type": "text", "text": "Checking."},
                 {"type": "tool_use", "id": "c1", "name": "get_weather",
                  "input": {"city": "Paris"}}]},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1",
                                           "content": '{"temp": 18}'}]}],
            [USER,
             {"role": "assistant", "parts": [{"type": "text", "content": "Checking."}, CALL]},
             {"role": "user", "parts": [ANSWER]}],
            id="anthropic",
        ),
        pytest.param(
            [{"role": "system", "content": "Be brief."},
             {"role": "user", "content": "Weather?"},
             {"role": "assistant", "content": None, "tool_calls": [
                 {"id": "c1", "type": "function",
                  "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
             {"role": "tool", "tool_call_id": "c1", "content": '{"temp": 18}'}],
            [{"role": "system", "parts": [{"type": "text", "content": "Be brief."}]}, USER,
             {"role": "assistant", "parts": [CALL]},
             {"role": "tool", "parts": [ANSWER]}],
            id="openai.chat",
        ),
        pytest.param(
            [{"role": "user", "content": [{"type": "input_text", "text": "Weather?"}]},
             {"type": "function_call", "call_id": "c1", "name": "get_weather",
              "arguments": '{"city": "Paris"}'},
             {"type": "function_call_output", "call_id": "c1", "output": '{"temp": 18}'}],
            [USER, {"role": "assistant", "parts": [CALL]}, {"role": "tool", "parts": [ANSWER]}],
            id="openai.responses",
        ),
        pytest.param(
            [{"role": "user", "parts": [{"text": "Weather?"}]},
             {"role": "model", "parts": [{"text": "hm", "thought": True},
                                         {"functionCall": {"id": "c1", "name": "get_weather",
                                                           "args": {"city": "Paris"}}}]},
             {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "get_weather",
                                                              "response": '{"temp": 18}'}}]}],
            [USER,
             {"role": "assistant", "parts": [{"type": "reasoning", "content": "hm"}, CALL]},
             {"role": "user", "parts": [ANSWER]}],
            id="gemini",
        ),
        pytest.param(
            [pai.ModelRequest([pai.SystemPromptPart("Be brief."), pai.UserPromptPart("Weather?")]),
             pai.ModelResponse([pai.ThinkingPart("hm"), pai.ToolCallPart(
                 "get_weather", {"city": "Paris"}, tool_call_id="c1")]),
             pai.ModelRequest([pai.ToolReturnPart("get_weather", '{"temp": 18}',
                                                  tool_call_id="c1"),
                               pai.UserPromptPart(["And here?", pai.ImageUrl("https://x/y.png")])])],
            [{"role": "system", "parts": [{"type": "text", "content": "Be brief."}]}, USER,
             {"role": "assistant", "parts": [{"type": "reasoning", "content": "hm"}, CALL]},
             {"role": "tool", "parts": [ANSWER]},
             {"role": "user", "parts": [{"type": "text", "content": "And here?"},
                                        {"type": "image-url"}]}],
            id="pydantic-ai",
        ),
        pytest.param(
            [{"role": "user", "content": [{"type": "image", "source": {"data": "iVBOR..."}}]}],
            [{"role": "user", "parts": [{"type": "image"}]}],
            id="other-parts-keep-only-their-type",
        ),
    ],
)  # fmt: skip
def test_input_messages_in_the_conventions_shape(messages: list[Any], expected: Any) -> None:
    """Each core wire format's messages become `{"role", "parts"}` in the conventions' schema."""
    assert json.loads(input_messages(messages)) == expected


def test_output_messages_carry_text_calls_and_the_finish_reason() -> None:
    """A reply is one assistant message with its text, its calls, and the well-known reason."""
    stop = Stop(
        reason=StopReason.TOOL_REQUEST,
        provider="x",
        text="Checking.",
        tool_calls=(ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"}),),
    )
    assert json.loads(output_messages(stop)) == [
        {"role": "assistant", "parts": [{"type": "text", "content": "Checking."}, CALL],
         "finish_reason": "tool_call"}
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ({"role": "user", "content": "use Bearer sk-live-0123456789 now"},
         "use Bearer [redacted] now"),
        ({"role": "user", "content": "see https://bob:hunter2@h.example/x"},
         "see https://[redacted]@h.example/x"),
    ],
)  # fmt: skip
def test_content_is_redacted_as_logs_are(value: dict[str, Any], shown: str) -> None:
    """Credentials in message text are redacted with the mark stopkit's logs use."""
    assert json.loads(input_messages([value]))[0]["parts"][0]["content"] == shown


def test_tool_content_is_redacted_json() -> None:
    """Arguments and results are JSON; a secret key's value is redacted, other values kept."""
    call = ToolCall(id="c1", name="login", arguments={"user": "ann", "api_key": "sk-1"})
    assert json.loads(tool_arguments(call)) == {"user": "ann", "api_key": "[redacted]"}
    result = ToolResult(call_id="c1", name="login", content='{"ok": true, "access_token": "t"}')
    assert json.loads(tool_result(result)) == {"ok": True, "access_token": "[redacted]"}
    plain = ToolResult(call_id="c1", name="login", content="welcome, ann")
    assert json.loads(tool_result(plain)) == "welcome, ann"


@pytest.mark.parametrize("p", PROVIDERS, ids=lambda p: p.name)
def test_a_captured_run_records_every_content_attribute(p: Shapes) -> None:
    """Opted in: each model call's input and output, and each tool call's arguments and result."""
    with recording(capture_content=True) as recorded:
        stopkit.run_loop(ScriptedModel([p.tools([paris()]), p.text("18 °C.")]), [p.user],
                         tools=TOOLS)  # fmt: skip
    spans = {(s.name.split()[0], s.attributes.get("stopkit.turn")): s for s in recorded.spans}
    first = spans["generate_content" if p.name == "gemini" else "chat", 1].attributes
    second = spans["generate_content" if p.name == "gemini" else "chat", 2].attributes
    tool = spans["execute_tool", 1].attributes
    assert json.loads(first["gen_ai.input.messages"]) == [USER | {
        "parts": [{"type": "text", "content": "What is the weather in Paris and Tokyo?"}]}]
    assert json.loads(first["gen_ai.output.messages"])[0]["finish_reason"] == "tool_call"
    assert [m["role"] for m in json.loads(second["gen_ai.input.messages"])][:2] == [
        "user", "assistant"]  # fmt: skip
    assert json.loads(second["gen_ai.output.messages"])[0]["parts"] == [
        {"type": "text", "content": "18 °C."}]  # fmt: skip
    assert json.loads(tool["gen_ai.tool.call.arguments"]) == {"city": "Paris"}
    assert json.loads(tool["gen_ai.tool.call.result"]) == {
        "city": "Paris", "forecast": "18 °C, cloudy"}  # fmt: skip
