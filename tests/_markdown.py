"""What the README and the docs claim, found by their markers: runnable examples, generated blocks.

A runnable example is a Python block right after a `runnable` marker, and, when it prints, the
text block of what it prints:

    <!-- runnable: NAME -->
    ```python
    print("hi")
    ```

    ```text
    hi
    ```

`<!-- runnable: NAME serve=PATH,PATH -->` names payload files (paths from the repository root)
that a loopback server answers the example's HTTP requests with, in order: ANTHROPIC_BASE_URL
and OPENAI_BASE_URL point the SDK clients at it, so an example written for a real API key runs
as written, offline.

A generated block is text a generator writes between two markers; a test checks each block
is what its generator writes now, and `python -m tests.test_docs` rewrites them all:

    <!-- generated: KIND ARG... -->
    ...
    <!-- generated:end -->
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import stopkit
from tests._loopback import Loopback

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"

_RUNNABLE = re.compile(
    r"<!-- runnable: (?P<name>[\w-]+)(?P<options>[^>]*?) -->\n```python\n(?P<code>.*?)```\n"
    r"(?:\n```text\n(?P<out>.*?)```\n)?",
    re.S,
)
_GENERATED = re.compile(
    r"<!-- generated: (?P<kind>[\w-]+)(?P<args>[^>]*?) -->\n(?P<body>.*?)<!-- generated:end -->",
    re.S,
)


def pages() -> list[Path]:
    """The README and every docs page, sorted."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def label(path: Path) -> str:
    """A page's path from the repository root."""
    return path.relative_to(ROOT).as_posix()


@dataclass(frozen=True)
class Example:
    """One runnable example: its page, its name, its code, what it prints, what it is served."""

    page: Path
    name: str
    code: str
    out: str | None
    serve: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{label(self.page)}:{self.name}"


def examples(page: Path) -> list[Example]:
    """The runnable examples of a page, in order."""
    found = []
    for match in _RUNNABLE.finditer(page.read_text(encoding="utf-8")):
        options = dict(o.split("=", 1) for o in match["options"].split())
        serve = tuple(options.pop("serve", "").split(",")) if "serve" in options else ()
        assert not options, f"{label(page)}:{match['name']}: unknown options {options}"
        found.append(Example(page, match["name"], match["code"], match["out"], serve))
    return found


def markers(page: Path) -> int:
    """How many `runnable` markers a page holds (each must introduce an example)."""
    return page.read_text(encoding="utf-8").count("<!-- runnable:")


def python_blocks(page: Path) -> list[str]:
    """Every Python block of a page, runnable or not (indented ones inside tabs included)."""
    text = page.read_text(encoding="utf-8")
    blocks = []
    for match in re.finditer(r"^( *)```python\n(.*?)^\1```", text, re.S | re.M):
        indent = len(match[1])
        blocks.append("".join(line[indent:] for line in match[2].splitlines(keepends=True)))
    return blocks


@contextlib.contextmanager
def _served(example: Example, monkeypatch: pytest.MonkeyPatch) -> Iterator[Loopback | None]:
    if not example.serve:
        yield None
        return
    server = Loopback()
    server.serve(*(ROOT / path for path in example.serve))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-example")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-example")
    try:
        yield server
    finally:
        server.close()


def run(
    example: Example, monkeypatch: pytest.MonkeyPatch, requests: list[dict[str, Any]] | None = None
) -> str:
    """Run an example from the repository root, as a reader would; return what it printed.

    Adapters it registers are unregistered afterwards; every payload it was served must have
    been asked for. `requests`, when given, receives the HTTP requests it made (their JSON
    bodies decoded).
    """
    monkeypatch.chdir(ROOT)
    before = {adapter.name for adapter in stopkit.registered_adapters()}
    buffer = io.StringIO()
    with _served(example, monkeypatch) as server:
        try:
            with contextlib.redirect_stdout(buffer):
                code = compile(example.code, example.id, "exec")
                exec(code, {"__name__": f"example_{example.name.replace('-', '_')}"})
        finally:
            for adapter in stopkit.registered_adapters():
                if adapter.name not in before:
                    stopkit.unregister_adapter(adapter.name)
        if server is not None:
            assert not server.queue, f"{example.id}: {len(server.queue)} payload(s) never asked for"
            if requests is not None:
                requests += [json.loads(request["body"]) for request in server.requests]
    return buffer.getvalue()


@dataclass(frozen=True)
class Block:
    """One generated block: its page, its kind and arguments, and the text it holds now."""

    page: Path
    kind: str
    args: tuple[str, ...]
    body: str

    @property
    def id(self) -> str:
        return f"{label(self.page)}:{' '.join((self.kind, *self.args))}"


def blocks(page: Path) -> list[Block]:
    """The generated blocks of a page, in order."""
    return [
        Block(page, m["kind"], tuple(m["args"].split()), m["body"])
        for m in _GENERATED.finditer(page.read_text(encoding="utf-8"))
    ]


def rewrite(page: Path, generate: Callable[[Block], str]) -> bool:
    """Rewrite every generated block of a page with what `generate` gives; say if it changed."""
    text = page.read_text(encoding="utf-8")

    def fill(match: re.Match[str]) -> str:
        block = Block(page, match["kind"], tuple(match["args"].split()), match["body"])
        head = match.group(0)[: match.start("body") - match.start()]
        return f"{head}{generate(block)}<!-- generated:end -->"

    new = _GENERATED.sub(fill, text)
    if new != text:
        page.write_text(new, encoding="utf-8")
    return new != text
