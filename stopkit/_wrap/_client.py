"""`stopkit.wrap`: an official provider client whose every reply is normalized on the way out.

The wrapped client is a proxy: the methods that return model replies are watched, everything
else is the client's own attribute. Return values are exactly what the SDK returns (the same
object; for streams, a proxy yielding the same event objects). The client kind is read from its
class's module and name, so no provider SDK is imported here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from stopkit._registry import get_adapter
from stopkit._stop import Stop, StopReason
from stopkit._wrap._streams import (
    AsyncStreamProxy,
    MessageStreamManagerProxy,
    Settings,
    StreamProxy,
    Watch,
    anthropic_wire_events_only,
)

__all__ = ["wrap"]

ClientT = TypeVar("ClientT")


class _Call:
    """A watched method: `create`-like (reply, or a stream when `stream=True`)."""

    def __init__(self, adapter: str, *, is_async: bool, always_stream: bool = False) -> None:
        self.adapter = adapter
        self.is_async = is_async
        self.always_stream = always_stream

    def _watch(self, settings: Settings, keep: Callable[[Any], bool] | None = None) -> Watch:
        return Watch(get_adapter(self.adapter).stream(), settings, keep)

    def _reply(self, reply: Any, settings: Settings) -> Any:
        settings.report(get_adapter(self.adapter).normalize(reply))
        return reply

    def bind(self, method: Callable[..., Any], settings: Settings) -> Callable[..., Any]:
        """Return `method` watched with `settings`."""
        if self.is_async:

            @functools.wraps(method)
            async def acall(*args: Any, **kwargs: Any) -> Any:
                result = await method(*args, **kwargs)
                if self.always_stream or kwargs.get("stream") is True:
                    return AsyncStreamProxy(result, self._watch(settings))
                return self._reply(result, settings)

            return acall

        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            result = method(*args, **kwargs)
            if self.always_stream or kwargs.get("stream") is True:
                return StreamProxy(result, self._watch(settings))
            return self._reply(result, settings)

        return call


class _MessageStream(_Call):
    """anthropic `messages.stream(...)`: a context manager around the `MessageStream` helper."""

    def bind(self, method: Callable[..., Any], settings: Settings) -> Callable[..., Any]:
        """Return `method` whose manager yields a watched `MessageStream`."""

        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            watch = self._watch(settings, anthropic_wire_events_only())
            return MessageStreamManagerProxy(method(*args, **kwargs), watch)

        return call


class _Rewrap:
    """A method returning a new client (`with_options`, `copy`): wrap that one too."""

    def __init__(self, routes: dict[str, Any]) -> None:
        self.routes = routes

    def bind(self, method: Callable[..., Any], settings: Settings) -> Callable[..., Any]:
        """Return `method` whose result is wrapped with the same settings."""
        routes = self.routes

        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            return _Proxy(method(*args, **kwargs), routes, settings)

        return call


Route = dict[str, "Route | _Call | _Rewrap"]


def _anthropic(is_async: bool) -> Route:
    def messages() -> Route:
        return {
            "create": _Call("anthropic", is_async=is_async),
            "parse": _Call("anthropic", is_async=is_async),
            "stream": _MessageStream("anthropic", is_async=is_async),
        }

    return {"messages": messages(), "beta": {"messages": messages()}}


def _openai(is_async: bool) -> Route:
    def calls(adapter: str, *names: str) -> Route:
        return {name: _Call(adapter, is_async=is_async) for name in names}

    return {
        "chat": {"completions": calls("openai.chat", "create", "parse")},
        "responses": calls("openai.responses", "create", "parse", "retrieve"),
    }


def _gemini_models(is_async: bool) -> Route:
    return {
        "models": {
            "generate_content": _Call("gemini", is_async=is_async),
            "generate_content_stream": _Call("gemini", is_async=is_async, always_stream=True),
        }
    }


def _with_rewrap(routes: Route) -> Route:
    rewrap = _Rewrap(routes)
    routes["with_options"] = rewrap
    routes["copy"] = rewrap
    return routes


def _routes_for(client: Any) -> Route:
    """Say which methods of `client` to watch, from its class's module and name."""
    while type(client) is _Proxy:  # wrapping a wrapped client: both watchers report
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
            return _gemini_models(True)
        return {**_gemini_models(False), "aio": _gemini_models(True)}
    raise TypeError(
        f"stopkit.wrap() knows the official anthropic, openai and google-genai clients; "
        f"got {cls.__module__}.{cls.__qualname__}. For another client, call "
        "stopkit.normalize() on its replies (or register an adapter)."
    )


class _Proxy:
    """A client or a resource of it: watched methods by route, every other attribute as is."""

    def __init__(self, target: Any, routes: Route, settings: Settings) -> None:
        object.__setattr__(self, "__wrapped__", target)
        object.__setattr__(self, "_stopkit_routes", routes)
        object.__setattr__(self, "_stopkit_settings", settings)
        object.__setattr__(self, "_stopkit_cache", {})

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_stopkit_") or name == "__wrapped__":
            raise AttributeError(name)
        cache: dict[str, Any] = self._stopkit_cache
        if name in cache:
            return cache[name]
        value = getattr(self.__wrapped__, name)
        route = self._stopkit_routes.get(name)
        if route is None:
            return value
        if isinstance(route, dict):
            wrapped: Any = _Proxy(value, route, self._stopkit_settings)
        else:
            wrapped = route.bind(value, self._stopkit_settings)
        cache[name] = wrapped
        return wrapped

    def __setattr__(self, name: str, value: Any) -> None:
        self._stopkit_cache.pop(name, None)
        setattr(self.__wrapped__, name, value)

    def __delattr__(self, name: str) -> None:
        self._stopkit_cache.pop(name, None)
        delattr(self.__wrapped__, name)

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # isinstance(wrapped, anthropic.Anthropic) still holds
        return type(self.__wrapped__)

    def __dir__(self) -> list[str]:
        return dir(self.__wrapped__)

    def __repr__(self) -> str:
        return f"stopkit.wrap({self.__wrapped__!r})"

    def __enter__(self) -> _Proxy:
        self.__wrapped__.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.__wrapped__.__exit__(*exc)

    async def __aenter__(self) -> _Proxy:
        await self.__wrapped__.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.__wrapped__.__aexit__(*exc)


def wrap(
    client: ClientT,
    *,
    on_stop: Callable[[Stop], object] | None = None,
    raise_on: Iterable[StopReason | str] | StopReason | str = (),
) -> ClientT:
    """Return `client` with every reply normalized on the way out; return values are unchanged.

    Works with the official clients, sync and async: anthropic `Anthropic`/`AsyncAnthropic`
    (`messages.create`/`parse`/`stream`, and `beta.messages.*`), openai `OpenAI`/`AsyncOpenAI`
    (`chat.completions.create`/`parse`, `responses.create`/`parse`/`retrieve`, `stream=True`
    too) and google-genai `genai.Client` (`models.generate_content[_stream]`, `aio.models.*`).
    Each reply's `Stop` goes to `on_stop`; then, if its reason is in `raise_on`, the typed
    error (`TruncatedReply`, `FilteredReply`, `PausedReply`, `UnknownStopReason`, all carrying
    `.stop`) is raised. A stream reports when it ends; closed or broken early, it reports
    `unknown`/`stream_incomplete` (raising only when closed without an exception in flight);
    a stream dropped unread and never closed reports nothing. `on_stop` is called synchronously,
    also for async clients. Other methods (`count_tokens`, `with_raw_response`, genai `chats`,
    openai's `.stream()` helpers, ...) pass through unwatched.

    Example:
        >>> client = stopkit.wrap(anthropic.Anthropic(), raise_on={"output_limit", "filtered"})
        >>> reply = client.messages.create(...)  # doctest: +SKIP
    """
    if isinstance(raise_on, str):
        raise_on = (raise_on,)
    settings = Settings(on_stop, frozenset(StopReason(reason) for reason in raise_on))
    proxy: Any = _Proxy(client, _routes_for(client), settings)
    return proxy  # type: ignore[no-any-return]
