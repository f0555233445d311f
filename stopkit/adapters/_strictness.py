"""How strict each reason is, for a stream that says its stop value (or its whole reply) twice.

A later value wins only when it is at least as strict as the one held (a content filter after
`stop` wins; `stop` after `max_tokens` does not): DESIGN section 3, "after the terminal event".

Example:
    >>> table = {"stop": (StopReason.COMPLETED, None),
    ...          "length": (StopReason.OUTPUT_LIMIT, "max_tokens")}
    >>> (stricter(table, "length", "stop"), stricter(table, "stop", "length"))
    (False, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stopkit._stop import StopReason
from stopkit.adapters._reading import Verdict

__all__ = ["harsher", "reason_of", "stricter"]

_STRICTNESS = {
    StopReason.COMPLETED: 1,
    StopReason.STOP_SEQUENCE: 1,
    StopReason.TOOL_REQUEST: 2,
    StopReason.PAUSED: 3,
    StopReason.OUTPUT_LIMIT: 3,
    StopReason.UNKNOWN: 4,
    StopReason.FILTERED: 5,
}


def stricter(table: Mapping[str, Verdict], held: Any, new: Any) -> bool:
    """Say whether a stream's stop value `new` may replace the value `held` (None: nothing yet).

    Example:
        >>> stricter({"stop": (StopReason.COMPLETED, None)}, None, "stop")
        True
    """
    if held is None:
        return True
    return _STRICTNESS[reason_of(table, new)] >= _STRICTNESS[reason_of(table, held)]


def harsher(new: StopReason, held: StopReason) -> bool:
    """Say whether the reason `new` is stricter than `held` (a whole reply after the end).

    For a stream whose later events carry a whole reply (a Responses terminal event, a
    pydantic-ai snapshot): it replaces the one held only when stricter than what that one
    decided, its refusal and calls included.

    Example:
        >>> harsher(StopReason.FILTERED, StopReason.TOOL_REQUEST)
        True
    """
    return _STRICTNESS[new] > _STRICTNESS[held]


def reason_of(table: Mapping[str, Verdict], raw: Any) -> StopReason:
    """The reason a stop value maps to in `table`; unknown when off-table (no note taken).

    Example:
        >>> reason_of({"stop": (StopReason.COMPLETED, None)}, "halt")
        <StopReason.UNKNOWN: 'unknown'>
    """
    entry = table.get(raw) if type(raw) is str else None
    return entry[0] if entry is not None else StopReason.UNKNOWN
