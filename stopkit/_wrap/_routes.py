"""Which methods of each official client return replies: the one table of watched call forms.

The client kind is read from its class's module and name, so no provider SDK is imported.
Sources: anthropic/resources/messages/messages.py, anthropic/resources/beta/messages/
messages.py; openai/resources/chat/completions/completions.py, openai/resources/responses/
responses.py, openai/resources/beta/beta.py (`beta.chat` is the same `Chat`),
openai/resources/beta/responses/responses.py; google/genai/models.py and chats.py.
"""

from __future__ import annotations

from typing import Any

from stopkit._wrap._calls import Call, Helper, Raw, Returns, Runner, StreamingRaw
from stopkit._wrap._proxy import Proxy, Route
from stopkit._wrap._streams import (
    AnthropicHelperStream,
    AsyncAnthropicHelperStream,
    AsyncHelperStream,
    HelperStream,
    anthropic_wire_event,
    chat_helper_chunk,
)

__all__ = ["routes_for"]


def _calls(adapter: str, is_async: bool, *names: str) -> Route:
    """The reply-returning methods `names`, with their raw-response forms."""
    return {
        **{name: Call(adapter, is_async=is_async) for name in names},
        "with_raw_response": {name: Raw(adapter, is_async=is_async) for name in names},
        "with_streaming_response": {
            name: StreamingRaw(adapter, is_async=is_async) for name in names
        },
    }


def _anthropic(is_async: bool) -> Route:
    def messages(beta: bool) -> Route:
        route = _calls("anthropic", is_async, "create", "parse")
        route["stream"] = Helper(
            "anthropic", (AnthropicHelperStream, AsyncAnthropicHelperStream), anthropic_wire_event
        )
        if beta:
            route["tool_runner"] = Runner("anthropic", is_async=is_async)
        return route

    return {"messages": messages(False), "beta": {"messages": messages(True)}}


def _openai(is_async: bool) -> Route:
    completions = _calls("openai.chat", is_async, "create", "parse", "retrieve")
    completions["stream"] = Helper(
        "openai.chat", (HelperStream, AsyncHelperStream), chat_helper_chunk
    )
    chat: Route = {"completions": completions}
    responses = _calls("openai.responses", is_async, "create", "parse", "retrieve")
    responses["stream"] = Helper("openai.responses", (HelperStream, AsyncHelperStream))
    beta_responses = _calls("openai.responses", is_async, "create", "retrieve")
    beta: Route = {"chat": chat, "responses": beta_responses}
    return {"chat": chat, "responses": responses, "beta": beta}


def _gemini(is_async: bool) -> Route:
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


def _with_rewrap(routes: Route) -> Route:
    rewrap = Returns(routes)
    routes["with_options"] = rewrap
    routes["copy"] = rewrap
    return routes


def routes_for(client: Any) -> Route:
    """Say which methods of `client` to watch, from its class's module and name."""
    while type(client) is Proxy:  # wrapping a wrapped client: both watchers report
        client = client.__wrapped__
    cls = type(client)
    package = cls.__module__.split(".")[0]
    name = cls.__name__
    if package == "anthropic" and hasattr(client, "messages"):
        return _with_rewrap(_anthropic(name.startswith("Async")))
    if package == "openai" and hasattr(client, "chat"):
        return _with_rewrap(_openai(name.startswith("Async")))
    if cls.__module__.startswith("google.genai") and hasattr(client, "models"):
        if name == "AsyncClient":
            return _gemini(True)
        return {**_gemini(False), "aio": _gemini(True)}
    raise TypeError(
        f"stopkit.wrap() knows the official anthropic, openai and google-genai clients; "
        f"got {cls.__module__}.{cls.__qualname__}. For another client, call "
        "stopkit.normalize() on its replies (or register an adapter)."
    )
