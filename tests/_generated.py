"""The generators of the docs' generated blocks (see tests/_markdown.py), one per kind.

- `reason-matrix`: the reason x adapter matrix of every built-in adapter;
- `reason-table NAME`: one adapter's rows (every raw value it maps) and its streaming notes;
- `tested-with DIST...`: the version of each distribution the page's tests run on, as
  requirements/dev.txt pins it;
- `cli-help [COMMAND]`: the `--help` of the command line, or of one of its sub-commands;
- `cli-run ARG...`: `stopkit ARG...` run from the repository root: what it writes to standard
  output, then to standard error;
- `litellm-collapsed`: the provider values LiteLLM's own map sends several of to one value.
- `wrap-families`: the client families `stopkit.wrap` knows (its routes table), in a line;
- `wrap-forms`: every call form each family's routes watch;
- `reference PACKAGE [MODULE...]`: the API reference's directives for the names a package
  exports (its `_EXPORTS` table, in the table's order), those of the MODULEs named or all.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import tomllib
from collections.abc import Callable
from unittest import mock

from tests._markdown import ROOT, Block

#: The width the command line's help is rendered at (argparse reads COLUMNS).
HELP_COLUMNS = "88"


def _reason_matrix(args: tuple[str, ...]) -> str:
    from stopkit._reason_table import reason_matrix

    return f"\n{reason_matrix()}\n"


def _reason_table(args: tuple[str, ...]) -> str:
    from stopkit._reason_table import adapter_table

    (name,) = args
    return f"\n{adapter_table(name)}\n"


def _extra_requiring(dist: str) -> tuple[str, str] | None:
    """The first extra (not dev or bench) whose requirements name `dist`, with its requirement."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for extra, requirements in extras.items():
        if extra in ("dev", "bench"):
            continue
        for requirement in requirements:
            if re.split(r"[<>=!~\[ ;]", requirement, maxsplit=1)[0] == dist:
                return extra, requirement
    return None


def locked_versions() -> dict[str, str]:
    """The pins of requirements/dev.txt (the lock CI installs through), by normalized name."""
    pins = {}
    for line in (ROOT / "requirements" / "dev.txt").read_text().splitlines():
        match = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)", line)
        if match:
            pins[normalized(match.group(1))] = match.group(2)
    return pins


def normalized(dist: str) -> str:
    """A distribution's name as packaging compares names (PEP 503)."""
    return re.sub(r"[-_.]+", "-", dist).lower()


def _tested_with(args: tuple[str, ...]) -> str:
    pins = locked_versions()
    lines = []
    for dist in args:
        line = (
            f"Tested with **{dist} {pins[normalized(dist)]}**, the version the test suite runs "
            "on (pinned in `requirements/dev.txt`, which CI installs through; "
            "`.ci/refresh-lock` moves it to the newest release)."
        )
        wanted = _extra_requiring(dist)
        if wanted is not None:
            line += f" The `stopkit[{wanted[0]}]` extra asks for `{wanted[1]}`."
        lines.append(line)
    return "\n" + "\n\n".join(lines) + "\n\n"


def cli_help(args: tuple[str, ...]) -> str:
    """The `--help` text of `stopkit` (no args) or of one sub-command, at a fixed width."""
    from stopkit.cli import main

    out = io.StringIO()
    with (
        mock.patch.dict(os.environ, {"COLUMNS": HELP_COLUMNS}),
        contextlib.redirect_stdout(out),
        contextlib.suppress(SystemExit),
    ):
        main([*args, "--help"])
    return out.getvalue()


def _cli_help(args: tuple[str, ...]) -> str:
    return f"\n```text\n{cli_help(args)}```\n\n"


def _cli_run(args: tuple[str, ...]) -> str:
    from stopkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.dict(os.environ, {"COLUMNS": HELP_COLUMNS}),
        contextlib.chdir(ROOT),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        main(list(args))
    return f"\n```console\n$ stopkit {' '.join(args)}\n{out.getvalue()}{err.getvalue()}```\n\n"


def _litellm_collapsed(args: tuple[str, ...]) -> str:
    """LiteLLM's collapsed values per wire format (its own map, pinned by its adapter's tests)."""
    from stopkit.adapters._litellm_rules import COLLAPSED

    head = "| wire format | LiteLLM's value | the provider's values it stands for |"
    lines = [head, "|---|---|---|"]
    for name, by in COLLAPSED.items():
        for own, values in by.items():
            said = ", ".join(f"`{v}`" if v else '`""`' for v in values)
            lines.append(f"| `{name}` | `{own}` | {said} |")
    return "\n" + "\n".join(lines) + "\n\n"


def _wrap_families(args: tuple[str, ...]) -> str:
    """The client families `stopkit.wrap` knows, in one paragraph (the README's)."""
    from stopkit._wrap._routes import FAMILIES

    names = ", ".join(family.name for family in FAMILIES)
    return f"It knows {names}, sync and async; any other client with `methods=`:\n"


def _wrap_forms(args: tuple[str, ...]) -> str:
    """Every family's watched call forms, as the routes table says (the wrap page's list)."""
    from stopkit._wrap._routes import FAMILIES, watched_forms

    lines = []
    for family in FAMILIES:
        forms = list(watched_forms(family.routes(False)))
        if family.async_clients and not family.is_module:
            forms += [f for f in watched_forms(family.routes(True)) if f not in forms]
        shown = ", ".join(f"`{form}`" for form in forms)
        clients = ", ".join(f"`{name}`" for name in family.names())
        lines.append(f"- **{family.name}** ({clients}; read by {family.adapters}): {shown}")
    return "\n" + "\n".join(lines) + "\n\n"


def _reference(args: tuple[str, ...]) -> str:
    """One `::: PACKAGE.NAME` directive per name the package exports from the modules named."""
    import importlib

    package, *modules = args
    table = importlib.import_module(package)._EXPORTS
    assert set(modules) <= set(table), f"{package} exports from none of {set(modules) - set(table)}"
    names = [name for module, names in table.items() if not modules or module in modules
             for name in names]  # fmt: skip
    return "\n" + "".join(f"::: {package}.{name}\n\n" for name in names)


GENERATORS: dict[str, Callable[[tuple[str, ...]], str]] = {
    "reference": _reference,
    "litellm-collapsed": _litellm_collapsed,
    "wrap-families": _wrap_families,
    "wrap-forms": _wrap_forms,
    "reason-matrix": _reason_matrix,
    "reason-table": _reason_table,
    "tested-with": _tested_with,
    "cli-help": _cli_help,
    "cli-run": _cli_run,
}


def generate(block: Block) -> str:
    """What a generated block must hold now."""
    return GENERATORS[block.kind](block.args)
