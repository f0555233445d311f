"""Tool permissions: `approve(call)` runs, denies or defers each call before it runs.

A denied call (False, or a str saying why) is answered `denied: ...` while its siblings run;
every call is answered once. Scripted runs over the real adapters (`tests/loop/_shapes.py`).
Deferring (`stopkit.loop.Defer`) and resuming are in `test_resume.py`.
"""

from __future__ import annotations

from typing import Any

import pytest

import stopkit
import stopkit.loop
from stopkit import Termination, ToolCall
from stopkit.loop import Defer
from stopkit.loop.events import ToolDenied
from tests.loop._controls import MODES, ROME, Counted, loop
from tests.loop._shapes import (
    PROVIDERS,
    Shapes,
    assert_every_call_answered_once,
    paris,
    tokyo,
)


def by_city(call: ToolCall) -> bool | str:
    """Paris runs; Tokyo is denied with a reason; Rome is denied plainly."""
    city = call.arguments.get("city")
    return {"Paris": True, "Tokyo": "no travel to Tokyo this quarter", "Rome": False}[city]


@pytest.mark.parametrize("mode", MODES)
def test_a_denied_call_gets_its_error_result_while_its_siblings_run(mode: str, p: Shapes) -> None:
    """Three calls: Paris runs; Tokyo and Rome are answered `denied: ...`, never run."""
    tool = Counted()
    approve = by_city
    if mode == "arun_loop":

        async def approve(call: ToolCall) -> bool | str:  # type: ignore[misc]
            return by_city(call)

    outcome, model, events = loop(
        mode,
        p,
        [p.tools([paris(), tokyo(), ROME]), p.text("Paris is 18 °C.")],
        tools={"get_weather": tool},
        approve=approve,
    )
    assert outcome.termination is Termination.COMPLETED
    assert tool.cities == ["Paris"]
    results = {run.call.id: (run.result.content, run.result.is_error) for run in outcome.tool_runs}
    assert results["call_t"] == ("denied: no travel to Tokyo this quarter", True)
    assert results["call_r"] == ("denied: not approved", True)
    assert results["call_p"][1] is False
    assert_every_call_answered_once(p, outcome)
    # The model is sent the denials in its own format.
    sent = p.error_results(model.calls[1].messages)
    assert "denied: no travel to Tokyo this quarter" in sent["call_t"]
    denied = [(e.call.id, e.reason) for e in events if isinstance(e, ToolDenied)]
    assert denied == [
        ("call_t", "no travel to Tokyo this quarter"),
        ("call_r", "not approved"),
    ]


def test_approve_is_asked_before_the_hook_and_a_denied_call_skips_it() -> None:
    """The permission check comes first: `before_tool_call` sees only calls that will run."""
    p = PROVIDERS[1]
    asked: list[str] = []
    hooked: list[str] = []

    def approve(call: ToolCall) -> bool | str:
        asked.append(call.id)
        return by_city(call)

    loop(
        "run_loop",
        p,
        [p.tools([paris(), tokyo()]), p.text("Ok.")],
        tools={"get_weather": Counted()},
        approve=approve,
        before_tool_call=lambda call, ctx: hooked.append(call.id),
    )
    assert (asked, hooked) == (["call_p", "call_t"], ["call_p"])


@pytest.mark.parametrize(
    ("decision", "shown"),
    [
        (None, "None"),
        (1, "1"),
        (b"yes", "b'yes'"),
        (Defer, "Defer'>"),
        ({"approved": True}, "approved"),
    ],
    ids=["none", "int", "bytes", "the-class", "dict"],
)
@pytest.mark.parametrize("mode", MODES)
def test_approve_returning_anything_else_is_a_type_error_naming_it(
    mode: str, decision: Any, shown: str
) -> None:
    """An `approve` returning anything but True, False, a str or Defer() raises naming it."""
    p = PROVIDERS[0]
    with pytest.raises(TypeError, match=rf"approve returned .*{shown}.* for the call 'get_w"):
        loop(mode, p, [p.tools([paris()]), p.text("Ok.")], tools={"get_weather": Counted()},
             approve=lambda call: decision)  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
def test_a_raising_approve_stops_the_run(mode: str) -> None:
    """A permission check that raises fails closed: nothing runs, `stopped_by_hook`."""
    p = PROVIDERS[3]
    tool = Counted()

    def approve(call: ToolCall) -> bool:
        raise ConnectionError("the policy service is down")

    outcome, model, _ = loop(
        mode, p, [p.tools([paris(), tokyo()]), p.text("Ok.")], tools={"get_weather": tool},
        approve=approve,
    )  # fmt: skip
    assert outcome.termination is Termination.STOPPED_BY_HOOK
    assert tool.cities == []
    assert outcome.stopped_by is not None
    assert outcome.stopped_by.hook == "approve"
    assert len(model.calls) == 1


@pytest.mark.parametrize(
    "approvals",
    [
        {"call_1": Defer()},
        {"call_1": None},
        {"call_1": 1},
        {1: True},
        [("call_1", True)],
    ],
    ids=["defer", "none", "int", "int-key", "not-a-mapping"],
)
def test_bad_approvals_are_refused_at_construction(approvals: Any) -> None:
    """The `approvals` map call ids to True, False or a str: else a TypeError naming it."""
    with pytest.raises(TypeError, match="approvals"):
        stopkit.LoopSettings(approvals=approvals)


def test_approvals_given_ahead_decide_once_before_approve_is_asked() -> None:
    """A decision given ahead (by call id) is used once; later calls are asked about."""
    p = PROVIDERS[1]
    tool = Counted()
    asked: list[str] = []

    def approve(call: ToolCall) -> bool:
        asked.append(call.id)
        return True

    outcome, _, _ = loop(
        "run_loop",
        p,
        [p.tools([paris("same")]), p.tools([tokyo("same")]), p.text("Ok.")],
        tools={"get_weather": tool},
        approve=approve,
        approvals={"same": "not the first one"},
    )
    assert outcome.tool_runs[0].result.content == "denied: not the first one"
    assert asked == ["same"]  # the second call with the id was asked about
    assert tool.cities == ["Tokyo"]
