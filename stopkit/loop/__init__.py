"""The loop's vocabulary: the actions a handler returns, its context, the controls' types.

- the actions, `Continue`, `Retry`, `Finish`, `Escalate` (`Action` is any of them), what a
  handler sees (`LoopContext`), `Handler`, and `DEFAULT_HANDLERS`, the default policy of every
  reason (`DEFAULT_HANDLERS[StopReason.OUTPUT_LIMIT]` retries with a raised ceiling, ...) with
  two ready-made alternatives, `finish_truncated` and `ask_for_shorter`;
- the controls' types: `Budget`, `Defer` (an approval that waits for a person), `RetryPolicy`,
  `ModelCallContext` (what `before_model_call` sees), and `AlreadyResumed`.

The entry points, `stopkit.run_loop`, `stopkit.arun_loop`, `stopkit.Loop`,
`stopkit.LoopSettings`, `stopkit.resume_loop` and `stopkit.aresume_loop`, and its result,
`stopkit.Outcome`, are on the front door; the events are in `stopkit.loop.events`, the
journals of durable runs in `stopkit.loop.journal`. Every name is imported on first use, so
`import stopkit.loop.events` loads only what it needs.

Example:
    >>> from stopkit import StopReason
    >>> from stopkit.loop import DEFAULT_HANDLERS, Finish
    >>> handlers = {**DEFAULT_HANDLERS, StopReason.FILTERED: lambda ctx: Finish("Sorry.")}
"""

import typing as _typing

from stopkit._lazy import exports as _exports
from stopkit._lazy import moved_module as _moved_module
from stopkit._moved import LOOP_HANDLERS as _HANDLERS_MOVED

_EXPORTS = {
    "stopkit.loop._handlers": (
        "Continue", "Retry", "Finish", "Escalate", "Action", "LoopContext", "Handler",
        "DEFAULT_HANDLERS", "finish_truncated", "ask_for_shorter",
    ),
    "stopkit.loop._budget": ("Budget",),
    "stopkit.loop._approval": ("Defer",),
    "stopkit.loop._retry": ("RetryPolicy",),
    "stopkit.loop._hooks": ("ModelCallContext",),
    "stopkit._errors": ("AlreadyResumed",),
}  # fmt: skip

if _typing.TYPE_CHECKING:  # generated from _EXPORTS by `python -m tests.test_public_api`
    from stopkit._errors import AlreadyResumed as AlreadyResumed
    from stopkit.loop._approval import Defer as Defer
    from stopkit.loop._budget import Budget as Budget
    from stopkit.loop._handlers import DEFAULT_HANDLERS as DEFAULT_HANDLERS
    from stopkit.loop._handlers import Action as Action
    from stopkit.loop._handlers import Continue as Continue
    from stopkit.loop._handlers import Escalate as Escalate
    from stopkit.loop._handlers import Finish as Finish
    from stopkit.loop._handlers import Handler as Handler
    from stopkit.loop._handlers import LoopContext as LoopContext
    from stopkit.loop._handlers import Retry as Retry
    from stopkit.loop._handlers import ask_for_shorter as ask_for_shorter
    from stopkit.loop._handlers import finish_truncated as finish_truncated
    from stopkit.loop._hooks import ModelCallContext as ModelCallContext
    from stopkit.loop._retry import RetryPolicy as RetryPolicy

__all__, __getattr__, __dir__ = _exports(globals(), _EXPORTS, submodules=("events", "journal"))

# stopkit 0.2's `stopkit.loop.handlers`, importable until 0.4 (CHANGELOG, "Moved").
_moved_module("stopkit.loop.handlers", _HANDLERS_MOVED)
