"""The docs tell the truth: examples run, generated parts are current, the API reference whole.

The site itself is built by `mkdocs build --strict` in .ci/run (a broken link, a missing page
or a name the API reference cannot find fails it). `python -m tests.test_docs` rewrites every
generated block (the reason tables, the tested SDK versions, the command line's help).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
import types
from pathlib import Path
from typing import Any

import pytest

import stopkit
from tests._generated import generate
from tests._markdown import (
    DOCS,
    ROOT,
    Block,
    Example,
    blocks,
    examples,
    label,
    markers,
    pages,
    python_blocks,
    rewrite,
    run,
)

PAGES = pages()
EXAMPLES = [example for page in PAGES for example in examples(page)]
BLOCKS = [block for page in PAGES for block in blocks(page)]
PROVIDERS = sorted((DOCS / "providers").glob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=label)
def test_every_runnable_marker_introduces_an_example(page: Path) -> None:
    """Each `runnable` marker is followed by a Python block (a broken one would skip silently)."""
    assert markers(page) == len(examples(page))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.id)
def test_example_prints_what_it_shows(example: Example, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each runnable example runs offline and prints exactly the output shown under it."""
    assert run(example, monkeypatch) == (example.out or "")


MODULES = ["stopkit", *sorted(i.name for i in pkgutil.walk_packages(stopkit.__path__, "stopkit."))]


@pytest.mark.parametrize("name", MODULES)
def test_every_docstring_example_is_true(name: str) -> None:
    """Each module's docstring examples print what they show (those marked `+SKIP` need a network).

    As `pytest --doctest-modules stopkit` runs them (its default option, ELLIPSIS); a module
    whose optional extra is not installed is skipped.
    """
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as missing:
        if (missing.name or "stopkit").partition(".")[0] == "stopkit":
            raise
        pytest.skip(f"{name} needs {missing.name}, an optional extra")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    failed = [
        f"{test.name} (line {test.lineno})"
        for test in doctest.DocTestFinder().find(module, name)
        if runner.run(test, out=lambda text: None).failed
    ]
    assert failed == [], f"run `pytest --doctest-modules {module.__file__}` to see each"


def test_streams_page_shows_a_streaming_loop_of_ones_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/streams.md runs a hand-written streaming loop that sends the rebuilt reply back."""
    (own,) = (e for e in examples(DOCS / "streams.md") if e.name == "own-loop")
    assert "adapter.assistant_message(stop)" in own.code
    assert "adapter.tool_results(stop, results)" in own.code
    sent: list[dict[str, Any]] = []
    run(own, monkeypatch, sent)
    first, second = (body["messages"] for body in sent)
    assert second[: len(first)] == first
    reply, results = second[len(first) :]
    assert [block["type"] for block in reply["content"]] == ["text", "tool_use"]
    [result] = results["content"]
    assert (result["type"], result["tool_use_id"]) == ("tool_result", reply["content"][1]["id"])


@pytest.mark.parametrize("page", PAGES, ids=label)
def test_every_python_block_compiles(page: Path) -> None:
    """Every Python block is valid Python, also those that need an API key to run."""
    for i, code in enumerate(python_blocks(page)):
        compile(code, f"{label(page)} block {i}", "exec")


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.id)
def test_generated_block_is_current(block: Block) -> None:
    """Each generated block holds what its generator writes now (the code is the source)."""
    assert block.body == generate(block), f"{block.id} is stale: run `python -m tests.test_docs`"


def test_every_builtin_adapter_has_its_table_on_one_provider_page() -> None:
    """Each built-in adapter's rows appear exactly once, on a provider page; the matrix once."""
    from stopkit._reason_table import builtin_names

    tables = [b for b in BLOCKS if b.kind == "reason-table"]
    assert sorted(b.args[0] for b in tables) == sorted(builtin_names())
    assert {b.page.parent for b in tables} == {DOCS / "providers"}
    matrix = [b.page for b in BLOCKS if b.kind == "reason-matrix"]
    assert matrix == [DOCS / "providers" / "index.md"]


@pytest.mark.parametrize("page", [p for p in PROVIDERS if p.name != "index.md"], ids=label)
def test_every_provider_page_says_which_sdk_versions_were_tested(page: Path) -> None:
    """A provider page shows its adapters' tables and the SDK versions its tests ran on."""
    kinds = {block.kind for block in blocks(page)}
    assert {"reason-table", "tested-with"} <= kinds


def test_cli_reference_shows_every_command() -> None:
    """The CLI page holds the help of `stopkit` and of each of its sub-commands."""
    import argparse

    from stopkit.cli._main import build_parser

    # argparse keeps its sub-commands only on its private action; this is the one place read.
    (commands,) = (
        a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    )
    shown = {b.args for b in blocks(DOCS / "cli.md") if b.kind == "cli-help"}
    assert shown == {(), *((name,) for name in commands.choices)}


def test_the_wrap_lists_come_from_the_routes_table_and_its_forms_are_tested() -> None:
    """The README and the wrap page list the routes table (generated), and the tests run it.

    The official SDKs' forms tested (tests/wrap/forms.py) are forms the table watches; the other
    families' are exactly its forms (tests/wrap/test_families.py, tests/wrap/test_xai.py).
    """
    from stopkit._wrap._routes import FAMILIES, watched_forms
    from tests.wrap.forms import FORMS

    kinds = {(b.page, b.kind) for b in BLOCKS}
    assert {(ROOT / "README.md", "wrap-families"), (DOCS / "wrap.md", "wrap-forms")} <= kinds
    official = {"anthropic": "anthropic", "openai_chat": "openai", "openai_responses": "openai",
                "gemini": "google-genai"}  # fmt: skip
    watched = {
        (family.name, form)
        for family in FAMILIES
        for is_async in (False, True)
        for form in watched_forms(family.routes(is_async))
    }
    tested = {(official[f.sdk], f.path if "()" not in f.name else f.name) for f in FORMS}
    tested = {(family, name.removeprefix("aio.")) for family, name in tested}
    assert tested <= watched, tested - watched


def _route_adapters(routes: Any) -> set[str]:
    """The adapters the watched methods of a route read replies with."""
    found: set[str] = set()
    for route in routes.values():
        if isinstance(route, dict):
            found |= _route_adapters(route)
        elif hasattr(route, "routes"):  # a method returning an object to watch
            if route.routes is not routes:
                found |= _route_adapters(route.routes)
        else:
            found.add(route.adapter)
    return found


def test_every_provider_page_of_a_wrapped_client_shows_its_wrap_line() -> None:
    """A provider page whose adapter reads a wrapped client's replies shows `stopkit.wrap(`."""
    from stopkit._wrap._routes import FAMILIES

    read = set().union(*(_route_adapters(f.routes(a)) for f in FAMILIES for a in (False, True)))
    pages = {b.args[0]: b.page for b in BLOCKS if b.kind == "reason-table"}
    assert read <= set(pages)
    for adapter in sorted(read):
        assert "stopkit.wrap(" in pages[adapter].read_text(encoding="utf-8"), adapter


# The API reference: `::: dotted.path` directives (mkdocstrings), each with optional YAML options.
_DIRECTIVE = re.compile(r"^::: (?P<path>[\w.]+)\n(?P<options>(?:[ \t]+\S.*\n)*)", re.M)


def _public_modules() -> list[str]:
    """`stopkit` and every module below it with no private part in its name that has `__all__`."""
    found = ["stopkit"]
    for info in pkgutil.walk_packages(stopkit.__path__, "stopkit."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.append(info.name)
    return [name for name in found if hasattr(importlib.import_module(name), "__all__")]


def _resolve(path: str) -> Any:
    """The object at a dotted path, importing the longest module prefix."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            value = getattr(value, attribute)
        return value
    raise LookupError(path)


def _directives() -> dict[str, str]:
    """Every documented path of the docs, with the page it is on."""
    found = {}
    for page in PAGES:
        for match in _DIRECTIVE.finditer(page.read_text(encoding="utf-8")):
            assert "members:" not in match["options"], f"{match['path']}: list no members"
            found[match["path"]] = label(page)
    return found


def test_api_reference_documents_every_public_name() -> None:
    """Every name in the `__all__` of `stopkit` and of each public module is rendered.

    A name is documented by a directive of its own, by one for its whole module, or by one for
    the same object elsewhere (`stopkit.Outcome` is documented as `stopkit.loop.events.Outcome`).
    The reference renders only what griffe finds statically with a docstring, so each must.
    """
    import griffe

    loader = griffe.GriffeLoader(search_paths=[str(ROOT)])
    package = loader.load("stopkit")
    directives = _directives()
    documented = set(directives)
    for path in directives:  # a whole module's directive documents each name of its __all__
        target = _resolve(path)
        if isinstance(target, types.ModuleType):
            documented |= {f"{path}.{name}" for name in getattr(target, "__all__", ())}
    by_object = {id(_resolve(path)): path for path in documented}

    def rendered(path: str) -> bool:
        inner = path.removeprefix("stopkit").removeprefix(".")
        try:
            obj = package[inner] if inner else package
        except (KeyError, griffe.AliasResolutionError):
            return False
        return bool(obj.docstring and obj.docstring.value.strip())

    missing = []
    for module_name in _public_modules():
        module = importlib.import_module(module_name)
        for name in module.__all__:
            path = f"{module_name}.{name}"
            shown = path if path in documented else by_object.get(id(getattr(module, name)), "")
            if not shown or not rendered(shown):
                missing.append(path)
    assert missing == [], "not in the API reference (or with no docstring there)"


def _fields(cls: type) -> list[str]:
    """The public fields of a model class: pydantic, dataclass or NamedTuple ([] for others)."""
    import dataclasses

    import pydantic

    if issubclass(cls, pydantic.BaseModel):
        names = list(cls.model_fields)
    elif dataclasses.is_dataclass(cls):
        names = [field.name for field in dataclasses.fields(cls)]
    elif issubclass(cls, tuple) and hasattr(cls, "_fields"):
        names = list(cls._fields)
    else:
        names = []
    return [name for name in names if not name.startswith("_") and _declared_here(cls, name)]


def _declared_here(cls: type, name: str) -> bool:
    """Whether stopkit declares the field, not a framework's base class it subclasses."""
    import inspect

    for klass in cls.__mro__:
        if name in inspect.get_annotations(klass):
            return klass.__module__.split(".")[0] == "stopkit"
    return True


def test_every_public_model_field_has_a_docstring() -> None:
    """Each field of a public model says what it holds, so the API reference shows it.

    The reference shows no member without a docstring (`show_if_no_docstring: false`): a field
    with none is left out of its class's page. The docstring read is griffe's, as rendered.
    """
    import griffe

    package = griffe.GriffeLoader(search_paths=[str(ROOT)]).load("stopkit")
    models = {}
    for module_name in _public_modules():
        module = importlib.import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            if isinstance(value, type) and _fields(value):
                models[f"{value.__module__}.{value.__qualname__}"] = value
    assert {"stopkit._stop.Stop", "stopkit.loop.events.Outcome"} <= set(models)
    missing = []
    for path, cls in sorted(models.items()):
        members = package[path.removeprefix("stopkit.")].all_members
        for field in _fields(cls):
            docstring = members[field].docstring if field in members else None
            if docstring is None or not docstring.value.strip():
                missing.append(f"{path}.{field}")
    assert missing == [], "public model fields with no docstring"


def test_api_reference_pages_are_all_reached() -> None:
    """Every path a directive names resolves at run time (a typo would fail only the build)."""
    for path, page in _directives().items():
        try:
            _resolve(path)
        except (LookupError, AttributeError) as exc:
            pytest.fail(f"{page}: ::: {path} does not resolve ({exc})")


if __name__ == "__main__":
    changed = [label(page) for page in PAGES if rewrite(page, generate)]
    print("rewrote: " + (", ".join(changed) or "nothing, every block was current"))
