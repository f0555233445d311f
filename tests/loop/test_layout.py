"""The loop package's shape: no import cycle, nothing below it imports it, its public homes."""

from __future__ import annotations

import ast
from pathlib import Path

import stopkit
import stopkit.loop
import stopkit.loop.events

PACKAGE = Path(stopkit.__file__).parent


def imports_of(path: Path) -> set[str]:
    """Every `stopkit...` module a file imports, anywhere in it (type-only imports included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("stopkit"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("stopkit"))
    return found


def test_the_loop_modules_import_each_other_without_a_cycle() -> None:
    """Following imports inside stopkit/loop never leads back to where it started."""
    graph = {
        ".".join(("stopkit", *path.relative_to(PACKAGE).with_suffix("").parts)): {
            m for m in imports_of(path) if m.startswith("stopkit.loop.")
        }
        for path in (PACKAGE / "loop").rglob("*.py")
        if path.stem != "__init__"
    }

    def reaches(start: str, target: str, seen: set[str]) -> bool:
        for child in graph.get(start, ()):
            if child == target or (child not in seen and reaches(child, target, seen | {child})):
                return True
        return False

    assert len(graph) >= 8
    assert [name for name in graph if reaches(name, name, set())] == []


def test_nothing_below_the_loop_imports_it() -> None:
    """The spec, the adapters and the normalizing entry points never import the loop."""
    below = [
        PACKAGE / name
        for name in ("_stop.py", "_adapter.py", "_normalize.py", "_stream.py", "_registry.py")
    ]
    below += sorted((PACKAGE / "adapters").glob("*.py"))
    offenders = {
        path.name: sorted(m for m in imports_of(path) if m.startswith("stopkit.loop"))
        for path in below
    }
    assert {name: mods for name, mods in offenders.items() if mods} == {}


def test_the_public_loop_modules_hold_what_stopkit_exports() -> None:
    """`stopkit.loop` and `stopkit.loop.events` are the homes of the loop's names."""
    homes = {
        stopkit.loop: {"Action", "Continue", "DEFAULT_HANDLERS", "Escalate", "Finish", "Handler",
                       "LoopContext", "Retry"},
        stopkit.loop.events: {"Escalation", "LoopEnded", "LoopEvent", "Outcome", "Termination",
                              "ToolRun", "TurnStarted"},
    }  # fmt: skip
    for module, names in homes.items():
        assert names <= set(module.__all__), module.__name__
        for name in set(module.__all__) & set(stopkit.__all__):
            assert getattr(stopkit, name) is getattr(module, name), name
