"""The engine: DESIGN section 3 as its ordered list of rules, and the facts a reading names.

Each row is one reply's facts and the rule of section 3 that decides it: the spec of the order,
rule by rule, in no provider's shape.
"""

from __future__ import annotations

from typing import Any

import pytest

from stopkit import StopReason
from stopkit.adapters import Reading, tool_call
from stopkit.adapters._case import Case
from stopkit.adapters._engine import decide
from stopkit.adapters._rules import Rules
from stopkit.adapters._section3 import SECTION_3

_R = StopReason
TABLE = {
    "end": (_R.COMPLETED, None),
    "calls": (_R.TOOL_REQUEST, None),
    "cut": (_R.OUTPUT_LIMIT, "max_tokens"),
    "blocked": (_R.FILTERED, "safety"),
    "pause": (_R.PAUSED, "continuation"),
    "broken": (_R.UNKNOWN, "error"),
}
LEGACY = Rules("demo", "legacy_stop", {"DONE": (_R.COMPLETED, None)})
RULES = Rules("demo", "finish", TABLE, fields={"legacy": LEGACY})
CALL = tool_call("c1", "lookup", "{}")


def test_the_rules_are_section_3_in_its_order() -> None:
    """SECTION_3 lists the rules as DESIGN section 3 orders them (7 before 4)."""
    assert [rule.__name__ for rule in SECTION_3] == [
        "stream_cut", "malformed_reply",  # 0
        "refusal", "filter_signal", "filtering_value",  # 1
        "output_limit",  # 2
        "paused",  # 3
        "unknown_value", "in_band_error",  # 7, before 4
        "pending_calls", "no_pending_call",  # 4
    ]  # fmt: skip


def _reading(raw: Any, **facts: Any) -> Reading:
    reading = Reading(raw={"finish": raw}, raw_reason=raw)
    for name, value in facts.items():
        setattr(reading, name, value)
    return reading


# raw value, facts, the rule that decides (None: the table's value stands), reason, detail
SPEC = [
    ("end", {"ended": False, "calls": [CALL]}, "stream_cut", _R.UNKNOWN, "stream_incomplete"),
    ("end", {"ended": False, "error": {"x": 1}}, "stream_cut", _R.UNKNOWN, "error"),
    ("end", {"malformed": "no content"}, "malformed_reply", _R.UNKNOWN, "malformed"),
    ("end", {"refusal": "No."}, "refusal", _R.FILTERED, "refusal"),
    ("end", {"filter": ("guardrail", "a guardrail said so")}, "filter_signal", _R.FILTERED,
     "guardrail"),
    ("blocked", {"calls": [CALL]}, "filtering_value", _R.FILTERED, "safety"),
    ("cut", {"calls": [CALL]}, "output_limit", _R.OUTPUT_LIMIT, "max_tokens"),
    ("pause", {"calls": [CALL]}, "paused", _R.PAUSED, "continuation"),
    ("strange", {"calls": [CALL]}, "unknown_value", _R.UNKNOWN, "unrecognized"),
    ("broken", {"calls": [CALL]}, "unknown_value", _R.UNKNOWN, "error"),
    ("end", {"error": {"x": 1}, "calls": [CALL]}, "in_band_error", _R.UNKNOWN, "error"),
    ("end", {"calls": [CALL]}, "pending_calls", _R.TOOL_REQUEST, None),
    ("calls", {}, "no_pending_call", _R.UNKNOWN, "no_pending_call"),
    ("calls", {"calls": [CALL], "answered": {"c1"}}, "no_pending_call", _R.UNKNOWN,
     "no_pending_call"),
    ("end", {}, None, _R.COMPLETED, None),
    (None, {}, "unknown_value", _R.UNKNOWN, "missing"),
    (None, {"error": {"x": 1}}, "unknown_value", _R.UNKNOWN, "error"),
    (7, {}, "unknown_value", _R.UNKNOWN, "malformed"),
]  # fmt: skip


@pytest.mark.parametrize(("raw", "facts", "rule", "reason", "detail"), SPEC)
def test_the_first_rule_that_matches_decides(
    raw: Any, facts: dict[str, Any], rule: str | None, reason: StopReason, detail: str | None
) -> None:
    """Each reading is decided by the first rule of section 3 that matches its facts."""
    matched = [r.__name__ for r in SECTION_3 if r(Case(_reading(raw, **facts), RULES))]
    assert (matched[:1] or [None])[0] == rule
    stop = decide(_reading(raw, **facts), RULES)
    assert (stop.reason, stop.detail) == (reason, detail), stop.notes


def test_a_value_read_from_another_field_is_looked_up_there() -> None:
    """A reading that names another stop field is decided by that field's table and title."""
    reading = _reading("DONE", field="legacy", calls=[CALL])
    stop = decide(reading, RULES)
    assert (stop.reason, stop.raw_reason) == (_R.TOOL_REQUEST, "DONE")
    assert "legacy_stop 'DONE' with 1 tool call: treated as tool_request" in stop.notes


def test_a_field_the_rules_do_not_know_is_a_clear_error() -> None:
    """Naming a stop field the rules lack is a reader's mistake, said as such."""
    with pytest.raises(LookupError, match="name no stop field 'nowhere'"):
        decide(_reading("end", field="nowhere"), RULES)


@pytest.mark.parametrize(
    ("numbered", "detail"), [(True, "unrecognized"), (False, "malformed")]
)
def test_an_enum_number_no_numbering_names_is_unrecognized_where_values_are_numbered(
    numbered: bool, detail: str
) -> None:
    """An int a numbered wire sends is an enum number (unrecognized); elsewhere, not a value."""
    rules = Rules("demo", "finish", TABLE, numbered=numbered)
    assert decide(_reading(99), rules).detail == detail


def test_a_decoded_name_is_looked_up_and_the_value_kept_as_sent() -> None:
    """A value the reader named (`Reading.named`) is looked up by that name; raw stays as sent."""
    stop = decide(_reading(3, named="cut"), Rules("demo", "finish", TABLE, numbered=True))
    assert (stop.reason, stop.detail, stop.raw_reason) == (_R.OUTPUT_LIMIT, "max_tokens", 3)


def test_a_cut_stream_with_no_stop_value_says_so_once() -> None:
    """No stop value in a cut stream: the cut speaks, with no second "no finish" note."""
    stop = decide(_reading(None, ended=False), RULES)
    assert stop.notes == ("the stream ended before its terminal event: unknown/stream_incomplete",)
