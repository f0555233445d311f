"""The built-in adapters, one module per wire API, and the parts to build your own from.

The registry imports the built-in adapters lazily (`import stopkit` imports none of them). An
adapter of your own needs only what is exported here: a reader that fills a `Reading` from a
reply (through `wire` and `tool_call`), and `decide(reading, Rules(...))`, the engine every
built-in adapter uses, which applies the reconciliation rules in order and builds the `Stop`.

Example:
    >>> from stopkit.adapters import Reading, Rules, decide
    >>> from stopkit import StopReason
    >>> rules = Rules("acme", "halt", {"DONE": (StopReason.COMPLETED, None)})
    >>> decide(Reading(raw={"halt": "DONE"}, raw_reason="DONE"), rules).reason
    <StopReason.COMPLETED: 'completed'>
"""

from stopkit.adapters._calls import cut, tool_call
from stopkit.adapters._engine import decide
from stopkit.adapters._reading import Reading, Verdict, tokens
from stopkit.adapters._rules import Rules, Step, look_up
from stopkit.adapters._strictness import stricter
from stopkit.adapters._wire import either, listed, raw_value, to_json, wire

__all__ = [
    "Reading",
    "Rules",
    "Step",
    "Verdict",
    "cut",
    "decide",
    "either",
    "listed",
    "look_up",
    "raw_value",
    "stricter",
    "to_json",
    "tokens",
    "tool_call",
    "wire",
]
