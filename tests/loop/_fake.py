"""The provider-agnostic loop tests' fake adapter (the shipped `stopkit.testing.FakeAdapter`).

The fake adapter reads replies of the shape `reply(reason, text, calls, detail)`, so each test
states its script in a line per reply; its messages carry the reply, for tests to inspect.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stopkit.testing import FakeAdapter

__all__ = ["FAKE", "USER", "FakeAdapter", "add", "arun", "boom", "call", "reply", "results_of",
           "run_in"]  # fmt: skip

USER = {"role": "user", "content": "go"}


FAKE = FakeAdapter()
reply = FakeAdapter.reply


def call(call_id: str, name: str = "add", complete: bool = True, **args: Any) -> dict[str, Any]:
    """A fake tool call, of the `add` tool unless named."""
    return FakeAdapter.call(call_id, name, complete, **args)


def add(a: int, b: int) -> int:
    return a + b


def boom(**_: Any) -> None:
    raise ValueError("boom")


def results_of(messages: Sequence[Any]) -> dict[str, list[dict[str, Any]]]:
    """Map each call id to the tool-result messages answering it."""
    found: dict[str, list[dict[str, Any]]] = {}
    for message in messages:
        if message.get("role") == "tool":
            found.setdefault(message["call_id"], []).append(message)
    return found


def arun(loop: Any) -> Any:
    """Run `arun_loop(...)` on a fresh event loop; fail (not hang) if it never ends."""
    import asyncio

    async def guarded() -> Any:
        return await asyncio.wait_for(loop, 30)

    return asyncio.run(guarded())


def run_in(mode: str, call_model: Any, **settings: Any) -> Any:
    """Run from `[USER]` in `run_loop` (mode "run_loop") or `arun_loop` (any other mode)."""
    import stopkit

    if mode == "run_loop":
        return stopkit.run_loop(call_model, [USER], **settings)
    return arun(stopkit.arun_loop(call_model, [USER], **settings))
