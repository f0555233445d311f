"""The contract: the closed `StopReason` enum and the result models.

This module imports nothing else from stopkit but its JSON writer (`stopkit._json_out`).
Adapters build `Stop` values; the loop reads them.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, TypeVar

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


# defer_build: the validators are built on first validation, not at import (~16 ms of
# `import stopkit`); adapters build these models without validation (see `_fast_stop`).
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
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    arguments_json: str | None = None
    """The arguments exactly as the provider sent them, when it sent a string."""
    complete: bool = True
    error: str | None = None


class ToolResult(JSONSafe):
    """The result of running one `ToolCall`, as the loop hands it back to an adapter.

    Example:
        >>> ToolResult(call_id="call_1", name="get_weather", content='{"temp": 21}').is_error
        False
    """

    model_config = _FROZEN

    call_id: str
    name: str
    content: str
    """What the model sees: the tool's return value as text (JSON for non-strings)."""
    is_error: bool = False
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
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    """Tokens spent thinking, where the provider counts them apart."""
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
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
        theirs = other.__dict__
        return _fast_usage(
            {name: _plus(mine, theirs[name]) for name, mine in self.__dict__.items()}
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
    raw_reason: str | int | None = None
    """The provider's own stop value exactly as sent (an int where the wire sent one)."""
    provider: str
    """The adapter that read the reply (`anthropic`, `openai.chat`, `gemini`, ...)."""
    detail: str | None = None
    """A documented finer kind, e.g. `max_tokens` vs `context_window`, `refusal` vs `safety`."""
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    refusal: str | None = None
    stop_sequence: str | None = None
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


# Hot path: adapters build a Stop for every model call. Values they assemble are already of the
# right types, so re-validating costs more than the reading itself (model_construct: ~3 µs,
# this: ~0.3 µs). The four slots pydantic's BaseModel declares are set through their own
# descriptors, which skips the attribute lookup `object.__setattr__` does (~25 ns a slot);
# should a pydantic release drop a slot descriptor, `object.__setattr__` stands in.
_new = object.__new__
_set = object.__setattr__


def _slot_setter(name: str) -> Callable[[Any, Any], None]:
    setter: Callable[[Any, Any], None] | None = getattr(
        BaseModel.__dict__.get(name), "__set__", None
    )
    if setter is not None:
        return setter
    return lambda obj, value: _set(obj, name, value)


_set_dict = _slot_setter("__dict__")
_set_fields_set = _slot_setter("__pydantic_fields_set__")
_set_extra = _slot_setter("__pydantic_extra__")
_set_private = _slot_setter("__pydantic_private__")

_Model = TypeVar("_Model", bound=BaseModel)


def unvalidated(cls: type[_Model]) -> Callable[[dict[str, Any]], _Model]:
    """Return a builder of `cls` instances from already-checked values, without validation.

    Every field the values leave out gets its declared default, so a field added to the model
    can never vanish from what a builder made (nor from its `model_dump()`); a name the model
    does not declare, or a required field left out, raises `TypeError`. Internal: adapters'
    values are of the right types by construction (the one `Stop` builder is
    `stopkit.adapters._engine`).

    Example:
        >>> unvalidated(ToolCall)({"id": "c1", "name": "f"}).arguments
        {}
    """
    fields = cls.model_fields
    names = set(fields)  # shared by every instance: pydantic copies it before an update
    count = len(fields)

    def complete(values: dict[str, Any]) -> dict[str, Any]:
        unknown = values.keys() - names
        if unknown:
            raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
        out = {}
        for name, info in fields.items():
            if name in values:
                out[name] = values[name]
            elif info.is_required():
                raise TypeError(f"{cls.__name__}.{name} is required")
            else:
                out[name] = info.get_default(call_default_factory=True)
        return out

    def build(values: dict[str, Any]) -> _Model:
        if len(values) != count:  # a value for every field is the builders' usual call
            values = complete(values)
        obj = _new(cls)
        _set_dict(obj, values)
        _set_fields_set(obj, names)
        _set_extra(obj, None)
        _set_private(obj, None)
        return obj

    return build


_fast_stop = unvalidated(Stop)
_fast_tool_call = unvalidated(ToolCall)
_fast_usage = unvalidated(Usage)
_fast_tool_result = unvalidated(ToolResult)
