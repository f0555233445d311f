"""`stopkit.wrap(client, methods={...})`: watch the named methods of any client.

Each key is a method's dotted path on the client (`"chat.complete"`), each value the name of the
adapter that reads what it returns (`"openai.chat"`, or one registered with
`stopkit.register_adapter`). A method is watched as a built-in route is: awaited when it is a
coroutine function, a stream when called with `stream=True` or when it returns one of the
forms `stopkit._forms` lists. The paths are checked when the client is wrapped, so
that a typo fails at once, naming the path.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from stopkit._registry import get_adapter
from stopkit._wrap._calls import Call
from stopkit._wrap._proxy import Route

__all__ = ["merged", "method_routes"]


def method_routes(client: Any, methods: Mapping[str, str]) -> Route:
    """Return the routes watching each method of `methods` with its adapter."""
    routes: Route = {}
    for path, adapter in methods.items():
        if not isinstance(path, str) or not all(path.split(".")):
            raise ValueError(f"methods: {path!r} is not a dotted method path like 'chat.complete'")
        if not isinstance(adapter, str):
            raise TypeError(
                f"methods: {path!r} names {adapter!r}; name an adapter ('openai.chat', or one "
                "registered with stopkit.register_adapter)"
            )
        get_adapter(adapter)  # an unknown name fails now, naming the adapters there are
        *parents, name = path.split(".")
        target, node = client, routes
        for depth, part in enumerate([*parents, name]):
            try:
                target = getattr(target, part)
            except AttributeError:
                where = ".".join(parents[:depth]) or "the client"
                raise ValueError(
                    f"methods: {path!r}: {where} has no attribute {part!r}"
                ) from None
            if depth < len(parents):
                node = node.setdefault(part, {})  # type: ignore[assignment]
        if not callable(target):
            raise ValueError(f"methods: {path!r} is a {type(target).__name__}, not a method")
        node[name] = Call(adapter, is_async=inspect.iscoroutinefunction(target))
    return routes


def merged(base: Route, extra: Route) -> Route:
    """Return `base` with the routes of `extra` added, a method of `extra` winning."""
    result = dict(base)
    for name, route in extra.items():
        below = result.get(name)
        if isinstance(route, dict) and isinstance(below, dict):
            result[name] = merged(below, route)
        else:
            result[name] = route
    return result
