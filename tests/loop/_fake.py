"""A fake adapter and a reply builder for the provider-agnostic loop tests.

The fake adapter reads replies of the shape `reply(reason, text, calls, detail)`, so each test
states its script in a line per reply; its messages carry the reply, for tests to inspect.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stopkit import Stop, StopReason, ToolCall, ToolResult, Usage

USER = {"role": "user", "content": "go"}


class FakeAdapter:
    """Reads `reply(...)` dicts; its messages carry the reply, for tests to inspect."""

    name = "fake"
    tables: dict[str, dict[str, Any]] = {}  # noqa: RUF012 -- the protocol's attribute

    def detects(self, reply: Any) -> bool:
        return isinstance(reply, dict) and reply.get("fake") is True

    def detects_event(self, event: Any) -> bool:
        return False

    def normalize(self, reply: Any) -> Stop:
        calls = tuple(
            ToolCall.model_construct(
                id=c["id"],
                name=c["name"],
                arguments=c.get("args", {}),
                arguments_json=None,
                complete=c.get("complete", True),
                error=None if c.get("complete", True) else "cut off",
            )
            for c in reply.get("calls", ())
        )
        return Stop.model_construct(
            reason=StopReason(reply["reason"]),
            raw_reason=reply.get("raw", reply["reason"]),
            provider="fake",
            detail=reply.get("detail"),
            text=reply.get("text", ""),
            tool_calls=calls,
            refusal=None,
            stop_sequence=None,
            notes=(),
            usage=Usage(**reply["usage"]) if reply.get("usage") else None,
            details={},
            raw=reply,
        )

    def normalize_all(self, reply: Any) -> tuple[Stop, ...]:
        return (self.normalize(reply),)

    def stream(self) -> Any:
        raise NotImplementedError

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        return [{"role": "assistant", "reply": stop.raw}]

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        return [
            {"role": "tool", "call_id": r.call_id, "content": r.content, "is_error": r.is_error}
            for r in results
        ]

    def resume(self, stop: Stop) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        return [{"role": "assistant", "reply": stop.raw}], {"resume_id": stop.raw.get("id")}


FAKE = FakeAdapter()


def reply(
    reason: str,
    text: str = "",
    calls: Sequence[dict[str, Any]] = (),
    detail: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    return {"fake": True, "reason": reason, "text": text, "calls": list(calls), "detail": detail,
            **extra}  # fmt: skip


def call(call_id: str, name: str = "add", complete: bool = True, **args: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "args": args, "complete": complete}


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
