"""The `stopkit` command line: `main(argv)` returns the exit status (the console script's entry)."""

from stopkit.cli._main import main

__all__ = ["main"]
