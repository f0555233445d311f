"""DESIGN section 3 as the ordered list of its rules: the first that matches decides.

Each rule is a small named function of a `Case` (a reading whose stop value is looked up): it
says whether it matches and, when it does, sets the verdict and says why in a note. The notes
are written here, once, so they read the same whichever provider sent the reply.

    stream_cut, malformed_reply       0. a stream cut before its end, a reply that could not
                                         be read: unknown
    refusal, filter_signal,           1. filtered
      filtering_value
    output_limit                      2. its calls marked incomplete (never run)
    paused                            3.
    unknown_value, in_band_error      7. before 4: what is not understood wins over calls
    pending_calls, no_pending_call    4. client calls pending, whatever the value says
    (none matched)                    5/6. the table's stop_sequence or completed, as mapped

Example:
    >>> from stopkit.adapters._reading import Reading
    >>> from stopkit.adapters._rules import Rules
    >>> reading = Reading(raw=None, raw_reason="end")
    >>> reading.refusal = "I can't help with that."
    >>> case = Case(reading, Rules("demo", "finish", {"end": (StopReason.COMPLETED, None)}))
    >>> [rule.__name__ for rule in SECTION_3 if rule(case)][:1]
    ['refusal']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stopkit._stop import StopReason, ToolCall
from stopkit.adapters._calls import cut
from stopkit.adapters._case import Case, calls_said

__all__ = ["SECTION_3", "Rule"]

_TOOL_REQUEST = StopReason.TOOL_REQUEST
_OUTPUT_LIMIT = StopReason.OUTPUT_LIMIT
_FILTERED = StopReason.FILTERED
_PAUSED = StopReason.PAUSED
_UNKNOWN = StopReason.UNKNOWN


Rule = Callable[[Case], bool]
"""One rule of DESIGN section 3: True when it matched (it has set the verdict and said why)."""


def stream_cut(case: Case) -> bool:
    """0. A stream that ended before its terminal event: unknown, and none of its calls runs."""
    reading = case.reading
    if reading.ended:
        return False
    why = "the stream ended before its terminal event"
    case.calls = [cut(c, why) for c in case.calls]
    if reading.error is not None:
        return case.decide(_UNKNOWN, "error", f"an error arrived in the stream and {why}: "
                           "unknown/error")  # fmt: skip
    return case.decide(_UNKNOWN, "stream_incomplete", f"{why}: unknown/stream_incomplete")


def malformed_reply(case: Case) -> bool:
    """0. A reply that could not be read: unknown/malformed, its calls listed, never run."""
    malformed = case.reading.malformed
    if malformed is None:
        return False
    case.decide(_UNKNOWN, "malformed", f"malformed reply: {malformed}: unknown/malformed")
    if case.calls:
        case.notes.append(f"{calls_said(len(case.calls))} in a malformed reply: listed, not run")
    return True


def refusal(case: Case) -> bool:
    """1. A refusal (`message.refusal`, a refusal part) beside a value that does not filter."""
    if not case.reading.refusal or case.reason is _FILTERED:
        return False
    return case.decide(_FILTERED, "refusal", f"a refusal beside {case.said}: filtered/refusal")


def filter_signal(case: Case) -> bool:
    """1. A filter signal beside a value that does not filter (Azure's results, a block)."""
    found = case.reading.filter
    if found is None or case.reason is _FILTERED:
        return False
    detail, why = found
    return case.decide(_FILTERED, detail, f"{why}: filtered/{detail}")


def filtering_value(case: Case) -> bool:
    """1. A stop value that filters: its calls are listed, never run."""
    if case.reason is not _FILTERED:
        return False
    case.list_calls()
    return True


def output_limit(case: Case) -> bool:
    """2. A token ceiling: the calls are marked incomplete; `reasoning` when thinking took it."""
    if case.reason is not StopReason.OUTPUT_LIMIT:
        return False
    reading, calls = case.reading, case.calls
    if calls:
        case.calls = calls = _cut_calls(calls, reading.cut_in_call, case.raw)
        cut_note = f"{case.said} cut the reply with {calls_said(len(calls))}: marked incomplete"
        case.notes.append(cut_note)
    usage = reading.usage
    spent = usage.reasoning_tokens if usage is not None else None
    if case.detail == "max_tokens" and not reading.text and not calls and (spent or 0) > 0:
        case.decide(_OUTPUT_LIMIT, "reasoning", f"no visible text, {spent} reasoning tokens: the "
                    "ceiling went to reasoning (output_limit/reasoning)")  # fmt: skip
    return True


def paused(case: Case) -> bool:
    """3. A paused turn: its calls are listed, never run (the turn resumes first)."""
    if case.reason is not _PAUSED:
        return False
    case.list_calls()
    return True


def unknown_value(case: Case) -> bool:
    """7, before 4. A stop value not understood wins over present calls: listed, never run."""
    if case.reason is not _UNKNOWN:
        return False
    if case.calls:
        case.notes.append(f"{calls_said(len(case.calls))} under an unknown stop: listed, not run")
    return True


def in_band_error(case: Case) -> bool:
    """7, before 4. An in-band error beside an ordinary stop value (Groq's `x_groq.error`)."""
    if case.reading.error is None:
        return False
    return case.decide(_UNKNOWN, "error", f"an in-band error beside {case.said}: unknown/error")


def pending_calls(case: Case) -> bool:
    """4. Client calls are pending, whatever the stop value says: a tool request."""
    calls = case.calls
    if not calls:
        return False
    if case.reason is not _TOOL_REQUEST:
        case.decide(_TOOL_REQUEST, None, f"{case.said} with {calls_said(len(calls))}: treated as "
                    "tool_request")  # fmt: skip
    bad = [c.name or c.id for c in calls if not c.complete]
    if bad:
        case.notes.append(
            f"tool call(s) {', '.join(bad)} incomplete: answered with an error, not run"
        )
    return True


def no_pending_call(case: Case) -> bool:
    """4, then 7. A tool-request stop value with no pending call: unknown/no_pending_call."""
    if case.reason is not _TOOL_REQUEST:
        return False
    return case.decide(_UNKNOWN, "no_pending_call", f"{case.said} with no pending tool call: "
                       "unknown/no_pending_call")  # fmt: skip


SECTION_3: tuple[Rule, ...] = (
    stream_cut,
    malformed_reply,
    refusal,
    filter_signal,
    filtering_value,
    output_limit,
    paused,
    unknown_value,
    in_band_error,
    pending_calls,
    no_pending_call,
)
"""DESIGN section 3, in order: the first rule that matches decides; when none does, the table's
value stands (5. stop_sequence, 6. completed)."""


def _cut_calls(calls: Sequence[ToolCall], cut_in_call: bool, raw: Any) -> list[ToolCall]:
    """A truncated reply's calls, each marked incomplete; the one the cut fell in says so."""
    why = f"the reply was cut off ({raw})"
    out = [cut(c, why) for c in calls]
    if cut_in_call:  # said of the last call, whatever else was wrong with it
        out[-1] = cut(calls[-1], f"{why} while this call's input was being written", overrule=True)
    return out
