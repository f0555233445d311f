"""The one reconciliation engine: DESIGN section 3 applied to a `Reading`, in order, once.

Every adapter hands its readings to `decide` with its `Rules`: the mapping table of its stop
value, the field's name for the notes, and its provider steps — small named functions that
reinterpret the stop value with one provider's knowledge (vLLM's `stop_reason`, a Responses
`incomplete_details.reason`, a Gemini continuation without its token). The order is written
here only, and so are the notes: they read the same whichever provider sent the reply.

Before the order: every call under a stop value that says the calls themselves are bad
(`Rules.bad_calls`: a malformed, undeclared or one-too-many call) is marked incomplete, its
error naming the value. Then, per reply, first match wins:

0. a stream cut before its end, or a reply that could not be read: unknown;
1. filtered: a refusal, a filter signal, a filtering stop value;
2. output_limit: its tool calls are marked incomplete (never run); `reasoning` when the
   ceiling went to thinking and nothing visible came;
3. paused;
7. before 4: an unknown stop value (calls listed, never run), or an in-band error;
4. tool_request: client calls are pending, whatever the stop value says (calls answered in the
   same reply are not pending);
5/6. the table's stop_sequence or completed.

Example:
    >>> from stopkit.adapters._reading import Reading
    >>> rules = Rules("demo", "finish", {"done": (StopReason.COMPLETED, None)})
    >>> decide(Reading(raw=None, raw_reason="done"), rules).reason
    <StopReason.COMPLETED: 'completed'>
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from stopkit._stop import Stop, StopReason, ToolCall, _fast_stop
from stopkit.adapters._calls import cut
from stopkit.adapters._reading import Reading, Verdict
from stopkit.adapters._wire import raw_value

__all__ = ["Rules", "Step", "decide", "harsher", "look_up", "reason_of", "stricter"]

# The members as module constants: reading `StopReason.X` goes through the enum class's
# attribute lookup (~50 ns each), and every reply passes a dozen of these checks.
_TOOL_REQUEST = StopReason.TOOL_REQUEST
_COMPLETED = StopReason.COMPLETED
_OUTPUT_LIMIT = StopReason.OUTPUT_LIMIT
_FILTERED = StopReason.FILTERED
_PAUSED = StopReason.PAUSED
_STOP_SEQUENCE = StopReason.STOP_SEQUENCE
_UNKNOWN = StopReason.UNKNOWN

Step = Callable[[Reading, StopReason, "str | None"], Verdict]
"""A provider step: (reading, reason, detail) -> (reason, detail), leaving a note if it acts."""


@dataclass(frozen=True)
class Rules:
    """One wire format's rules: its table, the stop field's name, its provider steps."""

    provider: str
    title: str
    """The stop field, as the notes name it (`stop_reason`, `finish_reason`, ...)."""
    table: Mapping[str, Verdict]
    value_notes: Mapping[str, str] = field(default_factory=dict)
    """A note per raw value that needs one (which dialect sent it, what it means)."""
    steps: tuple[Step, ...] = ()
    bad_calls: Mapping[str, str] = field(default_factory=dict)
    """Stop values that say the calls themselves are bad (malformed, undeclared, too many),
    each with what it says: every call under one is marked incomplete, never run."""


def look_up(table: Mapping[str, Verdict], title: str, raw: Any, notes: list[str]) -> Verdict:
    """Map a stop value through its table; unknown, with a note, when absent or off-table.

    Example:
        >>> notes = []
        >>> look_up({"stop": (StopReason.COMPLETED, None)}, "done_reason", "halt", notes)
        (<StopReason.UNKNOWN: 'unknown'>, 'unrecognized')
        >>> notes
        ["done_reason 'halt' is not a documented value: unknown/unrecognized"]
    """
    if type(raw) is str:
        entry = table.get(raw)
        if entry is not None:
            return entry
        if raw:
            notes.append(f"{title} {raw!r} is not a documented value: unknown/unrecognized")
            return _UNKNOWN, "unrecognized"
    elif raw is not None:
        notes.append(f"{title} is a {type(raw).__name__}, not a string: unknown/malformed")
        return _UNKNOWN, "malformed"
    notes.append(f"no {title} in the reply: unknown/missing")
    return _UNKNOWN, "missing"


# How strict each reason is, for a stream that sends its stop value twice: a later value wins
# only when it is at least as strict (a content filter after `stop` wins; `stop` after
# `max_tokens` does not).
_STRICTNESS = {
    _COMPLETED: 1,
    _STOP_SEQUENCE: 1,
    _TOOL_REQUEST: 2,
    _PAUSED: 3,
    _OUTPUT_LIMIT: 3,
    _UNKNOWN: 4,
    _FILTERED: 5,
}


def stricter(table: Mapping[str, Verdict], held: Any, new: Any) -> bool:
    """Say whether a stream's stop value `new` may replace the value `held` (None: nothing yet).

    Example:
        >>> table = {"stop": (StopReason.COMPLETED, None),
        ...          "length": (StopReason.OUTPUT_LIMIT, "max_tokens")}
        >>> (stricter(table, "length", "stop"), stricter(table, "stop", "length"))
        (False, True)
    """
    if held is None:
        return True
    return _rank(table, new) >= _rank(table, held)


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
    return entry[0] if entry is not None else _UNKNOWN


def _rank(table: Mapping[str, Verdict], raw: Any) -> int:
    return _STRICTNESS[reason_of(table, raw)]


def _calls(n: int) -> str:
    return f"{n} tool call" + ("" if n == 1 else "s")


def _said(rules: Rules, raw: Any) -> str:
    """The stop value as the notes quote it: `finish_reason 'stop'`."""
    return f"{rules.title} {raw!r}"


def decide(reading: Reading, rules: Rules) -> Stop:
    """Apply DESIGN section 3 to one reading and build its `Stop` (the only builder of one)."""
    notes = reading.notes
    raw = reading.raw_reason
    if type(raw) is not str and raw is not None:
        raw = raw_value(raw)  # an SDK enum member: its wire value
    if reading.verdict is not None:
        reason, detail = reading.verdict
    else:
        entry = rules.table.get(raw) if type(raw) is str else None
        if entry is None:
            reason, detail = look_up(rules.table, rules.title, raw, notes)
        else:  # the usual case: a documented value
            reason, detail = entry
            if rules.value_notes:
                note = rules.value_notes.get(raw)
                if note is not None:
                    notes.append(note)
    for step in rules.steps:
        reason, detail = step(reading, reason, detail)
    calls = reading.calls

    if calls and rules.bad_calls:
        calls = _refused_calls(reading, rules, raw, calls)

    answered = reading.answered
    if answered and calls:
        pending = [c for c in calls if c.id not in answered]
        if len(pending) != len(calls):
            notes.append(
                f"{_calls(len(calls) - len(pending))} answered in the same reply "
                "(run by the provider): not pending"
            )
            calls = pending

    if not reading.ended:
        why = "the stream ended before its terminal event"
        reason, detail = _UNKNOWN, "stream_incomplete"
        if reading.error is not None:
            notes.append(f"an error arrived in the stream and {why}: unknown/error")
            detail = "error"
        else:
            notes.append(f"{why}: unknown/stream_incomplete")
        calls = [cut(c, why) for c in calls]
    elif reading.malformed is not None:
        notes.append(f"malformed reply: {reading.malformed}: unknown/malformed")
        reason, detail = _UNKNOWN, "malformed"
        if calls:
            notes.append(f"{_calls(len(calls))} in a malformed reply: listed, not run")
    # 1. filtered
    elif reading.refusal and reason is not _FILTERED:
        notes.append(f"a refusal beside {_said(rules, raw)}: filtered/refusal")
        reason, detail = _FILTERED, "refusal"
    elif reading.filter is not None and reason is not _FILTERED:
        detail, why = reading.filter
        notes.append(f"{why}: filtered/{detail}")
        reason = _FILTERED
    elif reason is _FILTERED:
        if calls:
            notes.append(f"{_calls(len(calls))} under {_said(rules, raw)}: listed, not run")
    # 2. output_limit
    elif reason is _OUTPUT_LIMIT:
        if calls:
            calls = _cut_calls(calls, reading.cut_in_call, raw)
            notes.append(
                f"{_said(rules, raw)} cut the reply with {_calls(len(calls))}: marked incomplete"
            )
        usage = reading.usage
        if (
            detail == "max_tokens"
            and not reading.text
            and not calls
            and usage is not None
            and (usage.reasoning_tokens or 0) > 0
        ):
            notes.append(
                f"no visible text, {usage.reasoning_tokens} reasoning tokens: the ceiling "
                "went to reasoning (output_limit/reasoning)"
            )
            detail = "reasoning"
    # 3. paused
    elif reason is _PAUSED:
        if calls:
            notes.append(f"{_calls(len(calls))} under {_said(rules, raw)}: listed, not run")
    # 7 before 4: what is not understood wins over present tool calls.
    elif reason is _UNKNOWN:
        if calls:
            notes.append(f"{_calls(len(calls))} under an unknown stop: listed, not run")
    elif reading.error is not None:
        notes.append(f"an in-band error beside {_said(rules, raw)}: unknown/error")
        reason, detail = _UNKNOWN, "error"
    # 4. tool_request
    elif calls:
        if reason is not _TOOL_REQUEST:
            notes.append(f"{_said(rules, raw)} with {_calls(len(calls))}: treated as tool_request")
            reason, detail = _TOOL_REQUEST, None
        for call in calls:
            if not call.complete:
                bad = ", ".join(c.name or c.id for c in calls if not c.complete)
                notes.append(f"tool call(s) {bad} incomplete: answered with an error, not run")
                break
    elif reason is _TOOL_REQUEST:
        notes.append(f"{_said(rules, raw)} with no pending tool call: unknown/no_pending_call")
        reason, detail = _UNKNOWN, "no_pending_call"
    # 5 and 6: the table's stop_sequence or completed, as mapped.

    ceiling = reading.ceiling
    usage = reading.usage
    if (
        ceiling is not None
        and usage is not None
        and usage.output_tokens == ceiling
        and reason is not _OUTPUT_LIMIT
    ):
        notes.append(
            f"the reply used all {ceiling} output tokens the request allowed, yet "
            f"{_said(rules, raw)} says it was not cut"
        )

    details = reading.details
    if type(raw) is not str and type(raw) is not int and raw is not None:
        details["raw_reason"] = raw  # not a value a stop field holds: kept, out of the field
        raw = None
    return _fast_stop(
        {
            "reason": reason,
            "raw_reason": raw,
            "provider": rules.provider,
            "detail": detail,
            "text": reading.text,
            "tool_calls": calls if type(calls) is tuple else tuple(calls),
            "refusal": reading.refusal,
            "stop_sequence": reading.stop_sequence,
            "notes": tuple(notes),
            "model": reading.model,
            "response_id": reading.response_id,
            "usage": usage,
            "details": details,
            "raw": reading.raw,
        }
    )


def _refused_calls(reading: Reading, rules: Rules, raw: Any, calls: Any) -> Any:
    """The calls, each marked incomplete when the stop value says the calls themselves are bad.

    The value is looked up under its table name (`reading.named`, where the reader decoded an
    enum number or another letter case). The error names the value: it overrules a call's own.
    """
    name = reading.named or raw
    meaning = rules.bad_calls.get(name) if type(name) is str else None
    if meaning is None:
        return calls
    said = _said(rules, raw) if name == raw else f"{rules.title} {raw!r} ({name})"
    reading.notes.append(
        f"{said} says the calls themselves are bad: {_calls(len(calls))} marked incomplete"
    )
    return [cut(c, f"{said}: {meaning}", overrule=True) for c in calls]


def _cut_calls(calls: Any, cut_in_call: bool, raw: Any) -> list[ToolCall]:
    """A truncated reply's calls, each marked incomplete; the one the cut fell in says so."""
    why = f"the reply was cut off ({raw})"
    out = [cut(c, why) for c in calls]
    if cut_in_call:  # said of the last call, whatever else was wrong with it
        out[-1] = cut(calls[-1], f"{why} while this call's input was being written", overrule=True)
    return out
