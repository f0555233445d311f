"""The public surface: each namespace's names, pinned by reflection, and what importing costs.

A public namespace is `stopkit` or a module below it with no private part in its name. A
package writes its names once, in its `_EXPORTS` table (module -> names, see `stopkit._lazy`);
its `__all__` and `dir()` come from the table, and so do the imports type checkers read under
`if _typing.TYPE_CHECKING:`, which `python -m tests.test_public_api` rewrites. A module that
holds its own code lists in `__all__` what it defines. Either way nothing is exported by
accident: the tests compare `__all__` with what the namespace really holds (as httpx's
tests/test_exported_members.py compares it with `vars(httpx)`), not with a list of their own.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import pkgutil
import re
import subprocess
import sys
import tomllib
import types
from pathlib import Path

import pytest

import stopkit
from stopkit._lazy import REMOVED_IN, resolve

ROOT = Path(__file__).parent.parent


def public_namespaces() -> list[types.ModuleType]:
    """`stopkit` and every module below it with no private part in its name."""
    names = ["stopkit"] + [
        info.name
        for info in pkgutil.walk_packages(stopkit.__path__, "stopkit.")
        if not any(part.startswith("_") for part in info.name.split("."))
    ]
    return [importlib.import_module(name) for name in names]


NAMESPACES = public_namespaces()
PACKAGES = [m for m in NAMESPACES if "_EXPORTS" in vars(m)]
MOVED = [(m, old) for m in NAMESPACES for old in sorted(vars(m).get("_MOVED", {}))]


def _ids(module: types.ModuleType) -> str:
    return module.__name__


def _is_type_checking(test: ast.expr) -> bool:
    return (getattr(test, "id", None) or getattr(test, "attr", None)) == "TYPE_CHECKING"


def defined(module: types.ModuleType) -> set[str]:
    """The public names a module binds itself: its defs, classes and assignments, not imports.

    Code under `if TYPE_CHECKING:` never runs, and a pytest plugin's `pytest_*` hooks are names
    pytest looks up, not exports.
    """
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            found.add(name.id)
            elif isinstance(node, ast.If) and not _is_type_checking(node.test):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                for part in (node.body, node.orelse, node.finalbody):
                    visit(part)
                for handler in node.handlers:
                    visit(handler.body)

    visit(ast.parse(inspect.getsource(module)).body)
    return {n for n in found if not n.startswith("_") and not n.startswith("pytest_")}


def exported(module: types.ModuleType) -> set[str]:
    """The names a namespace exports: a package's table, else what the module defines."""
    table = vars(module).get("_EXPORTS")
    if table is None:
        return defined(module)
    eager = {"__version__"} & set(vars(module))
    return {name for names in table.values() for name in names} | eager


@pytest.mark.parametrize("module", NAMESPACES, ids=_ids)
def test_all_is_exactly_what_the_namespace_exports(module: types.ModuleType) -> None:
    """`__all__` is sorted, holds no name twice, resolves, and is the namespace's own names."""
    listed = list(module.__all__)
    assert listed == sorted(set(listed))
    assert set(listed) == exported(module)
    for name in listed:
        assert getattr(module, name) is not None, name


@pytest.mark.parametrize("module", PACKAGES, ids=_ids)
def test_a_package_holds_nothing_public_beyond_its_list(module: types.ModuleType) -> None:
    """Once every name is loaded, the package's public attributes are its `__all__` (and modules).

    As httpx pins `vars(httpx)`: a helper imported into the package, or a name served from
    it but left out of the list, fails here. `dir()` shows the same names, moved ones never.
    """
    for name in module.__all__:
        getattr(module, name)

    def public(names: list[str]) -> list[str]:
        return sorted(
            name
            for name in names
            if not name.startswith("_")
            and not isinstance(getattr(module, name), types.ModuleType)
        )

    listed = sorted(name for name in module.__all__ if not name.startswith("_"))
    assert public(list(vars(module))) == listed
    assert public(dir(module)) == listed


@pytest.mark.parametrize("module", PACKAGES, ids=_ids)
def test_type_checkers_read_every_exported_name(module: types.ModuleType) -> None:
    """The package's `TYPE_CHECKING` imports are the ones its table gives (type checkers, docs)."""
    path = Path(inspect.getsourcefile(module) or "")
    stale = f"{module.__name__}'s imports are stale: run `python -m tests.test_public_api`"
    assert type_checking_block(path) == render(module), stale


@pytest.mark.parametrize(("module", "old"), MOVED, ids=lambda v: getattr(v, "__name__", v))
def test_a_moved_name_warns_and_gives_the_same_object(module: types.ModuleType, old: str) -> None:
    """An old spelling works until it goes, warning each time with the new one; never listed."""
    home = module._MOVED[old]
    path, new = (home, home) if isinstance(home, str) else home
    said = f"{module.__name__}.{old} moved to {new}" if isinstance(home, str) else (
        f"{module.__name__}.{old} is no longer public: use {new}"
    )
    message = f"^{re.escape(f'{said}; the old name goes in {REMOVED_IN}')}$"
    for _ in range(2):  # never cached: every read warns
        with pytest.warns(DeprecationWarning, match=message) as caught:
            value = getattr(module, old)
        assert len(caught) == 1
        assert caught[0].filename == __file__  # the warning points at the reader
    assert value is resolve(path)
    assert old not in module.__all__
    assert old not in dir(module)
    assert old not in vars(module)


def test_a_moved_module_warns_for_each_name() -> None:
    """`stopkit.loop.handlers` is importable until it goes, each name warning with its new home."""
    with pytest.warns(DeprecationWarning, match=r"stopkit\.loop\.handlers\.Finish moved to "
                      r"stopkit\.loop\.Finish; the old name goes in") as caught:  # fmt: skip
        from stopkit.loop.handlers import Finish
    assert Finish is stopkit.loop.Finish
    assert caught[0].filename == __file__
    with pytest.raises(AttributeError, match="nothing_here"):
        stopkit.loop.handlers.nothing_here  # noqa: B018 -- the attribute access is the test


@pytest.mark.parametrize("module", PACKAGES, ids=_ids)
def test_an_unknown_name_is_an_attribute_error(module: types.ModuleType) -> None:
    """A name the package does not have raises AttributeError naming it (warnings are errors)."""
    with pytest.raises(AttributeError, match="nothing_here"):
        module.nothing_here  # noqa: B018 -- the attribute access is the test


def test_the_front_door_is_small() -> None:
    """`stopkit` exports the three uses, the results, the adapter protocol and the errors: <= 45."""
    assert len(stopkit.__all__) <= 45
    assert {"normalize", "wrap", "run_loop", "Stop", "Adapter", "StopkitError"} <= set(
        stopkit.__all__
    )


def test_a_name_has_one_home() -> None:
    """No two packages export the same object under a name: one spelling each.

    A module that defines a name may list it while a package re-exports it (`Outcome` is
    `stopkit.loop.events`' and the front door's); two packages never serve one object.
    """
    homes: dict[int, list[str]] = {}
    for module in PACKAGES:
        for name in module.__all__:
            homes.setdefault(id(getattr(module, name)), []).append(f"{module.__name__}.{name}")
    assert [paths for paths in homes.values() if len(paths) > 1] == []


def test_stop_reason_values_are_the_closed_set() -> None:
    """The enum has exactly the seven documented, serialized values."""
    assert [r.value for r in stopkit.StopReason] == [
        "tool_request", "completed", "output_limit", "filtered", "paused", "stop_sequence",
        "unknown",
    ]  # fmt: skip


def test_import_loads_no_provider_sdk_nor_httpx() -> None:
    """`import stopkit` (and reading the registry) imports no provider SDK, framework nor httpx.

    The optional libraries are the ones ruff bans at module level (pyproject.toml), and httpx.
    """
    tidy = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"][
        "flake8-tidy-imports"
    ]
    optional = [*tidy["banned-module-level-imports"], "httpx", "httpx2", "httpx_sse",
                "langchain_openai", "langchain_anthropic"]  # fmt: skip
    optional.remove("google")  # only google.genai: google is a namespace package
    assert {"boto3", "mistralai", "xai_sdk", "huggingface_hub"} <= set(optional)
    code = (
        "import sys, json, stopkit\n"
        "stopkit.registered_adapters()\n"
        f"optional = {optional!r}\n"
        "bad = sorted(m for m in sys.modules if any(m == o or m.startswith(o + '.')"
        " for o in optional))\n"
        "print(json.dumps(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    assert json.loads(out) == []


def test_stop_serializes_without_raw() -> None:
    """A Stop dumps to JSON without the raw reply, and its reason as the stable string."""
    stop = stopkit.Stop(
        reason=stopkit.StopReason.COMPLETED, provider="x", raw={"huge": "reply"}, text="hi"
    )
    dumped = json.loads(stop.model_dump_json())
    assert "raw" not in dumped
    assert dumped["reason"] == "completed"


# --- the type checkers' imports, generated from each package's table -------------------------

_BLOCK = re.compile(r"^if _typing\.TYPE_CHECKING:.*\n(?:(?:    .*)?\n)*?(?=\S|\Z)", re.M)
_HEAD = "if _typing.TYPE_CHECKING:  # generated from _EXPORTS by `python -m tests.test_public_api`"


def _member_order(name: str) -> tuple[int, str]:
    """Where ruff's isort puts an imported name: constants, then classes, then the rest."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower()


def render(module: types.ModuleType) -> str:
    """The `TYPE_CHECKING` block of a package: one explicit re-export per name of its table."""
    pairs = [(source, name) for source, names in module._EXPORTS.items() for name in names]
    pairs.sort(key=lambda pair: (pair[0].lower(), _member_order(pair[1])))
    lines = [f"    from {source} import {name} as {name}\n" for source, name in pairs]
    return f"{_HEAD}\n{''.join(lines)}"


def type_checking_block(path: Path) -> str:
    """The `if _typing.TYPE_CHECKING:` block of a package's source, through its last line."""
    match = _BLOCK.search(path.read_text(encoding="utf-8"))
    return match.group(0).rstrip("\n") + "\n" if match else ""


def rewrite(module: types.ModuleType) -> bool:
    """Write a package's `TYPE_CHECKING` block from its table; say whether it changed."""
    path = Path(inspect.getsourcefile(module) or "")
    text = path.read_text(encoding="utf-8")
    new = _BLOCK.sub(lambda _: render(module) + "\n", text, count=1)
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    changed = [m.__name__ for m in PACKAGES if rewrite(m)]
    print("rewrote: " + (", ".join(changed) or "nothing, every block was current"))
