"""The names of a run's steps, and the step being made right now (`current_step`).

A step is one call that leaves the process: `model_call_<turn>` for a model call (retries of
a failed call, resumes and the summing-up call included: each is the call of its own turn),
`tool_call_<turn>_<slot>` for a tool call (`slot`: its place in the reply). The loop sets the
current step around each call it makes, so that code the call runs (a DBOS step wrapper, a
span, an idempotency key for the model call) can read it.
"""

from __future__ import annotations

import re
from contextvars import ContextVar

__all__ = ["CURRENT_STEP", "as_step", "current_step", "model_step", "step_turn", "tool_step"]

_STEP = re.compile(r"(model)_call_(\d+)|(tool)_call_(\d+)_\d+")

CURRENT_STEP: ContextVar[str | None] = ContextVar("stopkit_current_step", default=None)
"""The name of the step being made in this context (None: none)."""


def model_step(turn: int) -> str:
    """Return the name of the model call of `turn`.

    Example:
        >>> model_step(3)
        'model_call_3'
    """
    return f"model_call_{turn}"


def tool_step(turn: int, slot: int) -> str:
    """Return the name of the tool call in `slot` of the reply of `turn`.

    Example:
        >>> tool_step(3, 0)
        'tool_call_3_0'
    """
    return f"tool_call_{turn}_{slot}"


def step_turn(name: str) -> tuple[str, int] | None:
    """Return the kind (`model`, `tool`) and the turn of a step's name; None: no step's name.

    Example:
        >>> step_turn("tool_call_3_0"), step_turn("tool_call_one")
        (('tool', 3), None)
    """
    found = _STEP.fullmatch(name) if type(name) is str and len(name) < 64 else None
    if found is None:
        return None
    model, model_turn, _, tool_turn = found.groups()
    return ("model", int(model_turn)) if model else ("tool", int(tool_turn))


def current_step() -> str | None:
    """Return the name of the step the loop is making in this context, or None.

    Set while `call_model` runs (`model_call_<turn>`) and while a tool runs
    (`tool_call_<turn>_<slot>`), in the thread a sync callable runs in too.

    Example:
        >>> def call_model(messages, **overrides):  # doctest: +SKIP
        ...     return client.messages.create(..., extra_headers={"Idempotency-Key":
        ...         f"{run_id}/{current_step()}"})
    """
    return CURRENT_STEP.get()


class _Step:
    """Names the step being made in this context while a `with` block runs."""

    __slots__ = ("name", "outer")

    def __init__(self, name: str) -> None:
        self.name = name
        self.outer: str | None = None

    def __enter__(self) -> None:
        self.outer = CURRENT_STEP.get()
        CURRENT_STEP.set(self.name)

    def __exit__(self, *raised: object) -> None:
        CURRENT_STEP.set(self.outer)


def as_step(name: str) -> _Step:
    """Return what names `name` the current step while its `with` block runs.

    Example:
        >>> with as_step("model_call_1"):
        ...     current_step()
        'model_call_1'
    """
    return _Step(name)
