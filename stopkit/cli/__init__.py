"""The `stopkit` command line: `main(argv)` returns the exit status (the console script's entry)."""

import typing as _typing

from stopkit._lazy import exports as _exports

_EXPORTS = {"stopkit.cli._main": ("main",)}

if _typing.TYPE_CHECKING:  # generated from _EXPORTS by `python -m tests.test_public_api`
    from stopkit.cli._main import main as main

__all__, __getattr__, __dir__ = _exports(globals(), _EXPORTS)
