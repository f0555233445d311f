"""The `stopkit` command line: the parser, built from one list of sub-commands, and `main`.

Built on the standard library's argparse: the package promises only httpx and pydantic as
dependencies, and argparse gives sub-commands, help and usage errors without adding one.
A sub-command is a module with `register(commands)`, which adds its parser and sets `run`;
`COMMANDS` lists them, in the order `--help` shows them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

import stopkit
from stopkit.batch import _command as _batch
from stopkit.cli import _audit, _demo, _normalize, _runs, _table
from stopkit.cli._output import Pipe

__all__ = ["COMMANDS", "build_parser", "main"]

COMMANDS: tuple[Callable[[Any], None], ...] = (
    _normalize.register,
    _audit.register,
    _table.register,
    _demo.register,
    _batch.register,
    _runs.register,
)


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the `stopkit` command."""
    parser = argparse.ArgumentParser(
        prog="stopkit",
        description="Why did the model stop? Normalize LLM replies onto one closed set of reasons.",
    )
    parser.add_argument("--version", action="version", version=f"stopkit {stopkit.__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for register in COMMANDS:
        register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `stopkit` command line; return its exit status."""
    args = build_parser().parse_args(argv)
    out = Pipe(sys.stdout)
    status: int = args.run(args, out, sys.stderr)
    out.flush()
    return status
