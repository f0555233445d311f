"""How each kind of SDK method is watched: one small class per call form, each with `bind`.

- `Call` — returns a reply, or an SDK stream with `stream=True` (`always_stream`: always);
  openai's parse helpers' finish-reason errors are reported too.
- `Helper` — returns a helper's context manager (`messages.stream(...)`, ...).
- `Raw` / `StreamingRaw` — `with_raw_response.<m>` / `with_streaming_response.<m>`.
- `Runner` — anthropic's `tool_runner(...)`.
- `Returns` — returns another object to watch (`with_options()`, genai `chats.create()`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from stopkit._wrap._observe import observed
from stopkit._wrap._proxy import Proxy, Route
from stopkit._wrap._report import Settings
from stopkit._wrap._responses import (
    ResponseManagerProxy,
    ResponseProxy,
    report_failure,
    watch_result,
)
from stopkit._wrap._runner import AsyncRunnerProxy, RunnerProxy
from stopkit._wrap._streams import AsyncHelperStream, HelperStream, ManagerProxy, Watch

__all__ = ["Call", "Helper", "Raw", "Returns", "Runner", "StreamingRaw"]

Method = Callable[..., Any]


class Call:
    """A method returning a reply, or an SDK stream with `stream=True` (or always).

    `is_async`: the method is awaited (an async method returning an async iterator when
    called, as cohere's `chat_stream`, is a plain call). `detect`: the reply's adapter is the
    one that recognizes it, `adapter` while none does (boto3's InvokeModel bodies: Claude's
    are anthropic's).
    """

    def __init__(
        self, adapter: str, *, is_async: bool, always_stream: bool = False, detect: bool = False
    ) -> None:
        self.adapter = adapter
        self.is_async = is_async
        self.always_stream = always_stream
        self.detect = detect

    def _streaming(self, kwargs: dict[str, Any]) -> bool:
        return self.always_stream or kwargs.get("stream") is True

    def bind(self, method: Method, settings: Settings) -> Method:
        """Return `method` watched with `settings`."""
        adapter = self.adapter
        if self.is_async:

            @functools.wraps(method)
            async def acall(*args: Any, **kwargs: Any) -> Any:
                try:
                    result = await method(*args, **kwargs)
                except Exception as exc:
                    report_failure(exc, adapter, settings)
                    raise
                return watch_result(
                    result,
                    adapter,
                    settings,
                    streaming=self._streaming(kwargs),
                    awaited=True,
                    detect=self.detect,
                )

            return observed(acall, adapter, settings.client)

        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                result = method(*args, **kwargs)
            except Exception as exc:
                report_failure(exc, adapter, settings)
                raise
            return watch_result(
                result, adapter, settings, streaming=self._streaming(kwargs), detect=self.detect
            )

        return observed(call, adapter, settings.client)


class Raw(Call):
    """`with_raw_response.<method>`: the SDK's raw response, its `parse()` watched."""

    def bind(self, method: Method, settings: Settings) -> Method:
        """Return `method` whose raw response is watched."""
        adapter = self.adapter
        if self.is_async:

            @functools.wraps(method)
            async def acall(*args: Any, **kwargs: Any) -> Any:
                response = await method(*args, **kwargs)
                return ResponseProxy(response, adapter, settings, self._streaming(kwargs))

            return observed(acall, adapter, settings.client)

        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            response = method(*args, **kwargs)
            return ResponseProxy(response, adapter, settings, self._streaming(kwargs))

        return observed(call, adapter, settings.client)


class StreamingRaw(Call):
    """`with_streaming_response.<method>`: a context manager giving a watched raw response."""

    def bind(self, method: Method, settings: Settings) -> Method:
        """Return `method` whose response manager gives a watched response."""
        adapter = self.adapter

        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:  # a plain call for async clients too
            manager = method(*args, **kwargs)
            return ResponseManagerProxy(manager, adapter, settings, self._streaming(kwargs))

        return observed(call, adapter, settings.client)


class Helper:
    """A helper returning a stream manager: entering it gives the watched helper stream."""

    def __init__(
        self, adapter: str, kinds: tuple[type[HelperStream], type[AsyncHelperStream]]
    ) -> None:
        self.adapter = adapter
        self.kinds = kinds

    def bind(self, method: Method, settings: Settings) -> Method:
        """Return `method` whose manager yields a watched helper stream."""

        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:  # a plain call for async clients too
            watch = Watch(self.adapter, settings)  # its events read as `_forms` says
            return ManagerProxy(method(*args, **kwargs), watch, self.kinds)

        return observed(call, self.adapter, settings.client)


class Runner:
    """anthropic `beta.messages.tool_runner(...)`: every message it produces is watched."""

    def __init__(self, adapter: str, *, is_async: bool) -> None:
        self.adapter = adapter
        self.is_async = is_async

    def bind(self, method: Method, settings: Settings) -> Method:
        """Return `method` whose runner is watched."""
        kind = AsyncRunnerProxy if self.is_async else RunnerProxy

        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:  # a plain call for async clients too
            return kind(method(*args, **kwargs), self.adapter, settings)

        return call


class Returns:
    """A method returning an object to watch too (`with_options()`, genai `chats.create()`)."""

    def __init__(self, routes: Route) -> None:
        self.routes = routes

    def bind(self, method: Method, settings: Settings) -> Method:
        """Return `method` whose result is watched with the same settings."""
        routes = self.routes

        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            return Proxy(method(*args, **kwargs), routes, settings)

        return call
