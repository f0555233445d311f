"""Durable runs: what the journal costs per step, and what replaying a long run costs.

- **per step**: the conversation of `loops.py` (20 tool turns x 2 calls + a final answer: 21
  model steps + 40 tool steps = 61 steps) through `run_loop`, with no journal, with a
  `SqliteJournal` (a file in a temp dir) and with a `PostgresJournal` over loopback, a fresh
  run id per run; time per step. The journal's overhead per step is the journaled row minus
  the plain one (digesting the transcript, dumping the reply, one committed write per step,
  taking and giving up the lease).
- **replay**: a finished run of 100 tool turns (201 steps) run again with the same id: every
  step is read back and checked, no model or tool is called; time per run.

PostgreSQL: `STOPKIT_BENCH_POSTGRES_DSN` (pyperf's workers see it only when passed on:
`--inherit-environ STOPKIT_BENCH_POSTGRES_DSN`), else a throwaway cluster started for the run
with `tests/_postgres.py` (fsync on, as a server would run); the journal as it is by
default (its session's commits do not wait for the server's disk; `durable=True` would).
`python -m benchmarks.journal` runs just these rows under pyperf (`--fast`,
`--processes 1`, ... work too).
"""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.loops import CALLS_PER_TURN, LOOP_TURNS, PROMPT, lookup, tool_reply
from benchmarks.replies import REPLIES

__all__ = ["LOOP_STEPS", "REPLAY_TURNS", "journal_run", "replay_run"]

LOOP_STEPS = (LOOP_TURNS + 1) + LOOP_TURNS * CALLS_PER_TURN
REPLAY_TURNS = 100
_ids = itertools.count()


def _journal(kind: str) -> Any:
    import stopkit
    import stopkit.loop.journal

    if kind == "sqlite":
        return stopkit.loop.journal.SqliteJournal(Path(tempfile.mkdtemp()) / "journal.db")
    dsn = os.environ.get("STOPKIT_BENCH_POSTGRES_DSN")
    if not dsn:
        from tests import _postgres

        where = tempfile.mkdtemp(prefix="stopkit-bench-pg-")
        dsn = _postgres.start(where, fast=False)
        atexit.register(shutil.rmtree, where, ignore_errors=True)
        atexit.register(_postgres.stop, where)  # runs first: atexit is last in, first out
    return stopkit.loop.journal.PostgresJournal(dsn)


def postgres_missing() -> str | None:
    """Say what the PostgreSQL row is missing: psycopg, or a server (a DSN, or one to start)."""
    from benchmarks.cases import needs
    from tests import _postgres

    missing = needs("psycopg")()
    if missing is not None or os.environ.get("STOPKIT_BENCH_POSTGRES_DSN"):
        return missing
    if _postgres.find_program("initdb") is None or _postgres.find_program("pg_ctl") is None:
        return "PostgreSQL is not installed (initdb, pg_ctl), nor STOPKIT_BENCH_POSTGRES_DSN set"
    return None


def _script(turns: int, calls: int) -> list[Any]:
    return [*(tool_reply(turn, calls) for turn in range(turns)),
            REPLIES["anthropic"]["completed"].body]  # fmt: skip


def journal_run(kind: str | None, journal: Any = None) -> Any:
    """One run of the 20-turn conversation, journaled in `kind` ("sqlite", "postgres", None).

    `journal`: an open journal to use instead of a new one of `kind`.
    """
    import stopkit
    from stopkit.testing import ScriptedModel

    script = _script(LOOP_TURNS, CALLS_PER_TURN)
    if journal is None and kind is not None:
        journal = _journal(kind)
    tools = {"lookup": lookup}
    messages = [{"role": "user", "content": PROMPT}]

    def run() -> Any:
        extra = {} if journal is None else {"journal": journal, "run_id": f"r{next(_ids)}"}
        outcome = stopkit.run_loop(ScriptedModel(script), messages, tools=tools, **extra)
        assert len(outcome.tool_runs) == LOOP_TURNS * CALLS_PER_TURN, outcome
        return outcome

    return run


def replay_run() -> Any:
    """A replay of a finished 100-turn run from a SQLite journal."""
    import stopkit
    from stopkit.testing import ScriptedModel

    journal = _journal("sqlite")
    messages = [{"role": "user", "content": PROMPT}]
    tools = {"lookup": lookup}
    stopkit.run_loop(ScriptedModel(_script(REPLAY_TURNS, 1)), messages, tools=tools,
                     journal=journal, run_id="long", max_turns=REPLAY_TURNS + 1)  # fmt: skip

    def run() -> Any:
        outcome = stopkit.run_loop(ScriptedModel([]), messages, tools=tools, journal=journal,
                                   run_id="long", max_turns=REPLAY_TURNS + 1)  # fmt: skip
        assert outcome.turns == REPLAY_TURNS + 1, outcome
        return outcome

    return run


def cases() -> list[Any]:
    """The journal's rows of the table."""
    from benchmarks.cases import Case

    conversation = f"{LOOP_TURNS} tool turns x {CALLS_PER_TURN} + final = {LOOP_STEPS} steps"
    return [
        Case("journal", f"journal: no journal, time per step ({conversation})",
             "stopkit.run_loop(ScriptedModel(script), messages, tools=...)",
             lambda: journal_run(None), "journal_plain", inner=LOOP_STEPS),
        Case("journal", f"journal: SqliteJournal, time per step ({conversation})",
             "stopkit.run_loop(..., journal=SqliteJournal(path), run_id=<new>)",
             lambda: journal_run("sqlite"), "journal_sqlite", inner=LOOP_STEPS),
        Case("journal", f"journal: PostgresJournal over loopback, time per step ({conversation})",
             "stopkit.run_loop(..., journal=PostgresJournal(dsn), run_id=<new>)",
             lambda: journal_run("postgres"), "journal_postgres", inner=LOOP_STEPS,
             check=postgres_missing),
        Case("journal", f"journal: replay of a finished {REPLAY_TURNS}-turn run (wall)",
             "stopkit.run_loop(ScriptedModel([]), ..., journal=journal, run_id='long')",
             replay_run, "journal_replay"),
    ]  # fmt: skip


def main() -> None:
    """Time the journal rows under pyperf; print the overhead per step and the replay."""
    import pyperf

    from benchmarks.__main__ import _time_func

    rows = cases()
    runner = pyperf.Runner(program_args=("-m", "benchmarks.journal"))
    args = runner.parse_args()
    benches = {
        case.kind: runner.bench_time_func(case.name, _time_func(case), inner_loops=case.inner)
        for case in rows
    }
    if args.worker or None in benches.values():
        return
    median = {kind: bench.median() for kind, bench in benches.items()}
    plain = median["journal_plain"]
    for kind, limit in (("journal_sqlite", 1e-3), ("journal_postgres", 3e-3)):
        overhead = median[kind] - plain
        print(f"{kind}: {median[kind] * 1e6:.0f} us/step, overhead {overhead * 1e6:.0f} us/step "
              f"(target <= {limit * 1e3:.0f} ms: {'met' if overhead <= limit else 'NOT met'})")
    replay = median["journal_replay"]
    print(f"replay of {REPLAY_TURNS} turns: {replay * 1e3:.1f} ms "
          f"(target <= 50 ms: {'met' if replay <= 0.05 else 'NOT met'})")


if __name__ == "__main__":
    main()
