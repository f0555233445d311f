"""read_cassette: cassettes as vcrpy, pytest-recording, pydantic-ai and LangChain write them."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import stopkit
from stopkit.record import read_cassette
from stopkit.testing import Payload, load_payload
from tests.record import _cassettes as tape

# Each SDK call of a cassette, the recording that answers it, and the compression it is sent
# with: every wire API, replies and streams, each content coding.
CALLS: list[tuple[str, str, str | None]] = [
    ("anthropic", "max_tokens.json", "gzip"),
    ("anthropic", "tool_use.stream.json", "br"),
    ("openai_chat", "length.json", "deflate"),
    ("openai_chat", "content_filter.stream.json", None),
    ("openai_responses", "refusal.json", "gzip"),
    ("openai_responses", "max_output_tokens.stream.json", None),
    ("gemini", "safety.json", None),
    ("gemini", "function_call.stream.json", "gzip"),
]
STYLES = ["vcrpy", "vcrpy-json", "pydantic-ai", "langchain"]


def _direct(payload: Payload) -> stopkit.Stop:
    """The Stop of the recording itself: its body given straight to stopkit."""
    if payload.events is not None:
        return stopkit.normalize_stream(payload.events)
    return stopkit.normalize(payload.reply)


def _fields(stop: stopkit.Stop) -> dict[str, Any]:
    return stop.model_dump(mode="json")


def _record(tmp_path: Path, style: str, calls: list[tuple[str, str, str | None]]) -> Path:
    with tape.serving() as server:
        for folder, name, encoding in calls:
            server.answer(tape.recording(folder, name), encoding=encoding)
        return tape.record(
            tmp_path / "chat", style, [(f, ".stream." in n) for f, n, _ in calls], server
        )


@pytest.mark.parametrize("style", STYLES)
def test_every_recorded_reply_gives_the_stop_of_its_body(style: str, tmp_path: Path) -> None:
    """Each exchange of a cassette gives the Stop its body gives directly; streams stay streams."""
    cassette = _record(tmp_path, style, CALLS)
    exchanges = read_cassette(cassette)
    assert [p.name for p in exchanges] == [f"{cassette.name}#{i}" for i in range(len(CALLS))]
    for payload, (folder, name, _) in zip(exchanges, CALLS, strict=True):
        source = tape.recording(folder, name)
        assert payload.status == 200
        assert payload.is_stream == source.is_stream, payload.name
        assert _fields(payload.stop()) == _fields(_direct(source)), payload.name


def test_pydantic_ai_bodies_are_read_from_parsed_body(tmp_path: Path) -> None:
    """pydantic-ai's cassettes hold JSON bodies as YAML values (`parsed_body`), read as such."""
    cassette = _record(tmp_path, "pydantic-ai", CALLS[:1])
    text = cassette.read_text()
    assert "parsed_body:" in text
    assert "string:" not in text
    (exchange,) = read_cassette(cassette)
    assert exchange.request is not None
    assert exchange.request["body"]["max_tokens"] == 256
    assert exchange.reply == tape.recording("anthropic", "max_tokens.json").reply


def test_langchain_cassettes_are_gzipped_yaml_with_base64_bodies(tmp_path: Path) -> None:
    """LangChain's `.yaml.gz` (requests and responses side by side, bodies `!!binary`) is read."""
    cassette = _record(tmp_path, "langchain", CALLS[2:4])
    text = gzip.decompress(cassette.read_bytes()).decode()
    assert text.startswith("requests:")
    assert "!!binary" in text
    assert [p.stop().reason for p in read_cassette(cassette)] == ["output_limit", "filtered"]


def test_a_compressed_body_is_kept_as_the_server_sent_it_and_read_decoded(tmp_path: Path) -> None:
    """The wire bytes are kept (gzip as `!!binary`); the payload's content is the decoded body."""
    cassette = _record(tmp_path, "vcrpy", CALLS[:1])
    assert "!!binary" in cassette.read_text()
    (exchange,) = read_cassette(cassette)
    assert exchange.content is not None
    assert json.loads(exchange.content) == tape.recording("anthropic", "max_tokens.json").reply
    assert exchange.response == {"status": 200, "content_type": "application/json"}


def test_a_har_file_is_read_entry_by_entry(tmp_path: Path) -> None:
    """A HAR file's entries are exchanges, their text plain or base64, with the same Stops."""
    names = [("openai_chat", "tool_calls.json"), ("anthropic", "refusal.stream.json")]
    for base64_text in (False, True):
        with tape.serving() as server:
            for folder, name in names:
                server.answer(tape.recording(folder, name))
            path = tape.har(
                tmp_path / f"session-{base64_text}.har",
                server,
                [
                    ("/v1/chat/completions", b'{"model": "gpt-4o"}'),
                    ("/v1/messages", b'{"stream": true}'),
                ],
                base64_text=base64_text,
            )
        exchanges = read_cassette(path)
        assert [p.request["method"] for p in exchanges if p.request] == ["POST", "POST"]
        assert exchanges[0].request is not None
        assert exchanges[0].request["body"] == {"model": "gpt-4o"}
        for payload, (folder, name) in zip(exchanges, names, strict=True):
            assert _fields(payload.stop()) == _fields(_direct(tape.recording(folder, name)))
        assert exchanges[1].is_stream


def test_an_ollama_ndjson_stream_is_read_as_a_stream(tmp_path: Path) -> None:
    """A newline-delimited JSON body (Ollama's native stream) is read as the stream it is."""
    import ollama
    import vcr

    source = load_payload(
        Path(__file__).parent.parent / "payloads" / "ollama" / "length.stream.json"
    )
    assert source.events is not None
    body = b"".join(json.dumps(event).encode() + b"\n" for event in source.events)
    with tape.serving() as server:
        server.raw(body, "application/x-ndjson")
        with vcr.VCR(record_mode="all").use_cassette(str(tmp_path / "ollama.yaml")):
            chunks = list(
                ollama.Client(host=server.url).chat(
                    model="llama3", messages=[{"role": "user", "content": "hi"}], stream=True
                )
            )
    assert chunks[-1].done
    (exchange,) = read_cassette(tmp_path / "ollama.yaml")
    assert exchange.events == source.events
    assert _fields(exchange.stop()) == _fields(_direct(source))


# boto3's two Bedrock streams, each answered by a recording: ConverseStream's events, and
# InvokeModelWithResponseStream's `chunk` frames holding Claude's and Titan's own events.
BEDROCK_STREAMS = [
    ("converse_stream", "bedrock/max_tokens_tool_use.stream.json"),
    ("converse_stream", "bedrock/guardrail_masked.stream.json"),
    ("invoke_model_with_response_stream", "bedrock_invoke/titan_length.stream.json"),
    ("invoke_model_with_response_stream", "bedrock_invoke/llama_cut.stream.json"),
]


@pytest.mark.parametrize(("method", "name"), BEDROCK_STREAMS, ids=[n for _, n in BEDROCK_STREAMS])
def test_a_boto3_bedrock_stream_is_read_from_its_event_stream_frames(
    method: str, name: str, tmp_path: Path
) -> None:
    """A boto3 stream that vcrpy kept as binary AWS event-stream frames is read as that stream.

    boto3 records through vcrpy as any urllib3 client does; the body is `!!binary` YAML.
    """
    import boto3
    import vcr

    from stopkit.record._eventstream import CONTENT_TYPE, encode

    source = load_payload(Path(__file__).parent.parent / "payloads" / name)
    assert source.events is not None
    with tape.serving() as server:
        server.raw(encode(source.events, None), CONTENT_TYPE)
        with vcr.VCR(record_mode="all").use_cassette(str(tmp_path / "bedrock.yaml")):
            client = boto3.client("bedrock-runtime", endpoint_url=server.url,
                                  region_name="us-east-1", aws_access_key_id="AKIATEST",
                                  aws_secret_access_key="secret")  # fmt: skip
            if method == "converse_stream":
                stream = client.converse_stream(modelId="m", messages=[])["stream"]
            else:
                stream = client.invoke_model_with_response_stream(modelId="m", body=b"{}")["body"]
            assert list(stream)  # the SDK read its events
    (exchange,) = read_cassette(tmp_path / "bedrock.yaml")
    assert exchange.is_stream
    assert _fields(exchange.stop()) == _fields(_direct(source))


_PYTEST_RECORDING_TEST = """
import os

import anthropic
import pytest


@pytest.fixture
def vcr_cassette_dir():
    return os.environ["CASSETTES"]


@pytest.mark.vcr(record_mode="once")
def test_weather():
    client = anthropic.Anthropic(api_key="sk-test", base_url=os.environ["SERVER"], max_retries=0)
    for stream in (False, True):
        reply = client.messages.create(model="claude-test-model", max_tokens=256, stream=stream,
                                       messages=[{"role": "user", "content": "Weather?"}])
        list(reply) if stream else reply
"""


def test_a_pytest_recording_cassette_is_read(tmp_path: Path) -> None:
    """A cassette pytest-recording wrote in a real pytest run (`@pytest.mark.vcr`) is read."""
    (tmp_path / "test_agent.py").write_text(textwrap.dedent(_PYTEST_RECORDING_TEST))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    sources = [tape.recording("anthropic", n) for n in ("tool_use.json", "pause_turn.stream.json")]
    with tape.serving() as server:
        for source in sources:
            server.answer(source)
        env = {
            **os.environ,
            "SERVER": server.url,
            "CASSETTES": str(tmp_path / "cassettes"),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        }
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "pytest_recording.plugin",
                "test_agent.py",
            ],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    assert run.returncode == 0, run.stdout + run.stderr
    cassette = tmp_path / "cassettes" / "test_weather.yaml"
    exchanges = read_cassette(cassette)
    assert [_fields(p.stop()) for p in exchanges] == [_fields(_direct(s)) for s in sources]
