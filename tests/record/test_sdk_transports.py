"""Each SDK takes the transports where docs/testing.md says, and replays a recording through them.

For every client family that speaks httpx, the real client is built with a `ReplayTransport` in
the place the docs' table names (`http_client=`, `client=`, `httpx_client=`, `transport=`, the
huggingface_hub client factory, LiteLLM's `client=`), and answers a recorded reply and stream
with no server at all. Ollama's newline-delimited JSON stream is recorded through a
`RecordingTransport` and replayed line by line.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest

import stopkit
import stopkit.record
from stopkit.record._payloads import load_payload
from tests._loopback import Loopback
from tests.adapters.test_litellm import _close_the_loop_litellm_leaves  # noqa: F401 -- an autouse fixture
from tests.adapters.test_litellm import pytestmark as litellm_warnings
from tests.wrap.families import BY_NAME, NDJSON, Form, settle

pytestmark = litellm_warnings

NOWHERE = "http://127.0.0.1:9"  # nothing listens there: only the transport answers


def _mistral(t: Any, is_async: bool) -> Any:
    from mistralai.client import Mistral

    http = (httpx2.AsyncClient if is_async else httpx2.Client)(transport=t)
    return Mistral(api_key="sk-test", server_url=NOWHERE, **{
        "async_client" if is_async else "client": http})  # fmt: skip


def _cohere(v2: bool) -> Callable[[Any, bool], Any]:
    def make(t: Any, is_async: bool) -> Any:
        import cohere

        kind = {(True, False): cohere.ClientV2, (True, True): cohere.AsyncClientV2,
                (False, False): cohere.Client, (False, True): cohere.AsyncClient}[(v2, is_async)]
        http = (httpx.AsyncClient if is_async else httpx.Client)(transport=t)
        return kind(api_key="co-test", base_url=NOWHERE, httpx_client=http)  # fmt: skip

    return make


def _ollama(t: Any, is_async: bool) -> Any:
    import ollama

    return (ollama.AsyncClient if is_async else ollama.Client)(host=NOWHERE, transport=t)


def _stainless(module: str, name: str, **options: Any) -> Callable[[Any, bool], Any]:
    def make(t: Any, is_async: bool) -> Any:
        import importlib

        kind = getattr(importlib.import_module(module), f"Async{name}" if is_async else name)
        http = (httpx.AsyncClient if is_async else httpx.Client)(transport=t)
        return kind(api_key="sk-test", base_url=NOWHERE, http_client=http, **options)

    return make


def _huggingface(t: Any, is_async: bool) -> Any:
    import huggingface_hub

    if is_async:
        huggingface_hub.set_async_client_factory(lambda: httpx2.AsyncClient(transport=t))
        return huggingface_hub.AsyncInferenceClient(base_url=NOWHERE, api_key="hf_test")
    huggingface_hub.set_client_factory(lambda: httpx2.Client(transport=t))
    return huggingface_hub.InferenceClient(base_url=NOWHERE, api_key="hf_test")


# family -> how its client takes the transport (docs/testing.md, "Where each SDK takes ...")
CLIENTS: dict[str, Callable[[Any, bool], Any]] = {
    "mistralai": _mistral,
    "cohere v2": _cohere(True),
    "cohere v1": _cohere(False),
    "ollama": _ollama,
    "groq": _stainless("groq", "Groq"),
    "together": _stainless("together", "Together"),
    "fireworks": _stainless("fireworks", "Fireworks"),
    "cerebras": _stainless("cerebras.cloud.sdk", "Cerebras", warm_tcp_connection=False),
    "huggingface_hub": _huggingface,
}


@pytest.fixture(autouse=True)
def _huggingface_offline() -> Iterator[None]:
    """huggingface_hub offline (its registry fetch never leaves), its factories restored."""
    import huggingface_hub
    from huggingface_hub import constants
    from huggingface_hub.utils import _http

    offline, constants.HF_HUB_OFFLINE = constants.HF_HUB_OFFLINE, True
    yield
    huggingface_hub.set_client_factory(_http.default_client_factory)
    huggingface_hub.set_async_client_factory(_http.default_async_client_factory)
    constants.HF_HUB_OFFLINE = offline


def _forms() -> list[Form]:
    """One form per family, mode and stream: the first of each in the families table."""
    seen, forms = set(), []
    for form in (f for name in CLIENTS for f in BY_NAME[name].forms if f.read == "value"):
        key = (form.family, form.is_async, form.stream)
        if key not in seen:
            seen.add(key)
            forms.append(form)
    return forms


@pytest.mark.parametrize("form", _forms(), ids=lambda f: f.id)
def test_the_client_replays_through_the_transport_where_the_docs_say(form: Form) -> None:
    """The client built as documented answers from a `ReplayTransport`, with no server."""
    reply, stream = form.cases["completed"]
    path = stream if form.stream else reply
    assert path is not None
    payload = load_payload(path)
    if payload.events is not None:  # served in the framing the SDK reads
        payload = type(payload)(path, events=payload.events,
                                response={"content_type": form.content_type})  # fmt: skip
    transport = stopkit.record.ReplayTransport([payload])
    seen: list[stopkit.Stop] = []

    async def main() -> None:
        client = stopkit.wrap(CLIENTS[form.family](transport, form.is_async), on_stop=seen.append)
        value = form.call(client, NOWHERE)
        if form.is_async:
            value = await settle(value)
        if form.stream and form.is_async:
            _ = [event async for event in value]
        elif form.stream:
            _ = list(value)

    asyncio.run(main())
    assert [s.reason for s in seen] == ["completed"]
    assert transport.unserved == []
    assert transport.misses == []


def test_an_ndjson_stream_is_recorded_as_its_events_and_replayed_line_by_line(
    tmp_path: Path,
) -> None:
    """Ollama's stream, recorded: its events in the file; replayed, the same chunks, as lines."""
    server = Loopback()
    server.serve(Path(__file__).parent.parent / "payloads" / "ollama" / "stop.stream.json",
                 content_type=NDJSON)  # fmt: skip
    recorder = stopkit.record.RecordingTransport(tmp_path)
    import ollama

    chat = {"model": "qwen3:14b", "messages": [{"role": "user", "content": "Hi"}], "stream": True}
    try:
        live = list(ollama.Client(host=server.url, transport=recorder).chat(**chat))
    finally:
        server.close()
    (file,) = recorder.written
    recorded = load_payload(file)
    assert recorded.events is not None
    assert recorded.response["content_type"] == NDJSON
    assert len(recorded.events) == len(live)
    again = list(_ollama(stopkit.record.ReplayTransport(file), False).chat(**chat))
    assert [c.model_dump() for c in again] == [c.model_dump() for c in live]
    assert stopkit.normalize_stream(again).reason == "completed"
