"""The README tells the truth: its examples, its reason table and its test command.

Its examples run offline and print what it shows, its reason table is the adapters' own, and its
test command is the one CI runs. `python tests/test_readme.py` rewrites the README's reason
table from the adapters.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
START, END = "<!-- reason-table:start -->", "<!-- reason-table:end -->"

_EXAMPLE = re.compile(
    r"<!-- readme-example: (?P<name>[\w-]+) -->\n```python\n(?P<code>.*?)```\n\n```text\n"
    r"(?P<out>.*?)```",
    re.S,
)


def _examples() -> list[tuple[str, str, str]]:
    return [(m["name"], m["code"], m["out"]) for m in _EXAMPLE.finditer(README.read_text())]


def test_readme_has_examples() -> None:
    """The README's runnable examples are found (a broken marker would silently skip them)."""
    names = {name for name, _, _ in _examples()}
    assert names >= {"normalize", "stream", "adapter", "handler", "otel"}


@pytest.mark.parametrize(("name", "code", "out"), _examples(), ids=[e[0] for e in _examples()])
def test_readme_example_prints_what_it_shows(name: str, code: str, out: str) -> None:
    """Each README example runs offline and prints exactly the output shown under it."""
    import stopkit

    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            exec(compile(code, f"README:{name}", "exec"), {"__name__": f"readme_{name}"})
    finally:
        for adapter in list(stopkit.registered_adapters()):
            if adapter.name == "echo":
                stopkit.unregister_adapter("echo")
    assert buffer.getvalue() == out


def test_every_python_block_compiles() -> None:
    """Every Python block in the README is valid Python, including those that need an API key."""
    for i, block in enumerate(re.findall(r"```python\n(.*?)```", README.read_text(), re.S)):
        compile(block, f"README block {i}", "exec")


def _table_in_readme() -> str:
    text = README.read_text()
    return text[text.index(START) + len(START) : text.index(END)].strip("\n")


def test_reason_table_is_generated_from_the_adapters() -> None:
    """The README's reason x provider table is exactly what the adapters' tables say."""
    from stopkit._reason_table import reason_table

    assert _table_in_readme() == reason_table().strip("\n"), (
        "README reason table is stale: run `python tests/test_readme.py`"
    )


def test_ci_runs_the_readme_test_command() -> None:
    """.ci/run runs the very test command the README gives."""
    readme = README.read_text()
    command = re.search(r"pip install -e '\.\[dev\]' && python -m pytest[^\n`]*", readme)
    assert command is not None
    assert command.group(0) in (ROOT / ".ci" / "run").read_text()


def test_readme_lists_every_watched_wrap_form() -> None:
    """Every call form the wrap tests watch is named in the README's list, and nothing else."""
    from tests.wrap.forms import FORMS

    text = README.read_text()
    listed = text[text.index("<!-- wrap-forms:start -->") : text.index("<!-- wrap-forms:end -->")]
    named = set(re.findall(r"`([\w.()]+)`", listed)) - {"beta.messages", "client.aio"}
    assert named == {form.name for form in FORMS}


def _rewrite_table() -> None:
    from stopkit._reason_table import reason_table

    text = README.read_text()
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    README.write_text(f"{head}{START}\n{reason_table().strip()}\n{END}{tail}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    _rewrite_table()
    print(f"rewrote the reason table in {README}")
