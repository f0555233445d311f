"""Recording and replaying a boto3 client (`BotocoreRecorder`, `BotocoreReplay`), with no network.

boto3 does not speak httpx: both hook botocore's `before-send` event. A session is recorded from
the real `bedrock-runtime` client talking to a loopback server (signed with SigV4 by dummy
credentials, a session token among them), its files checked for every credential sent, then
replayed with the server gone; case files and the payloads of other wires are served too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config

import stopkit
import stopkit.record
import stopkit.testing
from stopkit.record import BotocoreRecorder, BotocoreReplay
from tests._loopback import Loopback

PAYLOADS = Path(__file__).parent.parent / "payloads"
RECORDINGS = Path(__file__).parent.parent / "recordings"
ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SESSION_TOKEN = "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQDexample"
CONVERSE = {"modelId": "anthropic.claude-test", "messages": [
    {"role": "user", "content": [{"text": "Weather in Paris?"}]}]}  # fmt: skip
EVENTSTREAM = "application/vnd.amazon.eventstream"


def _client(url: str = "http://127.0.0.1:9") -> Any:
    """The real bedrock-runtime client (port 9, discard, by default: nothing answers there)."""
    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        aws_session_token=SESSION_TOKEN,
        config=Config(retries={"total_max_attempts": 1}),
    )


@pytest.fixture
def loopback() -> Iterator[Loopback]:
    """A loopback HTTP server, stopped after the test."""
    server = Loopback()
    yield server
    server.close()


def _session(client: Any) -> list[Any]:
    """A Converse reply, a ConverseStream read to its end, and an InvokeModel stream."""
    reply = client.converse(**CONVERSE)
    stream = [e for e in client.converse_stream(**CONVERSE)["stream"]]
    invoke = client.invoke_model_with_response_stream(modelId="meta.llama3-test", body=b"{}")
    return [reply["output"], reply["stopReason"], stream, list(invoke["body"])]


def test_a_recorded_session_holds_no_credential_and_replays_offline(
    loopback: Loopback, tmp_path: Path
) -> None:
    """SigV4's signature and the session token are redacted, X-Amz-Date kept; replay is alike."""
    loopback.serve(PAYLOADS / "bedrock" / "tool_use.json")
    loopback.serve(PAYLOADS / "bedrock" / "max_tokens.stream.json", content_type=EVENTSTREAM)
    loopback.serve(PAYLOADS / "bedrock_invoke" / "llama_length.stream.json",
                   content_type=EVENTSTREAM)  # fmt: skip
    live_client = _client(loopback.url)
    recorder = BotocoreRecorder(tmp_path).attach(live_client)
    live = _session(live_client)
    sent = json.dumps([str(r["headers"]) for r in loopback.requests])
    assert SESSION_TOKEN in sent  # the server got the real, signed request
    assert "Signature=" in sent
    assert [p.name for p in recorder.written] == [
        "0001-post-model-anthropic.claude-test-converse.json",
        "0002-post-model-anthropic.claude-test-converse-stream.json",
        "0003-post-model-meta.llama3-test-invoke-with-response-stream.json",
    ]
    for path in recorder.written:
        text = path.read_text()
        for secret in (ACCESS_KEY, SECRET_KEY, SESSION_TOKEN, "Signature="):
            assert secret not in text, (path.name, secret)
        headers = json.loads(text)["request"]["headers"]
        assert headers["authorization"] == headers["x-amz-security-token"] == "REDACTED"
        assert headers["x-amz-date"].endswith("Z")  # kept: when it was signed
    stream_file = json.loads(recorder.written[1].read_text())["response"]
    assert stream_file["aws_event_types"][:2] == ["messageStart", "contentBlockDelta"]
    invoke_file = json.loads(recorder.written[2].read_text())["response"]
    assert invoke_file["events"][0]["generation"] == "\n\n"  # the chunk's own JSON, decoded
    assert stopkit.testing.load_payload(recorder.written[2]).stop().reason == "output_limit"
    loopback.close()

    replayed = _client()  # nothing listens there: only the replay answers
    replay = BotocoreReplay(tmp_path).attach(replayed)
    assert _session(replayed) == live
    assert replay.unserved == []


def test_replay_serves_case_files_and_other_wires_payloads_to_a_wrapped_client() -> None:
    """Case files, and an anthropic stream recorded over SSE, are served (streams as frames)."""
    files = [PAYLOADS / "bedrock" / "guardrail_intervened.json",
             RECORDINGS / "anthropic" / "tool_use.stream.json"]  # fmt: skip
    client = _client()
    BotocoreReplay(files).attach(client)
    seen: list[stopkit.Stop] = []
    wrapped = stopkit.wrap(client, on_stop=seen.append)
    wrapped.converse(**CONVERSE)
    list(wrapped.invoke_model_with_response_stream(modelId="anthropic.claude", body=b"{}")["body"])
    assert [(s.provider, s.reason) for s in seen] == [
        ("bedrock", "filtered"),
        ("anthropic", "tool_request"),
    ]


def test_a_request_with_no_recording_left_is_no_recording() -> None:
    """Once every recording was served, a request raises `NoRecording` naming it."""
    client = _client()
    replay = BotocoreReplay([PAYLOADS / "bedrock" / "end_turn.json"]).attach(client)
    client.converse(**CONVERSE)
    with pytest.raises(stopkit.record.NoRecording, match=r"no recording for POST .*/converse"):
        client.converse(**CONVERSE)
    assert len(replay.misses) == 1
    replay.detach(client)
    assert replay.unserved == []


def test_replay_by_request_matches_the_recorded_path_and_body(tmp_path: Path) -> None:
    """`match="request"` serves the recording whose path and body equal the request's."""
    recorded = []
    for model in ("model-a", "model-b"):
        request = {"method": "POST", "url": f"http://x/model/{model}/converse",
                   "body": {"messages": CONVERSE["messages"]}}  # fmt: skip
        body = json.loads((PAYLOADS / "bedrock" / "end_turn.json").read_text())["reply"]
        body["output"]["message"]["content"] = [{"text": f"from {model}"}]
        path = tmp_path / f"{model}.json"
        path.write_text(json.dumps({"request": request, "response": {"status": 200, "body": body}}))
        recorded.append(path)
    client = _client()
    BotocoreReplay(recorded, match="request").attach(client)
    texts = [
        client.converse(modelId=model, messages=CONVERSE["messages"])["output"]["message"]
        for model in ("model-b", "model-a")
    ]
    assert [t["content"][0]["text"] for t in texts] == ["from model-b", "from model-a"]
