"""`error_kind`: a short, stable name for why a tool call failed (telemetry's `error.type`)."""

from __future__ import annotations

from stopkit._stop import ToolResult
from stopkit.loop._runner import CANCELLED

__all__ = ["error_kind"]

# What each kind of error result the loop writes begins with, and its `error_kind`.
_KINDS = (
    ("not run: ", "not_run"),
    ("denied: ", "denied"),
    ("unknown tool ", "unknown_tool"),
    ("timed out after ", "timeout"),
    (CANCELLED, "cancelled"),
    ("the tool returned a ", "unencodable_result"),
)


def error_kind(result: ToolResult) -> str | None:
    """Return a short, stable name for why a tool call failed; None when it did not fail.

    The exception's class name when the tool raised (`LookupError`); `not_run` when the loop
    answered the call without running it (cut off, bad arguments, past the deadline, a
    repeated id, not a tool request, a stopped run), `denied` (by `approve`), `unknown_tool`,
    `timeout`, `cancelled`, `unencodable_result`; `_OTHER` for an error result made elsewhere
    (a handler's own).

    Example:
        >>> from stopkit import ToolCall
        >>> from stopkit.loop._runner import error_result
        >>> error_kind(error_result(ToolCall(id="1", name="f"), "timed out after 2 s"))
        'timeout'
    """
    if not result.is_error:
        return None
    content = result.content
    for start, kind in _KINDS:
        if content.startswith(start):
            return kind
    name = content.partition(": ")[0]  # `describe`: "Type: message", or "Type"
    return name if name.isidentifier() else "_OTHER"
