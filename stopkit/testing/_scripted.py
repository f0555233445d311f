"""`ScriptedModel`: a `call_model` that replays scripted replies; `cassette_replies` to script it.

Public as `stopkit.testing.ScriptedModel`, `ModelCall`, `ScriptExhausted`, `cassette_replies`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stopkit.record._recordings import read_cassette, reply_kind

__all__ = ["ModelCall", "ScriptExhausted", "ScriptedModel", "cassette_replies"]


class ScriptExhausted(AssertionError):
    """The code under test called a `ScriptedModel` more often than its script has replies."""


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One call a `ScriptedModel` received: the messages as they were then, and the overrides."""

    messages: tuple[Any, ...]
    """The messages the call was given, as they were at the time of the call."""
    overrides: dict[str, Any]
    """The overrides the call was given (`max_tokens`, `tool_choice`, ...)."""


class ScriptedModel:
    """A `call_model` that replays scripted replies in order and records every call.

    Each entry of the script is returned as the reply of one call; an exception instance (or
    class) is raised instead. A call past the end raises `ScriptExhausted`, saying how many
    replies there were. Use the object itself as a sync `call_model`, `model.acall` as an async one.

    Example:
        >>> model = ScriptedModel([RuntimeError("rate limited")])
        >>> model([])
        Traceback (most recent call last):
        ...
        RuntimeError: rate limited
    """

    def __init__(self, replies: Iterable[Any]) -> None:
        self.replies: list[Any] = list(replies)
        self.calls: list[ModelCall] = []

    @property
    def remaining(self) -> int:
        """How many scripted replies have not been used yet."""
        return len(self.replies) - len(self.calls)

    def __call__(self, messages: Sequence[Any], **overrides: Any) -> Any:
        """Record the call and return (or raise) the next scripted reply."""
        index = len(self.calls)
        # A snapshot: the loop keeps appending to the list it passed.
        self.calls.append(ModelCall(tuple(messages), dict(overrides)))
        if index >= len(self.replies):
            raise ScriptExhausted(
                f"ScriptedModel: call {index + 1} was made but the script has only "
                f"{len(self.replies)} replies (overrides of the extra call: {overrides!r})"
            )
        reply = self.replies[index]
        if isinstance(reply, BaseException) or (
            isinstance(reply, type) and issubclass(reply, BaseException)
        ):
            raise reply
        return reply

    async def acall(self, messages: Sequence[Any], **overrides: Any) -> Any:
        """Record the call and return (or raise) the next scripted reply, as a coroutine."""
        return self(messages, **overrides)

    def __repr__(self) -> str:
        return f"ScriptedModel({len(self.replies)} replies, {len(self.calls)} calls made)"


def cassette_replies(path: str | Path) -> list[Any]:
    """Return the LLM replies a cassette or HAR file recorded, in order, for a `ScriptedModel`.

    Each is the reply's JSON body, or a stream's list of events (which the loop reads as a
    stream). The cassette's other exchanges (a token request, a model list) and its error
    responses are left out. See `stopkit.record.read_cassette` for the formats read.

    Example:
        >>> model = ScriptedModel(cassette_replies("cassettes/test_agent.yaml"))  # doctest: +SKIP
        >>> outcome = stopkit.run_loop(model, "Weather in Paris?", tools=tools)  # doctest: +SKIP
    """
    return [
        payload.events if payload.is_stream else payload.reply
        for payload in read_cassette(path)
        if reply_kind(payload) == "reply"
    ]
