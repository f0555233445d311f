"""The typed requests the engine yields to its shells, and what each expects back.

`Loop.run` and `Loop.arun` carry them out: `CallModel` by calling `call_model` (sending back
the reply, or throwing in what it raised), `RunHandler` by calling the handler (awaiting it in
`arun`), `CallHook` by calling a hook (awaiting it in `arun`, throwing in what it raised),
`Sleep` by waiting.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from stopkit._adapter import Adapter
from stopkit.loop._handlers import Handler, LoopContext

__all__ = ["CallHook", "CallModel", "Request", "RunHandler", "Sleep"]


@dataclass(frozen=True, slots=True)
class CallModel:
    """Call `call_model(messages, **overrides)`; send back the reply (or throw in its error).

    A stream it returns is read to its end first (`_streams.py`), with `adapter`'s accumulator
    (None: the adapter is detected from the first event) and each piece of text handed to
    `on_text`; what is sent back is then a `Streamed`.
    """

    messages: list[Any]
    overrides: Mapping[str, Any]
    turn: int
    attempt: int
    """Which try of this model call it is (1 for the first)."""
    adapter: Adapter | None
    on_text: Callable[[str], Any] | None
    keep_events: bool = False
    """Keep a stream's events on the `Streamed` (a journaled run records them)."""


@dataclass(frozen=True, slots=True)
class RunHandler:
    """Call `handler(context)` (awaiting it in `arun`); send back the action it returns."""

    handler: Handler
    context: LoopContext


@dataclass(frozen=True, slots=True)
class CallHook:
    """Call `hook(*args)` (awaited in `arun`, `timeout` seconds at most); send back its value.

    What it raised is thrown in (a `TimeoutError` past `timeout`).
    """

    hook: Callable[..., Any]
    args: tuple[Any, ...]
    name: str
    """The setting it is (`before_model_call`), for the error when it is async in `run`."""
    timeout: float | None
    """Seconds left before the run's deadline (None: no deadline)."""


@dataclass(frozen=True, slots=True)
class Sleep:
    """Wait `seconds` (a retry's backoff); send back None."""

    seconds: float


Request = CallModel | RunHandler | CallHook | Sleep
