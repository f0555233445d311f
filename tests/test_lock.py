"""The test dependencies are resolved once, into requirements/dev.txt, and CI installs through it.

A release on the package index then changes nothing in CI; `.ci/refresh-lock` moves the pins
forward on purpose (and CONTRIBUTING says when to run it).
"""

from __future__ import annotations

import re
import tomllib

from tests._generated import locked_versions, normalized
from tests._markdown import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _named(requirement: str) -> str:
    return normalized(re.split(r"[<>=!~\[ ;]", requirement, maxsplit=1)[0])


def test_the_lock_pins_every_requirement_of_the_dev_extra() -> None:
    """Each distribution the package and its dev extra ask for has a pin in the lock."""
    extras = PYPROJECT["project"]["optional-dependencies"]
    wanted = set(map(_named, PYPROJECT["project"]["dependencies"]))
    pending = ["dev"]
    while pending:
        for requirement in extras[pending.pop()]:
            name = _named(requirement)
            if name == "stopkit":  # stopkit[all,fast,...]: the extras it names
                pending.extend(re.findall(r"[\w-]+", requirement.split("[", 1)[1].split("]")[0]))
            else:
                wanted.add(name)
    pins = locked_versions()
    missing = sorted(name for name in wanted if name not in pins)
    assert not missing, f"not in requirements/dev.txt (run .ci/refresh-lock): {missing}"


def test_ci_and_the_refresh_command_use_the_lock() -> None:
    """.ci/run installs through the lock; .ci/refresh-lock rewrites it with uv, runs the suite."""
    assert "pip install -c requirements/dev.txt -e '.[dev]'" in (ROOT / ".ci" / "run").read_text()
    refresh = (ROOT / ".ci" / "refresh-lock").read_text()
    assert "uv pip compile" in refresh
    assert "--upgrade" in refresh
    assert "-o requirements/dev.txt" in refresh
    assert "python -m pytest" in refresh
    assert ".ci/refresh-lock" in (ROOT / "CONTRIBUTING.md").read_text()
