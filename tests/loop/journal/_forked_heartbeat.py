"""A child forked while the heartbeat's thread holds the heartbeat's lock, running a run of its own.

`python -m tests.loop.journal._forked_heartbeat STORE` has the parent's heartbeat keep a lease
whose `every` is read under the heartbeat's lock and waits there, forks while it waits, and has
the child run a durable run on STORE (its lease kept by the child's heartbeat). It prints the
child's exit status as JSON (0: its run completed), or `"hung"` when the child was still
running after a bound far above what the run takes (it is then killed).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
import traceback

import stopkit
from stopkit.loop.journal._heartbeat import HEARTBEAT
from tests.loop.journal._scenario import FINAL, Trace, TurnModel, open_journal, record_tool

BOUND = 60.0
"""Seconds the child may take (its run takes a fraction of one)."""


class Holding:
    """A lease the heartbeat keeps, whose `every` waits, under the heartbeat's lock, until `go`."""

    def __init__(self) -> None:
        self.renewed = 0.0
        self.inside = threading.Event()
        self.go = threading.Event()

    @property
    def every(self) -> float:
        self.inside.set()
        self.go.wait()
        return 3600.0

    def renew(self) -> bool:
        return True


def _child(store: str) -> int:
    trace = Trace()
    journal = open_journal(store, 30.0)
    outcome = stopkit.run_loop(TurnModel(trace, turns=1), "Go.",
                               tools={"record": record_tool(trace)}, journal=journal,
                               run_id="forked-child")  # fmt: skip
    return 0 if outcome.text == FINAL else 1


def _waited(pid: int) -> int | str:
    """Return the child's exit status; kill it and say `hung` when it outlasts `BOUND`."""
    until = time.monotonic() + BOUND
    while time.monotonic() < until:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return "hung"


def main(store: str) -> None:
    """Fork while the heartbeat holds its lock; print how the child's run ended."""
    holding = Holding()
    HEARTBEAT.add(holding)
    if not holding.inside.wait(BOUND):
        raise RuntimeError("the heartbeat never read the lease")
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = _child(store)
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    child = _waited(pid)
    holding.go.set()
    HEARTBEAT.remove(holding)
    print(json.dumps({"child": child}))


if __name__ == "__main__":
    main(sys.argv[1])
