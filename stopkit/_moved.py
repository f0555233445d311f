"""Where each name stopkit 0.2 exported and 0.3 moved lives now, per old namespace.

The old spellings keep working until 0.4 (`stopkit._lazy.REMOVED_IN`), each read warning with
the new one (CHANGELOG, "Moved"). A value is the new public spelling, or, for a name that is no
longer public, where it lives now and what to use instead.
"""

from __future__ import annotations

from stopkit._lazy import Moved

__all__ = ["ADAPTERS", "BATCH", "LOOP_HANDLERS", "OTEL", "RECORD", "STOPKIT"]


def _to(namespace: str, names: str) -> dict[str, str | tuple[str, str]]:
    return {name: f"{namespace}.{name}" for name in names.split()}


# The default policies: each is `stopkit.loop.DEFAULT_HANDLERS[reason]`, its one spelling now.
_POLICIES: Moved = {
    name: (f"stopkit.loop._handlers.{name}", f"stopkit.loop.DEFAULT_HANDLERS[StopReason.{reason}]")
    for name, reason in (
        ("run_tool_calls", "TOOL_REQUEST"), ("finish_with_text", "COMPLETED"),
        ("retry_with_more_tokens", "OUTPUT_LIMIT"), ("escalate_filtered", "FILTERED"),
        ("resume_paused", "PAUSED"), ("escalate_unknown", "UNKNOWN"),
    )
}  # fmt: skip

_LOOP = "Action Continue DEFAULT_HANDLERS Escalate Finish Handler LoopContext Retry"

STOPKIT: Moved = {
    **_to("stopkit.loop", f"{_LOOP} ask_for_shorter finish_truncated"),
    **_to("stopkit.loop", "AlreadyResumed Budget Defer ModelCallContext RetryPolicy"),
    **_POLICIES,
    **_to("stopkit.loop.events", "BudgetWarning Compacted Escalated Escalation HookStopped "
          "LoopEnded LoopEvent ModelCallFailed ModelReplied Spent TextDelta ToolCalled "
          "ToolDeferred ToolDenied ToolReturned ToolRun TurnStarted UsageUnknown"),
    **_to("stopkit.loop.journal", "InvalidRunId Journal JournalError JournalMismatch "
          "JournalTooNew JournalUnreadable PostgresJournal RunLocked SqliteJournal"),
    **_to("stopkit.record", "NoRecording RecordingTransport ReplayTransport"),
}  # fmt: skip
"""`stopkit.X`: the loop's vocabulary, its events and journals, the transports."""

LOOP_HANDLERS: Moved = {
    **_to("stopkit.loop", f"{_LOOP} ask_for_shorter finish_truncated"),
    **_POLICIES,
    "SHORTER_PROMPT": ("stopkit.loop._handlers.SHORTER_PROMPT", "ask_for_shorter, which sends it"),
    "ToolRunning": ("stopkit.loop._handlers.ToolRunning", "LoopContext.run_tools"),
    "as_list": ("stopkit.loop._handlers.as_list", "a list of your own"),
    "check_handlers": ("stopkit.loop._handlers.check_handlers", "LoopSettings, which checks them"),
    "plain_user_message": (
        "stopkit.loop._handlers.plain_user_message", '{"role": "user", "content": text}'
    ),
    "user_message": ("stopkit.loop._handlers.user_message", "LoopContext.user_message"),
}  # fmt: skip
"""`stopkit.loop.handlers.X`: the module is gone; its names are `stopkit.loop`'s or private."""

ADAPTERS: Moved = {
    "Step": ("stopkit.adapters._rules.Step", "a function (reading, reason, detail) -> pair"),
    "Verdict": ("stopkit.adapters._reading.Verdict", "the facts of a Reading, which decide reads"),
    "cut": ("stopkit.adapters._calls.cut", "ToolCall.model_copy(update={'complete': False, ...})"),
    "either": ("stopkit.adapters._wire.either", "wire(obj).get(...) for each spelling"),
    "listed": ("stopkit.adapters._wire.listed", "a list check of your own"),
    "look_up": ("stopkit.adapters._rules.look_up", "Rules, whose table decide looks up"),
    "raw_value": ("stopkit.adapters._wire.raw_value", "the enum member's .value"),
    "stricter": ("stopkit.adapters._strictness.stricter", "a rule of your stream's own"),
    "to_json": ("stopkit.adapters._wire.to_json", "the SDK model's model_dump(mode='json')"),
}  # fmt: skip
"""`stopkit.adapters.X`: the reading helpers beyond `wire`, `tool_call` and `tokens`."""

BATCH: Moved = {"Outcome": "stopkit.batch.RequestOutcome"}
"""`stopkit.batch.X`: what became of a request is a `RequestOutcome`; `Outcome` is the loop's."""

RECORD: Moved = _to("stopkit.testing", "Payload load_payload load_payloads")
"""`stopkit.record.X`: the payload files' reading, now `stopkit.testing`'s."""


OTEL: Moved = {
    "CAPTURE_CONTENT_ENV": (
        "stopkit.otel._CAPTURE_CONTENT_ENV", '"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"'
    ),
}
"""`stopkit.otel.X`: the content switch's name, which the conventions spell."""
