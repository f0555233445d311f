"""stopkit.testing: payload files, `assert_stop`, `FakeAdapter`, the pytest plugin."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import anthropic
import pytest

import stopkit
from stopkit.pytest_plugin import ReplayFactory
from stopkit.testing import (
    FakeAdapter,
    Payload,
    assert_stop,
    load_payload,
    load_payloads,
    payload_params,
)
from tests import _wrap_clients as sdk

TOOL_USE = sdk.RECORDINGS / "anthropic" / "tool_use.json"
REPLY = {
    "type": "message", "role": "assistant", "stop_reason": "tool_use",
    "content": [{"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Oslo"}}],
}  # fmt: skip


def test_load_payload_reads_every_file_form(tmp_path: Path) -> None:
    """Case files, recorded exchanges, bare replies, event lists, SSE and JSONL files all load."""
    events = [{"type": "message_stop"}]
    forms = {
        "case.json": {"reply": REPLY, "expect": {"reason": "tool_request"}, "about": "a case"},
        "case.stream.json": {"events": events},
        "bare.json": REPLY,
        "list.json": events,
    }
    for name, value in forms.items():
        (tmp_path / name).write_text(json.dumps(value))
    (tmp_path / "raw.sse").write_text('event: message_stop\ndata: {"type": "message_stop"}\n\n')
    (tmp_path / "raw.jsonl").write_text('{"done": true}\n')
    (tmp_path / "notes.md").write_text("not a payload")
    case = load_payload(tmp_path / "case.json")
    assert (case.reply, case.expect, case.about, case.is_stream) == (
        REPLY, {"reason": "tool_request"}, "a case", False,
    )  # fmt: skip
    assert load_payload(tmp_path / "case.stream.json").events == events
    assert load_payload(tmp_path / "bare.json").reply == REPLY
    assert load_payload(tmp_path / "list.json").events == events
    assert load_payload(tmp_path / "raw.sse").events == events
    assert load_payload(tmp_path / "raw.jsonl").events == [{"done": True}]
    recorded = load_payload(TOOL_USE)
    assert recorded.request is not None
    assert recorded.request["method"] == "POST"
    assert recorded.response["status"] == 200
    assert recorded.reply["stop_reason"] == "tool_use"
    names = [p.name for p in load_payloads(tmp_path)]
    assert names == sorted(names)
    assert len(names) == 6  # notes.md is skipped
    assert [p.name for p in load_payloads(tmp_path, "*.stream.json")] == ["case.stream.json"]
    with pytest.raises(FileNotFoundError):
        load_payloads(tmp_path / "missing")
    (tmp_path / "broken.json").write_text("{nope")
    with pytest.raises(ValueError, match=r"broken\.json: not valid JSON"):
        load_payload(tmp_path / "broken.json")


def test_assert_stop_accepts_replies_files_payloads_and_stops() -> None:
    """`assert_stop` reads a dict, an SDK object, a file path, a Payload, events or a Stop."""
    stop = assert_stop(REPLY, reason="tool_request", tool_calls=["get_weather"], text="Checking.")
    sdk_reply = anthropic.types.Message.model_validate(
        {**REPLY, "id": "m", "model": "x", "usage": {"input_tokens": 1, "output_tokens": 1}}
    )
    assert_stop(sdk_reply, reason=stopkit.StopReason.TOOL_REQUEST, raw_reason="tool_use")
    assert_stop(str(TOOL_USE), reason="tool_request", n_tool_calls=1)
    assert_stop(TOOL_USE, tool_calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}])
    assert_stop(load_payload(TOOL_USE), provider="anthropic", detail=None)
    assert_stop(stop, reason="tool_request")
    stream = load_payload(sdk.RECORDINGS / "anthropic" / "max_tokens.stream.json").events
    assert_stop(stream, reason="output_limit", detail="max_tokens", adapter="anthropic")


def test_assert_stop_lists_every_mismatch_readably() -> None:
    """A mismatch raises AssertionError naming each wrong field with expected and actual."""
    with pytest.raises(AssertionError) as caught:
        assert_stop(
            REPLY,
            reason="completed",
            text="Checking.",
            tool_calls=[{"name": "get_time", "arguments": {"city": "Oslo"}}],
            notes=["no such note"],
            details=["stop_details"],
            n_tool_calls=2,
        )
    message = str(caught.value)
    assert "reason: expected 'completed', got 'tool_request'" in message
    assert "tool_calls[0].name: expected 'get_time', got 'get_weather'" in message
    assert "notes: none contains 'no such note'" in message
    assert "details: no 'stop_details'" in message
    assert "n_tool_calls: expected 2, got 1" in message
    assert "text" not in message.split("the Stop:")[0]  # a matching field is not listed
    with pytest.raises(AssertionError, match="expected 2 call"):
        assert_stop(REPLY, tool_calls=["a", "b"])


@pytest.mark.stopkit_payloads("recordings/gemini")
def test_marker_runs_once_per_payload(stopkit_payload: Payload) -> None:
    """The marker passes each recording of the folder in turn; each meets its `expect`."""
    assert stopkit_payload.path is not None
    assert stopkit_payload.path.parent.name == "gemini"
    assert stopkit_payload.expect is not None
    assert_stop(stopkit_payload, **stopkit_payload.expect)


@pytest.mark.parametrize("payload", payload_params(sdk.RECORDINGS / "openai_responses"))
def test_payload_params_parametrizes_a_folder(payload: Payload) -> None:
    """`payload_params` gives one parameter per file, usable with `pytest.mark.parametrize`."""
    assert payload.expect is not None
    assert_stop(payload, adapter="openai.responses", **payload.expect)


def test_replay_fixture_serves_a_real_sdk_client(stopkit_replay: ReplayFactory) -> None:
    """The fixture's client, given to the real SDK, serves the folder's recordings in order."""
    client = anthropic.Anthropic(
        api_key="sk-test", http_client=stopkit_replay.client("recordings/anthropic"), max_retries=0
    )
    seen: list[stopkit.Stop] = []
    wrapped = stopkit.wrap(client, on_stop=seen.append)
    first = sdk.call("anthropic", wrapped, False)  # end_turn.json comes first by name
    assert first.stop_reason == "end_turn"
    assert [s.reason.value for s in seen] == ["completed"]
    transport = stopkit_replay("recordings/openai_chat/stop.json", match="request")
    assert len(transport.payloads) == 1
    assert len(stopkit_replay.transports) == 2


def test_plugin_is_registered_and_explains_misuse(tmp_path: Path) -> None:
    """The plugin is an entry point, and explains a missing marker and a missing recording."""
    assert "stopkit.pytest_plugin" in [e.value for e in entry_points(group="pytest11")]
    (tmp_path / "rec").mkdir()
    (tmp_path / "rec" / "one.json").write_text(json.dumps({"reply": REPLY}))
    (tmp_path / "test_user.py").write_text(
        "import anthropic\n"
        "def test_unmarked(stopkit_payload):\n    pass\n"
        "def test_miss(stopkit_replay):\n"
        "    c = anthropic.Anthropic(api_key='k', max_retries=0,\n"
        "                            http_client=stopkit_replay.client('rec'))\n"
        "    for _ in range(2):\n"
        "        c.messages.create(model='m', max_tokens=1, messages=[])\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    assert "needs @pytest.mark.stopkit_payloads('folder')" in run.stdout
    assert "stopkit: requests with no recording" in run.stdout
    assert "no recording for POST https://api.anthropic.com/v1/messages" in run.stdout


# --- FakeAdapter: the shipped fake for handler tests -------------------------------------------

FAKE_CASES = [
    pytest.param(FakeAdapter.reply("completed", "Done."),
                 {"reason": "completed", "raw_reason": "completed", "text": "Done."}, id="text"),
    pytest.param(FakeAdapter.reply("output_limit", "Once up", detail="max_tokens", raw=9),
                 {"reason": "output_limit", "raw_reason": 9, "detail": "max_tokens"}, id="raw"),
    pytest.param(FakeAdapter.reply("tool_request", calls=[FakeAdapter.call("c1", "add", a=1)]),
                 {"tool_calls": (("c1", "add", {"a": 1}, True),)}, id="call"),
    pytest.param(FakeAdapter.reply("tool_request", calls=[FakeAdapter.call("c2", "add", False)]),
                 {"tool_calls": (("c2", "add", {}, False),)}, id="cut-call"),
    pytest.param(FakeAdapter.reply("completed", usage={"input_tokens": 3, "output_tokens": 4}),
                 {"usage": stopkit.Usage(input_tokens=3, output_tokens=4)}, id="usage"),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "expected"), FAKE_CASES)
def test_fake_adapter_reads_a_reply_exactly_as_written(reply: Any, expected: Any) -> None:
    """A fake reply's `Stop` is what it says: reason, raw value, detail, calls, usage, no notes."""
    adapter = FakeAdapter()
    assert adapter.detects(reply)
    stop = adapter.normalize(reply)
    seen = {
        "reason": stop.reason.value, "raw_reason": stop.raw_reason, "text": stop.text,
        "detail": stop.detail, "usage": stop.usage,
        "tool_calls": tuple((c.id, c.name, c.arguments, c.complete) for c in stop.tool_calls),
    }  # fmt: skip
    assert {key: seen[key] for key in expected} == expected
    assert (stop.provider, stop.notes, stop.raw) == ("fake", (), reply)
    assert adapter.normalize_all(reply) == (stop,)
    assert stopkit.normalize(reply, adapter=adapter) == stop


def test_fake_adapter_messages_carry_the_reply() -> None:
    """The messages it builds hold the reply, each result, a resume's id: what a test reads."""
    adapter = FakeAdapter()
    stop = adapter.normalize(FakeAdapter.reply("paused", id="turn-7"))
    result = stopkit.ToolResult(call_id="c1", name="add", content="3")
    assert adapter.assistant_message(stop) == [{"role": "assistant", "reply": stop.raw}]
    assert adapter.tool_results(stop, [result]) == [
        {"role": "tool", "call_id": "c1", "content": "3", "is_error": False}
    ]
    assert adapter.resume(stop) == ([{"role": "assistant", "reply": stop.raw}],
                                    {"resume_id": "turn-7"})  # fmt: skip
    assert adapter.user_message("Go on.") == {"role": "user", "content": "Go on."}
    assert isinstance(adapter, stopkit.Adapter)


def test_fake_adapter_refuses_what_it_cannot_be() -> None:
    """A reason outside the closed set fails as it is written; a fake reply is never a stream."""
    with pytest.raises(ValueError, match="'complete'"):
        FakeAdapter.reply("complete")
    assert not FakeAdapter().detects({"stop_reason": "end_turn"})
    assert not FakeAdapter().detects_event(FakeAdapter.reply("completed"))
    with pytest.raises(TypeError, match="whole replies only"):
        FakeAdapter().stream()
