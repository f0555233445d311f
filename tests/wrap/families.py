"""The client families `stopkit.wrap` knows beyond the three official SDKs, as the tests call them.

One `Family` per row of `stopkit/_wrap/_routes.py`: how the real SDK client is built against
a loopback server the test starts (`base_url`, `endpoint_url=` and dummy AWS credentials, ...),
how its streams are framed on the wire, and, per reason, the payload each form is answered
with (a recorded or documented-shape reply, and its stream). One `Form` per watched call form,
sync and async; `tests/wrap/test_families.py` runs every form on every reason, and checks that
the forms here are exactly the ones the routes table watches.

xai_sdk speaks gRPC, not HTTP: its forms are in `tests/wrap/test_xai.py`, on a local gRPC server.
"""

from __future__ import annotations

import contextlib
import inspect
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tests._loopback import Loopback

# LiteLLM fetches its model cost map from the network when imported, unless told to use the
# copy it ships: tests never touch the network.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

ROOT = Path(__file__).resolve().parent.parent
PAYLOADS = ROOT / "payloads"
RECORDINGS = ROOT / "recordings"
MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]
EVENTSTREAM = "application/vnd.amazon.eventstream"
NDJSON = "application/x-ndjson"
SSE = "text/event-stream"

Cases = dict[str, tuple[Path, Path | None]]
"""case -> (the reply payload, its stream payload or None); each file's `expect` says its reason.

The cases are a tool request, a completion, a truncation, a refusal or filter where the provider
has one, and an unknown value."""


def _chat_cases() -> Cases:
    chat = RECORDINGS / "openai_chat"
    names = {"tool_request": "tool_calls", "completed": "stop", "output_limit": "length",
             "filtered": "content_filter", "unknown": "unrecognized"}  # fmt: skip
    return {r: (chat / f"{n}.json", chat / f"{n}.stream.json") for r, n in names.items()}


def _cases(folder: Path, names: dict[str, tuple[str, str | None]]) -> Cases:
    return {
        reason: (folder / f"{reply}.json", None if stream is None else folder / f"{stream}.json")
        for reason, (reply, stream) in names.items()
    }


# Mistral, Ollama and Cohere v2 send no filter value (their stop types: mistralai's
# ChatCompletionChoiceFinishReason, ollama's done_reason, cohere's ChatFinishReason): an error
# finish stands in for it, a second unknown value.
MISTRAL = _cases(RECORDINGS / "mistral", {
    "tool_request": ("tool_calls", "tool_calls.stream"), "completed": ("stop", "stop.stream"),
    "output_limit": ("length", "length.stream"), "error": ("error", "error.stream"),
    "model_length": ("model_length", "model_length.stream"),
})  # fmt: skip
BEDROCK = _cases(PAYLOADS / "bedrock", {
    "tool_request": ("tool_use", "tool_use.stream"), "completed": ("end_turn", "end_turn.stream"),
    "output_limit": ("max_tokens", "max_tokens.stream"),
    "filtered": ("guardrail_intervened", "guardrail_intervened.stream"),
    "unknown": ("unrecognized_stop_reason", "unrecognized_stop_reason.stream"),
})  # fmt: skip
# InvokeModel bodies are each model family's own: Claude's (anthropic), Llama's, Mistral's, Titan's.
_A, _I = RECORDINGS / "anthropic", PAYLOADS / "bedrock_invoke"
INVOKE: Cases = {
    "tool_request": (_A / "tool_use.json", _A / "tool_use.stream.json"),
    "completed": (_I / "llama_stop.json", _I / "mistral_stop.stream.json"),
    "output_limit": (_I / "llama_length.json", _I / "llama_length.stream.json"),
    "filtered": (_I / "titan_content_filtered.json", _A / "refusal.stream.json"),
    "unknown": (_A / "unrecognized.json", _A / "unrecognized.stream.json"),
}
COHERE = _cases(PAYLOADS / "cohere", {
    "tool_request": ("tool_call", "tool_call.stream"), "completed": ("complete", "complete.stream"),
    "output_limit": ("max_tokens", "max_tokens.stream"), "error": ("error", "error.stream"),
    "unknown": ("unrecognized", "unrecognized_text.stream"),
})  # fmt: skip
COHERE_V1 = _cases(PAYLOADS / "cohere_v1", {
    "tool_request": ("tool_calls", "tool_calls.stream"),
    "completed": ("complete", "complete.stream"),
    "output_limit": ("max_tokens", "max_tokens.stream"),
    "filtered": ("error_toxic", "error_toxic.stream"),
    "unknown": ("unrecognized", "unrecognized.stream"),
})  # fmt: skip
OLLAMA_CHAT = _cases(PAYLOADS / "ollama", {
    "tool_request": ("stop_tool_calls", "stop_tool_calls.stream"),
    "completed": ("stop", "stop.stream"), "output_limit": ("length", "length.stream"),
    "unknown": ("unrecognized", "unrecognized_text.stream"),
})  # fmt: skip
# /api/generate has no tool calls; its unknown: the `load` reply, a stream cut short.
OLLAMA_GENERATE = _cases(PAYLOADS / "ollama", {
    "completed": ("generate_stop", "generate_stop.stream"),
    "output_limit": ("generate_length", "generate_length.stream"),
    "unknown": ("generate_load", "generate_cut.stream"),
})  # fmt: skip


@dataclass(frozen=True)
class Form:
    """One watched call form: its name as the routes table lists it, and how to make the call."""

    family: str
    name: str
    call: Callable[[Any, str], Any]
    """Make the call on the client (given the loopback's URL); an async form returns what is
    awaited."""
    stream: bool = False
    """The call returns a stream (read to its end)."""
    key: str | None = None
    """boto3: the stream is the response dict's value under this key."""
    is_async: bool = False
    read: str = "value"
    """`value`; `raw`: a `with_raw_response` response, `parse()`d; `raw-cm`:
    `with_streaming_response`, entered then `parse()`d."""
    cases: Cases = field(default_factory=dict)
    adapter: str | None = None
    """The adapter that reads its replies (None: its family's)."""
    content_type: str | None = None
    """How its streams are framed (None: as its family's are)."""
    reasons: dict[str, str] = field(default_factory=dict)
    """case -> the reason where the SDK itself changed the value (else the payload's)."""
    raises: frozenset[str] = frozenset()
    """The cases where the SDK raises its own error instead of returning the reply (`cut`: a
    stream the server cuts short)."""
    detect: bool = False
    """Its replies are read by their own adapter (boto3's InvokeModel bodies: Claude's are
    anthropic's, Llama's bedrock.invoke's): the one each payload is read with alone."""

    @property
    def id(self) -> str:
        """The test id: family:name[:stream]:sync|async."""
        mode = "async" if self.is_async else "sync"
        return f"{self.family}:{self.name}{':stream' if self.stream else ''}:{mode}"


@dataclass(frozen=True)
class Family:
    """One client family: how its real client is built against the loopback, its forms."""

    name: str  # the row's name in stopkit/_wrap/_routes.py
    make: Callable[[str, bool], Any]  # (loopback URL, async) -> the SDK client
    adapter: str  # the adapter its replies are read with (Stop.provider)
    forms: list[Form]
    content_type: str = SSE  # how its streams are framed

    def __post_init__(self) -> None:
        forms = [
            replace(
                f,
                adapter=f.adapter or (None if f.detect else self.adapter),
                content_type=f.content_type or self.content_type,
            )
            for f in self.forms
        ]
        object.__setattr__(self, "forms", forms)


# --- the clients ---------------------------------------------------------------------------------


def _boto3(url: str, is_async: bool) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id="AKIAIOSFODNN7EXAMPLE",
        aws_secret_access_key="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        config=Config(retries={"total_max_attempts": 1}),
    )


def _mistral(url: str, is_async: bool) -> Any:
    from mistralai.client import Mistral

    return Mistral(api_key="sk-test", server_url=url)


def _cohere(v2: bool) -> Callable[[str, bool], Any]:
    def make(url: str, is_async: bool) -> Any:
        import cohere
        import httpx

        kinds = {(True, False): cohere.ClientV2, (True, True): cohere.AsyncClientV2,
                 (False, False): cohere.Client, (False, True): cohere.AsyncClient}  # fmt: skip
        # An httpx client of the test's own: cohere's default async one (aiohttp) is never closed.
        http = httpx.AsyncClient() if is_async else httpx.Client()
        return kinds[(v2, is_async)](
            api_key="co-test", base_url=url, max_retries=0, httpx_client=http
        )

    return make


def _ollama(url: str, is_async: bool) -> Any:
    import ollama

    return (ollama.AsyncClient if is_async else ollama.Client)(host=url)


def _stainless(module: str, sync: str, **options: Any) -> Callable[[str, bool], Any]:
    def make(url: str, is_async: bool) -> Any:
        import importlib

        import httpx

        sdk = importlib.import_module(module)
        kind = getattr(sdk, f"Async{sync}" if is_async else sync)
        # An httpx client of the test's own: an SDK's default async one (aiohttp, for Fireworks)
        # is never closed.
        http = httpx.AsyncClient() if is_async else httpx.Client()
        return kind(api_key="sk-test", base_url=url, max_retries=0, http_client=http, **options)

    return make


def _huggingface(url: str, is_async: bool) -> Any:
    from huggingface_hub import AsyncInferenceClient, InferenceClient

    return (AsyncInferenceClient if is_async else InferenceClient)(base_url=url, api_key="hf_test")


def _litellm(url: str, is_async: bool) -> Any:
    import litellm

    return litellm


# --- the forms -----------------------------------------------------------------------------------

_CONVERSE = {"modelId": "anthropic.claude-test", "messages": [
    {"role": "user", "content": [{"text": "Weather in Paris?"}]}]}  # fmt: skip
_INVOKE = {"modelId": "meta.llama3-test", "body": b'{"prompt": "Weather in Paris?"}'}


def _bedrock_forms() -> list[Form]:
    f = "boto3 bedrock-runtime"
    return [
        Form(f, "converse", lambda c, _: c.converse(**_CONVERSE), cases=BEDROCK),
        Form(f, "converse_stream", lambda c, _: c.converse_stream(**_CONVERSE), stream=True,
             key="stream", cases=BEDROCK),
        Form(f, "invoke_model", lambda c, _: c.invoke_model(**_INVOKE), cases=INVOKE,
             detect=True),
        Form(f, "invoke_model_with_response_stream",
             lambda c, _: c.invoke_model_with_response_stream(**_INVOKE), stream=True, key="body",
             cases=INVOKE, detect=True),
    ]  # fmt: skip


def _mistral_forms() -> list[Form]:
    f, chat = "mistralai", {"model": "mistral-large-latest", "messages": MESSAGES}
    agent = {"agent_id": "ag_test", "messages": MESSAGES}
    return [
        Form(f, "chat.complete", lambda c, _: c.chat.complete(**chat), cases=MISTRAL),
        Form(f, "chat.stream", lambda c, _: c.chat.stream(**chat), stream=True, cases=MISTRAL),
        Form(f, "chat.complete_async", lambda c, _: c.chat.complete_async(**chat), is_async=True,
             cases=MISTRAL),
        Form(f, "chat.stream_async", lambda c, _: c.chat.stream_async(**chat), stream=True,
             is_async=True, cases=MISTRAL),
        Form(f, "agents.complete", lambda c, _: c.agents.complete(**agent), cases=MISTRAL),
        Form(f, "agents.stream", lambda c, _: c.agents.stream(**agent), stream=True, cases=MISTRAL),
        Form(f, "agents.complete_async", lambda c, _: c.agents.complete_async(**agent),
             is_async=True, cases=MISTRAL),
        Form(f, "agents.stream_async", lambda c, _: c.agents.stream_async(**agent), stream=True,
             is_async=True, cases=MISTRAL),
    ]  # fmt: skip


def _cohere_forms(family: str, cases: Cases, v2_cases: Cases | None) -> list[Form]:
    chat_v2 = {"model": "command-a-03-2025", "messages": MESSAGES}
    chat = chat_v2 if v2_cases is None else {"model": "command-r", "message": "Weather?"}
    forms = []
    for is_async in (False, True):
        forms += [
            Form(family, "chat", lambda c, _: c.chat(**chat), is_async=is_async, cases=cases),
            Form(family, "chat_stream", lambda c, _: c.chat_stream(**chat), stream=True,
                 is_async=is_async, cases=cases),
        ]  # fmt: skip
        if v2_cases is not None:  # the v1 client's `v2` resource: the v2 API
            forms += [
                Form(family, "v2.chat", lambda c, _: c.v2.chat(**chat_v2), is_async=is_async,
                     cases=v2_cases, adapter="cohere"),
                Form(family, "v2.chat_stream", lambda c, _: c.v2.chat_stream(**chat_v2),
                     stream=True, is_async=is_async, cases=v2_cases, adapter="cohere",
                     content_type=SSE),
            ]  # fmt: skip
    return forms


def _ollama_forms() -> list[Form]:
    chat = {"model": "qwen3:14b", "messages": MESSAGES}
    generate = {"model": "llama3.2", "prompt": "Weather in Paris?"}
    return [
        form
        for is_async in (False, True)
        for form in (
            Form("ollama", "chat", lambda c, _: c.chat(**chat), is_async=is_async,
                 cases=OLLAMA_CHAT),
            Form("ollama", "chat", lambda c, _: c.chat(**chat, stream=True), stream=True,
                 is_async=is_async, cases=OLLAMA_CHAT),
            Form("ollama", "generate", lambda c, _: c.generate(**generate), is_async=is_async,
                 cases=OLLAMA_GENERATE),
            Form("ollama", "generate", lambda c, _: c.generate(**generate, stream=True),
                 stream=True, is_async=is_async, cases=OLLAMA_GENERATE),
        )
    ]  # fmt: skip


def _chat_completion_forms(family: str) -> list[Form]:
    """Groq, Together, Fireworks, Cerebras: `chat.completions.create` and its raw forms."""
    args = {"model": "test-model", "messages": MESSAGES}
    cases = _chat_cases()
    completions = lambda c: c.chat.completions  # noqa: E731 -- a table of one-line accessors
    return [
        form
        for is_async in (False, True)
        for form in (
            Form(family, "chat.completions.create", lambda c, _: completions(c).create(**args),
                 is_async=is_async, cases=cases),
            Form(family, "chat.completions.create",
                 lambda c, _: completions(c).create(**args, stream=True), stream=True,
                 is_async=is_async, cases=cases),
            Form(family, "chat.completions.with_raw_response.create",
                 lambda c, _: completions(c).with_raw_response.create(**args), read="raw",
                 is_async=is_async, cases=cases),
            Form(family, "chat.completions.with_raw_response.create",
                 lambda c, _: completions(c).with_raw_response.create(**args, stream=True),
                 read="raw", stream=True, is_async=is_async, cases=cases),
            Form(family, "chat.completions.with_streaming_response.create",
                 lambda c, _: completions(c).with_streaming_response.create(**args, stream=True),
                 read="raw-cm", stream=True, is_async=is_async, cases=cases),
        )
    ]  # fmt: skip


def _huggingface_forms() -> list[Form]:
    f, args, cases = "huggingface_hub", {"model": "test-model", "messages": MESSAGES}, _chat_cases()
    return [
        form
        for is_async in (False, True)
        for form in (
            Form(f, "chat_completion", lambda c, _: c.chat_completion(**args), is_async=is_async,
                 cases=cases),
            Form(f, "chat_completion", lambda c, _: c.chat_completion(**args, stream=True),
                 stream=True, is_async=is_async, cases=cases),
            Form(f, "chat.completions.create", lambda c, _: c.chat.completions.create(**args),
                 is_async=is_async, cases=cases),
            Form(f, "chat.completions.create",
                 lambda c, _: c.chat.completions.create(**args, stream=True), stream=True,
                 is_async=is_async, cases=cases),
        )
    ]  # fmt: skip


_RESPONSES = {n: RECORDINGS / "openai_responses" / f"{n}" for n in ("function_call", "completed",
              "max_output_tokens", "refusal", "failed")}  # fmt: skip
RESPONSES: Cases = {
    reason: (path.with_suffix(".json"), path.with_name(f"{path.name}.stream.json"))
    for reason, path in zip(
        ("tool_request", "completed", "output_limit", "filtered", "unknown"),
        _RESPONSES.values(),
        strict=True,
    )
}


# LiteLLM's stream handler maps a finish_reason it does not know to `stop`, and keeps no
# native value in its chunks (tests/adapters/test_litellm.py, LITELLM_RECORDINGS): LiteLLM's loss.
LOST = {"unknown": "completed"}
# LiteLLM raises its own `MidStreamFallbackError` for a chat stream cut short, and for a
# Responses stream's `response.failed`.
CUT = frozenset({"cut"})
FAILS = frozenset({"unknown"})


def _litellm_forms() -> list[Form]:
    def args(url: str) -> dict[str, Any]:
        return {"model": "openai/gpt-4o", "api_key": "sk-test", "api_base": url}

    chat, cases = {"messages": MESSAGES}, _chat_cases()
    return [
        Form("litellm", "completion", lambda c, u: c.completion(**args(u), **chat), cases=cases),
        Form("litellm", "completion", lambda c, u: c.completion(**args(u), **chat, stream=True),
             stream=True, cases=cases, reasons=LOST, raises=CUT),
        Form("litellm", "acompletion", lambda c, u: c.acompletion(**args(u), **chat),
             is_async=True, cases=cases),
        Form("litellm", "acompletion", lambda c, u: c.acompletion(**args(u), **chat, stream=True),
             stream=True, is_async=True, cases=cases, reasons=LOST, raises=CUT),
        Form("litellm", "responses", lambda c, u: c.responses(**args(u), input="Weather?"),
             cases=RESPONSES, adapter="openai.responses"),
        Form("litellm", "responses",
             lambda c, u: c.responses(**args(u), input="Weather?", stream=True), stream=True,
             cases=RESPONSES, adapter="openai.responses", raises=FAILS | CUT),
        Form("litellm", "aresponses", lambda c, u: c.aresponses(**args(u), input="Weather?"),
             is_async=True, cases=RESPONSES, adapter="openai.responses"),
        Form("litellm", "aresponses",
             lambda c, u: c.aresponses(**args(u), input="Weather?", stream=True), stream=True,
             is_async=True, cases=RESPONSES, adapter="openai.responses", raises=FAILS | CUT),
    ]  # fmt: skip


_COHERE_V2 = COHERE
FAMILIES = [
    Family("boto3 bedrock-runtime", _boto3, "bedrock", _bedrock_forms(), EVENTSTREAM),
    Family("mistralai", _mistral, "openai.chat", _mistral_forms()),
    Family("cohere v2", _cohere(True), "cohere", _cohere_forms("cohere v2", _COHERE_V2, None)),
    Family("cohere v1", _cohere(False), "cohere.v1",
           _cohere_forms("cohere v1", COHERE_V1, _COHERE_V2), NDJSON),
    Family("ollama", _ollama, "ollama", _ollama_forms(), NDJSON),
    Family("groq", _stainless("groq", "Groq"), "openai.chat", _chat_completion_forms("groq")),
    Family("together", _stainless("together", "Together"), "openai.chat",
           _chat_completion_forms("together")),
    Family("fireworks", _stainless("fireworks", "Fireworks"), "openai.chat",
           _chat_completion_forms("fireworks")),
    # Cerebras' client warms its connection with a request of its own when made: not here.
    Family("cerebras", _stainless("cerebras.cloud.sdk", "Cerebras", warm_tcp_connection=False),
           "openai.chat",
           _chat_completion_forms("cerebras")),
    Family("huggingface_hub", _huggingface, "openai.chat", _huggingface_forms()),
    Family("litellm", _litellm, "litellm", _litellm_forms()),
]  # fmt: skip
BY_NAME = {family.name: family for family in FAMILIES}
FORMS = [form for family in FAMILIES for form in family.forms]


@contextlib.contextmanager
def served() -> Iterator[Loopback]:
    """A loopback server the families' clients reach, and nothing else; stopped after."""
    import httpx2
    import huggingface_hub
    from huggingface_hub import constants
    from huggingface_hub.utils import _http

    # huggingface_hub's default session refuses every request offline, and online fetches a
    # registry from huggingface.co: a plain session, offline, reaches only the loopback.
    offline, constants.HF_HUB_OFFLINE = constants.HF_HUB_OFFLINE, True
    huggingface_hub.set_client_factory(httpx2.Client)
    huggingface_hub.set_async_client_factory(httpx2.AsyncClient)
    server = Loopback()
    try:
        yield server
    finally:
        server.close()
        huggingface_hub.set_client_factory(_http.default_client_factory)
        huggingface_hub.set_async_client_factory(_http.default_async_client_factory)
        constants.HF_HUB_OFFLINE = offline


async def settle(value: Any) -> Any:
    """`value`, awaited if it is awaitable (an async form's call, an async `close()`)."""
    return await value if inspect.isawaitable(value) else value
