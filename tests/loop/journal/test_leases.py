"""Leases: one worker drives a run at a time; a dead worker's lease expires; operators' tools."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

import stopkit
import stopkit.loop.journal
from stopkit.loop.journal import RunStatus, StepRecord
from tests.loop.journal._scenario import FINAL, Trace, TurnModel, record_tool


def test_a_run_held_by_a_live_worker_is_locked_to_another(open_journal: Callable[..., Any]) -> None:
    """A second worker taking a leased run gets RunLocked naming the holder."""
    first, second = open_journal(), open_journal()
    first.acquire("r", "worker-a")
    with pytest.raises(stopkit.loop.journal.RunLocked, match="worker-a") as raised:
        second.acquire("r", "worker-b")
    assert raised.value.owner == "worker-a"
    with pytest.raises(stopkit.loop.journal.RunLocked):
        stopkit.run_loop(lambda m, **o: pytest.fail("called"), "Hi", journal=second, run_id="r")


def test_a_dead_workers_lease_expires_and_the_run_can_be_taken(
    open_journal: Callable[..., Any],
) -> None:
    """A lease nobody renews runs out; another worker then takes the run and its steps."""
    dead = open_journal(lease_seconds=0.3)
    dead.acquire("r", "dead-worker")
    dead.record("r", "dead-worker", StepRecord("model_call_1", "{}", None, 0.0))
    time.sleep(0.5)
    alive = open_journal(lease_seconds=0.3)
    alive.acquire("r", "new-worker")
    assert alive.run("r").owner == "new-worker"
    assert [s.name for s in alive.steps("r")] == ["model_call_1"]
    with pytest.raises(stopkit.loop.journal.RunLocked):  # the dead worker, back, has lost it
        dead.record("r", "dead-worker", StepRecord("model_call_2", "{}", None, 0.0))


def test_the_heartbeat_keeps_a_slow_run_leased(open_journal: Callable[..., Any]) -> None:
    """A call lasting several lease lengths keeps its lease: nobody else can take the run."""
    journal, other = open_journal(lease_seconds=0.3), open_journal(lease_seconds=0.3)
    attempts: list[str] = []

    def slow_model(messages: Any, **overrides: Any) -> Any:
        time.sleep(0.5)
        try:
            other.acquire("slow", "intruder")
        except stopkit.loop.journal.RunLocked:
            attempts.append("locked")
        return TurnModel(Trace(), turns=0)(messages)

    outcome = stopkit.run_loop(slow_model, "Hi", journal=journal, run_id="slow")
    assert outcome.text == FINAL
    assert attempts == ["locked"]
    assert journal.run("slow").owner is None  # released at the end


def test_runs_can_be_listed_shown_and_deleted(journal: Any) -> None:
    """`runs()`, `run(id)` and `delete(id)` are what `stopkit runs` shows an operator."""
    trace = Trace()
    for run_id in ("a", "b"):
        stopkit.run_loop(TurnModel(trace, 1), "Go.", tools={"record": record_tool(trace)},
                         journal=journal, run_id=run_id)  # fmt: skip
    assert sorted(info.run_id for info in journal.runs()) == ["a", "b"]
    info = journal.run("a")
    assert (info.status, info.termination, info.detail, info.steps) == (
        RunStatus.FINISHED, "completed", FINAL, 3,
    )  # fmt: skip
    assert journal.delete("a") is True
    assert journal.delete("a") is False
    assert journal.run("a") is None
    assert journal.steps("a") == []
    journal.acquire("b", "someone")
    with pytest.raises(stopkit.loop.journal.RunLocked):
        journal.delete("b")


def test_children_forked_with_an_open_journal_each_get_their_own_connection(store: str) -> None:
    """A journal opened before `fork()` serves the parent and every child, each on its own."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    done = subprocess.run([sys.executable, "-m", "tests.loop.journal._forked", store, "4"],
                          cwd=Path(__file__).resolve().parents[3], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["children"] == [0, 0, 0, 0], done.stderr
    assert result["parent"] is True
    assert result["completed"] == ["child-0", "child-1", "child-2", "child-3", "parent-0",
                                   "parent-1"]  # fmt: skip


def _gone_pid() -> int:
    """The pid of a process of this machine that has exited (and was reaped)."""
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_lease_held_by_a_dead_process_of_this_machine_is_taken_over_at_once(
    open_journal: Callable[..., Any],
) -> None:
    """The holder is a process of this host that is gone: its lease is taken at once."""
    from stopkit.loop.journal._owner import new_owner

    journal = open_journal()
    mine = new_owner()
    host, _, rest = mine.partition(":")
    dead = ":".join([host, str(_gone_pid()), "deadbeef", *rest.split(":")[2:]])
    journal.acquire("r", dead)
    journal.acquire("r", mine)
    assert journal.run("r").owner == mine
    # a live holder (this process) is not taken over
    with pytest.raises(stopkit.loop.journal.RunLocked):
        journal.acquire("r", new_owner())


@pytest.mark.parametrize(
    "holder", ["elsewhere:4242:cafe0001", "{host}:{pid}:cafe0002"], ids=["other-host", "alive"]
)
def test_a_live_or_remote_holders_lease_says_how_long_to_wait_and_what_to_do(
    open_journal: Callable[..., Any], holder: str
) -> None:
    """RunLocked names the holder, the seconds left, `lease_seconds=` and `stopkit runs unlock`."""
    import os
    import socket

    journal = open_journal()
    journal.acquire("r", holder.format(host=socket.gethostname(), pid=os.getpid()))
    with pytest.raises(stopkit.loop.journal.RunLocked) as raised:
        open_journal().acquire("r", "worker-b")
    message = str(raised.value)
    assert "s left" in message
    assert "lease_seconds=" in message
    assert "stopkit runs unlock r" in message


def test_a_child_forked_while_the_heartbeat_holds_its_lock_keeps_leases_of_its_own(
    store: str,
) -> None:
    """Forked while the parent's heartbeat thread holds the heartbeat's lock, a child's run ends.

    The child has no copy of that thread to let the lock go: its heartbeat starts afresh.
    """
    import json
    import subprocess
    import sys
    from pathlib import Path

    done = subprocess.run([sys.executable, "-m", "tests.loop.journal._forked_heartbeat", store],
                          cwd=Path(__file__).resolve().parents[3], capture_output=True,
                          text=True, timeout=180)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"child": 0}, done.stderr
