"""Every transcript the loop builds is one the provider's SDK accepts as request messages.

Each run below goes through the paths that write messages — a `str` prompt, parallel calls
with failures, a cut reply retried, a pause resumed, `ask_for_shorter`, the summing-up call —
and every list of messages the model was sent, and the final transcript, is validated against
the SDK's own request type (tests/loop/_validate.py). The runs name their adapter: without
`adapter=`, a `str` prompt goes out as `{"role": "user", "content": ...}` until the first
reply names the adapter (a shape Gemini and Bedrock refuse; see tests/loop/test_messages.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import stopkit
import stopkit.loop
from stopkit import StopReason
from stopkit.loop import DEFAULT_HANDLERS
from stopkit.testing import ScriptedModel
from tests._adapters import BUILTINS
from tests._payloads import PAYLOADS
from tests.loop._shapes import PROVIDERS, Shapes, paris, tokyo
from tests.loop._validate import assert_valid_transcript


def test_every_builtin_adapter_has_a_transcript_check() -> None:
    """Each built-in adapter's transcripts are checked against its SDK (a new one needs one)."""
    assert all(callable(row.transcript) for row in BUILTINS)


def assert_every_request_valid(adapter: str, model: ScriptedModel, outcome: Any) -> None:
    for sent in model.calls:
        assert_valid_transcript(adapter, sent.messages)
    assert_valid_transcript(adapter, outcome.messages)


def weather(city: str) -> dict[str, Any]:
    if city == "Atlantis":
        raise LookupError("no station")
    return {"city": city, "forecast": "18 °C"}


@pytest.mark.parametrize("p", PROVIDERS, ids=lambda p: p.name)
def test_a_long_run_sends_only_valid_requests(p: Shapes) -> None:
    """Prompt, failing and unknown calls, a cut reply, a pause, an empty answer summed up."""
    script = [
        p.tools([paris(), ("c2", "get_weather", {"city": "Atlantis"}), ("c3", "get_time", {})],
                "Checking."),
        p.truncated("Paris is", ("cut", "get_weather", {"city": "Rome"})),
        *([p.paused("Searching.")] if p.can_pause else []),
        p.tools([tokyo()]),
        p.text(""),
        p.text("Paris 18 °C, Tokyo 18 °C."),
    ]  # fmt: skip
    model = ScriptedModel(script)
    outcome = stopkit.run_loop(
        model, "Weather?", adapter=p.name, tools={"get_weather": weather}, max_tokens=100,
        synthesize_on_empty_final=True,
    )  # fmt: skip
    assert outcome.text == "Paris 18 °C, Tokyo 18 °C."
    assert model.remaining == 0
    assert_every_request_valid(p.name, model, outcome)


@pytest.mark.parametrize("p", PROVIDERS, ids=lambda p: p.name)
def test_ask_for_shorter_sends_valid_requests(p: Shapes) -> None:
    """The message `ask_for_shorter` appends is one the SDK accepts."""
    model = ScriptedModel([p.truncated("long"), p.text("short")])
    handlers = {**DEFAULT_HANDLERS, StopReason.OUTPUT_LIMIT: stopkit.loop.ask_for_shorter}
    outcome = stopkit.run_loop(model, "Tell me.", adapter=p.name, handlers=handlers)
    assert outcome.text == "short"
    assert_every_request_valid(p.name, model, outcome)


def payload(folder: str, name: str) -> Any:
    return json.loads((PAYLOADS / folder / name).read_text())["reply"]


# adapter -> (a tool request, a cut reply, an answer) from tests/payloads
PAYLOAD_RUNS = {
    "bedrock": ("tool_use_parallel.json", "max_tokens.json", "end_turn.json"),
    "cohere": ("tool_call.json", "max_tokens.json", "complete.json"),
    "ollama": ("stop_tool_calls.json", "length.json", "stop.json"),
}


@pytest.mark.parametrize("name", list(PAYLOAD_RUNS))
@pytest.mark.parametrize("shorter", [False, True], ids=["raise max_tokens", "ask_for_shorter"])
def test_bedrock_cohere_and_ollama_runs_send_valid_requests(name: str, shorter: bool) -> None:
    """Tool results (one failing), a cut reply, the answer: valid Converse, v2 Chat, /api/chat."""
    tool_file, cut_file, final_file = PAYLOAD_RUNS[name]
    first = stopkit.normalize(payload(name, tool_file))
    tools: dict[str, Any] = {call.name: (lambda **kw: {"ok": True}) for call in first.tool_calls}
    tools[first.tool_calls[0].name] = lambda **kw: 1 / 0  # an error result
    model = ScriptedModel([payload(name, f) for f in (tool_file, cut_file, final_file)])
    handlers = dict(DEFAULT_HANDLERS)
    if shorter:
        handlers[StopReason.OUTPUT_LIMIT] = stopkit.loop.ask_for_shorter
    outcome = stopkit.run_loop(
        model, "hi", adapter=name, tools=tools, max_tokens=100, handlers=handlers
    )
    assert outcome.ok
    assert outcome.tool_runs[0].result.is_error
    assert_every_request_valid(name, model, outcome)
