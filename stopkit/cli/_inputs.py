"""Where the commands' inputs come from: files, folders and stdin, and the options that read them.

`stopkit normalize` and `stopkit audit` read the same inputs the same way: each named file, or
every reply file, cassette and HAR file under a named folder (`-`: stdin), refused past
`--max-size` before it is all read, each file's replies read by `_recorded.read_replies`.
"""

from __future__ import annotations

import argparse
import os
import re
import stat
import sys
from collections.abc import Iterable, Iterator
from typing import TextIO

from stopkit._errors import AdapterNotFound
from stopkit._registry import get_adapter
from stopkit.cli._recorded import Read, Tally, Unreadable, input_files, read_replies
from stopkit.record._recordings import DEFAULT_MAX_SIZE

__all__ = ["add_reading_options", "read_inputs"]


def _size(text: str) -> int:
    """Read `--max-size`: bytes, or a number with KB, MB or GB (powers of 1000)."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 100MB, 512KB, 2000000)")
    return int(float(match[1]) * _UNITS[(match[2] or "B").upper()])


_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMG]?B)?", re.IGNORECASE)
_UNITS = {"B": 1, "KB": 1000, "MB": 1000**2, "GB": 1000**3}


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


def read_inputs(
    args: argparse.Namespace, tally: Tally, err: TextIO
) -> Iterator[Read | Unreadable]:
    """Yield the replies of every input named on the command line, each error told on `err`."""
    for target in args.files:
        paths = input_files(target)
        if not paths:
            print(f"stopkit: no reply files under {target}", file=err)
            tally.unreadable["file"] += 1
        for path in paths:
            try:
                data = _read(path, args.max_size)
            except (OSError, ValueError) as exc:
                found: Iterable[Read | Unreadable] = [tally.failed(path, exc)]
            else:
                found = read_replies(path, data, tally, adapter=args.adapter,
                                     max_size=args.max_size)  # fmt: skip
            for item in found:
                if isinstance(item, Unreadable):
                    print(f"stopkit: {item.message}", file=err)
                yield item


def _adapter(name: str) -> str:
    """Check `--adapter` once, as the command line is read: a usage error names the adapters."""
    try:
        get_adapter(name)
    except AdapterNotFound as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return name


def add_reading_options(parser: argparse.ArgumentParser) -> None:
    """Add the options of how inputs are read (`--adapter`, `--max-size`) to a sub-command."""
    parser.add_argument("--adapter", type=_adapter, help="skip auto-detection: the adapter's name")
    parser.add_argument(
        "--max-size",
        type=_size,
        default=DEFAULT_MAX_SIZE,
        metavar="SIZE",
        help="refuse an input larger than this (default 100MB; e.g. 2GB, 512KB)",
    )
