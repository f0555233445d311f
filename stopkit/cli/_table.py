"""`stopkit table`: print the raw value x reason table the README shows."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from stopkit.cli._output import EXIT_OK

__all__ = ["register"]


def _table_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from stopkit._reason_table import reason_table

    out.write(reason_table())
    return EXIT_OK


def register(commands: Any) -> None:
    """Add the `table` sub-command to the parser's sub-commands."""
    table = commands.add_parser("table", help="print the raw value x reason table (Markdown)")
    table.set_defaults(run=_table_command)
