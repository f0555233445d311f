"""`stopkit runs list|show|delete --journal ...`: where each durable run stands, and why.

`register(commands)` adds the `runs` sub-command to the `stopkit` parser; `run_runs` carries
it out. `--journal` is a SQLite file or a PostgreSQL DSN (`postgresql://...`).
"""

from __future__ import annotations

import argparse
import json
import os
from datetime import UTC, datetime
from typing import Any, TextIO

from stopkit._errors import JournalError, RunLocked
from stopkit.cli._output import terminal_safe
from stopkit.loop.journal._protocol import Journal, RunInfo
from stopkit.loop.journal._rows import Recorded, read_steps

__all__ = ["open_journal", "register", "run_runs"]

EXIT_OK, EXIT_NOT_FOUND, EXIT_ERROR = 0, 1, 2


def open_journal(where: str) -> Journal:
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


def _list(journal: Journal, args: argparse.Namespace, out: TextIO) -> int:
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


def _show(journal: Journal, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    info = journal.run(args.run_id)
    if info is None:
        err.write(f"stopkit: no run {args.run_id!r} in the journal\n")
        return EXIT_NOT_FOUND
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


def _delete(journal: Journal, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if not journal.delete(args.run_id):
        err.write(f"stopkit: no run {args.run_id!r} in the journal\n")
        return EXIT_NOT_FOUND
    out.write(f"deleted run {args.run_id}\n")
    return EXIT_OK


def run_runs(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Carry out `stopkit runs ...`; return the exit status (1: no such run, 2: an error)."""
    try:
        journal = open_journal(args.journal)
    except (JournalError, ImportError) as exc:
        err.write(f"stopkit: {terminal_safe(str(exc))}\n")
        return EXIT_ERROR
    try:
        if args.action == "list":
            return _list(journal, args, out)
        if args.action == "show":
            return _show(journal, args, out, err)
        return _delete(journal, args, out, err)
    except (RunLocked, JournalError) as exc:
        err.write(f"stopkit: {terminal_safe(str(exc))}\n")
        return EXIT_ERROR
    finally:
        journal.close()


def register(commands: Any) -> None:
    """Add the `runs` sub-command (list, show, delete) to the `stopkit` parser's sub-commands."""
    runs = commands.add_parser(
        "runs",
        help="list, show or delete the durable runs in a journal",
        description="Where each durable run stands, and why. Exit status: 0, 1 when the run "
        "is not in the journal, 2 when the journal cannot be used.",
    )
    actions = runs.add_subparsers(dest="action", required=True)
    for name, text in (
        ("list", "list every run, the most recently updated first"),
        ("show", "show a run's status and each recorded step"),
        ("delete", "delete a run and its steps (refused while a worker holds it)"),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument("--journal", required=True,
                            help="the SQLite file, or a PostgreSQL DSN (postgresql://...)")
        if name != "list":
            action.add_argument("run_id", help="the run's id")
        if name != "delete":
            action.add_argument("--json", action="store_true", help="print JSON")
    runs.set_defaults(run=run_runs)
