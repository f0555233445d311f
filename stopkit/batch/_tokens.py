"""Token totals of a batch, from each reply's `Stop.usage`, kept as each provider counts them.

Sums are per field, None where no line of the group reported that field (a 0 stays a 0). They
are never combined across fields: providers count differently (Gemini's output leaves thinking
out, OpenAI's includes it; Anthropic's input leaves cache reads out), so only the provider's own
fields are added up.
"""

from __future__ import annotations

from collections.abc import Iterable

from stopkit import Usage

__all__ = ["FIELDS", "Sums", "add", "as_dict", "merge", "total"]

#: The `Usage` fields summed, in order; a `Sums` list has one more slot: the lines counted.
FIELDS = tuple(Usage.model_fields)
_LINES = len(FIELDS)

Sums = list[int | None]


def add(sums: Sums | None, usage: Usage) -> Sums:
    """Add one reply's usage into `sums` (a new list when None), and count the line."""
    if sums is None:
        sums = [None] * (_LINES + 1)
    for i, name in enumerate(FIELDS):
        value = getattr(usage, name)
        if value is not None:
            held = sums[i]
            sums[i] = value if held is None else held + value
    sums[_LINES] = (sums[_LINES] or 0) + 1
    return sums


def merge(into: Sums | None, other: Sums) -> Sums:
    """Add `other` into `into` (a new list when None), field by field."""
    if into is None:
        return list(other)
    for i, value in enumerate(other):
        if value is not None:
            held = into[i]
            into[i] = value if held is None else held + value
    return into


def total(many: Iterable[Sums]) -> Sums | None:
    """The sum of several groups' sums (None when none reported any usage)."""
    found: Sums | None = None
    for sums in many:
        found = merge(found, sums)
    return found


def as_dict(sums: Sums | None) -> dict[str, int | None] | None:
    """The sums by field name, with `lines`: how many replies reported usage."""
    if sums is None:
        return None
    return {**dict(zip(FIELDS, sums, strict=False)), "lines": sums[_LINES]}
