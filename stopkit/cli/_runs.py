"""`stopkit runs list|show|delete|unlock|settle --journal ...`: where each run stands, and why.

`register(commands)` adds the `runs` sub-command to the `stopkit` parser; `run_runs` carries
it out. `--journal` is a SQLite file or a PostgreSQL DSN (`postgresql://...`). Besides looking,
an operator can delete a run, break the lease of a worker known to be gone (`unlock`), and
settle a call that needs attention (`settle`: the result a person found out, a failure, or
"run it again").
"""

from __future__ import annotations

import argparse
import json
import os
from datetime import UTC, datetime
from typing import Any, TextIO

from stopkit.cli._output import terminal_safe
from stopkit.loop.journal._errors import JournalError, RunLocked
from stopkit.loop.journal._protocol import RunInfo
from stopkit.loop.journal._rows import Recorded, read_steps
from stopkit.loop.journal._sql import SqlJournal

__all__ = ["open_journal", "register", "run_runs"]

EXIT_OK, EXIT_NOT_FOUND, EXIT_ERROR = 0, 1, 2


def open_journal(where: str) -> SqlJournal:
    """Open a journal by its address: a PostgreSQL DSN, or the path of a SQLite file.

    Example:
        >>> open_journal("runs.db")  # doctest: +SKIP
        SqliteJournal('runs.db')
    """
    if where.startswith(("postgres://", "postgresql://")) or "dbname=" in where:
        from stopkit.loop.journal._postgres import PostgresJournal

        return PostgresJournal(where)
    if not os.path.exists(where):
        raise JournalError(f"there is no journal at {where}")
    from stopkit.loop.journal._sqlite import SqliteJournal

    return SqliteJournal(where)


def _when(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _run_json(info: RunInfo) -> dict[str, Any]:
    return {
        "run_id": info.run_id, "status": info.status.value, "termination": info.termination,
        "detail": info.detail, "owner": info.owner, "lease_until": info.lease_until,
        "created_at": info.created_at, "updated_at": info.updated_at, "steps": info.steps,
    }  # fmt: skip


def _step_summary(found: Recorded) -> str:
    """Say in a few words what a step recorded: the reply's stop, or the tool's result."""
    result = found.result
    if result is None:
        return "started, no result recorded: it may or may not have happened"
    if found.kind == "tool":
        kind = "error" if result["is_error"] else "result"
        content = str(result["content"]).replace("\n", " ")
        return f"{kind}: {terminal_safe(content[:80])}{'…' if len(content) > 80 else ''}"
    try:
        from stopkit._normalize import normalize
        from stopkit._stream import normalize_stream
        from stopkit.loop.journal._replies import replayable

        replay = replayable(result)
        events = replay.get("events")
        stop = normalize_stream(events) if events is not None else normalize(replay["reply"])
    except Exception as exc:  # a reply only the run's own adapter reads, or its own framework
        return f"reply recorded ({type(exc).__name__} reading it here)"
    calls = f", {len(stop.tool_calls)} tool call(s)" if stop.tool_calls else ""
    return f"{stop.reason.value}{f' ({stop.detail})' if stop.detail else ''}{calls}"


def _no_run(run_id: str, err: TextIO) -> int:
    """Say the journal holds no such run; return the exit status that says so."""
    err.write(f"stopkit: no run {run_id!r} in the journal\n")
    return EXIT_NOT_FOUND


def _list(journal: SqlJournal, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    runs = journal.runs()
    if args.json:
        json.dump([_run_json(info) for info in runs], out, indent=2)
        out.write("\n")
        return EXIT_OK
    out.write(f"{'run id':<24} {'status':<16} {'termination':<16} {'steps':>5}  updated (UTC)\n")
    for info in runs:
        out.write(
            f"{terminal_safe(info.run_id):<24} {info.status.value:<16} "
            f"{terminal_safe(info.termination or '-'):<16} {info.steps:>5}  "
            f"{_when(info.updated_at)}\n"
        )
    return EXIT_OK


def _show(journal: SqlJournal, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    info = journal.run(args.run_id)
    if info is None:
        return _no_run(args.run_id, err)
    steps = read_steps(journal, args.run_id, journal.steps(args.run_id)).values()
    if args.json:
        data = _run_json(info)
        data["steps"] = [
            {"name": s.step.name, "request": s.request, "result": s.result,
             "recorded_at": s.step.recorded_at}
            for s in steps
        ]  # fmt: skip
        json.dump(data, out, indent=2)
        out.write("\n")
        return EXIT_OK
    owner = terminal_safe(info.owner or "")
    lease = f"held by {owner} until {_when(info.lease_until)}" if info.owner else "free"
    ending = f" ({terminal_safe(info.termination)})" if info.termination else ""
    out.write(
        f"run {terminal_safe(info.run_id)}: {info.status.value}{ending}\n"
        f"  created {_when(info.created_at)}, updated {_when(info.updated_at)}; lease {lease}\n"
    )
    if info.detail:  # the final text (the model's), or why the run stopped
        out.write(f"  {terminal_safe(info.detail)}\n")
    for step in steps:
        out.write(f"  {step.step.name:<18} {_step_summary(step)}\n")
    return EXIT_OK


def _delete(journal: SqlJournal, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if not journal.delete(args.run_id):
        return _no_run(args.run_id, err)
    out.write(f"deleted run {terminal_safe(args.run_id)}\n")
    return EXIT_OK


def _unlock(journal: SqlJournal, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    info = journal.run(args.run_id)
    if info is None:
        return _no_run(args.run_id, err)
    run_id = terminal_safe(args.run_id)
    if info.owner is None or not journal.unlock(args.run_id):
        out.write(f"run {run_id} holds no lease\n")
    else:
        out.write(f"unlocked run {run_id} (it was held by {terminal_safe(info.owner)})\n")
    return EXIT_OK


def _settle(journal: SqlJournal, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    content = args.result if args.failed is None else args.failed
    try:
        journal.settle(args.run_id, args.step, content, is_error=args.failed is not None)
    except KeyError as exc:
        err.write(f"stopkit: {terminal_safe(str(exc.args[0]))}\n")
        return EXIT_NOT_FOUND
    how = "to run again" if content is None else ("as failed" if args.failed else "with a result")
    out.write(f"settled {terminal_safe(args.step)} of run {terminal_safe(args.run_id)} {how}; "
              "rerun the run to go on\n")  # fmt: skip
    return EXIT_OK


_ACTIONS = {"list": _list, "show": _show, "delete": _delete, "unlock": _unlock, "settle": _settle}


def run_runs(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Carry out `stopkit runs ...`; return the exit status (1: no such run, 2: an error)."""
    try:
        journal = open_journal(args.journal)
    except (JournalError, ImportError) as exc:
        err.write(f"stopkit: {terminal_safe(str(exc))}\n")
        return EXIT_ERROR
    try:
        return _ACTIONS[args.action](journal, args, out, err)
    except (RunLocked, JournalError) as exc:
        err.write(f"stopkit: {terminal_safe(str(exc))}\n")
        return EXIT_ERROR
    finally:
        journal.close()


def register(commands: Any) -> None:
    """Add the `runs` sub-command (list, show, delete, unlock, settle) to the `stopkit` parser."""
    runs = commands.add_parser(
        "runs",
        help="list, show, delete, unlock or settle the durable runs in a journal",
        description="Where each durable run stands, and why. Exit status: 0, 1 when the run "
        "(or the step to settle) is not in the journal, 2 when the journal cannot be used.",
    )
    actions = runs.add_subparsers(dest="action", required=True)
    for name, text in (
        ("list", "list every run, the most recently updated first"),
        ("show", "show a run's status and each recorded step"),
        ("delete", "delete a run and its steps (refused while a worker holds it)"),
        ("unlock", "break a run's lease, once its worker is known to be gone"),
        ("settle", "settle a call that needs attention: its result, a failure, or run it again"),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument("--journal", required=True,
                            help="the SQLite file, or a PostgreSQL DSN (postgresql://...)")
        if name != "list":
            action.add_argument("run_id", help="the run's id")
        if name in ("list", "show"):
            action.add_argument("--json", action="store_true", help="print JSON")
        if name == "settle":
            _settle_arguments(action)
    runs.set_defaults(run=run_runs)


def _settle_arguments(action: argparse.ArgumentParser) -> None:
    action.add_argument("step", help="the step that needs attention (tool_call_<turn>_<slot>)")
    outcome = action.add_mutually_exclusive_group(required=True)
    outcome.add_argument("--result", metavar="TEXT",
                         help="it happened: the result the model is sent for it")  # fmt: skip
    outcome.add_argument("--failed", metavar="TEXT",
                         help="it failed: the error the model is sent for it")  # fmt: skip
    outcome.add_argument("--run-again", action="store_true",
                         help="it did not happen: the rerun runs it")  # fmt: skip
