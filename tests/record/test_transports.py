"""RecordingTransport and ReplayTransport: file format, redaction, matching, errors, both httpx."""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path
from typing import Any

import anthropic
import httpx
import httpx2
import openai
import pytest

import stopkit
import stopkit.record
from stopkit._secrets import redact_value as redact_body
from stopkit.record._payloads import Payload, load_payload
from tests import _wrap_clients as sdk

LIBRARIES = [httpx, httpx2]
REPLY = {"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}


def _echo(lib: Any, body: Any = REPLY, status: int = 200, **headers: str) -> Any:
    """A MockTransport answering every request with `body` as JSON."""
    return lib.MockTransport(lambda request: lib.Response(status, json=body, headers=headers))


@pytest.mark.parametrize("lib", LIBRARIES, ids=lambda m: m.__name__)
def test_recording_writes_numbered_exchange_files(lib: Any, tmp_path: Path) -> None:
    """Each exchange becomes one numbered file; numbering continues after existing files."""
    (tmp_path / "0007-post-old.json").write_text("{}")
    recorder = stopkit.record.RecordingTransport(tmp_path, wrapped=_echo(lib))
    with lib.Client(transport=recorder) as client:
        assert client.post("https://api.example.com/v1/messages", json={"a": 1}).json() == REPLY
        client.get("https://api.example.com/v1/models?page=2")
    assert [p.name for p in recorder.written] == [
        "0008-post-v1-messages.json",
        "0009-get-v1-models.json",
    ]
    data = json.loads(recorder.written[0].read_text())
    assert data["request"]["method"] == "POST"
    assert data["request"]["body"] == {"a": 1}
    assert data["response"]["status"] == 200
    assert data["response"]["body"] == REPLY
    assert load_payload(recorder.written[0]).reply == REPLY


def test_recording_stores_the_decoded_body_of_a_gzipped_response(tmp_path: Path) -> None:
    """A compressed response is recorded decoded, and the client still reads it right."""
    raw = gzip.compress(json.dumps(REPLY).encode())
    mock = httpx.MockTransport(
        lambda request: httpx.Response(
            200,
            content=raw,
            headers={"content-encoding": "gzip", "content-type": "application/json"},
        )
    )
    recorder = stopkit.record.RecordingTransport(tmp_path, wrapped=mock)
    with httpx.Client(transport=recorder) as client:
        assert client.get("https://x.test/v1/a").json() == REPLY
    assert json.loads(recorder.written[0].read_text())["response"]["body"] == REPLY


def test_body_redaction_is_by_exact_key_whatever_the_case() -> None:
    """Secret keys are redacted at any depth and in any case; `max_tokens` is not a secret."""
    body = {
        "Api_Key": "a" * 10, "apiKey": "b", "nested": [{"TOKEN": "c", "Secret": "d"}],
        "password": "e", "key": "f", "max_tokens": 5, "tokens": 3, "prompt_cache_key": "ok",
    }  # fmt: skip
    secrets: set[str] = set()
    assert redact_body(body, secrets) == {
        "Api_Key": "REDACTED", "apiKey": "REDACTED",
        "nested": [{"TOKEN": "REDACTED", "Secret": "REDACTED"}],
        "password": "REDACTED", "key": "REDACTED", "max_tokens": 5, "tokens": 3,
        "prompt_cache_key": "ok",
    }  # fmt: skip
    assert "a" * 10 in secrets


def test_url_userinfo_and_secret_query_values_are_redacted(tmp_path: Path) -> None:
    """Credentials in the URL (user:password@, `key=`, `access_token=`) never reach the file."""
    recorder = stopkit.record.RecordingTransport(tmp_path, wrapped=_echo(httpx))
    with httpx.Client(transport=recorder) as client:
        client.get(
            "https://alice:hunter2-secret@x.test/v1/a?key=AIzaSECRET123&access_token=tok-SECRET9&n=1"
        )
    text = recorder.written[0].read_text()
    for secret in ("hunter2-secret", "AIzaSECRET123", "tok-SECRET9", "alice"):
        assert secret not in text
    assert json.loads(text)["request"]["url"] == (
        "https://REDACTED@x.test/v1/a?key=REDACTED&access_token=REDACTED&n=1"
    )


def test_a_secret_echoed_in_the_response_is_scrubbed(tmp_path: Path) -> None:
    """A server echoing the API key back does not leak it into the recording."""
    key = "sk-live-0123456789abcdef"
    echo = httpx.MockTransport(
        lambda request: httpx.Response(
            400, json={"error": f"bad key {request.headers['x-api-key']}"}
        )
    )
    recorder = stopkit.record.RecordingTransport(tmp_path, wrapped=echo)
    with httpx.Client(transport=recorder) as client:
        client.post("https://x.test/v1/messages", headers={"x-api-key": key}, json={})
    text = recorder.written[0].read_text()
    assert key not in text
    assert json.loads(text)["response"] == {
        "status": 400,
        "content_type": "application/json",
        "headers": {"content-type": "application/json"},
        "body": {"error": "bad key REDACTED"},
    }


def test_an_error_response_replays_as_the_sdk_error(tmp_path: Path) -> None:
    """A recorded 4xx is served back with its status, so the SDK raises its own error."""
    error = {"type": "error", "error": {"type": "invalid_request_error", "message": "nope"}}
    recorder = stopkit.record.RecordingTransport(tmp_path, wrapped=_echo(httpx2, error, 400))
    client = sdk.client("anthropic", recorder)
    with pytest.raises(anthropic.BadRequestError):
        sdk.call("anthropic", client, False)
    replayed = sdk.client("anthropic", stopkit.record.ReplayTransport(tmp_path))
    with pytest.raises(anthropic.BadRequestError, match="nope"):
        sdk.call("anthropic", replayed, False)


def test_replay_by_order_then_no_recording_names_the_request() -> None:
    """In order, recordings are served one by one; one request too many raises NoRecording."""
    transport = stopkit.record.ReplayTransport(sdk.RECORDINGS / "openai_chat" / "stop.json")
    with httpx.Client(transport=transport) as client:
        reply = client.post("https://x.test/v1/chat/completions?key=AIzaSECRET123", json={})
        assert reply.json()["choices"][0]["finish_reason"] == "stop"
        with pytest.raises(stopkit.record.NoRecording) as caught:
            client.post("https://x.test/v1/chat/completions?key=AIzaSECRET123", json={})
    message = str(caught.value)
    assert "POST https://x.test/v1/chat/completions?key=REDACTED" in message
    assert "all 1 recording(s)" in message
    assert "AIzaSECRET123" not in message
    assert isinstance(caught.value, stopkit.StopkitError)
    assert isinstance(caught.value, LookupError)
    assert transport.unserved == []


def test_replay_by_request_matches_method_path_and_body(tmp_path: Path) -> None:
    """By request, the recording whose method, path and body match is served, in any order."""
    files = [sdk.RECORDINGS / "anthropic" / n for n in ("end_turn.json", "end_turn.stream.json")]
    replay = stopkit.record.ReplayTransport(files)
    recorder = stopkit.record.RecordingTransport(tmp_path, wrapped=replay)
    sdk.call("anthropic", sdk.client("anthropic", recorder), False)
    sdk.call("anthropic", sdk.client("anthropic", recorder), True)
    transport = stopkit.record.ReplayTransport(tmp_path, match="request")
    client = sdk.client("anthropic", transport)
    events = sdk.call("anthropic", client, True)  # the second file first
    assert events[-1].type == "message_stop"
    assert sdk.call("anthropic", client, False).stop_reason == "end_turn"
    with pytest.raises(anthropic.APIConnectionError) as caught:  # the SDK wraps transport errors
        client.messages.create(model="other", max_tokens=1, messages=sdk.MESSAGES)
    assert isinstance(caught.value.__cause__, stopkit.record.NoRecording)
    assert "0001-post-v1-messages.json" in str(caught.value.__cause__)
    assert transport.misses == [caught.value.__cause__]


# How each SDK reports a transport error, which a replay miss is (an `httpx.TransportError`):
# anthropic and openai raise their APIConnectionError from it (`_base_client.py`: anthropic
# wraps any exception of the send, openai httpx's `RequestError`s); google-genai has no
# connection error of its own and lets httpx's errors through (`google/genai/_api_client.py`).
MISSED_AS: dict[str, tuple[type[Exception], str]] = {
    "anthropic": (anthropic.APIConnectionError, "__cause__"),
    "openai_chat": (openai.APIConnectionError, "__cause__"),
    "openai_responses": (openai.APIConnectionError, "__cause__"),
    "gemini": (httpx.TransportError, "itself"),
}


@pytest.mark.parametrize("folder", sdk.FOLDERS)
@pytest.mark.parametrize("stream", [False, True], ids=["reply", "stream"])
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_a_replay_miss_is_each_sdks_connection_error(
    folder: str, stream: bool, is_async: bool
) -> None:
    """A request with no recording raises the SDK's connection error, the NoRecording in it."""
    transport = stopkit.record.ReplayTransport([])
    client = sdk.client(folder, transport, is_async=is_async)
    raised, where = MISSED_AS[folder]

    def request() -> Any:
        if is_async:
            return asyncio.run(sdk.acall(folder, client, stream))
        return sdk.call(folder, client, stream)

    with pytest.raises(raised) as caught:
        request()
    miss = caught.value if where == "itself" else caught.value.__cause__
    assert isinstance(miss, stopkit.record.NoRecording)
    assert isinstance(miss, httpx.TransportError)
    assert transport.misses == [miss]
    assert "no recording for POST" in str(miss)


def test_case_file_events_are_served_as_server_sent_events() -> None:
    """A stream's events are served as SSE, named by their type; a recorded `[DONE]` is kept."""
    anthropic_case = Payload(None, events=[{"type": "ping"}, {"type": "message_stop"}])
    chat = sdk.RECORDINGS / "openai_chat" / "stop.stream.json"
    with httpx.Client(transport=stopkit.record.ReplayTransport([anthropic_case, chat])) as client:
        first = client.get("https://x.test/a")
        second = client.get("https://x.test/b")
    assert first.headers["content-type"] == "text/event-stream"
    assert first.text == (
        'event: ping\ndata: {"type": "ping"}\n\n'
        'event: message_stop\ndata: {"type": "message_stop"}\n\n'
    )
    assert second.text.endswith("data: [DONE]\n\n")
    assert "event:" not in second.text  # Chat chunks come without event names


def test_async_replay_and_bad_match() -> None:
    """The async path serves recordings too; an unknown `match` is refused."""

    async def main() -> Any:
        transport = stopkit.record.ReplayTransport(sdk.RECORDINGS / "gemini" / "stop.stream.json")
        async with httpx2.AsyncClient(transport=transport) as client:
            return (await client.get("https://x.test/a")).text

    assert asyncio.run(main()).startswith("data: {")
    with pytest.raises(ValueError, match="match must be"):
        stopkit.record.ReplayTransport(sdk.RECORDINGS, match="fuzzy")  # type: ignore[arg-type]


def test_replaying_a_whole_recordings_folder_serves_every_file(tmp_path: Path) -> None:
    """A folder is served in file-name order, nested folders included."""
    transport = stopkit.record.ReplayTransport(sdk.RECORDINGS / "gemini")
    names = [p.name for p in transport.payloads]
    assert names == sorted(names)
    assert len(names) == len(list((sdk.RECORDINGS / "gemini").glob("*.json")))


def test_two_transports_on_one_folder_never_overwrite(tmp_path: Path) -> None:
    """Two recorders writing to one folder each get their own files: none is overwritten."""
    first = stopkit.record.RecordingTransport(tmp_path, wrapped=_echo(httpx, {**REPLY, "n": 1}))
    second = stopkit.record.RecordingTransport(tmp_path, wrapped=_echo(httpx, {**REPLY, "n": 2}))
    with httpx.Client(transport=first) as a, httpx.Client(transport=second) as b:
        for _ in range(3):
            a.post("https://x.test/v1/messages", json={})
            b.post("https://x.test/v1/messages", json={})
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 6
    assert len(set(first.written) | set(second.written)) == 6
    bodies = [json.loads(f.read_text())["response"]["body"]["n"] for f in files]
    assert sorted(bodies) == [1, 1, 1, 2, 2, 2]


class _Upstream:
    """An SSE body served chunk by chunk, remembering whether it was closed."""

    def __init__(self, lib: Any, chunks: list[bytes]) -> None:
        self.closed = False
        owner = self

        class Stream(lib.SyncByteStream, lib.AsyncByteStream):  # type: ignore[misc]
            def __iter__(self) -> Any:
                yield from chunks

            async def __aiter__(self) -> Any:
                for chunk in chunks:
                    yield chunk

            def close(self) -> None:
                owner.closed = True

            async def aclose(self) -> None:
                owner.closed = True

        self.transport = lib.MockTransport(
            lambda request: lib.Response(
                200, headers={"content-type": "text/event-stream"}, stream=Stream()
            )
        )


EVENTS = [b'data: {"n": %d}\n\n' % i for i in range(5)]


@pytest.mark.parametrize("lib", LIBRARIES, ids=lambda m: m.__name__)
@pytest.mark.parametrize("how", ["break-in-with", "close"])
def test_a_stream_closed_early_is_written_and_closed_upstream(
    lib: Any, how: str, tmp_path: Path
) -> None:
    """Leaving a stream after two events writes those two, and closes the real response."""
    upstream = _Upstream(lib, EVENTS)
    recorder = stopkit.record.RecordingTransport(tmp_path, wrapped=upstream.transport)
    with lib.Client(transport=recorder) as client:
        if how == "close":
            response = client.send(client.build_request("GET", "https://x.test/s"), stream=True)
            chunks = response.iter_bytes()
            next(chunks), next(chunks)
            response.close()
        else:
            with client.stream("GET", "https://x.test/s") as response:
                for i, _ in enumerate(response.iter_bytes()):
                    if i == 1:
                        break
        assert upstream.closed
        assert len(recorder.written) == 1  # written on close, not when garbage-collected
    recorded = load_payload(recorder.written[0])
    assert recorded.events == [{"n": 0}, {"n": 1}]


@pytest.mark.parametrize("lib", LIBRARIES, ids=lambda m: m.__name__)
def test_an_async_stream_closed_early_is_written(lib: Any, tmp_path: Path) -> None:
    """The async path writes a stream left early when it is closed, and closes upstream."""
    upstream = _Upstream(lib, EVENTS)
    recorder = stopkit.record.RecordingTransport(tmp_path, wrapped=upstream.transport)

    async def main() -> None:
        async with lib.AsyncClient(transport=recorder) as client:
            async with client.stream("GET", "https://x.test/s") as response:
                async for _ in response.aiter_bytes():
                    break
            assert upstream.closed
            assert len(recorder.written) == 1

    asyncio.run(main())
    assert load_payload(recorder.written[0]).events == [{"n": 0}]


_SSE_EDGES = (
    ": a comment line\r\n"
    'event: message_start\r\ndata: {"type": "message_start",\r\ndata:  "n": 1}\r\n\r\n'
    'data: {"type": "ping"}\n\n'
    "event: keepalive\n\n"  # an event with no data: nothing to keep
    'id: 7\nretry: 100\ndata: {"type": "content_block_stop"}\n\n'
    "data: [DONE]\n\n"
    'event: message_stop\ndata: {"type": "message_stop"}'  # cut before its blank line
)


def test_a_recorded_stream_keeps_the_events_the_stream_reader_reads(tmp_path: Path) -> None:
    """A recording reads an SSE body with the one SSE parser: the events `iter_events` yields."""
    from stopkit._stream import iter_events

    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, content=_SSE_EDGES.encode(), headers={"content-type": "text/event-stream"}
        )

    recorder = stopkit.record.RecordingTransport(tmp_path, wrapped=httpx.MockTransport(serve))
    with httpx.Client(transport=recorder) as client:
        client.get("https://x.test/v1/stream")
    recorded = json.loads(recorder.written[0].read_text())["response"]
    want = list(iter_events(_SSE_EDGES))
    assert recorded["events"] == want
    assert recorded["sse_event_names"] == ["message_start", None, None]
    assert recorded["sse_done"] is True
