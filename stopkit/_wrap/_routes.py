"""Which methods of each client return replies: the one table of watched call forms.

A family of clients is a row of `FAMILIES`: the classes it is recognized by (their module and
name, found in the client's MRO, so that no SDK is imported) and the methods watched, sync and
async. The wrap page's and the README's lists are generated from this table.

Sources, per family: anthropic/resources/messages/messages.py, anthropic/resources/beta/messages/
messages.py; openai/resources/chat/completions/completions.py, openai/resources/responses/
responses.py, openai/resources/beta/beta.py (`beta.chat` is the same `Chat`); google/genai/
models.py and chats.py; botocore's bedrock-runtime service-2.json (`Converse`,
`ConverseStream`, `InvokeModel`, `InvokeModelWithResponseStream`); mistralai/client/chat.py and
agents.py; cohere/v2/client.py and cohere/base_client.py (`chat`, `chat_stream`); ollama/
_client.py; groq/, together/, fireworks/ and cerebras/cloud/sdk/ `resources/chat/
completions.py`; huggingface_hub/inference/_client.py (`chat_completion`, `chat.completions.
create`); xai_sdk/sync/chat.py and aio/chat.py (`chat.create()`, `Chat.sample`, `Chat.stream`,
`Chat.append`); litellm/main.py and responses/main.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from stopkit._wrap._calls import Call, Helper, Raw, Returns, Runner, StreamingRaw
from stopkit._wrap._proxy import Proxy, Route
from stopkit._wrap._streams import (
    AnthropicHelperStream,
    AsyncAnthropicHelperStream,
    AsyncHelperStream,
    HelperStream,
)

__all__ = ["FAMILIES", "Family", "family_of", "watched_forms"]


def _calls(adapter: str, is_async: bool, *names: str) -> Route:
    """The reply-returning methods `names`, with their raw-response forms."""
    return {
        **{name: Call(adapter, is_async=is_async) for name in names},
        "with_raw_response": {name: Raw(adapter, is_async=is_async) for name in names},
        "with_streaming_response": {
            name: StreamingRaw(adapter, is_async=is_async) for name in names
        },
    }


def _with_rewrap(routes: Route) -> Route:
    """The routes, also on the clients `with_options()` and `copy()` derive."""
    rewrap = Returns(routes)
    routes["with_options"] = rewrap
    routes["copy"] = rewrap
    return routes


def _anthropic(is_async: bool) -> Route:
    def messages(beta: bool) -> Route:
        route = _calls("anthropic", is_async, "create", "parse")
        route["stream"] = Helper("anthropic", (AnthropicHelperStream, AsyncAnthropicHelperStream))
        if beta:
            route["tool_runner"] = Runner("anthropic", is_async=is_async)
        return route

    return _with_rewrap({"messages": messages(False), "beta": {"messages": messages(True)}})


def _openai(is_async: bool) -> Route:
    completions = _calls("openai.chat", is_async, "create", "parse", "retrieve")
    completions["stream"] = Helper("openai.chat", (HelperStream, AsyncHelperStream))
    chat: Route = {"completions": completions}
    responses = _calls("openai.responses", is_async, "create", "parse", "retrieve")
    responses["stream"] = Helper("openai.responses", (HelperStream, AsyncHelperStream))
    beta_responses = _calls("openai.responses", is_async, "create", "retrieve")
    beta: Route = {"chat": chat, "responses": beta_responses}
    return _with_rewrap({"chat": chat, "responses": responses, "beta": beta})


def _chat_completions(is_async: bool) -> Route:
    """The OpenAI-shaped SDKs (Groq, Together, Fireworks, Cerebras): `chat.completions.create`."""
    return _with_rewrap({"chat": {"completions": _calls("openai.chat", is_async, "create")}})


def _gemini_models(is_async: bool) -> Route:
    chat: Route = {
        "send_message": Call("gemini", is_async=is_async),
        "send_message_stream": Call("gemini", is_async=is_async, always_stream=True),
    }
    return {
        "models": {
            "generate_content": Call("gemini", is_async=is_async),
            "generate_content_stream": Call("gemini", is_async=is_async, always_stream=True),
        },
        "chats": {"create": Returns(chat)},
    }


def _gemini(is_async: bool) -> Route:
    # The sync `genai.Client` holds its async twin at `client.aio`.
    return _gemini_models(True) if is_async else {**_gemini_models(False), "aio": _gemini(True)}


def _bedrock(is_async: bool) -> Route:
    # An InvokeModel body is the model family's own (Claude's, Nova's, Llama's, ...): its adapter
    # is the one that recognizes it, as for the first chunk of its stream (`_forms`).
    return {
        "converse": Call("bedrock", is_async=is_async),
        "converse_stream": Call("bedrock", is_async=is_async, always_stream=True),
        "invoke_model": Call("bedrock.invoke", is_async=is_async, detect=True),
        "invoke_model_with_response_stream": Call(
            "bedrock.invoke", is_async=is_async, always_stream=True
        ),
    }


def _mistral(is_async: bool) -> Route:
    def completions() -> Route:
        return {
            "complete": Call("openai.chat", is_async=False),
            "stream": Call("openai.chat", is_async=False, always_stream=True),
            "complete_async": Call("openai.chat", is_async=True),
            "stream_async": Call("openai.chat", is_async=True, always_stream=True),
        }

    return {"chat": completions(), "agents": completions()}


def _cohere_v2(is_async: bool) -> Route:
    # `chat_stream` returns a generator (an async one on the async client): a plain call.
    return {
        "chat": Call("cohere", is_async=is_async),
        "chat_stream": Call("cohere", is_async=False, always_stream=True),
    }


def _cohere_v1(is_async: bool) -> Route:
    return {
        "chat": Call("cohere.v1", is_async=is_async),
        "chat_stream": Call("cohere.v1", is_async=False, always_stream=True),
        "v2": _cohere_v2(is_async),
    }


def _ollama(is_async: bool) -> Route:
    return {name: Call("ollama", is_async=is_async) for name in ("chat", "generate")}


def _huggingface(is_async: bool) -> Route:
    return {
        "chat_completion": Call("openai.chat", is_async=is_async),
        "chat": {"completions": {"create": Call("openai.chat", is_async=is_async)}},
    }


def _xai(is_async: bool) -> Route:
    chat: Route = {
        "sample": Call("xai", is_async=is_async),
        # An async generator on the async client: a plain call either way.
        "stream": Call("xai", is_async=False, always_stream=True),
    }
    chat["append"] = Returns(chat)  # returns the chat itself, to chain `.sample()` on
    return {"chat": {"create": Returns(chat)}}


def _litellm(is_async: bool) -> Route:
    return {
        "completion": Call("litellm", is_async=False),
        "acompletion": Call("litellm", is_async=True),
        "responses": Call("openai.responses", is_async=False),
        "aresponses": Call("openai.responses", is_async=True),
    }


@dataclass(frozen=True)
class Family:
    """One family of clients: the classes it is recognized by, and the methods watched."""

    name: str
    """The family, as the docs list it."""
    module: str
    """The module its classes are defined under (`anthropic` takes in `anthropic.lib...`)."""
    clients: tuple[str, ...]
    """The sync clients' class names (for a module family, the module's name); a dotted name
    is the class's module below `module`, then its name (xai_sdk's two clients are `Client`)."""
    async_clients: tuple[str, ...]
    """The async clients' class names."""
    routes: Callable[[bool], Route]
    """The watched methods of a sync (False) or async (True) client."""
    adapters: str
    """The adapters that read its replies, as the docs list them."""
    is_module: bool = False
    """The client is the module itself (`stopkit.wrap(litellm)`)."""
    shown: tuple[str, ...] = ()
    """The clients as people name them, where their class names do not say it."""

    def names(self) -> tuple[str, ...]:
        """The clients, as the docs and the errors name them."""
        return self.shown or (*self.clients, *self.async_clients)


def _async(*names: str) -> tuple[str, ...]:
    return tuple(f"Async{name}" for name in names)


_ANTHROPIC = ("Anthropic", "AnthropicBedrock", "AnthropicBedrockMantle", "AnthropicVertex")

FAMILIES: tuple[Family, ...] = (
    Family("anthropic", "anthropic", _ANTHROPIC, _async(*_ANTHROPIC), _anthropic, "anthropic"),
    Family(
        "openai", "openai", ("OpenAI",), ("AsyncOpenAI",), _openai,
        "openai.chat, openai.responses",
    ),
    Family("google-genai", "google.genai", ("Client",), ("AsyncClient",), _gemini, "gemini"),
    Family(
        "boto3 bedrock-runtime", "botocore.client", ("BedrockRuntime",), (), _bedrock,
        "bedrock, bedrock.invoke (and the body's own: anthropic for Claude)",
    ),
    Family("mistralai", "mistralai", ("Mistral",), (), _mistral, "openai.chat"),
    Family("cohere v2", "cohere", ("ClientV2",), ("AsyncClientV2",), _cohere_v2, "cohere"),
    Family(
        "cohere v1", "cohere", ("Client",), ("AsyncClient",), _cohere_v1, "cohere.v1, cohere"
    ),
    Family("ollama", "ollama", ("Client",), ("AsyncClient",), _ollama, "ollama"),
    Family("groq", "groq", ("Groq",), ("AsyncGroq",), _chat_completions, "openai.chat"),
    Family(
        "together", "together", ("Together",), ("AsyncTogether",), _chat_completions,
        "openai.chat",
    ),
    Family(
        "fireworks", "fireworks", ("Fireworks",), ("AsyncFireworks",), _chat_completions,
        "openai.chat",
    ),
    Family(
        "cerebras", "cerebras.cloud.sdk", ("Cerebras",), ("AsyncCerebras",), _chat_completions,
        "openai.chat",
    ),
    Family(
        "huggingface_hub", "huggingface_hub", ("InferenceClient",), ("AsyncInferenceClient",),
        _huggingface, "openai.chat",
    ),
    Family(
        "xai_sdk", "xai_sdk", ("sync.client.Client",), ("aio.client.Client",), _xai, "xai",
        shown=("Client", "AsyncClient"),
    ),
    Family(
        "litellm", "litellm", ("litellm",), (), _litellm, "litellm, openai.responses",
        is_module=True,
    ),
)  # fmt: skip


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def family_of(client: Any) -> tuple[Family, bool] | None:
    """Return the family of `client` and whether it is an async client; None when unknown."""
    if isinstance(client, ModuleType):
        for family in FAMILIES:
            if family.is_module and client.__name__ in family.clients:
                return family, False
        return None
    for klass in type(client).__mro__:  # a subclass of a known client is that client too
        for family in FAMILIES:
            if family.is_module or not _under(klass.__module__, family.module):
                continue
            below = klass.__module__[len(family.module) + 1 :]
            names = {klass.__name__, f"{below}.{klass.__name__}"}
            if names & set(family.clients):
                return family, False
            if names & set(family.async_clients):
                return family, True
    return None


def watched_forms(routes: Route, prefix: str = "") -> Iterator[str]:
    """Name every watched method of `routes` as a dotted path (`chats.create().send_message`).

    The clients `with_options()`/`copy()` derive (the same routes again) are left out.
    """
    for name, route in routes.items():
        if isinstance(route, dict):
            yield from watched_forms(route, f"{prefix}{name}.")
        elif isinstance(route, Returns):
            if route.routes is not routes and name not in ("with_options", "copy"):
                yield from watched_forms(route.routes, f"{prefix}{name}().")
        else:
            yield f"{prefix}{name}"


def known_families() -> str:
    """The families `wrap` knows, in one line, for its `TypeError`."""
    return "; ".join(f"{f.name} ({', '.join(f.names())})" for f in FAMILIES)


def routes_of(client: Any) -> Route | None:
    """Say which methods of `client` to watch, from its class; None for an unknown client."""
    while type(client) is Proxy:  # wrapping a wrapped client: both watchers report
        client = client.__wrapped__
    found = family_of(client)
    if found is None:
        return None
    family, is_async = found
    return family.routes(is_async)
