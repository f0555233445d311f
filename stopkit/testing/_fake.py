"""`FakeAdapter`: an adapter for handler tests, whose replies are written in a line each.

Public as `stopkit.testing.FakeAdapter`; stopkit's own loop tests are written with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from stopkit._stop import Stop, StopReason, ToolCall, ToolResult, Usage

__all__ = ["FakeAdapter"]


class FakeAdapter:
    """An adapter for testing handlers: it reads replies built by `FakeAdapter.reply`.

    Script a `ScriptedModel` with fake replies, each saying in one line why it stopped, and run
    the loop with `adapter=FakeAdapter()`: every reason, detail, tool call and usage is yours to
    choose, no provider's format needed. The messages it builds carry the reply itself
    (`{"role": "assistant", "reply": ...}`, one `{"role": "tool", "call_id": ...}` per result,
    `{"role": "user", "content": ...}`), so a test reads what the loop sent back. A paused reply
    resumes with the overrides `{"resume_id": <the reply's "id">}`. Fake replies are whole
    replies: `stream()` raises `TypeError`.

    Example:
        >>> import stopkit
        >>> from stopkit.testing import FakeAdapter, ScriptedModel
        >>> model = ScriptedModel([FakeAdapter.reply("output_limit", "Once up"),
        ...                        FakeAdapter.reply("completed", "Once upon a time.")])
        >>> outcome = stopkit.run_loop(model, "Tell a story.", adapter=FakeAdapter(),
        ...                            max_tokens=100)
        >>> outcome.text, model.calls[1].overrides
        ('Once upon a time.', {'max_tokens': 200})
    """

    name = "fake"
    tables: ClassVar[dict[str, dict[str, tuple[StopReason, str | None]]]] = {}

    @staticmethod
    def reply(
        reason: str | StopReason,
        text: str = "",
        calls: Sequence[dict[str, Any]] = (),
        detail: str | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """Return a fake reply: why it stopped, its text and tool calls (see `FakeAdapter.call`).

        `extra` keys are kept on the reply: `raw=` (its raw stop value; default the reason),
        `usage=` (a dict of `Usage` fields), `id=` (what a resume sends), any of your own.

        Example:
            >>> FakeAdapter.reply("completed", "Hi")
            {'fake': True, 'reason': 'completed', 'text': 'Hi', 'calls': [], 'detail': None}
        """
        return {"fake": True, "reason": StopReason(reason).value, "text": text,
                "calls": list(calls), "detail": detail, **extra}  # fmt: skip

    @staticmethod
    def call(call_id: str, name: str, complete: bool = True, **args: Any) -> dict[str, Any]:
        """Return a fake tool call: its id, the tool's name, its arguments; `complete=False` is cut.

        Example:
            >>> FakeAdapter.call("c1", "get_weather", city="Paris")
            {'id': 'c1', 'name': 'get_weather', 'args': {'city': 'Paris'}, 'complete': True}
        """
        return {"id": call_id, "name": name, "args": args, "complete": complete}

    def detects(self, reply: Any) -> bool:
        """Say whether `reply` is a fake reply (`FakeAdapter.reply` builds them)."""
        return isinstance(reply, dict) and reply.get("fake") is True

    def detects_event(self, event: Any) -> bool:
        """Say no: fake replies are never streamed."""
        return False

    def normalize(self, reply: Any) -> Stop:
        """Return the `Stop` a fake reply says, exactly as written.

        Built unvalidated (`model_construct`) and with no reconciliation, so that a test can
        hand a handler any `Stop` a provider might send: a raw value of any type, a cut call.
        """
        calls = tuple(
            ToolCall.model_construct(
                id=call["id"],
                name=call["name"],
                arguments=call.get("args", {}),
                arguments_json=None,
                complete=call.get("complete", True),
                error=None if call.get("complete", True) else "cut off",
            )
            for call in reply.get("calls", ())
        )
        usage = reply.get("usage")
        return Stop.model_construct(
            reason=StopReason(reply["reason"]),
            raw_reason=reply.get("raw", reply["reason"]),
            provider=self.name,
            detail=reply.get("detail"),
            text=reply.get("text", ""),
            tool_calls=calls,
            refusal=None,
            stop_sequence=None,
            notes=(),
            usage=Usage(**usage) if usage else None,
            details={},
            raw=reply,
        )

    def normalize_all(self, reply: Any) -> tuple[Stop, ...]:
        """Return the reply's one `Stop`."""
        return (self.normalize(reply),)

    def stream(self) -> Any:
        """Raise `TypeError`: a fake reply is a whole reply, never a stream."""
        raise TypeError("FakeAdapter reads whole replies only: script a stream with a real adapter")

    def assistant_message(self, stop: Stop) -> list[dict[str, Any]]:
        """Return the message appending the reply: `{"role": "assistant", "reply": <the reply>}`."""
        return [{"role": "assistant", "reply": stop.raw}]

    def tool_results(self, stop: Stop, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Return one `{"role": "tool", "call_id", "content", "is_error"}` message per result."""
        return [
            {"role": "tool", "call_id": r.call_id, "content": r.content, "is_error": r.is_error}
            for r in results
        ]

    def resume(self, stop: Stop) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Resume a paused reply: append it, and call again with `{"resume_id": <its id>}`."""
        return self.assistant_message(stop), {"resume_id": stop.raw.get("id")}

    def user_message(self, text: str) -> dict[str, Any]:
        """Return `{"role": "user", "content": text}`."""
        return {"role": "user", "content": text}
