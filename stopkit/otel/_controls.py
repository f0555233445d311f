"""The loop's controls on the agent span: one event per thing a control did (its attributes).

`stopkit.budget_warning` (what was spent of the budget), `stopkit.usage_unknown` (a reply that
did not say its tokens), `stopkit.compacted` (the sizes before and after), `stopkit.tool_denied`
and `stopkit.tool_deferred` (the call, the reason), `stopkit.hook_stopped` (which hook, its
`error.type`). A run the budget ended has the safety net's own event, `stopkit.budget_exceeded`.
"""

from __future__ import annotations

from typing import Any

from stopkit.loop.events import (
    BudgetWarning,
    Compacted,
    HookStopped,
    LoopEvent,
    ToolDeferred,
    ToolDenied,
    UsageUnknown,
)
from stopkit.otel import _names as n
from stopkit.otel._call import error_type, tool_attributes
from stopkit.otel._content import scrub_text

__all__ = ["control_event"]


def control_event(event: LoopEvent) -> tuple[str, dict[str, Any]] | None:
    """Return the span event (name, attributes) for a control's loop event; None for others.

    Example:
        >>> control_event(Compacted(3, 40, 6, 151_000, None))[0]
        'stopkit.compacted'
    """
    facts: dict[str, Any] = {n.TURN: event.turn}  # every loop event says its turn
    if isinstance(event, BudgetWarning):
        spent = event.spent
        facts.update({n.BUDGET_TOKENS: spent.tokens, n.BUDGET_UNKNOWN: spent.unknown})
        if event.max_tokens is not None:
            facts[n.BUDGET_MAX_TOKENS] = event.max_tokens
        if event.max_cost is not None:
            facts.update({n.BUDGET_COST: spent.cost, n.BUDGET_MAX_COST: event.max_cost})
        return "stopkit.budget_warning", facts
    if isinstance(event, UsageUnknown):
        facts.update({n.USAGE_MISSING: event.missing, n.STOP_PROVIDER: event.stop.provider})
        return "stopkit.usage_unknown", facts
    if isinstance(event, Compacted):
        facts.update({n.MESSAGES_BEFORE: event.messages_before,
                      n.MESSAGES_AFTER: event.messages_after,
                      n.TOKENS_BEFORE: event.tokens_before})  # fmt: skip
        if event.tokens_after is not None:
            facts[n.TOKENS_AFTER] = event.tokens_after
        return "stopkit.compacted", facts
    if isinstance(event, ToolDenied | ToolDeferred):
        facts.update(tool_attributes(event.call))
        if event.reason is not None:
            facts[n.CONTROL_REASON] = scrub_text(event.reason)
        name = "tool_denied" if isinstance(event, ToolDenied) else "tool_deferred"
        return f"stopkit.{name}", facts
    if isinstance(event, HookStopped):
        facts.update({n.HOOK: event.hook, n.ERROR_TYPE: error_type(event.error)})
        if event.call is not None:
            facts.update(tool_attributes(event.call))
        return "stopkit.hook_stopped", facts
    return None
