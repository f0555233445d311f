"""The proxy a wrapped client (and each of its resources) is: routes watched, the rest as is."""

from __future__ import annotations

from typing import Any, Protocol

from stopkit._wrap._report import Settings

__all__ = ["Passthrough", "Proxy", "Route", "Watcher"]


class Watcher(Protocol):
    """How one method is watched: `bind` returns it wrapped for a client's settings."""

    def bind(self, method: Any, settings: Settings) -> Any:
        """Return `method` (an attribute of the SDK object) watched with `settings`."""


Route = dict[str, "Route | Watcher"]
"""Attribute name -> a sub-route (a resource of the client) or the watcher of a method."""


class Proxy:
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
            wrapped: Any = Proxy(value, route, self._stopkit_settings)
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

    def __enter__(self) -> Proxy:
        self.__wrapped__.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.__wrapped__.__exit__(*exc)

    async def __aenter__(self) -> Proxy:
        await self.__wrapped__.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.__wrapped__.__aexit__(*exc)


class Passthrough:
    """An SDK object with some methods replaced: every other attribute is the object's own.

    `isinstance` and `type()`-free checks still see the SDK's class (`__class__` is its).
    """

    __wrapped__: Any

    def __init__(self, wrapped: Any) -> None:
        self.__wrapped__ = wrapped

    def __getattr__(self, name: str) -> Any:
        if name == "__wrapped__":  # not set yet (copying, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.__wrapped__, name)

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # so that isinstance(proxy, openai.Stream) still holds
        return type(self.__wrapped__)

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self.__wrapped__)) | set(super().__dir__()))

    def __repr__(self) -> str:
        return f"<stopkit-watched {self.__wrapped__!r}>"
