"""Tools whose second run may do harm: a crash between start and result needs a person."""

from __future__ import annotations

from typing import Any

import pytest

import stopkit
import stopkit.loop.journal
from stopkit import Termination
from stopkit.loop.journal import RunStatus
from tests.loop.journal._scenario import FINAL, Trace, TurnModel


def charging(trace: Trace, interrupt_at: int | None) -> Any:
    @stopkit.tool(idempotent=False)
    def charge(turn: int, i: int, idempotency_key: str) -> str:
        trace.add(f"charge {turn}.{i} {idempotency_key}")
        if turn == interrupt_at:
            raise KeyboardInterrupt  # the process stops mid-call
        return f"charged {turn}.{i}"

    return charge


def run(journal: Any, trace: Trace, interrupt_at: int | None = None) -> stopkit.Outcome:
    model = TurnModel(trace, turns=2, calls=1)
    model_tools = {"record": charging(trace, interrupt_at)}
    return stopkit.run_loop(model, "Charge.", tools=model_tools, journal=journal, run_id="pay",
                            on_escalate=lambda escalation: None)  # fmt: skip


def test_a_started_non_idempotent_call_without_a_result_stops_the_rerun(journal: Any) -> None:
    """The rerun does not run it again: it ends as needs_attention, naming the step."""
    trace = Trace()
    with pytest.raises(KeyboardInterrupt):
        run(journal, trace, interrupt_at=2)
    assert journal.run("pay").status is RunStatus.INTERRUPTED
    again = Trace()
    outcome = run(journal, again)
    assert outcome.termination is Termination.NEEDS_ATTENTION
    assert outcome.escalation is not None
    assert outcome.escalation.reason.startswith("tool_call_2_0: record (call id toolu_2_0)")
    assert again.lines == []  # nothing ran: not the model, not the tool
    info = journal.run("pay")
    assert info.status is RunStatus.NEEDS_ATTENTION
    assert "may or may not have happened" in info.detail


@pytest.mark.parametrize(
    ("result", "expected_charges"),
    [("charged 2.0 (checked by hand)", []), (None, ["charge 2.0 pay/tool_call_2_0"])],
    ids=["settled-with-a-result", "settled-to-run-again"],
)
def test_a_settled_call_lets_the_run_finish(
    journal: Any, result: str | None, expected_charges: list[str]
) -> None:
    """Once a person settles the call (a result, or run it again), the rerun finishes."""
    with pytest.raises(KeyboardInterrupt):
        run(journal, Trace(), interrupt_at=2)
    journal.settle("pay", "tool_call_2_0", result)
    trace = Trace()
    outcome = run(journal, trace)
    assert outcome.text == FINAL
    assert [line for line in trace.lines if line.startswith("charge")] == expected_charges
    sent = [run.result.content for run in outcome.tool_runs]
    assert sent == ["charged 1.0", result or "charged 2.0"]


def test_an_idempotent_tool_cut_mid_call_is_simply_run_again(journal: Any) -> None:
    """Without the mark, the interrupted call runs again on the rerun; the others replay."""
    trace = Trace()

    def record(turn: int, i: int) -> str:
        trace.add(f"record {turn}.{i}")
        if turn == 2 and trace.lines.count("record 2.0") == 1:
            raise KeyboardInterrupt
        return "ok"

    def go() -> stopkit.Outcome:
        return stopkit.run_loop(TurnModel(trace, 2), "Go.", tools={"record": record},
                                journal=journal, run_id="r")  # fmt: skip

    with pytest.raises(KeyboardInterrupt):
        go()
    assert go().text == FINAL
    assert [line for line in trace.lines if line.startswith("record")] == [
        "record 1.0", "record 2.0", "record 2.0",
    ]  # fmt: skip


def test_the_idempotency_key_is_unique_per_call_and_stable_across_reruns(tmp_path: Any) -> None:
    """A tool asking for `idempotency_key` gets `<run id>/tool_call_<turn>_<slot>`."""
    keys: list[str] = []

    def tool(turn: int, i: int, idempotency_key: str) -> str:
        keys.append(idempotency_key)
        return "ok"

    model = TurnModel(Trace(), turns=1, calls=2)
    stopkit.run_loop(model, "Go.", tools={"record": tool})
    stopkit.run_loop(model, "Go.", tools={"record": tool})
    first, second = keys[:2], keys[2:]
    assert [key.split("/")[1] for key in first] == ["tool_call_1_0", "tool_call_1_1"]
    assert first[0].split("/")[0] != second[0].split("/")[0]  # no journal: a run id per run
    keys.clear()
    journal = stopkit.loop.journal.SqliteJournal(tmp_path / "j.db")
    stopkit.run_loop(model, "Go.", tools={"record": tool}, journal=journal, run_id="order-7")
    assert keys == ["order-7/tool_call_1_0", "order-7/tool_call_1_1"]


def test_tool_marks_functions_and_refuses_bad_options() -> None:
    """`stopkit.tool` marks in place (bare or with options), wraps what takes no attribute."""
    from stopkit.loop._tool import options_of

    @stopkit.tool
    def plain() -> None: ...

    @stopkit.tool(idempotent=False)
    async def charge() -> None: ...

    wrapped = stopkit.tool([].append, idempotent=False)
    assert options_of(plain).idempotent is True
    assert options_of(charge).idempotent is False
    assert options_of(wrapped).idempotent is False
    with pytest.raises(TypeError, match="idempotent must be a bool"):
        stopkit.tool(idempotent="no")  # type: ignore[call-overload]
