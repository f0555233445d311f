"""A wire format's rules: its stop field's table, value notes, provider steps, other fields.

`Rules` is what an adapter hands the engine with each reading (`decide(reading, rules)`): the
mapping table of its stop value keyed by the provider's *string*, the field's name for the notes,
and the provider's own knowledge as small named steps. `look_up` maps one value through one
table, with the note an absent or off-table value leaves.

Example:
    >>> rules = Rules("demo", "finish", {"done": (StopReason.COMPLETED, None)})
    >>> rules.field_rules(None) is rules
    True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from stopkit._stop import StopReason
from stopkit.adapters._reading import Reading, Verdict

__all__ = ["Rules", "Step", "look_up"]

_UNKNOWN = StopReason.UNKNOWN

Step = Callable[[Reading, StopReason, "str | None"], Verdict]
"""A provider step: (reading, reason, detail) -> (reason, detail), leaving a note if it acts."""


@dataclass(frozen=True)
class Rules:
    """One wire format's rules: its table, the stop field's name, its provider steps."""

    provider: str
    """The provider's name, as a `Stop` gives it (`anthropic`, `openai`, `gemini`, ...)."""
    title: str
    """The stop field, as the notes name it (`stop_reason`, `finish_reason`, ...)."""
    table: Mapping[str, Verdict]
    """Each known stop value with its verdict: the reason, and a note or None."""
    value_notes: Mapping[str, str] = field(default_factory=dict)
    """A note per value that needs one (which dialect sent it, what it means)."""
    steps: tuple[Step, ...] = ()
    """The provider's own steps, run in order on the looked-up verdict before the rules of §3."""
    bad_calls: Mapping[str, str] = field(default_factory=dict)
    """Stop values that say the calls themselves are bad (malformed, undeclared, too many),
    each with what it says: every call under one is marked incomplete, never run."""
    fields: Mapping[str, Rules] = field(default_factory=dict)
    """The other stop fields a reader may read a value from, by the name it gives in
    `Reading.field` (a legacy field, a blocked prompt's reason, a framework's kept value): each
    with its own title, table, notes and steps, decided under this provider's name."""
    numbered: bool = False
    """Whether an int stop value is an enum number (its name, where the reader decoded it, is
    `Reading.named`): one no numbering names is unrecognized, not malformed."""

    def field_rules(self, name: str | None) -> Rules:
        """The rules of the stop field `name` (None: this one's own).

        Raises:
            LookupError: the rules know no field of that name (a reader's mistake).
        """
        if name is None:
            return self
        found = self.fields.get(name)
        if found is None:
            raise LookupError(f"the {self.provider} rules name no stop field {name!r}")
        return found


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
