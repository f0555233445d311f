"""The `stopkit` command line: normalize reply files, print the reason table, run the demo.

Built on the standard library's argparse: the package promises only httpx and pydantic as
dependencies, and argparse gives sub-commands, help and usage errors without adding one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from pydantic_core import from_json

from stopkit._errors import StopkitError
from stopkit._stop import Stop, StopReason
from stopkit._stream import iter_events
from stopkit._testkit import SUFFIXES, Payload, _from_value, load_payload

__all__ = ["main"]

EXIT_OK, EXIT_UNKNOWN, EXIT_UNREADABLE = 0, 1, 2

_COLOURS = {
    StopReason.TOOL_REQUEST: "36",  # cyan
    StopReason.COMPLETED: "32",  # green
    StopReason.STOP_SEQUENCE: "32",
    StopReason.OUTPUT_LIMIT: "33",  # yellow
    StopReason.PAUSED: "34",  # blue
    StopReason.FILTERED: "35",  # magenta
    StopReason.UNKNOWN: "31",  # red
}


def use_colour(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return stream.isatty() and "NO_COLOR" not in os.environ


def paint(text: str, code: str, on: bool) -> str:
    """Wrap `text` in an ANSI colour when `on`."""
    return f"\x1b[{code}m{text}\x1b[0m" if on else text


def _clip(text: str, width: int) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _stop_row(name: str, stop: Stop, colour: bool) -> str:
    reason = paint(f"{stop.reason.value:<13}", _COLOURS[stop.reason], colour)
    raw = "" if stop.raw_reason is None else repr(stop.raw_reason)
    calls = ", ".join(f"{c.name}{'' if c.complete else '(incomplete)'}" for c in stop.tool_calls)
    parts = [f"{name}", f"  {stop.provider:<17} {reason} raw={raw or '-'}"]
    if stop.detail:
        parts[-1] += f" detail={stop.detail}"
    if calls:
        parts.append(f"  tool calls: {calls}")
    if stop.text:
        parts.append(f"  text: {_clip(stop.text, 100)!r}")
    if stop.refusal:
        parts.append(f"  refusal: {_clip(stop.refusal, 100)!r}")
    parts.extend(f"  note: {note}" for note in stop.notes)
    return "\n".join(parts)


def _stdin_payload() -> Payload:
    data = sys.stdin.buffer.read()
    try:
        return _from_value(from_json(data), None)
    except ValueError:  # not one JSON document: a raw SSE or newline-delimited JSON stream
        return Payload(None, events=list(iter_events(data)))


def _paths(target: str) -> list[Path]:
    path = Path(target)
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in SUFFIXES)
    return [path]


def _normalize_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    colour = use_colour(out) and not args.json
    results: list[dict[str, Any]] = []
    status = EXIT_OK
    for target in args.files:
        paths = [Path("-")] if target == "-" else _paths(target)
        if not paths:
            print(f"stopkit: no reply files under {target}", file=err)
            status = EXIT_UNREADABLE
        for path in paths:
            try:
                item = _stdin_payload() if str(path) == "-" else load_payload(path)
                stop = item.stop(adapter=args.adapter)
            except (StopkitError, OSError, ValueError) as exc:
                status = EXIT_UNREADABLE
                results.append({"file": str(path), "error": str(exc)})
                if not args.json:
                    print(f"{path}\n  {paint('error', '31', colour)}: {exc}", file=out)
                continue
            if stop.reason is StopReason.UNKNOWN and status == EXIT_OK:
                status = EXIT_UNKNOWN
            results.append(
                {"file": str(path), "stream": item.is_stream, "stop": stop.model_dump(mode="json")}
            )
            if not args.json:
                print(_stop_row(str(path), stop, colour), file=out)
    if args.json:
        json.dump(results, out, indent=2, default=str)
        out.write("\n")
    return status


def _table_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from stopkit._reason_table import reason_table

    out.write(reason_table())
    return EXIT_OK


def _demo_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from stopkit._demo import run_demo

    return run_demo(out, colour=use_colour(out))


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the `stopkit` command."""
    parser = argparse.ArgumentParser(
        prog="stopkit",
        description="Why did the model stop? Normalize LLM replies onto one closed set of reasons.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    norm = commands.add_parser(
        "normalize",
        help="print the Stop of reply files (JSON bodies, SDK dumps, SSE streams, folders)",
        description=(
            "Print why each reply stopped. Exit status: 0 when every reply was read and none is "
            "unknown, 1 when some reply is unknown, 2 when some file could not be read."
        ),
    )
    norm.add_argument("files", nargs="+", help="reply files or folders; - reads stdin")
    norm.add_argument("--json", action="store_true", help="print a JSON list instead of text")
    norm.add_argument("--adapter", help="skip auto-detection: the adapter's name")
    norm.set_defaults(run=_normalize_command)
    table = commands.add_parser("table", help="print the raw value x reason table (Markdown)")
    table.set_defaults(run=_table_command)
    demo = commands.add_parser("demo", help="run the agent loop offline on recorded replies")
    demo.set_defaults(run=_demo_command)
    from stopkit.batch._command import add_parser as add_batch_command  # its parser and run

    add_batch_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `stopkit` command line; return its exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args, sys.stdout, sys.stderr)
    except BrokenPipeError:  # `stopkit normalize dir | head`: the reader left; not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    return status
