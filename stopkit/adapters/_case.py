"""One reading being decided: its stop value looked up, its pending calls worked out.

The engine (`decide`) makes a `Case` of each reading and hands it to the rules of DESIGN
section 3 (`_section3.SECTION_3`), which read it and set its verdict.

Before the rules, here: a reply with no stop value is unknown, and the fact that says why speaks
for it (a cut, a malformed reply, a filter or a refusal, an in-band error); every call under a
stop value that says the calls themselves are bad (`Rules.bad_calls`) is marked incomplete;
calls answered in the same reply are not pending.

Example:
    >>> rules = Rules("demo", "finish", {"done": (StopReason.COMPLETED, None)})
    >>> case = Case(Reading(raw=None, raw_reason="done"), rules)
    >>> (case.reason, case.said)
    (<StopReason.COMPLETED: 'completed'>, "finish 'done'")
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stopkit._stop import StopReason, ToolCall
from stopkit.adapters._calls import cut
from stopkit.adapters._reading import Reading, Verdict
from stopkit.adapters._rules import Rules, look_up
from stopkit.adapters._wire import raw_value

__all__ = ["Case", "calls_said"]

_UNKNOWN = StopReason.UNKNOWN

class Case:
    """One reading being decided: its facts, the rules of its stop field, the verdict so far.

    Made by `decide`: the stop value looked up, the provider's steps applied, the calls that
    are pending worked out. Each rule of `SECTION_3` reads it and, when it matches, sets the
    verdict (`reason`, `detail`), the calls and the notes.
    """

    __slots__ = ("calls", "detail", "field", "notes", "raw", "reading", "reason")

    def __init__(self, reading: Reading, rules: Rules) -> None:
        self.reading = reading
        self.notes = reading.notes
        raw = reading.raw_reason
        if type(raw) is not str and raw is not None:
            raw = raw_value(raw)  # an SDK enum member: its wire value
        self.raw: Any = raw
        name = reading.field
        self.field = field = rules if name is None else rules.field_rules(name)
        self.reason, self.detail = self._looked_up()
        for step in field.steps:
            self.reason, self.detail = step(reading, self.reason, self.detail)
        calls = reading.calls
        if calls and (field.bad_calls or rules.bad_calls):
            calls = self._refused(rules, calls)
        answered = reading.answered
        if answered and calls:
            pending = [c for c in calls if c.id not in answered]
            if len(pending) != len(calls):
                self.notes.append(
                    f"{calls_said(len(calls) - len(pending))} answered in the same reply "
                    "(run by the provider): not pending"
                )
                calls = pending
        self.calls: Sequence[ToolCall] = calls

    @property
    def said(self) -> str:
        """The stop value as the notes quote it: `finish_reason 'stop'`."""
        raw = self.raw
        return f"{self.field.title} {(self.reading.named if raw is None else raw)!r}"

    def decide(self, reason: StopReason, detail: str | None, note: str) -> bool:
        """Set the verdict and say why; True (the rule that calls it has matched)."""
        self.reason, self.detail = reason, detail
        self.notes.append(note)
        return True

    def list_calls(self) -> None:
        """Say that the calls under a stop that is no tool request are listed, never run."""
        if self.calls:
            self.notes.append(f"{calls_said(len(self.calls))} under {self.said}: listed, not run")

    def _looked_up(self) -> Verdict:
        """The stop value through its field's table (its name where the reader decoded one)."""
        field, reading = self.field, self.reading
        key = reading.named if reading.named is not None else self.raw
        if type(key) is str:
            entry = field.table.get(key)
            if entry is not None:  # the usual case: a documented value
                note = field.value_notes.get(key) if field.value_notes else None
                if note is not None:
                    self.notes.append(note)
                return entry
            if not key:
                return self._absent()
        elif key is None:
            return self._absent()
        elif type(key) is int and field.numbered:
            self.notes.append(
                f"{field.title} {key} is not a documented enum number: unknown/unrecognized"
            )
            return _UNKNOWN, "unrecognized"
        return look_up(field.table, field.title, key, self.notes)

    def _absent(self) -> Verdict:
        """No stop value: unknown, and the fact that says why speaks for it.

        A cut stream, a malformed reply, a filter or a refusal each have their rule (and its
        note); an in-band error instead of a stop value is the reply's error.
        """
        reading = self.reading
        title = self.field.title
        if not reading.ended or reading.malformed is not None:
            return _UNKNOWN, "missing"
        if reading.filter is not None or reading.refusal:
            return _UNKNOWN, "missing"
        if reading.error is not None:
            self.notes.append(f"no {title}, and an in-band error in the reply: unknown/error")
            return _UNKNOWN, "error"
        self.notes.append(f"no {title} in the reply: unknown/missing")
        return _UNKNOWN, "missing"

    def _refused(self, rules: Rules, calls: Sequence[ToolCall]) -> Sequence[ToolCall]:
        """The calls, each marked incomplete when the stop value says the calls are bad.

        The value is looked up under its table name (`Reading.named`, where the reader decoded
        an enum number or another letter case). The error names the value: it overrules a
        call's own.
        """
        raw = self.raw
        name = self.reading.named or raw
        if type(name) is not str:
            return calls
        meaning = self.field.bad_calls.get(name) or rules.bad_calls.get(name)
        if meaning is None:
            return calls
        said = self.said if name == raw else f"{self.field.title} {raw!r} ({name})"
        self.notes.append(
            f"{said} says the calls themselves are bad: {calls_said(len(calls))} marked incomplete"
        )
        return [cut(c, f"{said}: {meaning}", overrule=True) for c in calls]


def calls_said(n: int) -> str:
    """`1 tool call`, `2 tool calls`: a count of calls as the notes say it."""
    return f"{n} tool call" + ("" if n == 1 else "s")
