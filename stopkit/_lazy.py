"""A package's public names, written once, imported on first use (PEP 562).

Each public package writes one table, private module -> the names it exports, and derives the
rest from it: `exports(...)` gives its `__all__`, `__getattr__` and `__dir__`; the imports type
checkers read (under `if TYPE_CHECKING:`) are generated from the same table by
`python -m tests.test_public_api`, and a test fails when they are stale; the API reference
renders the names in the table's order. The module of a name is imported the first time the
name is read, so that importing a package costs nothing it does not use (the pytest plugin,
loaded into every test run, reads none of them).

A name that moved keeps its old spelling for one release: read there, it warns
(`DeprecationWarning` naming the new spelling) and gives the same object; it is in neither
`__all__` nor `dir()`, and it is never cached, so every read warns.

Example:
    >>> __all__, __getattr__, __dir__ = exports(globals(), {"stopkit._stop": ("Stop",)})
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

__all__ = ["REMOVED_IN", "exports", "moved_module", "moved_names", "resolve"]

REMOVED_IN = "0.4"
"""The release in which the old spellings of moved names go."""

#: A moved name's new home: the new public spelling ("stopkit.loop.Budget"), or for a name that
#: is no longer public, where it lives now and what to use instead.
Moved: TypeAlias = Mapping[str, str | tuple[str, str]]


def exports(
    namespace: dict[str, Any],
    table: Mapping[str, tuple[str, ...]],
    moved: Moved | None = None,
    *,
    eager: tuple[str, ...] = (),
    submodules: tuple[str, ...] = (),
) -> tuple[list[str], Callable[[str], object], Callable[[], list[str]]]:
    """Return a package's `__all__`, `__getattr__` and `__dir__`, served from `table`.

    `namespace` is the package's `globals()`, where each name is stored once imported, so that
    later reads skip `__getattr__`. `table` maps a module (`"stopkit._stop"`) to the names the
    package exports from it; `moved` maps an old name to its new home (see `Moved`);
    `eager` names the package defines itself (`__version__`); `submodules` are its public
    subpackages, imported when first read as attributes (`stopkit.loop.Budget` after
    `import stopkit`), namespaces rather than names: in `dir()`, not in `__all__`.

    Example:
        >>> __all__, __getattr__, __dir__ = exports(globals(), {"stopkit._stop": ("Stop",)})
    """
    package = namespace["__name__"]
    where = {name: module for module, names in table.items() for name in names}
    public = sorted([*where, *eager])
    old = moved_names(package, moved or {}, stacklevel=3)  # the reader, past this __getattr__

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is not None:
            value = getattr(importlib.import_module(module), name)
            namespace[name] = value
            return value
        if name in submodules:
            return importlib.import_module(f"{package}.{name}")  # the import binds it here
        return old(name)

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where) | set(submodules))

    return public, __getattr__, __dir__


def moved_names(module: str, moved: Moved, *, stacklevel: int = 2) -> Callable[[str], object]:
    """Return the `__getattr__` of a module whose only lazy names are moved ones.

    For a module that defines its names itself (`stopkit.otel`), and behind `exports`. The
    warning points at the line that read the old name (`stacklevel` frames up).

    Example:
        >>> __getattr__ = moved_names("stopkit.otel", {"X": ("stopkit.otel._X", "Y")})
    """
    table = dict(moved)

    def __getattr__(name: str) -> object:
        home = table.get(name)
        if home is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        if isinstance(home, str):
            path, said = home, f"moved to {home}"
        else:
            path, said = home[0], f"is no longer public: use {home[1]}"
        warnings.warn(
            f"{module}.{name} {said}; the old name goes in {REMOVED_IN}",
            DeprecationWarning,
            stacklevel=stacklevel,
        )
        return resolve(path)

    return __getattr__


def moved_module(old: str, moved: Moved) -> types.ModuleType:
    """Keep the module path `old` importable for one release, every name of it a moved one.

    The module is put in `sys.modules` (so `from old import name` works) and on its parent
    package; each name read from it warns as `exports` does for a moved name.

    Example:
        >>> _ = moved_module("stopkit.loop.handlers", {"Finish": "stopkit.loop.Finish"})
    """
    module = types.ModuleType(old, f"Deprecated: its names moved; it goes in {REMOVED_IN}.")
    module.__getattr__ = moved_names(old, moved)  # type: ignore[method-assign]
    module.__all__ = []  # type: ignore[attr-defined]
    sys.modules[old] = module
    parent, _, child = old.rpartition(".")
    setattr(sys.modules[parent], child, module)
    return module


def resolve(path: str) -> Any:
    """Return the object at a dotted path, importing its longest module prefix.

    Example:
        >>> resolve("stopkit.loop.Budget")  # doctest: +SKIP
        <class 'stopkit.loop._budget.Budget'>
    """
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            value: Any = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and module_name.startswith(exc.name):
                continue  # not a module: the rest are attributes
            raise
        for attribute in parts[cut:]:
            value = getattr(value, attribute)
        return value
    raise ModuleNotFoundError(path)
