"""Names a package exports but imports on first use (PEP 562), in one shape for every package.

`stopkit` and `stopkit.record` keep their public names in a table (module -> names); the module
of a name is imported the first time the name is read, so that importing the package costs
nothing it does not use (the pytest plugin, loaded into every test run, reads none of them).

Example:
    >>> __getattr__, __dir__ = lazy_exports("stopkit", {"_stop": ("Stop",)}, globals())
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, table: Mapping[str, tuple[str, ...]], namespace: dict[str, Any]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """Return a module's `__getattr__` and `__dir__` serving the names in `table` lazily.

    `table` maps a module (relative to `package`, e.g. `"_stop"`) to the names it exports;
    `namespace` is the package's `globals()`, where each name is stored once imported, so that
    later reads skip `__getattr__`.

    Example:
        >>> __getattr__, __dir__ = lazy_exports("stopkit", {"_stop": ("Stop",)}, globals())
    """
    where = {name: module for module, names in table.items() for name in names}

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__
