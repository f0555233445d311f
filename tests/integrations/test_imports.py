"""The integrations load their framework only when imported, and say which extra is missing."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

FRAMEWORKS = ("langgraph", "langchain_core", "pydantic_ai", "agents")


def _loaded_after(code: str) -> list[str]:
    """The frameworks' top-level modules loaded once `code` has run, in a fresh interpreter."""
    probe = (
        f"{code}\nimport sys, json\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(FRAMEWORKS)!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout
    loaded: list[str] = json.loads(out)
    return loaded


def test_the_integrations_package_loads_no_framework() -> None:
    """`import stopkit.integrations` (and `import stopkit`) imports none of the frameworks."""
    assert _loaded_after("import stopkit, stopkit.integrations") == []


@pytest.mark.parametrize(
    ("module", "loads"),
    [
        ("langgraph", []),  # its messages are read by their classes' names, as normalize reads
        ("langchain", ["langchain_core"]),
        ("pydantic_ai", ["pydantic_ai"]),
        ("openai_agents", ["agents"]),
    ],
)
def test_each_integration_loads_its_own_framework_only(module: str, loads: list[str]) -> None:
    """Importing one integration loads its framework, and no other's."""
    assert _loaded_after(f"import stopkit.integrations.{module}") == loads


@pytest.mark.parametrize(
    ("module", "framework", "extra"),
    [
        ("langchain", "langchain_core", "langchain"),
        ("pydantic_ai", "pydantic_ai", "pydantic-ai"),
        ("openai_agents", "agents", "openai-agents"),
    ],
)
def test_a_missing_framework_names_the_extra_to_install(
    module: str, framework: str, extra: str
) -> None:
    """Without its framework, an integration's import fails with the pip install line to run."""
    code = (
        f"import sys; sys.modules[{framework!r}] = None\n"  # what an absent package looks like
        f"import stopkit.integrations.{module}"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 1
    assert f"pip install 'stopkit[{extra}]'" in run.stderr.splitlines()[-1]


@pytest.mark.parametrize("module", ["langgraph", "langchain", "pydantic_ai", "openai_agents"])
def test_each_module_exports_what_it_defines_and_nothing_else(module: str) -> None:
    """An integration's `__all__` is every public name it defines (imports aside), sorted."""
    namespace = importlib.import_module(f"stopkit.integrations.{module}")
    defined = {
        name
        for name, value in vars(namespace).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == namespace.__name__
    }
    assert defined == set(namespace.__all__)
    assert list(namespace.__all__) == sorted(namespace.__all__)
