"""The run's budget: tokens or cost, checked before each model call, warned once, never zero.

Scripted runs over the real adapters (`tests/loop/_shapes.py`: every reply there reports 10
input and 5 output tokens, 15 in all), in `run_loop` and `arun_loop`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import stopkit
from stopkit import Termination, Usage
from stopkit.loop import Budget
from stopkit.loop.events import BudgetWarning, UsageUnknown
from tests.loop._controls import MODES, loop
from tests.loop._shapes import (
    PROVIDERS,
    Shapes,
    assert_every_call_answered_once,
    paris,
    tokyo,
)


def without_usage(reply: dict[str, Any]) -> dict[str, Any]:
    """The reply with its usage taken out, as a provider that does not report it sends it."""
    return {k: v for k, v in reply.items() if k not in ("usage", "usageMetadata")}


def tool_turns(p: Shapes, n: int) -> list[dict[str, Any]]:
    """`n` tool requests (a call of `get_weather` each, and some text), then an answer.

    The cities alternate: the same call three times would be a loop (loop detection).
    """
    calls = [paris(f"call_{i}") if i % 2 == 0 else tokyo(f"call_{i}") for i in range(n)]
    return [*(p.tools([call], f"Step {i}.") for i, call in enumerate(calls)), p.text("Done.")]


@pytest.mark.parametrize("mode", MODES)
def test_the_budget_stops_before_the_call_that_would_pass_it(mode: str, p: Shapes) -> None:
    """At 30 of 30 tokens after two replies, the third call is not made; the text is salvaged."""
    outcome, model, _ = loop(mode, p, tool_turns(p, 3), budget=Budget(max_tokens=30))
    assert outcome.termination is Termination.BUDGET_EXCEEDED
    assert len(model.calls) == 2
    assert outcome.turns == 2
    assert outcome.text == "Step 1."  # the last reply's text, as for max_turns
    # The budget counts what the outcome's usage adds up: 30 tokens spent.
    assert outcome.usage is not None
    assert (outcome.usage.input_tokens or 0) + (outcome.usage.output_tokens or 0) == 30
    # The second reply's call never ran: its result could not be sent.
    assert [run.call.id for run in outcome.tool_runs] == ["call_0"]
    assert_every_call_answered_once(p, outcome)
    assert not outcome.ok


@pytest.mark.parametrize("mode", MODES)
def test_a_budget_not_reached_lets_the_run_finish(mode: str, p: Shapes) -> None:
    """45 tokens spent of 46: the run completes, all three calls made."""
    outcome, model, _ = loop(mode, p, tool_turns(p, 2), budget=Budget(max_tokens=46))
    assert outcome.termination is Termination.COMPLETED
    assert len(model.calls) == 3


@pytest.mark.parametrize("mode", MODES)
def test_the_warning_comes_once_past_warn_at(mode: str, p: Shapes) -> None:
    """warn_at=0.25 of 100 tokens: one warning, before the third call (30 spent), none after."""
    budget = Budget(max_tokens=100, warn_at=0.25)
    outcome, _, events = loop(mode, p, tool_turns(p, 4), budget=budget)
    assert outcome.termination is Termination.COMPLETED
    warnings = [e for e in events if isinstance(e, BudgetWarning)]
    assert len(warnings) == 1
    assert (warnings[0].turn, warnings[0].spent.tokens) == (3, 30)
    assert (warnings[0].max_tokens, warnings[0].max_cost) == (100, None)


def test_a_cost_budget_prices_each_reply() -> None:
    """`cost(usage)` prices each reply (0.2 here); at 0.6 of 0.5 the fourth call is not made."""
    priced: list[Usage] = []

    def cost(usage: Usage) -> float:
        priced.append(usage)
        return (usage.input_tokens or 0) * 0.01 + (usage.output_tokens or 0) * 0.02

    p = PROVIDERS[0]
    budget = Budget(cost=cost, max_cost=0.5)
    outcome, model, _ = loop("run_loop", p, tool_turns(p, 4), budget=budget)
    assert outcome.termination is Termination.BUDGET_EXCEEDED
    assert len(model.calls) == 3
    assert priced == [Usage(input_tokens=10, output_tokens=5)] * 3


@pytest.mark.parametrize("mode", MODES)
def test_a_reply_without_usage_is_unknown_spend_said_in_an_event(mode: str, p: Shapes) -> None:
    """No usage on the wire: each reply is reported (`UsageUnknown`), never counted as zero."""
    script = [without_usage(reply) for reply in tool_turns(p, 1)]
    outcome, _, events = loop(mode, p, script, budget=Budget(max_tokens=1_000))
    assert outcome.termination is Termination.COMPLETED
    unknown = [e for e in events if isinstance(e, UsageUnknown)]
    assert [(e.turn, e.missing) for e in unknown] == [
        (1, ("input_tokens", "output_tokens")),
        (2, ("input_tokens", "output_tokens")),
    ]
    assert unknown[0].stop.usage is None


def test_a_reply_missing_one_count_is_counted_in_part_and_reported() -> None:
    """Only the output tokens said: they count, and the missing input count is reported."""
    p = PROVIDERS[0]  # Anthropic
    first, last = tool_turns(p, 1)
    first = {**first, "usage": {"output_tokens": 5}}
    outcome, _, events = loop("run_loop", p, [first, last], budget=Budget(max_tokens=1_000))
    assert [e.missing for e in events if isinstance(e, UsageUnknown)] == [("input_tokens",)]
    warnings = [e for e in events if isinstance(e, BudgetWarning)]
    assert warnings == []
    assert outcome.termination is Termination.COMPLETED


def test_without_a_budget_no_spend_is_reported() -> None:
    """Replies without usage and no budget: no `UsageUnknown` noise."""
    p = PROVIDERS[1]
    script = [without_usage(reply) for reply in tool_turns(p, 1)]
    _, _, events = loop("run_loop", p, script)
    assert not [e for e in events if isinstance(e, UsageUnknown | BudgetWarning)]


def test_a_spent_budget_makes_no_summing_up_call() -> None:
    """An empty final answer with the budget spent: the opt-in summing-up call is not made."""
    p = PROVIDERS[0]
    script = [p.tools([paris()]), p.text("")]
    outcome, model, _ = loop(
        "run_loop", p, script, budget=Budget(max_tokens=30), synthesize_on_empty_final=True
    )
    assert outcome.termination is Termination.COMPLETED
    assert (outcome.text, len(model.calls)) == ("", 2)


def test_a_budget_of_zero_tokens_makes_no_call() -> None:
    """max_tokens=0 is spent before the first call: no call, nothing salvaged."""
    p = PROVIDERS[0]
    outcome, model, _ = loop("run_loop", p, [p.text("Hi.")], budget=Budget(max_tokens=0))
    assert (outcome.termination, len(model.calls), outcome.turns) == (
        Termination.BUDGET_EXCEEDED,
        0,
        0,
    )
    assert outcome.stop is None
    assert outcome.text == ""


@pytest.mark.parametrize(
    ("make", "error", "names"),
    [
        (lambda: Budget(max_tokens=-1), ValueError, "max_tokens"),
        (lambda: Budget(max_tokens=1.5), ValueError, "max_tokens"),  # type: ignore[arg-type]
        (lambda: Budget(max_tokens=True), ValueError, "max_tokens"),
        (lambda: Budget(max_tokens=10, warn_at=0), ValueError, "warn_at"),
        (lambda: Budget(max_tokens=10, warn_at=1.01), ValueError, "warn_at"),
        (lambda: Budget(max_tokens=10, warn_at=-0.5), ValueError, "warn_at"),
        (lambda: Budget(max_tokens=10, warn_at="0.8"), ValueError, "warn_at"),  # type: ignore[arg-type]
        (lambda: Budget(max_tokens=10, warn_at=float("nan")), ValueError, "warn_at"),
        (lambda: Budget(), ValueError, "max_tokens"),
        (lambda: Budget(cost=lambda u: 1.0), ValueError, "max_cost"),
        (lambda: Budget(max_cost=2.0), ValueError, "cost"),
        (lambda: Budget(cost=lambda u: 1.0, max_cost=-2.0), ValueError, "max_cost"),
        (lambda: Budget(cost="cheap", max_cost=2.0), TypeError, "cost"),  # type: ignore[arg-type]
        (lambda: stopkit.LoopSettings(budget=1000), TypeError, "budget"),  # type: ignore[arg-type]
    ],
    ids=[
        "negative", "float", "bool", "warn-zero", "warn-above-one", "warn-negative", "warn-str",
        "warn-nan", "empty", "cost-alone", "max-cost-alone", "negative-cost", "cost-not-callable",
        "not-a-budget",
    ],
)  # fmt: skip
def test_a_bad_budget_is_refused_naming_the_setting(
    make: Callable[[], Any], error: type[Exception], names: str
) -> None:
    """A bad budget raises at construction, naming what is wrong."""
    with pytest.raises(error, match=names):
        make()


@pytest.mark.parametrize(
    ("value", "error"), [("a lot", TypeError), (None, TypeError), (-0.1, ValueError)]
)
def test_a_cost_that_returns_no_price_is_refused_at_the_call(
    value: Any, error: type[Exception]
) -> None:
    """`cost(usage)` returning anything but a number of at least 0 raises, naming `cost`."""
    p = PROVIDERS[0]
    budget = Budget(cost=lambda usage: value, max_cost=1.0)
    with pytest.raises(error, match="cost"):
        loop("run_loop", p, [p.text("Hi.")], budget=budget)
