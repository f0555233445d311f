"""The one reconciliation engine: `decide`, the only builder of a `Stop`.

A reader records what a reply said as the facts of a `Reading`; `decide` looks its stop value
up in the adapter's `Rules` (the table of the field the value came from, its value notes, the
provider's steps: `Case`), then applies `SECTION_3`, the rules of DESIGN section 3 in order,
each a small named function (`_section3`): the first that matches decides. Then it builds the
`Stop`, for every adapter the same way.

Example:
    >>> from stopkit.adapters._reading import Reading
    >>> rules = Rules("demo", "finish", {"done": (StopReason.COMPLETED, None)})
    >>> decide(Reading(raw=None, raw_reason="done"), rules).reason
    <StopReason.COMPLETED: 'completed'>
"""

from __future__ import annotations

from stopkit._stop import Stop, StopReason
from stopkit.adapters._case import Case
from stopkit.adapters._reading import Reading
from stopkit.adapters._rules import Rules
from stopkit.adapters._section3 import SECTION_3

__all__ = ["decide"]


def decide(reading: Reading, rules: Rules) -> Stop:
    """Apply DESIGN section 3 to one reading and build its `Stop` (the only builder of one)."""
    case = Case(reading, rules)
    for rule in SECTION_3:
        if rule(case):
            break
    if reading.ceiling is not None:
        _full_ceiling(case)
    return _stop(case, rules.provider)


def _full_ceiling(case: Case) -> None:
    """Note a reply that used every output token its request allowed, yet says it was not cut."""
    ceiling, usage = case.reading.ceiling, case.reading.usage
    if ceiling is None or usage is None or usage.output_tokens != ceiling:
        return
    if case.reason is not StopReason.OUTPUT_LIMIT:
        case.notes.append(
            f"the reply used all {ceiling} output tokens the request allowed, yet {case.said} "
            "says it was not cut"
        )


def _stop(case: Case, provider: str) -> Stop:
    reading, raw, calls = case.reading, case.raw, case.calls
    details = reading.details
    if type(raw) is not str and type(raw) is not int and raw is not None:
        details["raw_reason"] = raw  # not a value a stop field holds: kept, out of the field
        raw = None
    return Stop.model_validate(
        {
            "reason": case.reason,
            "raw_reason": raw,
            "provider": provider,
            "detail": case.detail,
            "text": reading.text,
            "tool_calls": calls if type(calls) is tuple else tuple(calls),
            "refusal": reading.refusal,
            "stop_sequence": reading.stop_sequence,
            "notes": tuple(case.notes),
            "model": reading.model,
            "response_id": reading.response_id,
            "usage": reading.usage,
            "details": details,
            "raw": reading.raw,
        }
    )
