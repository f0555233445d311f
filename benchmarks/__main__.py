"""`python -m benchmarks [--quick]`: time stopkit beside the floor, the SDKs and the peers.

Timed rows run under pyperf (`pyperf.Runner.bench_time_func`): it calibrates the loop count,
runs warm-ups, and (in a full run) spreads the values over several fresh worker processes, so a
row's min/max show the spread between processes, not only between loops. `--quick` runs every
row in this process (`--in-process`), with fewer values: a smoke run, not a result.

Import time and memory growth are not loops of a call; they run in fresh interpreters (see
benchmarks/system.py). The table is printed, written to benchmarks/results/latest.json and,
for a full run, into benchmarks/README.md between its table markers.

Any pyperf option works too (`--processes`, `--values`, `--fast`, `-v`, ...).
"""

from __future__ import annotations

import itertools
import sys
from typing import Any

import pyperf

from benchmarks.cases import Case, all_cases, runnable
from benchmarks.report import build_report, commit, write_outputs

QUICK = "--quick" in sys.argv
#: Full run: 3 worker processes x 4 values (12 values per row, each a calibrated loop of at
#: least 0.1 s); quick: 1 x 3, in this process.
SETTINGS: dict[str, Any] = (
    {"processes": 1, "values": 3, "warmups": 1, "min_time": 0.02}
    if QUICK
    else {"processes": 3, "values": 4, "warmups": 1, "min_time": 0.1}
)


def _time_func(case: Case) -> Any:
    """Return pyperf's time function for a case: setup once, then time `loops` calls."""
    state: dict[str, Any] = {}

    def time_func(loops: int) -> float:
        work = state.get("work")
        if work is None:
            work = state["work"] = case.factory()
            work()  # a first call outside the timing: lazy imports, caches
        repeat = itertools.repeat(None, loops)
        start = pyperf.perf_counter()
        for _ in repeat:
            work()
        return pyperf.perf_counter() - start

    return time_func


def _add_cmdline_args(cmd: list[str], args: Any) -> None:
    if args.quick:
        cmd.append("--quick")
    if args.no_loop:
        cmd.append("--no-loop")


def main() -> None:
    """Run every row, then print and write the table (in the main process only)."""
    if QUICK and "--worker" not in sys.argv and "--in-process" not in sys.argv:
        sys.argv.append("--in-process")
    runner = pyperf.Runner(
        **SETTINGS, program_args=("-m", "benchmarks"), add_cmdline_args=_add_cmdline_args
    )
    runner.argparser.add_argument("--quick", action="store_true",
                                  help="a smoke run: in process, 3 values per row")
    runner.argparser.add_argument("--no-loop", action="store_true",
                                  help="skip the loop rows (before the loop driver exists)")
    args = runner.parse_args()
    started_at = "" if args.worker else commit()
    cases = runnable(all_cases(loop=not args.no_loop), say=not args.worker)
    results: dict[str, Any] = {}
    for case in cases:
        bench = runner.bench_time_func(
            case.name, _time_func(case), inner_loops=case.inner if case.inner > 1 else None
        )
        if bench is not None:
            results[case.name] = bench
    if args.worker:
        return
    report = build_report(cases, results, quick=QUICK, started_at=started_at)
    write_outputs(report, quick=QUICK)


if __name__ == "__main__":
    main()
