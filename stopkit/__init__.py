"""stopkit: why did the model stop, and what must the agent loop do next?

Every LLM reply, from any provider, normalized onto one closed enum (`StopReason`), with the
provider's raw value kept beside it.

Example:
    >>> import stopkit
    >>> stopkit.normalize({"type": "message", "role": "assistant", "content": [],
    ...     "stop_reason": "max_tokens"}).reason
    <StopReason.OUTPUT_LIMIT: 'output_limit'>
"""

from typing import TYPE_CHECKING

from stopkit._lazy import lazy_exports

if TYPE_CHECKING:
    # Every name is imported on first use (PEP 562, see _LAZY_MODULES): `import stopkit` loads
    # no module of stopkit, so that the pytest plugin, imported by every pytest run where
    # stopkit is installed, costs nothing when unused; `stopkit.normalize` then loads the core
    # (~65 ms, pydantic's BaseModel the most), the loop, `wrap` and the transports (httpx)
    # load only when used.
    from stopkit._adapter import Adapter, StreamAccumulator
    from stopkit._errors import (
        AdapterNotFound,
        AlreadyResumed,
        FilteredReply,
        ModelCallError,
        PausedReply,
        StopkitError,
        StopReasonError,
        TruncatedReply,
        UnknownStopReason,
        UnsupportedReply,
    )
    from stopkit._normalize import detect, normalize, normalize_all
    from stopkit._registry import (
        get_adapter,
        register_adapter,
        registered_adapters,
        unregister_adapter,
    )
    from stopkit._stop import Stop, StopReason, ToolCall, ToolResult, Usage
    from stopkit._stream import anormalize_stream, normalize_stream
    from stopkit._wrap import wrap
    from stopkit.loop._approval import Defer
    from stopkit.loop._budget import Budget
    from stopkit.loop._driver import Loop, aresume_loop, arun_loop, resume_loop, run_loop
    from stopkit.loop._hooks import ModelCallContext
    from stopkit.loop._retry import RetryPolicy
    from stopkit.loop._settings import LoopSettings
    from stopkit.loop._tool import tool
    from stopkit.loop.events import (
        BudgetWarning,
        Compacted,
        Escalated,
        Escalation,
        HookStopped,
        LoopEnded,
        LoopEvent,
        ModelCallFailed,
        ModelReplied,
        Outcome,
        Spent,
        Termination,
        TextDelta,
        ToolCalled,
        ToolDeferred,
        ToolDenied,
        ToolReturned,
        ToolRun,
        TurnStarted,
        UsageUnknown,
    )
    from stopkit.loop.handlers import (
        DEFAULT_HANDLERS,
        Action,
        Continue,
        Escalate,
        Finish,
        Handler,
        LoopContext,
        Retry,
        ask_for_shorter,
        escalate_filtered,
        escalate_unknown,
        finish_truncated,
        finish_with_text,
        resume_paused,
        retry_with_more_tokens,
        run_tool_calls,
    )
    from stopkit.loop.journal import (
        InvalidRunId,
        Journal,
        JournalError,
        JournalMismatch,
        JournalTooNew,
        JournalUnreadable,
        PostgresJournal,
        RunLocked,
        SqliteJournal,
    )
    from stopkit.record._recording import RecordingTransport
    from stopkit.record._replay import NoRecording, ReplayTransport

__version__ = "0.2.0"
"""This stopkit's version; the one place it is written (the package build reads it from here)."""

__all__ = [  # noqa: RUF022 -- plain sorted(), the order tests/test_public_api.py pins
    "Action",
    "Adapter",
    "AdapterNotFound",
    "AlreadyResumed",
    "Budget",
    "BudgetWarning",
    "Compacted",
    "Continue",
    "DEFAULT_HANDLERS",
    "Defer",
    "Escalate",
    "Escalated",
    "Escalation",
    "FilteredReply",
    "Finish",
    "Handler",
    "HookStopped",
    "InvalidRunId",
    "Journal",
    "JournalError",
    "JournalMismatch",
    "JournalTooNew",
    "JournalUnreadable",
    "Loop",
    "LoopContext",
    "LoopEnded",
    "LoopEvent",
    "LoopSettings",
    "ModelCallContext",
    "ModelCallError",
    "ModelCallFailed",
    "ModelReplied",
    "NoRecording",
    "Outcome",
    "PausedReply",
    "PostgresJournal",
    "RecordingTransport",
    "ReplayTransport",
    "Retry",
    "RetryPolicy",
    "RunLocked",
    "Spent",
    "SqliteJournal",
    "Stop",
    "StopReason",
    "StopReasonError",
    "StopkitError",
    "StreamAccumulator",
    "Termination",
    "TextDelta",
    "ToolCall",
    "ToolCalled",
    "ToolDeferred",
    "ToolDenied",
    "ToolResult",
    "ToolReturned",
    "ToolRun",
    "TruncatedReply",
    "TurnStarted",
    "UnknownStopReason",
    "UnsupportedReply",
    "Usage",
    "UsageUnknown",
    "__version__",
    "anormalize_stream",
    "aresume_loop",
    "arun_loop",
    "ask_for_shorter",
    "detect",
    "escalate_filtered",
    "escalate_unknown",
    "finish_truncated",
    "finish_with_text",
    "get_adapter",
    "normalize",
    "normalize_all",
    "normalize_stream",
    "register_adapter",
    "registered_adapters",
    "resume_loop",
    "resume_paused",
    "retry_with_more_tokens",
    "run_loop",
    "run_tool_calls",
    "tool",
    "unregister_adapter",
    "wrap",
]

_LAZY_MODULES: dict[str, tuple[str, ...]] = {
    "_adapter": ("Adapter", "StreamAccumulator"),
    "_errors": (
        "AdapterNotFound", "AlreadyResumed", "FilteredReply", "ModelCallError", "PausedReply",
        "StopReasonError", "StopkitError", "TruncatedReply", "UnknownStopReason",
        "UnsupportedReply",
    ),
    "_normalize": ("detect", "normalize", "normalize_all"),
    "_registry": ("get_adapter", "register_adapter", "registered_adapters", "unregister_adapter"),
    "_stop": ("Stop", "StopReason", "ToolCall", "ToolResult", "Usage"),
    "_stream": ("anormalize_stream", "normalize_stream"),
    "loop.handlers": (
        "DEFAULT_HANDLERS", "Action", "Continue", "Escalate", "Finish", "Handler",
        "LoopContext", "Retry", "ask_for_shorter", "escalate_filtered", "escalate_unknown",
        "finish_truncated", "finish_with_text", "resume_paused", "retry_with_more_tokens",
        "run_tool_calls",
    ),
    "loop._approval": ("Defer",),
    "loop._budget": ("Budget",),
    "loop._driver": ("Loop", "aresume_loop", "arun_loop", "resume_loop", "run_loop"),
    "loop._hooks": ("ModelCallContext",),
    "loop._settings": ("LoopSettings",),
    "loop.events": (
        "BudgetWarning", "Compacted", "Escalated", "Escalation", "HookStopped", "LoopEnded",
        "LoopEvent", "ModelCallFailed", "ModelReplied", "Outcome", "Spent", "Termination",
        "TextDelta", "ToolCalled", "ToolDeferred", "ToolDenied", "ToolReturned", "ToolRun",
        "TurnStarted", "UsageUnknown",
    ),
    "loop._retry": ("RetryPolicy",),
    "loop._tool": ("tool",),
    "loop.journal": (
        "InvalidRunId", "Journal", "JournalError", "JournalMismatch", "JournalTooNew",
        "JournalUnreadable", "PostgresJournal", "RunLocked", "SqliteJournal",
    ),
    "record._recording": ("RecordingTransport",),
    "record._replay": ("NoRecording", "ReplayTransport"),
    "_wrap": ("wrap",),
}  # fmt: skip
__getattr__, __dir__ = lazy_exports(__name__, _LAZY_MODULES, globals())
