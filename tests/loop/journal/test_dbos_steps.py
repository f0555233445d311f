"""DBOS in this process: what a recovery replays is what the run saw; one loop, one set of keys.

A recovery is made with `DBOS.fork_workflow` from past the last step: every step is answered
from its checkpoint, as after a crash, and the workflow must end as the first run did.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import stopkit
import stopkit.loop
import stopkit.loop.journal
from stopkit.loop.journal import dbos as durable
from tests.loop.journal._forms import FORMS, REFUSED
from tests.loop.journal.conftest import unavailable


@pytest.fixture
def flows(tmp_path: Path) -> Iterator[Any]:
    """DBOS launched on a SQLite file of this test's own; the workflows of `_dbos_flows`."""
    try:
        from dbos import DBOS
    except ImportError:
        unavailable("DBOS is not installed (pip install 'stopkit[dbos]')")
    from tests.loop.journal import _dbos_flows

    DBOS(config={"name": "stopkit-tests", "run_admin_server": False, "log_level": "WARNING",
                 "system_database_url": f"sqlite:///{tmp_path / 'dbos.sqlite'}"})  # fmt: skip
    DBOS.launch()
    yield _dbos_flows
    DBOS.destroy()


def start(workflow: Any, workflow_id: str, *args: Any) -> Any:
    """Run `workflow` as `workflow_id`; return its result."""
    from dbos import DBOS, SetWorkflowID

    with SetWorkflowID(workflow_id):
        return DBOS.start_workflow(workflow, *args).get_result()


def recover(workflow_id: str, cut: str | None = None) -> Any:
    """Run the workflow again with every step it recorded answered from its checkpoint.

    `cut`: the step a crash cut; it and every step after it run again.
    """
    from dbos import DBOS

    steps = DBOS.list_workflow_steps(workflow_id, load_output=False)
    last = max(step["function_id"] for step in steps)
    start = next((s["function_id"] for s in steps if s["function_name"] == cut), last + 1)
    return DBOS.fork_workflow(workflow_id, start).get_result()


@pytest.mark.parametrize("flow", ["slow_tool", "aslow_tool"])
def test_a_recovery_replays_the_timeout_the_run_saw_not_the_tools_late_result(
    flows: Any, flow: str
) -> None:
    """A tool past `tool_timeout` is a timeout in its checkpoint too, however it ends later.

    The recovery replays the timeout: the tool is not run again (it would be quick now).
    """
    flows.CALLS.clear()
    first = start(getattr(flows, flow), f"{flow}-1", 0.2, 1.0)
    assert first["tool_runs"][0][2:] == ["timed out after 0.2 s", True]
    assert recover(f"{flow}-1") == first
    assert flows.CALLS == ["tool 1.0"]


@pytest.mark.parametrize("flow", ["two_loops", "atwo_loops"])
def test_a_second_loop_in_a_workflow_needs_a_run_id_of_its_own(flows: Any, flow: str) -> None:
    """The workflow id is one loop's run id: a second loop without `run_id=` is refused.

    Refused before its model call, and again by a recovery; with its own `run_id=`, each
    loop's tools get keys of their own, and a recovery charges nothing again.
    """
    with pytest.raises(stopkit.loop.journal.JournalError, match="run_id=") as raised:
        start(getattr(flows, flow), f"{flow}-1", None)
    # Not wrapped in, nor chained to, the loop's ModelCallError: no cycle of causes, which
    # the pickling DBOS does of a workflow's error cannot follow (with tblib's installed).
    assert (raised.value.__cause__, raised.value.__context__) == (None, None)
    with pytest.raises(stopkit.loop.journal.JournalError, match="run_id="):
        recover(f"{flow}-1")
    keys = start(getattr(flows, flow), f"{flow}-2", "refund-7")
    assert keys == [f"{flow}-2/tool_call_1_0", "refund-7/tool_call_1_0"]
    assert recover(f"{flow}-2") == []


@pytest.mark.parametrize("decision", [True, "not this one"], ids=["approved", "denied"])
@pytest.mark.parametrize("flow", ["approvals", "aapprovals"])
def test_a_deferred_call_waits_for_its_decision_and_ends_as_an_uninterrupted_run(
    flows: Any, flow: str, decision: bool | str
) -> None:
    """`approve` defers a call; the workflow gets the decision, resumes, ends as if never paused.

    Every model call and tool call is made once, and a recovery (the decision replayed with
    the rest) makes none again.
    """
    from dbos import DBOS, SetWorkflowID

    from tests.loop.journal._scenario import Trace, TurnModel, record_tool, summary

    trace = Trace()
    whole = stopkit.run_loop(TurnModel(trace, turns=2, calls=2), "Record.",
                             tools={"record": record_tool(trace)},
                             approve=lambda call: decision if call.id == flows.PENDING else True)
    flows.TRACE.lines.clear()
    with SetWorkflowID(f"{flow}-1"):
        handle = DBOS.start_workflow(getattr(flows, flow))
    assert DBOS.get_event(f"{flow}-1", "pending", 30) == [flows.PENDING]
    DBOS.send(f"{flow}-1", {flows.PENDING: decision}, "decisions")
    assert handle.get_result() == summary(whole)
    assert sorted(flows.TRACE.lines) == sorted(trace.lines)
    assert ("tool 1.1" in flows.TRACE.lines) is (decision is True)
    made = list(flows.TRACE.lines)
    assert recover(f"{flow}-1") == summary(whole)
    assert flows.TRACE.lines == made


def _charge(amount: int, idempotency_key: str) -> str:
    return f"charged {amount} ({idempotency_key})"


def _lookup(order: str) -> str:
    return f"order {order}"


@pytest.mark.parametrize(
    "make",
    [
        lambda tools, **run: stopkit.Loop(durable.model_steps(_lookup), tools=tools, **run),
        lambda tools, **run: stopkit.run_loop(durable.model_steps(_lookup), "Hi", tools=tools,
                                              **run),
    ],
    ids=["Loop", "run_loop"],
)  # fmt: skip
def test_dbos_tool_steps_taking_a_key_need_a_run_id_that_a_recovery_repeats(make: Any) -> None:
    """Without `run_id=`, a run makes its id anew each time it runs: refused, naming `run_id=`.

    A key is `<run id>/tool_call_<turn>_<slot>`; a recovery would give a cut call another one.
    """
    with pytest.raises(ValueError, match=r"'charge' .* idempotency_key.* run_id="):
        make(durable.tool_steps({"charge": _charge, "lookup": _lookup}))
    loop = stopkit.Loop(durable.model_steps(_lookup), tools=durable.tool_steps(
        {"charge": _charge}), run_id="order-7")  # fmt: skip
    assert loop.settings.run_id == "order-7"
    stopkit.Loop(durable.model_steps(_lookup), tools=durable.tool_steps({"lookup": _lookup}))


@pytest.mark.parametrize("flow", ["approvals", "aapprovals"])
def test_a_resumed_run_whose_step_no_longer_replays_raises_the_mismatch_itself(
    flows: Any, flow: str
) -> None:
    """A resume under DBOS raises a `JournalMismatch` as `run_loop` does: itself, unchained.

    The workflow's code changed before its recovery (a denial's reason): the resumed run's
    next model call no longer matches its checkpoint.
    """
    from dbos import DBOS, SetWorkflowID

    with SetWorkflowID(f"{flow}-1"):
        handle = DBOS.start_workflow(getattr(flows, flow))
    assert DBOS.get_event(f"{flow}-1", "pending", 30) == [flows.PENDING]
    DBOS.send(f"{flow}-1", {flows.PENDING: "not this one"}, "decisions")
    handle.get_result()
    flows.CHANGED.append("not this one, nor any")
    try:
        with pytest.raises(stopkit.loop.journal.JournalMismatch, match="model_call_2") as raised:
            recover(f"{flow}-1")
    finally:
        flows.CHANGED.clear()
    assert (raised.value.__cause__, raised.value.__context__) == (None, None)


@pytest.fixture
def quiet_frameworks() -> Iterator[None]:
    """LiteLLM's and pydantic-ai's own warnings (deprecated attributes) are none of stopkit's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.usefixtures("quiet_frameworks")
@pytest.mark.parametrize("flow", ["reply_forms", "areply_forms"])
@pytest.mark.parametrize("form", FORMS)
def test_every_reply_form_reads_as_without_dbos_live_and_on_recovery(
    flows: Any, flow: str, form: str
) -> None:
    """Each reply form gives the `Stop`s a run without DBOS gives: live, and at each recovery.

    Recovered whole, nothing is called again; recovered from inside the tool (a crash there),
    the tool request is replayed from its checkpoint and only the final answer is asked for.
    """
    plain = flows.plain_forms(form)
    assert plain[0]["reason"] == "tool_request"
    live = start(getattr(flows, flow), f"{flow}-{form}", form)
    assert live == {"stops": plain, "model_calls": 2, "tool_runs": 1}
    assert recover(f"{flow}-{form}") == {"stops": plain, "model_calls": 0, "tool_runs": 0}
    cut = recover(f"{flow}-{form}", cut="tool_call_1_0")
    assert cut == {"stops": plain, "model_calls": 1, "tool_runs": 1}


@pytest.mark.usefixtures("quiet_frameworks")
@pytest.mark.parametrize("case", REFUSED)
def test_a_reply_that_cannot_read_back_the_same_is_refused_before_its_step_keeps_it(
    flows: Any, case: str
) -> None:
    """A `JournalError` names the reply's form; DBOS keeps no reply for the step, only the error.

    A recovery refuses it again.
    """
    from dbos import DBOS

    form = REFUSED[case][2]
    with pytest.raises(stopkit.loop.journal.JournalError, match=form):
        start(flows.refused_reply, f"refused-{case}", case)
    [step] = DBOS.list_workflow_steps(f"refused-{case}")
    assert (step["function_name"], step["output"]) == ("model_call_1", None)
    assert isinstance(step["error"], stopkit.loop.journal.JournalError)
    with pytest.raises(stopkit.loop.journal.JournalError, match=form):
        recover(f"refused-{case}")
