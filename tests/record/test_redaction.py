"""What RecordingTransport writes holds no credential: every body type, header and URL, any case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import stopkit
import stopkit.record

SECRET = "tok-Zq9VvTg2bQ7xYtL3"
REPLY = {"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}


def _record(tmp_path: Path, send: Any, response: httpx.Response | None = None) -> dict[str, Any]:
    """Send one request through a RecordingTransport; return the file it wrote, and check it."""
    answer = response or httpx.Response(200, json=REPLY)
    recorder = stopkit.record.RecordingTransport(
        tmp_path, wrapped=httpx.MockTransport(lambda request: answer)
    )
    with httpx.Client(transport=recorder) as client:
        send(client)
    (path,) = recorder.written
    text = path.read_text()
    assert SECRET not in text
    recorded: dict[str, Any] = json.loads(text)
    return recorded


@pytest.mark.parametrize(
    "key",
    ["accessToken", "refreshToken", "sessionToken", "privateKey", "auth", "bearer",
     "client_secret", "ClientSecret", "ACCESS_TOKEN", "x-auth", "idToken"],
)  # fmt: skip
def test_json_body_keys_in_any_case_style(tmp_path: Path, key: str) -> None:
    """A credential key in a JSON request body is redacted whatever its case style."""
    body = {"model": "m", "max_tokens": 5, "nested": [{key: SECRET}]}
    recorded = _record(tmp_path, lambda c: c.post("https://x.test/v1/a", json=body))
    assert recorded["request"]["body"] == {
        "model": "m", "max_tokens": 5, "nested": [{key: "REDACTED"}],
    }  # fmt: skip


def test_form_urlencoded_body(tmp_path: Path) -> None:
    """Secret fields of a form body are redacted; the others are kept as sent."""
    form = {"grant_type": "refresh_token", "refresh_token": SECRET, "client_secret": SECRET}
    recorded = _record(tmp_path, lambda c: c.post("https://x.test/oauth/token", data=form))
    assert recorded["request"]["body"] == (
        "grant_type=refresh_token&refresh_token=REDACTED&client_secret=REDACTED"
    )


def test_multipart_body_fields_and_files(tmp_path: Path) -> None:
    """A multipart body is kept field by field (no boundary); secret fields are redacted."""
    recorded = _record(
        tmp_path,
        lambda c: c.post(
            "https://x.test/v1/files",
            data={"purpose": "batch", "api_key": SECRET},
            files={"file": ("batch.jsonl", b'{"custom_id": "1"}\n', "application/jsonl")},
        ),
    )
    assert recorded["request"]["body"] == {
        "multipart": [
            {"name": "purpose", "value": "batch"},
            {"name": "api_key", "value": "REDACTED"},
            {"name": "file", "filename": "batch.jsonl", "content_type": "application/jsonl",
             "value": {"custom_id": "1"}},
        ]
    }  # fmt: skip


def test_location_header_and_azure_sas_signature(tmp_path: Path) -> None:
    """A token in a `Location` header, and an Azure SAS `sig=` in a URL or a body, are redacted."""
    blob = f"https://acct.blob.core.windows.net/c/cat.png?sv=2024-05-04&sp=r&sig={SECRET}"
    moved = httpx.Response(
        303, headers={"location": f"https://app.test/done#access_token={SECRET}&state=s"}
    )
    recorded = _record(
        tmp_path,
        lambda c: c.post(blob, json={"input": [{"type": "input_image", "image_url": blob}]}),
        moved,
    )
    shown = blob.replace(SECRET, "REDACTED")
    assert recorded["request"]["url"] == shown
    assert recorded["request"]["body"] == {"input": [{"type": "input_image", "image_url": shown}]}
    assert recorded["response"]["headers"]["location"] == (
        "https://app.test/done#access_token=REDACTED&state=s"
    )


@pytest.mark.parametrize("kind", ["form", "multipart"])
def test_redacted_form_requests_replay_by_request(tmp_path: Path, kind: str) -> None:
    """A form or multipart request matches its redacted recording when replayed by request."""

    def send(client: httpx.Client) -> Any:
        if kind == "form":
            return client.post("https://x.test/oauth/token", data={"client_secret": SECRET})
        return client.post(
            "https://x.test/v1/files", data={"api_key": SECRET}, files={"file": ("a.txt", b"hi")}
        )

    _record(tmp_path, send)
    transport = stopkit.record.ReplayTransport(tmp_path, match="request")
    with httpx.Client(transport=transport) as client:
        assert send(client).json() == REPLY
    assert transport.misses == []


def test_a_secret_in_a_response_body_is_redacted(tmp_path: Path) -> None:
    """The realtime session's `client_secret.value` is redacted; the SDK still reads the replay."""
    import httpx2
    import openai

    session = {"id": "sess_1", "object": "realtime.session", "model": "gpt-realtime",
               "client_secret": {"value": f"ek_{SECRET}", "expires_at": 1700000000}}  # fmt: skip
    live = httpx2.MockTransport(lambda request: httpx2.Response(200, json=session))
    recorder = stopkit.record.RecordingTransport(tmp_path, wrapped=live)
    client = openai.OpenAI(api_key="sk-test", http_client=httpx2.Client(transport=recorder))
    assert client.beta.realtime.sessions.create(model="gpt-realtime").client_secret.value == (
        f"ek_{SECRET}"
    )  # the caller gets the real reply
    assert SECRET not in recorder.written[0].read_text()
    replay = httpx2.Client(transport=stopkit.record.ReplayTransport(tmp_path))
    offline = openai.OpenAI(api_key="sk-test", http_client=replay, max_retries=0)
    replayed = offline.beta.realtime.sessions.create(model="gpt-realtime")
    assert (replayed.client_secret.value, replayed.client_secret.expires_at) == (
        "REDACTED", 1700000000,
    )  # fmt: skip


def test_secrets_in_server_sent_events_are_redacted(tmp_path: Path) -> None:
    """Each recorded SSE event is redacted like a body: secret keys, and URLs inside text."""
    events = [
        {"type": "session.created", "session": {"client_secret": {"value": SECRET}}},
        {"type": "text.delta", "delta": f"see https://a.blob.core.windows.net/x?sv=1&sig={SECRET}"},
    ]
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    stream = httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})
    recorded = _record(tmp_path, lambda c: c.get("https://x.test/v1/events").read(), stream)
    assert recorded["response"]["events"] == [
        {"type": "session.created", "session": {"client_secret": {"value": "REDACTED"}}},
        {"type": "text.delta", "delta": "see https://a.blob.core.windows.net/x?sv=1&sig=REDACTED"},
    ]


def _held(value: Any) -> str:
    return json.dumps(value)


def test_json_held_in_strings_is_redacted_as_a_body_is(tmp_path: Path) -> None:
    """Secret keys inside a Chat `function.arguments` string or a tool message are redacted."""
    # A different secret in each place: each must be found where it is, not scrubbed as the
    # copy of one found elsewhere.
    arguments = {"city": "Paris", "auth_token": f"{SECRET}1", "refresh_token": f"{SECRET}2",
                 "private_key": {"pem": f"{SECRET}3", "bits": 2048}, "secret": f"{SECRET}4"}
    call = {"id": "call_1", "type": "function",
            "function": {"name": "login", "arguments": _held(arguments)}}
    result = {"ok": True, "session": {"secret": f"{SECRET}5"},
              "note": _held({"secret": f"{SECRET}6"})}  # fmt: skip
    body = {"model": "m", "messages": [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": _held(result)},
    ]}  # fmt: skip
    reply = {"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls",
             "message": {"role": "assistant", "tool_calls": [call]}}]}  # fmt: skip
    recorded = _record(
        tmp_path,
        lambda c: c.post("https://x.test/v1/chat/completions", json=body),
        httpx.Response(200, json=reply),
    )
    hidden = {"city": "Paris", "auth_token": "REDACTED", "refresh_token": "REDACTED",
              "private_key": {"pem": "REDACTED", "bits": 2048}, "secret": "REDACTED"}  # fmt: skip
    sent = recorded["request"]["body"]["messages"]
    assert json.loads(sent[0]["tool_calls"][0]["function"]["arguments"]) == hidden
    assert json.loads(sent[1]["content"]) == {
        "ok": True, "session": {"secret": "REDACTED"}, "note": _held({"secret": "REDACTED"}),
    }  # fmt: skip
    said = recorded["response"]["body"]["choices"][0]["message"]["tool_calls"][0]["function"]
    assert json.loads(said["arguments"]) == hidden


def test_json_held_in_a_string_without_secrets_is_kept_as_sent(tmp_path: Path) -> None:
    """Arguments text with no credential keeps its exact text (spacing, key order)."""
    arguments = '{ "city":"Paris",  "days": 3 }'
    body = {"messages": [{"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}]}]}
    recorded = _record(tmp_path, lambda c: c.post("https://x.test/v1/chat/completions", json=body))
    assert recorded["request"]["body"] == body


def test_requests_holding_secrets_in_json_strings_replay_by_request(tmp_path: Path) -> None:
    """A request whose tool message holds a secret matches its redacted recording."""
    body = {"messages": [{"role": "tool", "tool_call_id": "c1",
                          "content": _held({"auth_token": SECRET, "n": 1})}]}  # fmt: skip

    def send(client: httpx.Client) -> Any:
        return client.post("https://x.test/v1/chat/completions", json=body)

    _record(tmp_path, send)
    transport = stopkit.record.ReplayTransport(tmp_path, match="request")
    with httpx.Client(transport=transport) as client:
        assert send(client).json() == REPLY
    assert transport.misses == []


_JWT = (
    "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJpc3MiOiJzdmNAcC5pYW0uZ3NlcnZpY2VhY2NvdW50LmNvbSJ9"
    ".c2lnbmF0dXJlLWJ5dGVzLWhlcmUtWnE5VnZUZzJiUTd4"
)


def test_a_jwt_in_an_assertion_form_field_is_redacted(tmp_path: Path) -> None:
    """The JWT-bearer grant's `assertion` (google-auth's token exchange) is redacted."""
    form = {"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": _JWT}
    recorder = stopkit.record.RecordingTransport(
        tmp_path, wrapped=httpx.MockTransport(lambda request: httpx.Response(200, json=REPLY))
    )
    with httpx.Client(transport=recorder) as client:
        client.post("https://oauth2.x.test/token", data=form)
    text = recorder.written[0].read_text()
    assert _JWT not in text
    assert json.loads(text)["request"]["body"] == (
        "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=REDACTED"
    )
