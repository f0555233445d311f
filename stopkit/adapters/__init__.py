"""The built-in adapters, one module per wire API, and the parts to build your own from.

The registry imports the built-in adapters lazily (`import stopkit` imports none of them); each
module's one public name is its adapter class (`stopkit.adapters.anthropic.AnthropicAdapter`),
whose `tables` are its mapping tables. An adapter of your own needs only what is exported here:
a reader that fills a `Reading` from a reply (through `wire`, `tool_call` and `tokens`), and
`decide(reading, Rules(...))`, the engine every built-in adapter uses, which applies the
reconciliation rules in order and builds the `Stop`; `BaseAdapter` gives a class of its own the
methods every adapter shares, from its reader and its rules.

Example:
    >>> from stopkit.adapters import Reading, Rules, decide
    >>> from stopkit import StopReason
    >>> rules = Rules("acme", "halt", {"DONE": (StopReason.COMPLETED, None)})
    >>> decide(Reading(raw={"halt": "DONE"}, raw_reason="DONE"), rules).reason
    <StopReason.COMPLETED: 'completed'>
"""

import typing as _typing

from stopkit._lazy import exports as _exports
from stopkit._moved import ADAPTERS as _MOVED

_EXPORTS = {
    "stopkit.adapters._reading": ("Reading", "tokens"),
    "stopkit.adapters._base": ("BaseAdapter",),
    "stopkit.adapters._rules": ("Rules",),
    "stopkit.adapters._engine": ("decide",),
    "stopkit.adapters._wire": ("wire",),
    "stopkit.adapters._calls": ("tool_call",),
}  # fmt: skip

if _typing.TYPE_CHECKING:  # generated from _EXPORTS by `python -m tests.test_public_api`
    from stopkit.adapters._base import BaseAdapter as BaseAdapter
    from stopkit.adapters._calls import tool_call as tool_call
    from stopkit.adapters._engine import decide as decide
    from stopkit.adapters._reading import Reading as Reading
    from stopkit.adapters._reading import tokens as tokens
    from stopkit.adapters._rules import Rules as Rules
    from stopkit.adapters._wire import wire as wire

__all__, __getattr__, __dir__ = _exports(globals(), _EXPORTS, _MOVED)
