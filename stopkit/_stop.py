"""The contract: the closed `StopReason` enum and the result models.

This module imports nothing else from stopkit but its JSON writer (`stopkit._json_out`).
Adapters build `Stop` values; the loop reads them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from stopkit._json_out import JSONSafe

__all__ = ["Stop", "StopReason", "ToolCall", "ToolResult", "Usage", "add_usage"]


class StopReason(StrEnum):
    """Why the model stopped: a closed set whose values are stable, serialized API.

    Example:
        >>> StopReason("tool_request") is StopReason.TOOL_REQUEST
        True
    """

    TOOL_REQUEST = "tool_request"
    """The model asked the caller to run one or more client tools."""
    COMPLETED = "completed"
    """The model finished its turn."""
    OUTPUT_LIMIT = "output_limit"
    """Cut off by a token ceiling (max tokens, or the context window)."""
    FILTERED = "filtered"
    """A refusal, a safety filter, a blocked prompt or a guardrail."""
    PAUSED = "paused"
    """The provider paused a turn that can be resumed."""
    STOP_SEQUENCE = "stop_sequence"
    """A caller-supplied stop sequence matched (only where the provider says so)."""
    UNKNOWN = "unknown"
    """An unrecognized value, an error-like stop, or no stop signal at all."""


# defer_build: the validators are built on first validation, not at import, which keeps
# `import stopkit` light (benchmarks/README.md, "import").
_FROZEN = ConfigDict(
    frozen=True, extra="forbid", arbitrary_types_allowed=True, defer_build=True
)


class ToolCall(JSONSafe):
    """One client-executable tool call the model asked for.

    A call with `complete=False` (cut off, or arguments that are not a JSON object) must never
    be executed; `error` says what was wrong with it.

    Example:
        >>> ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"}).complete
        True
    """

    model_config = _FROZEN

    id: str
    """The call's id, as the provider gave it (its result goes back under it); made up, stable
    and distinct (`call_<n>`) where the provider gives none (Ollama, Cohere v1)."""
    name: str
    """The tool the model asked for, by the name it was declared under."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """The arguments, parsed into a JSON object; `{}` when they could not be read (then
    `complete` is False)."""
    arguments_json: str | None = None
    """The arguments exactly as the provider sent them, when it sent a string."""
    complete: bool = True
    """False when the call was cut off, its arguments are not a JSON object, or the stop value
    says the call itself is bad: such a call is never executed."""
    error: str | None = None
    """What is wrong with an incomplete call, in words; None for a complete one."""


class ToolResult(JSONSafe):
    """The result of running one `ToolCall`, as the loop hands it back to an adapter.

    Example:
        >>> ToolResult(call_id="call_1", name="get_weather", content='{"temp": 21}').is_error
        False
    """

    model_config = _FROZEN

    call_id: str
    """The `ToolCall.id` this result answers."""
    name: str
    """The tool that ran (the call's `name`)."""
    content: str
    """What the model sees: the tool's return value as text (JSON for non-strings)."""
    is_error: bool = False
    """True when the call failed, timed out, was denied or was never run: `content` says why,
    and the adapter marks the result as an error where the provider has a way to."""
    value: Any = Field(default=None, exclude=True, repr=False)
    """The tool's return value itself, untouched (not serialized)."""


class Usage(BaseModel):
    """Token counts of one reply, as the provider reported them (None where it did not say).

    Each wire format counts its own way, and the counts are kept that way: Anthropic's
    `input_tokens` leaves out cache reads and writes (they have their own fields); Gemini's
    output count leaves out thinking (`reasoning_tokens`), OpenAI's includes it. A 0 the provider
    sent stays 0; an absent count is None. The provider's own usage object is kept in
    `Stop.details["usage"]`.

    Example:
        >>> Usage(input_tokens=12, output_tokens=40).reasoning_tokens is None
        True
    """

    model_config = _FROZEN

    input_tokens: int | None = None
    """The prompt's tokens, as the provider counts them (Anthropic's and Bedrock's leave out
    cache reads and writes)."""
    output_tokens: int | None = None
    """The reply's tokens, as the provider counts them (Gemini's leave out thinking)."""
    reasoning_tokens: int | None = None
    """Tokens spent thinking, where the provider counts them apart."""
    cache_read_tokens: int | None = None
    """Prompt tokens read from the provider's prompt cache."""
    cache_write_tokens: int | None = None
    """Prompt tokens written to the provider's prompt cache."""
    total_tokens: int | None = None
    """The provider's own total, when it sends one (never computed here)."""

    def __add__(self, other: Usage) -> Usage:
        """Return the counts of two replies added up, field by field.

        A count either side said is summed (the other side's None counts as nothing); a field
        neither said stays None. Both sides must count the same way: replies of one adapter.

        Example:
            >>> total = Usage(input_tokens=10, output_tokens=5) + Usage(input_tokens=7)
            >>> total.input_tokens, total.output_tokens, total.reasoning_tokens
            (17, 5, None)
        """
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            **{
                name: _plus(getattr(self, name), getattr(other, name))
                for name in Usage.model_fields
            }
        )


def add_usage(total: Usage | None, usage: Usage | None) -> Usage | None:
    """Return `total + usage`, where None (no count said) adds nothing (internal).

    Example:
        >>> add_usage(None, Usage(input_tokens=3)).input_tokens
        3
    """
    if usage is None:
        return total
    return usage if total is None else total + usage


def _plus(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else a + b


class Stop(JSONSafe):
    """Why one reply stopped, and everything the caller needs to act on it.

    Built by an adapter; immutable. `raw` is the reply object itself, never serialized.

    Example:
        >>> import stopkit
        >>> stop = stopkit.normalize({"type": "message", "role": "assistant",
        ...     "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn"})
        >>> (stop.reason, stop.raw_reason, stop.text)
        (<StopReason.COMPLETED: 'completed'>, 'end_turn', 'Hi')
    """

    model_config = _FROZEN

    reason: StopReason
    """Why the model stopped, one of the closed set: what the caller must do next."""
    raw_reason: str | int | None = None
    """The provider's own stop value exactly as sent (an int where the wire sent one)."""
    provider: str
    """The adapter that read the reply (`anthropic`, `openai.chat`, `gemini`, ...)."""
    detail: str | None = None
    """A documented finer kind, e.g. `max_tokens` vs `context_window`, `refusal` vs `safety`."""
    text: str = ""
    """The reply's visible text (thinking and reasoning excluded); `""` when there is none."""
    tool_calls: tuple[ToolCall, ...] = ()
    """The client-executable tool calls, in order (server-executed tools are not among them);
    only those of a tool request are to be run: see `runnable_tool_calls`."""
    refusal: str | None = None
    """The model's refusal message, where the provider sends one apart from the text
    (OpenAI's `message.refusal`, a Responses refusal part)."""
    stop_sequence: str | None = None
    """The caller's stop sequence that matched, where the provider names it."""
    notes: tuple[str, ...] = ()
    """Every reconciliation the adapter made, in words."""
    model: str | None = None
    """The model that wrote the reply, as the provider reported it (None where not said)."""
    response_id: str | None = None
    """The reply's id, as the provider reported it (None where not said)."""
    usage: Usage | None = None
    """Token counts as the provider reported them; None when the reply carries none."""
    details: dict[str, Any] = Field(default_factory=dict)
    """Provider extras worth keeping (stop_details, incomplete_details, safety ratings, ...)."""
    raw: Any = Field(default=None, exclude=True, repr=False)
    """The reply object itself, untouched."""

    @property
    def runnable_tool_calls(self) -> tuple[ToolCall, ...]:
        """The calls that may be executed: the complete ones, and only on a tool request."""
        if self.reason is not StopReason.TOOL_REQUEST:
            return ()
        return tuple(call for call in self.tool_calls if call.complete)
