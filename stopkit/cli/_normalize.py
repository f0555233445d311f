"""`stopkit normalize`: print why each reply file stopped.

Made for pipelines: stdout holds the replies only (text, or one JSON list with `--json`);
each file that cannot be read, and a closing summary, go to stderr. The exit status is 0 when
every reply was read and none is unknown, 1 when some reply is unknown, 2 when some file
could not be read (or the command line is wrong) — also when the reader of stdout left early
(`| head -1`): the remaining files are still read for the status.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from stopkit._stop import Stop, StopReason
from stopkit.cli._audit import audit_command
from stopkit.cli._inputs import add_reading_options, read_inputs
from stopkit.cli._output import EXIT_UNREADABLE, paint, terminal_safe, use_colour
from stopkit.cli._recorded import Read, Tally

__all__ = ["register"]

_COLOURS = {
    StopReason.TOOL_REQUEST: "36",  # cyan
    StopReason.COMPLETED: "32",  # green
    StopReason.STOP_SEQUENCE: "32",
    StopReason.OUTPUT_LIMIT: "33",  # yellow
    StopReason.PAUSED: "34",  # blue
    StopReason.FILTERED: "35",  # magenta
    StopReason.UNKNOWN: "31",  # red
}



def _clip(text: str, width: int) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _stop_row(name: str, stop: Stop, colour: bool) -> str:
    """The lines of one reply; what the reply says (tool names, notes) cannot drive a terminal."""
    reason = paint(f"{stop.reason.value:<13}", _COLOURS[stop.reason], colour)
    raw = "" if stop.raw_reason is None else repr(stop.raw_reason)
    calls = ", ".join(f"{c.name}{'' if c.complete else '(incomplete)'}" for c in stop.tool_calls)
    said = f"raw={raw or '-'}" + (f" detail={stop.detail}" if stop.detail else "")
    lines = [f"  {terminal_safe(f'{stop.provider:<17}')} {reason} {terminal_safe(said)}"]
    if calls:
        lines.append(f"  tool calls: {calls}")
    if stop.text:
        lines.append(f"  text: {_clip(stop.text, 100)!r}")
    if stop.refusal:
        lines.append(f"  refusal: {_clip(stop.refusal, 100)!r}")
    lines.extend(f"  note: {note}" for note in stop.notes)
    return "\n".join([terminal_safe(name), lines[0], *map(terminal_safe, lines[1:])])


def _normalize_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if not args.files:  # `cat reply.json | stopkit normalize`; from a terminal, nothing would come
        if sys.stdin is None or sys.stdin.isatty():
            print("stopkit normalize: give reply files or folders, or pipe a reply into stdin "
                  "(- reads it)", file=err)  # fmt: skip
            return EXIT_UNREADABLE
        args.files = ["-"]
    if args.summary:
        return audit_command(args, out, err)
    colour = use_colour(out) and not args.json
    results: list[dict[str, Any]] = []
    tally = Tally()
    for item in read_inputs(args, tally, err):
        results.append(item.as_json())
        if isinstance(item, Read) and not args.json:
            print(_stop_row(item.name, item.stop, colour), file=out)
    if args.json:
        json.dump(results, out, indent=2, default=str)
        out.write("\n")
    print(f"stopkit: {tally.summary()}", file=err)
    return tally.status()


def register(commands: Any) -> None:
    """Add the `normalize` sub-command to the parser's sub-commands."""
    norm = commands.add_parser(
        "normalize",
        help="print the Stop of reply files (JSON bodies, SDK dumps, SSE streams, cassettes, "
        "HAR files, folders)",
        description=(
            "Print why each reply stopped; unreadable files and a summary go to stderr. A vcrpy "
            "cassette or HAR file gives one line per recorded LLM reply (file#N); its other "
            "exchanges and error responses are skipped and counted. Exit status: 0 when every "
            "reply was read and none is unknown, 1 when some reply is unknown, 2 when some file "
            "could not be read."
        ),
    )
    norm.add_argument(
        "files", nargs="*", help="reply files or folders; - (or none, from a pipe) reads stdin"
    )
    norm.add_argument("--json", action="store_true", help="print a JSON list instead of text")
    norm.add_argument(
        "--summary",
        action="store_true",
        help="print the replies counted by reason and provider, and those not done (as "
        "stopkit audit does)",
    )
    add_reading_options(norm)
    norm.set_defaults(run=_normalize_command)
