"""Crash and resume for real: worker processes killed with SIGKILL, then run again.

A worker (`_scenario.py`) runs 5 tool turns against a model answering by the turn; every model
call and tool call appends to a side-effect log. It kills itself with SIGKILL at one point:
inside a model call, inside a tool, or between turns (after a tool's result was recorded).
Once the dead worker's lease has run out (leases of 1 s here), a second worker with the same
run id must finish with the Outcome of an uninterrupted run, every completed step having
happened exactly once, only the interrupted one twice.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]


LEASE = 1.0


def worker(store: str, log: Path, *args: str, run_id: str = "crash") -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "tests.loop.journal._scenario", "--journal", store,
               "--run-id", run_id, "--log", str(log), "--lease", str(LEASE), *args]  # fmt: skip
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip


def finish(process: subprocess.Popen[str]) -> tuple[int, Any]:
    out, err = process.communicate(timeout=120)
    if process.returncode not in (0, 3, -signal.SIGKILL):
        raise AssertionError(f"worker failed ({process.returncode}):\n{err}")
    return process.returncode, json.loads(out) if out.strip() else None


def killed(process: subprocess.Popen[str]) -> bool:
    """Say whether the worker died by SIGKILL; then wait until its lease has run out."""
    dead = finish(process)[0] == -signal.SIGKILL
    time.sleep(LEASE + 0.2)
    return dead


def lines(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The summary and side effects of the run when nothing kills it (its own SQLite file)."""
    where = tmp_path_factory.mktemp("clean")
    log = where / "clean.log"
    status, summary = finish(worker(f"sqlite:{where / 'clean.db'}", log, "--calls", "2"))
    assert status == 0
    return {"summary": summary, "log": lines(log)}


@pytest.mark.parametrize(
    ("kill", "twice", "mode"),
    [
        ("model:3", "model 3", []),
        ("tool:3.1", "tool 3.1", []),
        ("between:3", None, []),
        ("model:1", "model 1", []),
        ("tool:4.0", "tool 4.0", ["--async"]),
        ("between:5", None, ["--async"]),
    ],
    ids=[
        "mid-model-call", "mid-tools", "between-turns", "first-call", "async-mid-tools",
        "async-between-turns",
    ],
)  # fmt: skip
def test_a_killed_run_resumes_to_the_uninterrupted_outcome(
    store: str,
    tmp_path: Path,
    uninterrupted: dict[str, Any],
    kill: str,
    twice: str | None,
    mode: list[str],
) -> None:
    """SIGKILL at `kill`, rerun: same Outcome, each finished step once, the cut one twice."""
    log = tmp_path / "effects.log"
    assert killed(worker(store, log, "--calls", "2", "--kill", kill, *mode))
    status, summary = finish(worker(store, log, "--calls", "2", *mode))
    assert status == 0
    assert summary == uninterrupted["summary"]
    counts = Counter(lines(log))
    assert set(counts) == set(uninterrupted["log"])
    repeated = {line: n for line, n in counts.items() if n != 1}
    if mode and twice:  # the turn's other call ran beside it: cut too, unless it had finished
        repeated.pop(twice.replace(".0", ".1"), None)
    assert repeated == ({twice: 2} if twice else {})


def test_a_killed_non_idempotent_call_needs_attention_on_resume(
    store: str, tmp_path: Path
) -> None:
    """Killed inside a non-idempotent tool, the rerun stops as needs_attention, running nothing."""
    log = tmp_path / "effects.log"
    flags = ["--non-idempotent", "--kill", "tool:2.0"]
    assert killed(worker(store, log, *flags))
    before = lines(log)
    status, summary = finish(worker(store, log, "--non-idempotent"))
    assert status == 0
    assert summary["termination"] == "needs_attention"
    assert summary["escalation"].startswith("tool_call_2_0: record")
    assert lines(log) == before


def test_two_workers_racing_to_resume_a_run_exactly_one_wins(store: str, tmp_path: Path) -> None:
    """After a crash, two workers start the same run at the same moment: one runs, one is locked."""
    log = tmp_path / "effects.log"
    assert killed(worker(store, log, "--kill", "tool:2.0"))
    start_at = f"{time.time() + 2.0:.3f}"  # both are up by then, and start together
    racers = [worker(store, log, "--slow", "0.3", "--start-at", start_at)
              for _ in range(2)]  # fmt: skip
    results = sorted(finish(racer) for racer in racers)
    assert [status for status, _ in results] == [0, 3]
    assert results[0][1]["termination"] == "completed"
    assert "is being run by" in results[1][1]["locked"]
    counts = Counter(lines(log))
    assert counts["tool 2.0"] == 2  # the killed call, once per worker that ran it
    assert {line: n for line, n in counts.items() if n != 1} == {"tool 2.0": 2}


# Every commit of a run of two turns of two calls, and the inside of every tool call, in the
# order the run reaches them: one worker dies at each, the next resumes and dies at the next.
CHAIN = [
    "after:model_call_1", "tool:1.0", "after:tool_call_1_0", "tool:1.1", "after:tool_call_1_1",
    "after:model_call_2", "tool:2.0", "after:tool_call_2_0", "tool:2.1", "after:tool_call_2_1",
    "after:model_call_3",
]  # fmt: skip


def test_a_run_killed_at_every_commit_and_inside_every_tool_ends_as_an_uninterrupted_one(
    store: str, tmp_path: Path
) -> None:
    """Eleven workers in turn, each SIGKILLed at the next point; a twelfth finishes the run.

    It ends with the uninterrupted run's Outcome; no model call is made twice (each was
    committed before the next kill), and each tool call twice (once cut, once to its end).
    """
    clean = tmp_path / "clean.log"
    status, whole = finish(worker(f"sqlite:{tmp_path / 'clean.db'}", clean, "--turns", "2",
                                  "--calls", "2"))  # fmt: skip
    assert status == 0
    log = tmp_path / "effects.log"
    status, chained = finish(worker(store, log, "--turns", "2", "--calls", "2",
                                    "--chain", ",".join(CHAIN)))  # fmt: skip
    assert status == 0
    assert chained.pop("ends") == [-signal.SIGKILL] * len(CHAIN)
    assert chained == whole
    counts = Counter(lines(log))
    assert set(counts) == set(lines(clean))
    assert {line: n for line, n in counts.items() if n != 1} == {
        "tool 1.0": 2, "tool 1.1": 2, "tool 2.0": 2, "tool 2.1": 2,
    }  # fmt: skip


def test_a_run_killed_right_after_a_non_idempotent_start_needs_attention(
    store: str, tmp_path: Path
) -> None:
    """Killed once the start is committed, before the call ran: the rerun runs nothing."""
    log = tmp_path / "effects.log"
    assert killed(worker(store, log, "--non-idempotent", "--kill", "started:tool_call_2_0"))
    before = lines(log)
    assert "tool 2.0" not in before
    status, summary = finish(worker(store, log, "--non-idempotent"))
    assert status == 0
    assert summary["termination"] == "needs_attention"
    assert lines(log) == before


def test_a_run_whose_worker_was_killed_on_this_machine_resumes_at_once(
    store: str, tmp_path: Path
) -> None:
    """SIGKILL, then a rerun on the same host: the dead process's 30 s lease is taken over."""
    log = tmp_path / "effects.log"
    process = worker(store, log, "--lease", "30", "--kill", "tool:2.0")
    assert finish(process)[0] == -signal.SIGKILL  # no waiting for the lease to run out
    status, summary = finish(worker(store, log, "--lease", "30"))
    assert status == 0, summary
    assert summary["termination"] == "completed"
