"""Real HTTP: a loopback server started by the test serves recorded JSON and SSE to the SDKs.

The SDK clients use their own default HTTP stack (no custom transport), pointed at the server
with `base_url`; then a RecordingTransport in front of the real transport records a session,
the files are checked for the secrets that were sent, and the session is replayed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest

import stopkit
import stopkit.record
from stopkit.record._payloads import load_payload
from tests import _wrap_clients as sdk
from tests._loopback import Loopback

SECRET_KEY = "sk-ant-api03-Zq9VvTg2bQ7xYtL3pWm8KcN4rD6sF1hJ"
SECRET_QUERY = "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
SECRET_COOKIE = "session=4f1d2c3b5a6e7f8091a2b3c4d5e6f708"
SECRET_BODY = "pw-7c1e5b9a2d4f6083"


@pytest.fixture
def loopback() -> Iterator[Loopback]:
    """A loopback HTTP server, stopped after the test."""
    server = Loopback(headers={"set-cookie": SECRET_COOKIE})
    yield server
    server.close()


@pytest.mark.parametrize(
    ("folder", "name", "reason"),
    [
        ("anthropic", "tool_use", "tool_request"),
        ("anthropic", "max_tokens", "output_limit"),
        ("openai_chat", "length", "output_limit"),
        ("openai_responses", "refusal", "filtered"),
        ("gemini", "safety", "filtered"),
    ],
)
def test_wrapped_sdk_over_real_http(
    loopback: Loopback, folder: str, name: str, reason: str
) -> None:
    """Over real HTTP, JSON and SSE alike, the wrapped SDK client reports the recorded reason."""
    loopback.serve(sdk.RECORDINGS / folder / f"{name}.json")
    loopback.serve(sdk.RECORDINGS / folder / f"{name}.stream.json")
    base = loopback.url + ("/v1" if folder.startswith("openai") else "")
    seen: list[stopkit.Stop] = []
    client = stopkit.wrap(sdk.client(folder, base_url=base), on_stop=seen.append)
    reply = sdk.call(folder, client, False)
    events = sdk.call(folder, client, True)
    assert events
    assert [s.reason.value for s in seen] == [reason, reason]
    assert seen[0].raw is reply
    assert seen[0].text == seen[1].text
    assert len(loopback.requests) == 2


def test_async_wrapped_sdk_over_real_http(loopback: Loopback) -> None:
    """The async anthropic client streams over real HTTP and is reported the same way."""
    import asyncio

    loopback.serve(sdk.RECORDINGS / "anthropic" / "pause_turn.stream.json")
    seen: list[stopkit.Stop] = []
    client = stopkit.wrap(
        sdk.client("anthropic", base_url=loopback.url, is_async=True), on_stop=seen.append
    )
    asyncio.run(sdk.acall("anthropic", client, True))
    assert [(s.reason.value, s.detail) for s in seen] == [("paused", "server_tool_limit")]


def test_recorded_session_hides_secrets_and_replays_the_same(
    loopback: Loopback, tmp_path: Path
) -> None:
    """A recorded live session holds none of the secrets sent, and replays to the same replies."""
    names = ["end_turn.json", "tool_use.stream.json"]
    loopback.serve(*(sdk.RECORDINGS / "anthropic" / n for n in names))
    loopback.serve(sdk.RECORDINGS / "openai_chat" / "stop.json")
    recorder = stopkit.record.RecordingTransport(tmp_path)
    live = sdk.client("anthropic", recorder, base_url=loopback.url)
    live.api_key = SECRET_KEY
    live_reply = sdk.call("anthropic", live, False)
    live_events = sdk.call("anthropic", live, True)
    with httpx.Client(transport=recorder) as raw:  # secrets in a query, a cookie and a body
        raw.post(
            f"{loopback.url}/v1/chat/completions?key={SECRET_QUERY}&alt=json",
            headers={"Authorization": f"Bearer {SECRET_KEY}", "Cookie": SECRET_COOKIE,
                     "api-key": SECRET_KEY, "x-api-key": SECRET_KEY,
                     "x-goog-api-key": SECRET_QUERY},
            json={"model": "gpt-4o", "password": SECRET_BODY, "max_tokens": 5},
        )  # fmt: skip

    sent = json.dumps([{k: str(v) for k, v in r.items()} for r in loopback.requests])
    for secret in (SECRET_KEY, SECRET_QUERY, SECRET_COOKIE, SECRET_BODY):
        assert secret in sent  # the server did receive it: forwarding is untouched
    files = sorted(tmp_path.glob("*.json"))
    assert [f.name for f in files] == [
        "0001-post-v1-messages.json",
        "0002-post-v1-messages.json",
        "0003-post-v1-chat-completions.json",
    ]
    for file in files:
        text = file.read_text()
        for secret in (SECRET_KEY, SECRET_QUERY, SECRET_COOKIE, SECRET_BODY, "4f1d2c3b5a6e7f"):
            assert secret not in text, (file.name, secret)
    third = json.loads(files[2].read_text())
    assert third["request"]["url"].endswith("?key=REDACTED&alt=json")
    assert third["request"]["body"] == {"model": "gpt-4o", "password": "REDACTED", "max_tokens": 5}
    assert third["response"]["headers"]["set-cookie"] == "REDACTED"
    assert SECRET_KEY in str(loopback.requests[0]["headers"])  # the SDK sent the real key
    assert json.loads(files[0].read_text())["request"]["headers"]["authorization"] == "REDACTED"
    for header in ("authorization", "cookie", "api-key", "x-api-key", "x-goog-api-key"):
        assert third["request"]["headers"][header] == "REDACTED"

    for match in ("order", "request"):
        replay = sdk.client("anthropic", stopkit.record.ReplayTransport(tmp_path, match=match))
        if match == "request":  # out of order: matched by path and body, not by position
            assert sdk.dump(sdk.call("anthropic", replay, True)) == sdk.dump(live_events)
            assert sdk.dump(sdk.call("anthropic", replay, False)) == sdk.dump(live_reply)
        else:
            assert sdk.dump(sdk.call("anthropic", replay, False)) == sdk.dump(live_reply)
            assert sdk.dump(sdk.call("anthropic", replay, True)) == sdk.dump(live_events)


def test_recording_through_httpx2_async(loopback: Loopback, tmp_path: Path) -> None:
    """The async path records a streamed exchange too, with its SSE framing kept."""
    import asyncio

    loopback.serve(sdk.RECORDINGS / "openai_responses" / "completed.stream.json")
    recorder = stopkit.record.RecordingTransport(tmp_path)

    async def main() -> list[Any]:
        client = sdk.client("openai_responses", recorder, is_async=True,
                            base_url=loopback.url + "/v1")  # fmt: skip
        events: list[Any] = await sdk.acall("openai_responses", client, True)
        await recorder.aclose()
        return events

    events = asyncio.run(main())
    (file,) = tmp_path.glob("*.json")
    recorded = load_payload(file)
    assert recorded.events is not None
    assert len(recorded.events) == len(events)
    assert recorded.response["sse_event_names"][0] == "response.created"
    assert isinstance(httpx2.Client(transport=recorder), httpx2.Client)
