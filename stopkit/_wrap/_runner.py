"""anthropic's tool runner (`beta.messages.tool_runner(...)`), watched: every message it produces.

The runner makes one model call per turn and yields each turn's message (or, with
`stream=True`, each turn's `MessageStream`). Each message is reported as it is yielded; each
stream is a watched helper stream, and before the runner moves on to the next turn (or
finishes) the rest of the previous stream is read through the proxy, as the runner itself
would read it, so that its `Stop` is reported — and `raise_on` raises — before the next call.
"""

from __future__ import annotations

from typing import Any

from stopkit._wrap._proxy import Passthrough
from stopkit._wrap._report import Settings, stops_of
from stopkit._wrap._streams import (
    AnthropicHelperStream,
    AsyncAnthropicHelperStream,
    Watch,
)

__all__ = ["AsyncRunnerProxy", "RunnerProxy"]


class _Runner(Passthrough):
    def __init__(self, runner: Any, adapter: str, settings: Settings) -> None:
        super().__init__(runner)
        self._adapter = adapter
        self._settings = settings
        self._open: Any = None  # the last turn's watched stream, until it is settled

    def _item(self, item: Any, stream_kind: type) -> Any:
        if hasattr(item, "get_final_message"):  # stream=True: one MessageStream per turn
            watch = Watch(self._adapter, self._settings)
            watch.read_as(item)
            self._open = stream_kind(item, watch)
            return self._open
        self._settings.report(stops_of(item, self._adapter), item)
        return item


class RunnerProxy(_Runner):
    """A sync tool runner: iterate it, or `until_done()`, as the SDK's own."""

    def _settle(self) -> None:
        stream, self._open = self._open, None
        if stream is not None:
            stream.until_done()

    def __iter__(self) -> RunnerProxy:
        return self

    def __next__(self) -> Any:
        self._settle()
        return self._item(next(self.__wrapped__), AnthropicHelperStream)

    def until_done(self) -> Any:
        """Run the loop to its end (every turn watched); return the SDK's last message."""
        for _ in self:
            pass
        return self.__wrapped__.until_done()


class AsyncRunnerProxy(_Runner):
    """An async tool runner: `async for` it, or `await until_done()`, as the SDK's own."""

    async def _settle(self) -> None:
        stream, self._open = self._open, None
        if stream is not None:
            await stream.until_done()

    def __aiter__(self) -> AsyncRunnerProxy:
        return self

    async def __anext__(self) -> Any:
        await self._settle()
        return self._item(await anext(self.__wrapped__), AsyncAnthropicHelperStream)

    async def until_done(self) -> Any:
        """Run the loop to its end (every turn watched); return the SDK's last message."""
        async for _ in self:
            pass
        return await self.__wrapped__.until_done()
