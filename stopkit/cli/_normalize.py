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
import os
import re
import stat
import sys
from collections import Counter
from pathlib import Path
from typing import Any, TextIO

from stopkit._errors import AdapterNotFound, StopkitError
from stopkit._registry import get_adapter
from stopkit._stop import Stop, StopReason
from stopkit.cli._output import EXIT_OK, EXIT_UNKNOWN, EXIT_UNREADABLE, paint, use_colour
from stopkit.record._payloads import payload_files, payload_from_bytes

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


def _size(text: str) -> int:
    """Read `--max-size`: bytes, or a number with KB, MB or GB (powers of 1000)."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 100MB, 512KB, 2000000)")
    return int(float(match[1]) * _UNITS[(match[2] or "B").upper()])


_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMG]?B)?", re.IGNORECASE)
_UNITS = {"B": 1, "KB": 1000, "MB": 1000**2, "GB": 1000**3}
DEFAULT_MAX_SIZE = 100 * 1000**2


def _read(target: str, limit: int) -> bytes:
    """The bytes of a file (or `-`, stdin), refused past `limit` bytes before all are read."""
    too_big = ValueError(f"over the size limit ({limit} bytes); change it with --max-size")
    if target == "-":
        data = sys.stdin.buffer.read(limit + 1)
    else:
        with open(target, "rb") as file:
            info = os.fstat(file.fileno())
            if stat.S_ISREG(info.st_mode) and info.st_size > limit:
                raise too_big
            data = file.read(limit + 1)  # a device or a pipe says no size, and may never end
    if len(data) > limit:
        raise too_big
    return data


def _paths(target: str) -> list[str]:
    path = Path(target)
    if target != "-" and path.is_dir():
        return [str(p) for p in payload_files(path)]
    return [target]


def _summary(reasons: Counter[StopReason], unreadable: int) -> str:
    total = sum(reasons.values())
    counts = ", ".join(f"{reasons[r]} {r.value}" for r in StopReason if reasons[r])
    text = f"{total} {'reply' if total == 1 else 'replies'}" + (f": {counts}" if counts else "")
    if unreadable:
        text += f"; {unreadable} file{'' if unreadable == 1 else 's'} unreadable"
    return text


def _normalize_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    targets = args.files
    if not targets:  # `cat reply.json | stopkit normalize`; from a terminal, nothing would come
        if sys.stdin is None or sys.stdin.isatty():
            print("stopkit normalize: give reply files or folders, or pipe a reply into stdin "
                  "(- reads it)", file=err)  # fmt: skip
            return EXIT_UNREADABLE
        targets = ["-"]
    colour = use_colour(out) and not args.json
    results: list[dict[str, Any]] = []
    reasons: Counter[StopReason] = Counter()
    unreadable = 0
    for target in targets:
        paths = _paths(target)
        if not paths:
            print(f"stopkit: no reply files under {target}", file=err)
            unreadable += 1
        for path in paths:
            try:
                item = payload_from_bytes(
                    _read(path, args.max_size), None if path == "-" else Path(path)
                )
                stop = item.stop(adapter=args.adapter)
            except (StopkitError, OSError, ValueError) as exc:
                unreadable += 1
                message = str(exc) if str(exc).startswith(path) else f"{path}: {exc}"
                print(f"stopkit: {message}", file=err)
                results.append({"file": path, "error": message})
                continue
            reasons[stop.reason] += 1
            results.append(
                {"file": path, "stream": item.is_stream, "stop": stop.model_dump(mode="json")}
            )
            if not args.json:
                print(_stop_row(path, stop, colour), file=out)
    if args.json:
        json.dump(results, out, indent=2, default=str)
        out.write("\n")
    print(f"stopkit: {_summary(reasons, unreadable)}", file=err)
    if unreadable:
        return EXIT_UNREADABLE
    return EXIT_UNKNOWN if reasons[StopReason.UNKNOWN] else EXIT_OK


def _adapter(name: str) -> str:
    """Check `--adapter` once, as the command line is read: a usage error names the adapters."""
    try:
        get_adapter(name)
    except AdapterNotFound as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return name


def register(commands: Any) -> None:
    """Add the `normalize` sub-command to the parser's sub-commands."""
    norm = commands.add_parser(
        "normalize",
        help="print the Stop of reply files (JSON bodies, SDK dumps, SSE streams, folders)",
        description=(
            "Print why each reply stopped; unreadable files and a summary go to stderr. Exit "
            "status: 0 when every reply was read and none is unknown, 1 when some reply is "
            "unknown, 2 when some file could not be read."
        ),
    )
    norm.add_argument(
        "files", nargs="*", help="reply files or folders; - (or none, from a pipe) reads stdin"
    )
    norm.add_argument("--json", action="store_true", help="print a JSON list instead of text")
    norm.add_argument("--adapter", type=_adapter, help="skip auto-detection: the adapter's name")
    norm.add_argument(
        "--max-size",
        type=_size,
        default=DEFAULT_MAX_SIZE,
        metavar="SIZE",
        help="refuse an input larger than this (default 100MB; e.g. 2GB, 512KB)",
    )
    norm.set_defaults(run=_normalize_command)
