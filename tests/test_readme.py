"""The README is a five-minute read that tells the truth, and hands the rest to the docs.

Its examples run (with the docs' examples, in tests/test_docs.py); here: its length, its two
commands, its three examples, its provider list, and that every link stays in the repository.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests._markdown import DOCS, README, ROOT, examples, run


def test_readme_is_short() -> None:
    """The README stays at most 200 lines: the detail lives in the docs."""
    assert len(README.read_text().splitlines()) <= 200


def test_readme_shows_normalize_wrap_and_the_loop() -> None:
    """The three ways in are the README's runnable examples, each about ten lines."""
    found = {example.name: example for example in examples(README)}
    assert set(found) == {"normalize", "wrap", "loop"}
    for example in found.values():
        assert len(example.code.splitlines()) <= 14, example.name


def test_readme_opens_with_the_two_commands() -> None:
    """The first two code blocks are the offline demo and the test command."""
    first, second = re.findall(r"```bash\n(.*?)\n```", README.read_text(), re.S)[:2]
    assert "examples/quickstart.py" in first
    assert "stopkit demo" in first
    assert second.endswith("pip install -c requirements/dev.txt -e '.[dev]' && python -m pytest -q")


def test_ci_runs_the_readme_test_command() -> None:
    """.ci/run runs the very test command the README gives."""
    text = README.read_text()
    command = re.search(
        r"pip install -c requirements/dev\.txt -e '\.\[dev\]' && python -m pytest[^\n`]*", text
    )
    assert command is not None
    assert command.group(0) in (ROOT / ".ci" / "run").read_text()


def test_readme_links_stay_in_the_repository() -> None:
    """Every relative link names a file of the repository; nothing points outside it."""
    text = README.read_text()
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert links
    for link in links:
        assert not link.startswith(("http:", "https:", "/", "..")), link
        assert (ROOT / link).is_file(), link
    assert "../" not in text
    assert "design notes" not in text.lower()


def test_readme_lists_every_provider_page() -> None:
    """Each provider page of the docs is linked from the README's provider list."""
    linked = set(re.findall(r"\]\((docs/providers/[\w-]+\.md)\)", README.read_text()))
    pages = {p.relative_to(ROOT).as_posix() for p in (DOCS / "providers").glob("*.md")}
    assert linked == pages


def test_readme_loop_raises_max_tokens_after_a_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's loop, as written, retries a cut reply once with a higher max_tokens."""
    recorded = json.loads((ROOT / "tests/recordings/anthropic/max_tokens.stream.json").read_text())
    for event in recorded["response"]["events"]:  # a real cut spends the whole ceiling
        if event["type"] == "message_delta":
            event["usage"]["output_tokens"] = 256
    cut = tmp_path / "max_tokens.stream.json"
    cut.write_text(json.dumps(recorded))
    (loop,) = (example for example in examples(README) if example.name == "loop")
    sent: list[dict[str, Any]] = []
    served = (str(cut), *loop.serve)
    printed = run(dataclasses.replace(loop, serve=served), monkeypatch, sent)
    assert printed == "completed 3 'Paris is sunny.'\n"
    assert [body["max_tokens"] for body in sent] == [256, 512, 512]
