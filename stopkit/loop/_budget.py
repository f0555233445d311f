"""`Budget`: what a run may spend, in tokens or money; `Tally`: what one run has spent.

The run adds each reply's usage to its tally as the reply arrives (a replayed reply too, so a
rerun decides as the first run did). A run with a budget has the control `BudgetCheck`, which
checks the tally before each model call (`bound`): past `warn_at` it emits `BudgetWarning`
once, at the limit it ends the run (`budget_exceeded`) without making the call. A reply that
does not say its input or output tokens is unknown spend, reported in a `UsageUnknown` event,
never counted as zero silently.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stopkit._stop import Stop, Usage, add_usage
from stopkit.loop._controls import Control, ModelCall
from stopkit.loop.events import BudgetWarning, Spent, Termination, UsageUnknown

__all__ = ["Budget", "BudgetCheck", "Tally"]

logger = logging.getLogger("stopkit.loop")

_BOTH = ("input_tokens", "output_tokens")


def _is_number(value: Any) -> bool:
    """Say whether `value` is a finite int or float (a bool is not a number here)."""
    return type(value) in (int, float) and math.isfinite(value)


@dataclass(frozen=True, slots=True, kw_only=True)
class Budget:
    """What a run may spend: tokens (`max_tokens`), money (`cost` with `max_cost`), or both.

    Tokens are each reply's input plus output tokens as its wire format reports them (see
    `Usage`: Anthropic's input leaves out cache reads and writes, Gemini's output leaves out
    thinking); `cost(usage) -> float` turns a reply's `Usage` into money, the way you price it.
    Checked before each model call: at `warn_at` of a limit a `BudgetWarning` event is emitted
    once; at the limit the run ends (`Termination.BUDGET_EXCEEDED`) without making the call.
    The check sees what the replies so far reported: the reply that crosses a limit is counted
    in full, and the run stops before the next call.

    Example:
        >>> Budget(max_tokens=200_000, warn_at=0.8).max_tokens
        200000
        >>> price = lambda u: (u.input_tokens or 0) * 3e-6 + (u.output_tokens or 0) * 15e-6
        >>> Budget(cost=price, max_cost=2.50).max_cost
        2.5
    """

    max_tokens: int | None = None
    """The most input plus output tokens the run may spend, as `Outcome.usage` adds them up
    (None: no token limit)."""
    warn_at: float = 0.8
    """The share of a limit at which `BudgetWarning` is emitted, in (0, 1]."""
    cost: Callable[[Usage], float] | None = None
    """`cost(usage) -> float`: what one reply cost (given its `Usage`, counts possibly None)."""
    max_cost: float | None = None
    """The most the run may cost, in `cost`'s unit (needs `cost`)."""

    def __post_init__(self) -> None:
        tokens, cost, most = self.max_tokens, self.cost, self.max_cost
        if tokens is not None and (type(tokens) is not int or tokens < 0):
            raise ValueError(f"Budget max_tokens must be an int of at least 0, not {tokens!r}")
        if most is not None and (not _is_number(most) or most < 0):
            raise ValueError(f"Budget max_cost must be a number of at least 0, not {most!r}")
        if not _is_number(self.warn_at) or not 0 < self.warn_at <= 1:
            raise ValueError(f"Budget warn_at must be in (0, 1], not {self.warn_at!r}")
        if cost is not None and not callable(cost):
            raise TypeError(f"Budget cost must be a callable cost(usage) -> float, not {cost!r}")
        if (cost is None) != (most is None):
            raise ValueError(
                "Budget cost and max_cost go together: cost(usage) prices a reply, max_cost "
                f"bounds the sum (got cost={cost!r}, max_cost={most!r})"
            )
        if tokens is None and most is None:
            raise ValueError("a Budget needs max_tokens, or cost with max_cost")


class Tally:
    """What one run has spent: its replies' usage added up, their cost, those without counts.

    The run adds each reply as it arrives (`add`); `Outcome.usage` and `usage_unknown` are
    read off it, a `ModelCallContext` gets its `spent`, and a `Budget` is checked against it.

    Example:
        >>> Tally().spent
        Spent(tokens=0, cost=0.0, unknown=0)
    """

    def __init__(self, price: Callable[[Usage], float] | None = None) -> None:
        self.price = price  # the budget's `cost(usage)`, when it has one
        self.usage: Usage | None = None  # every reply's counts added up: `Outcome.usage`
        self.cost = 0.0
        self.unknown = 0

    @property
    def tokens(self) -> int:
        """The input plus output tokens of every reply so far, as `Outcome.usage` sums them."""
        usage = self.usage
        return 0 if usage is None else (usage.input_tokens or 0) + (usage.output_tokens or 0)

    @property
    def spent(self) -> Spent:
        """What the run has spent so far."""
        return Spent(self.tokens, self.cost, self.unknown)

    def carry(self, old: Tally) -> None:
        """Go on from the counts of `old` (a resumed run, from the paused run's)."""
        self.usage, self.cost, self.unknown = old.usage, old.cost, old.unknown

    def add(self, stop: Stop) -> None:
        """Count a reply; one without its input or output tokens is counted as unknown."""
        usage = stop.usage
        self.usage = add_usage(self.usage, usage)
        if usage is not None and self.price is not None:
            self.cost += _priced(self.price, usage)
        if _missing(usage):
            self.unknown += 1  # `Outcome.usage_unknown`: `usage` is a partial sum


class BudgetCheck(Control):
    """A run's `Budget` as a control: checked before each model call against the run's `Tally`.

    Example:
        >>> BudgetCheck(Budget(max_tokens=10), Tally()).bound(1) is None
        True
    """

    def __init__(self, budget: Budget, tally: Tally) -> None:
        self.budget = budget
        self.tally = tally
        self.warned = False

    def replied(self, call: ModelCall, stop: Stop) -> None:
        """Report a reply that does not say its input or output tokens: it cannot be counted."""
        missing = _missing(stop.usage)
        if not missing:
            return
        logger.info(
            "stopkit: the reply of turn %d did not say its %s; the budget cannot count it",
            call.turn,
            " and ".join(missing),
        )
        if self.tell is not None:
            self.tell(UsageUnknown(call.turn, stop, missing))

    def bound(self, turn: int) -> Termination | None:
        """End the run before the model call of `turn` past the budget (warning once first)."""
        budget, tally = self.budget, self.tally
        tokens, most = budget.max_tokens, budget.max_cost
        share = max(_share(tally.tokens, tokens), _share(tally.cost, most))
        if not self.warned and share >= budget.warn_at:
            self.warned = True
            logger.info("stopkit: the run has spent %.0f%% of its budget", 100 * share)
            if self.tell is not None:
                self.tell(BudgetWarning(turn, tally.spent, tokens, most))
        if (tokens is not None and tally.tokens >= tokens) or (
            most is not None and tally.cost >= most
        ):
            return Termination.BUDGET_EXCEEDED
        return None

    def carry(self, old: Control) -> None:
        """A resumed run warns no more than once in all."""
        assert isinstance(old, BudgetCheck)
        self.warned = old.warned


def _missing(usage: Usage | None) -> tuple[str, ...]:
    """Name the counts a reply's usage leaves out, of its input and output tokens."""
    if usage is None:
        return _BOTH
    return tuple(name for name in _BOTH if getattr(usage, name) is None)


def _share(spent: float, limit: float | None) -> float:
    """Return the share of `limit` spent (a limit of 0 is spent at once); 0.0 without one."""
    if limit is None:
        return 0.0
    return math.inf if limit == 0 else spent / limit


def _priced(cost: Callable[[Usage], float], usage: Usage) -> float:
    """Return `cost(usage)`, checked: a number of at least 0."""
    value = cost(usage)
    if not _is_number(value):
        raise TypeError(f"Budget cost(usage) must return a number, not {value!r} (for {usage!r})")
    if value < 0:
        raise ValueError(f"Budget cost(usage) returned {value!r}, below 0 (for {usage!r})")
    return float(value)
