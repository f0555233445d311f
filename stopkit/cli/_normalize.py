"""`stopkit normalize`: print why each reply file stopped."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from pydantic_core import from_json

from stopkit._errors import StopkitError
from stopkit._stop import Stop, StopReason
from stopkit._stream import iter_events
from stopkit.cli._output import EXIT_OK, EXIT_UNKNOWN, EXIT_UNREADABLE, paint, use_colour
from stopkit.record._payloads import SUFFIXES, Payload, load_payload, payload_from_value

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
        return payload_from_value(from_json(data), None)
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


def register(commands: Any) -> None:
    """Add the `normalize` sub-command to the parser's sub-commands."""
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
