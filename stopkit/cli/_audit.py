"""`stopkit audit`: the recorded replies by reason and provider, and those that are not done.

It reads what `stopkit normalize` reads (reply files, cassettes, HAR files, folders), the same
way, and prints two things: a table of the replies' reasons by provider, and the list of the
replies a loop must not treat as finished (`output_limit`, `filtered`, `paused`, `unknown`),
each with its `file#N`. A test suite replaying those as if they were complete answers is
testing the wrong thing. Errors and the summary go to stderr, as for `normalize`.

Exit status: 0 when every reply is done, 1 when some is not, 2 when an input could not be read.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any, TextIO

from stopkit._stop import StopReason
from stopkit.cli._inputs import add_reading_options, read_inputs
from stopkit.cli._output import EXIT_OK, EXIT_UNKNOWN
from stopkit.cli._recorded import Read, Tally

__all__ = ["NOT_DONE", "audit_command", "register"]

NOT_DONE = (StopReason.OUTPUT_LIMIT, StopReason.FILTERED, StopReason.PAUSED, StopReason.UNKNOWN)
"""The reasons whose reply a loop must not take as the answer (DESIGN §1's default actions)."""


def _table(counts: Counter[tuple[StopReason, str]]) -> list[str]:
    providers = sorted({provider for _, provider in counts})
    reasons = [r for r in StopReason if any(counts[r, p] for p in providers)]
    head = ["reason", *providers, "total"]
    rows = [
        [
            r.value,
            *(str(counts[r, p]) for p in providers),
            str(sum(counts[r, p] for p in providers)),
        ]
        for r in reasons
    ]
    rows.append(
        [
            "total",
            *(str(sum(counts[r, p] for r in reasons)) for p in providers),
            str(sum(counts.values())),
        ]
    )
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    return [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in [head, *rows]
    ]


def _not_done(reads: list[Read]) -> list[str]:
    rows = [
        [
            read.name,
            read.stop.provider,
            read.stop.reason.value + (f"/{read.stop.detail}" if read.stop.detail else ""),
            "raw=" + ("-" if read.stop.raw_reason is None else repr(read.stop.raw_reason)),
        ]
        for read in reads
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return [
        "  " + "  ".join([*(c.ljust(w) for c, w in zip(row, widths, strict=False)), row[3]])
        for row in rows
    ]


def _as_json(counts: Counter[tuple[StopReason, str]], not_done: list[Read], tally: Tally) -> Any:
    by_reason: dict[str, dict[str, int]] = {}
    for (reason, provider), n in sorted(counts.items()):
        by_reason.setdefault(reason.value, {})[provider] = n
    return {
        "counts": by_reason,
        "not_done": [read.as_json() for read in not_done],
        "skipped": dict(tally.skipped),
        "unreadable": dict(tally.unreadable),
    }


def audit_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Carry out `stopkit audit` (and `stopkit normalize --summary`); return the exit status."""
    tally = Tally()
    counts: Counter[tuple[StopReason, str]] = Counter()
    not_done: list[Read] = []
    for item in read_inputs(args, tally, err):
        if isinstance(item, Read):
            counts[item.stop.reason, item.stop.provider] += 1
            if item.stop.reason in NOT_DONE:
                not_done.append(item)
    if args.json:
        json.dump(_as_json(counts, not_done, tally), out, indent=2, default=str)
        out.write("\n")
    else:
        if counts:
            out.write("\n".join(_table(counts)) + "\n")
        if not_done:
            out.write(
                f"\nnot done: {len(not_done)} of {sum(counts.values())} replies must not "
                "be taken as finished\n"
            )
            out.write("".join(row + "\n" for row in _not_done(not_done)))
    print(f"stopkit: {tally.summary()}", file=err)
    if tally.unreadable:
        return tally.status()
    return EXIT_UNKNOWN if not_done else EXIT_OK


def register(commands: Any) -> None:
    """Add the `audit` sub-command to the parser's sub-commands."""
    audit = commands.add_parser(
        "audit",
        help="count the recorded replies by reason and provider; list those not done",
        description=(
            "Read reply files, vcrpy cassettes and HAR files (and folders of them), count the "
            "replies by reason and provider, and list the replies a loop must not treat as "
            "finished (output_limit, filtered, paused, unknown) as file#N. Exit status: 0 when "
            "every reply is done, 1 when some is not, 2 when some file could not be read."
        ),
    )
    audit.add_argument("files", nargs="+", help="reply files, cassettes, HAR files or folders")
    audit.add_argument("--json", action="store_true", help="print one JSON object instead")
    add_reading_options(audit)
    audit.set_defaults(run=audit_command)
