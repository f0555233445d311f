"""Worker processes forked with a journal their parent opened and used before `fork()`.

`python -m tests.loop.journal._forked STORE CHILDREN` opens the journal, runs a run on it (and
reads it enough for psycopg to prepare statements on its session), forks the children, each
running a run of its own on the same journal object while the parent runs another, and prints
what happened as JSON: each child's exit status (0: its run completed), the parent's runs.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any

import stopkit
from tests.loop.journal._scenario import FINAL, Trace, TurnModel, open_journal, record_tool


def run(journal: Any, run_id: str) -> bool:
    """Run two tool turns and the answer as `run_id`; say whether it completed."""
    trace = Trace()
    outcome = stopkit.run_loop(TurnModel(trace, turns=2), "Go.",
                               tools={"record": record_tool(trace)}, journal=journal,
                               run_id=run_id)  # fmt: skip
    return outcome.text == FINAL


def main(store: str, children: int) -> None:
    """Fork `children` workers sharing the journal object; print how each ended."""
    journal = open_journal(store, 30.0)
    run(journal, "parent-0")
    for _ in range(6):  # psycopg prepares a statement on its session at its 5th use
        journal.runs()
    pids = []
    for n in range(children):
        pid = os.fork()
        if pid == 0:
            try:
                ok = run(journal, f"child-{n}")
            except BaseException:
                traceback.print_exc()
                ok = False
            os._exit(0 if ok else 1)
        pids.append(pid)
    parent = run(journal, "parent-1")
    statuses = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in pids]
    runs = sorted(info.run_id for info in journal.runs() if info.termination == "completed")
    print(json.dumps({"children": statuses, "parent": parent, "completed": runs}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
