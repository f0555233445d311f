"""A cassette served back to the real SDK clients, to the pytest fixture, and to ScriptedModel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic
import pytest
import vcr

import stopkit
import stopkit.record
from stopkit.pytest_plugin import ReplayFactory
from stopkit.testing import ScriptedModel, cassette_replies
from tests import _wrap_clients as sdk
from tests.record import _cassettes as tape

# One reply and one stream of each wire API the official clients speak.
CALLS = [
    (folder, name)
    for folder, names in {
        "anthropic": ("tool_use.json", "max_tokens.stream.json"),
        "openai_chat": ("length.json", "tool_calls.stream.json"),
        "openai_responses": ("function_call.json", "refusal.stream.json"),
        "gemini": ("safety.json", "function_call.stream.json"),
    }.items()
    for name in names
]


def _recorded(tmp_path: Path, calls: list[tuple[str, str]], encoding: str | None) -> Path:
    with tape.serving() as server:
        for folder, name in calls:
            server.answer(tape.recording(folder, name), encoding=encoding)
        return tape.record(
            tmp_path / "session", "vcrpy", [(f, ".stream." in n) for f, n in calls], server
        )


def _replayed(folder: str, transport: Any, stream: bool) -> Any:
    """What the client returned, less the HTTP headers google-genai keeps (never recorded here)."""
    dumped = sdk.dump(sdk.call(folder, sdk.client(folder, transport), stream))
    for item in dumped if isinstance(dumped, list) else [dumped]:
        item.pop("sdk_http_response", None)
    return dumped


@pytest.mark.parametrize("encoding", [None, "gzip"])
def test_a_cassette_replays_into_the_real_clients(encoding: str | None, tmp_path: Path) -> None:
    """anthropic, openai and google-genai read from a cassette what they read from the wire."""
    cassette = _recorded(tmp_path, CALLS, encoding)
    transport = stopkit.record.ReplayTransport.from_cassette(cassette)
    for folder, name in CALLS:
        stream = ".stream." in name
        direct = stopkit.record.ReplayTransport(sdk.RECORDINGS / folder / name)
        assert _replayed(folder, transport, stream) == _replayed(folder, direct, stream), name
    assert transport.unserved == []


def test_a_cassette_replays_by_request(tmp_path: Path) -> None:
    """With `match="request"`, a cassette's exchange is found by method, path and body."""
    calls = [("anthropic", "end_turn.json"), ("openai_chat", "stop.stream.json")]
    transport = stopkit.record.ReplayTransport.from_cassette(
        _recorded(tmp_path, calls, None), match="request"
    )
    events = sdk.call("openai_chat", sdk.client("openai_chat", transport), True)  # second first
    assert events[-1].choices[0].finish_reason == "stop"
    assert (
        sdk.call("anthropic", sdk.client("anthropic", transport), False).stop_reason == "end_turn"
    )
    with pytest.raises(anthropic.APIConnectionError) as caught:
        sdk.call("anthropic", sdk.client("anthropic", transport), False)
    assert "session.yaml#0" in str(caught.value.__cause__)


def test_the_replay_fixture_takes_a_cassette(stopkit_replay: ReplayFactory, tmp_path: Path) -> None:
    """`stopkit_replay.client(cassette)` serves the cassette to an SDK client."""
    cassette = _recorded(tmp_path, [("anthropic", "refusal.json")], "br")
    client = anthropic.Anthropic(api_key="sk-test", http_client=stopkit_replay.client(cassette))
    message = client.messages.create(
        model="claude-test-model", max_tokens=256, messages=sdk.MESSAGES
    )
    assert message.stop_reason == "refusal"
    assert [p.name for p in stopkit_replay.transports[0].served] == ["session.yaml#0"]


def _session(path: Path) -> Path:
    """A cassette of an agent's session: a model list, a rate limit, then two streamed turns."""
    turns = [
        tape.recording("anthropic", n) for n in ("tool_use.stream.json", "end_turn.stream.json")
    ]
    with tape.serving() as server, vcr.VCR(record_mode="all").use_cassette(str(path)):
        tape.other_calls(server)
        for turn in turns:
            server.answer(turn)
            sdk.call("anthropic", sdk.client("anthropic", base_url=server.url), True)
    return path


def test_cassette_replies_script_a_model_for_the_loop(tmp_path: Path) -> None:
    """A cassette's LLM replies, got in one call, drive the loop; its other exchanges do not."""
    replies = cassette_replies(_session(tmp_path / "agent.yaml"))
    assert [r[-1]["type"] for r in replies] == ["message_stop", "message_stop"]  # two streams
    model = ScriptedModel(replies)
    outcome = stopkit.run_loop(
        model, "Weather in Paris?", tools={"get_weather": lambda city: f"sunny in {city}"}
    )
    assert (outcome.termination, outcome.turns, outcome.text) == ("completed", 2, "Paris is sunny.")
    assert model.remaining == 0
