"""Which lines deserve another try, and the request each one is sent again as.

- `output_limit` (`max_tokens`): the ceiling raised (x2 by default), clamped by
  `--max-tokens-cap` and the model's documented cap; never an identical request.
- `output_limit` (`context_window`, `reasoning`): listed only, unless a reasoning budget is
  given: then the thinking budget is set to it (a `reasoning` reply's ceiling is raised too;
  where the API has no token budget, OpenAI, the ceiling grows by the budget instead).
- `expired` and retryable errors (rate limits, overload, server errors): sent as they were.
- Anything else (`filtered`, `unknown`, other errors, canceled): never resubmitted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from stopkit import StopReason
from stopkit.batch._caps import output_cap
from stopkit.batch._record import RequestOutcome
from stopkit.batch._report import Group
from stopkit.batch._requests import Ceiling, budget, ceiling, model_of

__all__ = ["Plan", "ResubmitOptions", "plan", "retryable", "wanted"]

# Error codes worth a second try unchanged. Sources: Anthropic error types
# (platform.claude.com/docs/en/api/errors: api_error, overloaded_error, rate_limit_error,
# timeout_error), OpenAI error codes (platform.openai.com/docs/guides/error-codes), google.rpc.Code
# (RESOURCE_EXHAUSTED, UNAVAILABLE, INTERNAL, DEADLINE_EXCEEDED, ABORTED), Bedrock runtime
# exceptions (ThrottlingException, ModelTimeoutException, ...). HTTP 408, 429 and 5xx too.
_RETRYABLE = frozenset(
    {
        "api_error", "overloaded_error", "rate_limit_error", "timeout_error",
        "rate_limit_exceeded", "server_error", "engine_overloaded", "timeout",
        "RESOURCE_EXHAUSTED", "UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED", "ABORTED",
        "ThrottlingException", "ModelTimeoutException", "InternalServerException",
        "ServiceUnavailableException", "ModelNotReadyException",
    }
)  # fmt: skip


def retryable(code: str | None) -> bool:
    """Whether an error code is worth a second try unchanged (an overload, not a bad request).

    Example:
        >>> retryable("overloaded_error"), retryable("http_503"), retryable("invalid_request_error")
        (True, True, False)
    """
    if code is None:
        return False
    if code in _RETRYABLE:
        return True
    digits = code.removeprefix("http_")
    return digits.isdigit() and (int(digits) in (408, 429) or 500 <= int(digits) < 600)


@dataclass(frozen=True)
class ResubmitOptions:
    """How the follow-up batch is made.

    Example:
        >>> ResubmitOptions(factor=4, max_tokens_cap=8192).factor
        4
    """

    factor: float = 2
    """A truncated request's ceiling is multiplied by this."""
    max_tokens_cap: int | None = None
    """No raised ceiling goes over this (nor over the model's documented cap)."""
    reasoning_budget: int | None = None
    """Resubmit `context_window` and `reasoning` truncations with this thinking budget."""


class Plan(NamedTuple):
    """What to do with one request: the line to send (with `action`), or why not (`skip`)."""

    line: dict[str, Any] | None
    action: str | None = None
    skip: str | None = None
    field: str | None = None
    """The changed field's path, dotted (`body.max_completion_tokens`)."""
    old: int | None = None
    new: int | None = None


_HELD = ("context_window", "reasoning")


def wanted(group: Group, options: ResubmitOptions) -> bool:
    """Whether lines of this group are resubmitted at all (before their request is read)."""
    if group.outcome is RequestOutcome.REPLIED:
        if group.reason is not StopReason.OUTPUT_LIMIT:
            return False
        return group.detail not in _HELD or options.reasoning_budget is not None
    if group.outcome is RequestOutcome.ERRORED:
        return retryable(group.detail)
    return group.outcome is RequestOutcome.EXPIRED


def _set(line: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """A copy of `line` with `value` at `path`, copying only the dicts along the path."""
    head, *rest = path
    if not rest:
        return {**line, head: value}
    inner = line.get(head)
    return {**line, head: _set(inner if type(inner) is dict else {}, tuple(rest), value)}


def _clamp(value: int, cap: int | None, options: ResubmitOptions) -> int:
    for limit in (cap, options.max_tokens_cap):
        if limit is not None:
            value = min(value, limit)
    return value


def _raised(value: int, cap: int | None, options: ResubmitOptions) -> int:
    """The ceiling times the factor, at least one token more (1 x 1.5 rounds down), capped."""
    return _clamp(max(int(value * options.factor), value + 1), cap, options)


def _budget_plan(
    group: Group, line: dict[str, Any], fmt: str, found: Ceiling, cap: int | None,
    options: ResubmitOptions, n: int,
) -> Plan:  # fmt: skip
    """Resubmit a `context_window` or `reasoning` truncation with a thinking budget of `n`."""
    where = budget(line, fmt)
    if where is None:
        return _room_plan(group, line, found, cap, options, n)
    top = found.value
    if group.detail == "reasoning" and top is not None:  # the ceiling went to thinking: raise it
        top = max(top, _raised(top, cap, options))
    if top is not None and n >= top:  # Anthropic requires budget_tokens < max_tokens
        return Plan(None, skip="budget_not_below_ceiling")
    path, key, extra, replaces = where
    config = _object_at(line, path)
    kept = {k: v for k, v in config.items() if k not in replaces}
    updated = _set(line, path, {**kept, **extra, key: n})
    if top != found.value:
        updated = _set(updated, found.path, top)
    if updated == line:  # the budget it had, and no room to raise: never an identical request
        return Plan(None, skip="same_budget")
    old = config.get(key)
    field = ".".join((*path, key))
    return Plan(updated, "reasoning_budget", None, field, old if type(old) is int else None, n)


def _room_plan(
    group: Group, line: dict[str, Any], found: Ceiling, cap: int | None,
    options: ResubmitOptions, n: int,
) -> Plan:  # fmt: skip
    """No thinking budget in this API (OpenAI): resubmit with room for `n` more tokens instead."""
    if group.detail == "context_window" or found.value is None:
        return Plan(None, skip="no_budget_field")
    new = _clamp(found.value + n, cap, options)
    if new <= found.value:
        return Plan(None, skip="at_cap")
    field = ".".join(found.path)
    return Plan(_set(line, found.path, new), "reasoning_budget", None, field, found.value, new)


def _object_at(line: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """The object at `path` in the line (`{}` where the path holds none)."""
    current: Any = line
    for name in path:
        current = current.get(name) if type(current) is dict else None
    return current if type(current) is dict else {}


def plan(group: Group, line: dict[str, Any], fmt: str, options: ResubmitOptions) -> Plan:
    """The request to send again for one line of a wanted group, or the cause not to."""
    if group.outcome is RequestOutcome.EXPIRED:
        return Plan(line, "as_is_expired")
    if group.outcome is RequestOutcome.ERRORED:
        return Plan(line, "as_is_retryable_error")
    found = ceiling(line, fmt)
    if found is None:
        return Plan(None, skip="no_ceiling_field")
    cap = output_cap(model_of(line, fmt) or group.model)
    if group.detail in _HELD and options.reasoning_budget is not None:
        n = options.reasoning_budget
        return _budget_plan(group, line, fmt, found, cap, options, n)
    if found.value is None:
        return Plan(None, skip="no_ceiling")
    new = _raised(found.value, cap, options)
    if new <= found.value:
        return Plan(None, skip="at_cap")
    field = ".".join(found.path)
    return Plan(_set(line, found.path, new), "raise_max_tokens", None, field, found.value, new)
