"""The loop package's shape: no import cycle, nothing below it imports it, its controls.

Its public homes; the controls plugged in through one protocol; the journal below the loop.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import stopkit
import stopkit.loop
import stopkit.loop.events
from stopkit.loop._controls import Control

PACKAGE = Path(stopkit.__file__).parent
LOOP = PACKAGE / "loop"

# The modules of the loop's controls: each defines one `Control`.
CONTROLS = ("_approval", "_budget", "_compaction", "_hooks", "_journaled", "_observe", "_retry")
# What runs a run: a control imports none of it.
ENGINE = ("_engine", "_run", "_driver", "_ending", "_resume", "_executor")


def runtime_imports_of(path: Path) -> set[str]:
    """Every `stopkit...` module a file imports when it runs (not under `if TYPE_CHECKING:`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and getattr(block.test, "id", None) == "TYPE_CHECKING"
        for node in ast.walk(block)
    }
    return {
        name
        for node in ast.walk(tree)
        if id(node) not in typing_only
        for name in _imported(node)
    }


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("stopkit"):
        return [node.module]
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.startswith("stopkit")]
    return []


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


def test_each_control_is_one_module_that_imports_no_engine() -> None:
    """The modules defining a `Control` are the controls', one each, none importing the engine."""
    defining = {
        path.stem: [
            value.__name__
            for value in vars(importlib.import_module(f"stopkit.loop.{path.stem}")).values()
            if isinstance(value, type) and issubclass(value, Control) and value is not Control
            and value.__module__ == f"stopkit.loop.{path.stem}"
        ]
        for path in LOOP.glob("_*.py")
        if path.stem != "__init__"
    }  # fmt: skip
    assert {name for name, found in defining.items() if found} == set(CONTROLS)
    assert all(len(defining[name]) == 1 for name in CONTROLS), defining
    engine = {f"stopkit.loop.{name}" for name in ENGINE}
    imported = {name: imports_of(LOOP / f"{name}.py") & engine for name in CONTROLS}
    assert {name: found for name, found in imported.items() if found} == {}


def test_the_engine_names_no_control() -> None:
    """The engine imports the controls' protocol, never a control's module."""
    controls = {f"stopkit.loop.{name}" for name in CONTROLS}
    assert imports_of(LOOP / "_engine.py") & controls == set()


def test_the_journal_does_not_import_the_loop() -> None:
    """The journal's modules use the core and each other; the loop uses them, not the reverse.

    The DBOS steps run the loop: a package of their own, above both.
    """
    offenders = {
        path.name: sorted(
            m for m in runtime_imports_of(path)
            if m.startswith("stopkit.") and not m.startswith("stopkit.loop.journal")
            and not m.startswith("stopkit._")
        )
        for path in (LOOP / "journal").glob("*.py")
    }  # fmt: skip
    assert {name: mods for name, mods in offenders.items() if mods} == {}


def test_the_core_imports_no_subsystem_when_it_runs() -> None:
    """A core module (`stopkit/_*.py`) imports only other core modules at run time."""
    core = [path for path in PACKAGE.glob("_*.py") if not path.name.startswith("__")]
    names = {f"stopkit.{path.stem}" for path in core}
    offenders = {path.name: sorted(runtime_imports_of(path) - names) for path in core}
    assert {name: mods for name, mods in offenders.items() if mods} == {}
