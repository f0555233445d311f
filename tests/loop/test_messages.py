"""What the loop sends of its own: a `str` prompt, and the user messages it writes itself.

A provider-shaped message comes from the adapter (`adapter.user_message`), so each wire API gets
its own shape; an adapter without that method gets `{"role": "user", "content": text}`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import stopkit
import stopkit.loop
from stopkit import StopReason
from stopkit.loop import DEFAULT_HANDLERS
from stopkit.loop._ending import SYNTHESIZE_PROMPT
from stopkit.loop._handlers import SHORTER_PROMPT
from stopkit.testing import ScriptedModel
from tests._adapters import NAMES
from tests._payloads import PAYLOADS
from tests.loop._fake import FAKE, reply
from tests.loop._shapes import PROVIDERS, Shapes
from tests.loop._validate import assert_valid_transcript


def payload(folder: str, name: str) -> Any:
    return json.loads((PAYLOADS / folder / name).read_text())["reply"]


def test_a_str_prompt_is_one_user_message() -> None:
    """`run_loop(call_model, "a string")` sends one user message, not a list of characters."""
    model = ScriptedModel([reply("completed", "hi")])
    outcome = stopkit.run_loop(model, "What is 2 + 3?", adapter=FAKE)
    assert model.calls[0].messages == ({"role": "user", "content": "What is 2 + 3?"},)
    assert outcome.messages[0] == {"role": "user", "content": "What is 2 + 3?"}


async def test_a_str_prompt_in_arun_loop() -> None:
    """`arun_loop` takes a `str` prompt the same way."""
    model = ScriptedModel([reply("completed", "hi")])
    await stopkit.arun_loop(model.acall, "Hello", adapter=FAKE)
    assert model.calls[0].messages == ({"role": "user", "content": "Hello"},)


@pytest.mark.parametrize("p", PROVIDERS, ids=lambda p: p.name)
def test_a_str_prompt_takes_the_adapters_shape(p: Shapes) -> None:
    """Given `adapter=`, the prompt is sent in its shape from the start; detected, once known."""
    given = ScriptedModel([p.tools([("c1", "get_weather", {"city": "Paris"})]), p.text("18 °C")])
    stopkit.run_loop(given, "Weather?", adapter=p.name, tools={"get_weather": lambda city: "18"})
    shaped = stopkit.get_adapter(p.name).user_message("Weather?")  # type: ignore[attr-defined]
    assert given.calls[0].messages[0] == shaped
    detected = ScriptedModel([p.tools([("c1", "get_weather", {"city": "Paris"})]), p.text("18 °C")])
    outcome = stopkit.run_loop(detected, "Weather?", tools={"get_weather": lambda city: "18"})
    assert detected.calls[0].messages[0] == {"role": "user", "content": "Weather?"}
    assert detected.calls[1].messages[0] == shaped
    assert outcome.messages[0] == shaped
    assert_valid_transcript(p.name, outcome.messages)


@pytest.mark.parametrize(
    ("given", "named"),
    [(42, "int"), ({"role": "user", "content": "hi"}, "dict"), (b"hi", "bytes"),
     (None, "NoneType"), (iter([{"role": "user", "content": "hi"}]), "list_iterator")],
    ids=["int", "one message dict", "bytes", "None", "iterator"],
)  # fmt: skip
def test_messages_that_are_no_sequence_are_a_type_error(given: Any, named: str) -> None:
    """Anything but a sequence of messages or a `str` is a `TypeError` naming what was given."""
    model = ScriptedModel([reply("completed", "hi")])
    expected = f"messages must be a list of messages or a str, not {named}"
    with pytest.raises(TypeError, match=expected):
        stopkit.run_loop(model, given, adapter=FAKE)
    assert model.calls == []


@pytest.mark.parametrize(
    ("folder", "tool_file", "final_file"),
    [("bedrock", "tool_use.json", "end_turn.json"), ("cohere", "tool_call.json", "complete.json"),
     ("ollama", "stop_tool_calls.json", "stop.json")],
    ids=["bedrock", "cohere", "ollama"],
)  # fmt: skip
def test_the_summing_up_call_asks_in_the_adapters_shape(
    folder: str, tool_file: str, final_file: str
) -> None:
    """The summing-up prompt is the adapter's own user message (Bedrock: a list of blocks)."""
    adapter = stopkit.get_adapter(folder)
    final = payload(folder, final_file)
    empty = json.loads(json.dumps(final))
    _blank_text(empty)
    assert stopkit.normalize(empty).text == ""
    model = ScriptedModel([payload(folder, tool_file), empty, final])
    stopkit.run_loop(
        model, "hi", tools=_echo_tools(stopkit.normalize(payload(folder, tool_file))),
        synthesize_on_empty_final=True,
    )  # fmt: skip
    assert model.calls[2].messages[-1] == adapter.user_message(SYNTHESIZE_PROMPT)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["anthropic", "openai.chat", "gemini", "bedrock"])
def test_ask_for_shorter_asks_in_the_adapters_shape(name: str) -> None:
    """`ask_for_shorter` sends the adapter's user message."""
    p = {s.name: s for s in PROVIDERS}.get(name)
    if p is None:  # bedrock: a cut reply from the payloads
        cut, final = payload("bedrock", "max_tokens.json"), payload("bedrock", "end_turn.json")
    else:
        cut, final = p.truncated("long"), p.text("short")
    model = ScriptedModel([cut, final])
    handlers = {**DEFAULT_HANDLERS, StopReason.OUTPUT_LIMIT: stopkit.loop.ask_for_shorter}
    stopkit.run_loop(model, "Tell me all.", handlers=handlers)
    adapter = stopkit.get_adapter(name)
    assert model.calls[1].messages[-1] == adapter.user_message(SHORTER_PROMPT)  # type: ignore[attr-defined]


def _blank_text(reply: Any) -> None:
    """Empty every text in a reply, in place (bedrock, cohere and ollama shapes)."""
    if isinstance(reply, dict):
        for key, value in reply.items():
            if key in ("text", "content") and isinstance(value, str):
                reply[key] = ""
            else:
                _blank_text(value)
    elif isinstance(reply, list):
        for item in reply:
            _blank_text(item)


def _echo_tools(stop: stopkit.Stop) -> dict[str, Any]:
    return {call.name: lambda **kw: "ok" for call in stop.tool_calls}


@pytest.mark.parametrize("name", NAMES)
def test_every_builtin_adapter_writes_a_user_message_its_sdk_accepts(name: str) -> None:
    """Each built-in adapter's `user_message` is a valid request message of its wire API."""
    adapter = stopkit.get_adapter(name)
    message = adapter.user_message("Go on.")  # type: ignore[attr-defined]
    assert_valid_transcript(name, [message])
    assert "Go on." in json.dumps(message)
