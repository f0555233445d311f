"""examples/cassettes: a project's recordings, as each tool writes them, for the docs' audit.

`python -m tests.record._examples` rewrites the folder: real SDK calls recorded by vcrpy (in
each tool's style, tests/record/_cassettes.py) against a loopback server answering with
tests/recordings, the loopback's address rewritten to the provider's host as if recorded
against it, the API key header filtered out as projects configure vcrpy to do. The
docs page "Your existing recordings" shows `stopkit audit` on it; tests/record's
`test_the_shipped_examples_are_what_the_generator_writes` keeps the two the same.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests import _wrap_clients as sdk
from tests._markdown import ROOT
from tests.record import _cassettes as tape

FOLDER = ROOT / "examples" / "cassettes"
HOSTS = {
    "anthropic": "https://api.anthropic.com",
    "openai_chat": "https://api.openai.com/v1",
    "openai_responses": "https://api.openai.com/v1",
    "gemini": "https://generativelanguage.googleapis.com",
}
# (cassette, the tool whose style it is written in, its SDK calls: folder, recording, coding)
CASSETTES: list[tuple[str, str, list[tuple[str, str, str | None]]]] = [
    (
        "pytest-recording/test_weather",
        "vcrpy",
        [
            ("anthropic", "tool_use.json", "gzip"),
            ("anthropic", "max_tokens.json", "gzip"),
        ],
    ),
    (
        "pydantic-ai/test_support",
        "pydantic-ai",
        [
            ("openai_chat", "stop.json", None),
            ("openai_chat", "content_filter.json", None),
            ("openai_chat", "tool_calls.stream.json", None),
        ],
    ),
    (
        "langchain/test_summarize",
        "langchain",
        [
            ("gemini", "stop.stream.json", None),
            ("gemini", "max_tokens.json", None),
        ],
    ),
    (
        "vcrpy-json/test_research",
        "vcrpy-json",
        [
            ("openai_responses", "completed.json", None),
            ("openai_responses", "queued.json", None),
            ("anthropic", "unrecognized.stream.json", None),
        ],
    ),
]


def _as_provider(server: tape.Server, folder: str) -> Any:
    """A vcrpy hook writing the request as sent to the provider, its key header left out."""

    def rewrite(request: Any) -> Any:
        request.uri = request.uri.replace(tape.base_url(folder, server), HOSTS[folder])
        for name in ("authorization", "x-api-key", "x-goog-api-key", "host"):
            request.headers.pop(name, None)
        return request

    return rewrite


def _record(folder: Path, name: str, style: str, calls: list[tuple[str, str, str | None]]) -> None:
    with tape.serving() as server:
        hook = _as_provider(server, calls[0][0])
        made, suffix = tape.recorder(style, before_record_request=hook)
        path = folder / f"{name}{suffix}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        with made.use_cassette(str(path)):
            for api, recording, encoding in calls:
                server.answer(tape.recording(api, recording), encoding=encoding)
                client = sdk.client(api, base_url=tape.base_url(api, server))
                sdk.call(api, client, ".stream." in recording)
            if style == "vcrpy":
                tape.other_calls(server)


HAR = ("playwright/checkout.har", ("openai_chat", "length.json"))
"""A HAR file of a browser session: an OpenAI chat reply cut short, then a web page."""


def _har(folder: Path) -> None:
    name, (api, recording) = HAR
    with tape.serving() as server:
        server.answer(tape.recording(api, recording))
        server.raw(b"<!doctype html><title>Status</title>", "text/html")
        path = tape.har(
            folder / name,
            server,
            [("/v1/chat/completions", b'{"model": "gpt-4o"}'), ("/status", b"")],
            base64_text=False,
        )
    document = json.loads(path.read_text())
    for entry in document["log"]["entries"]:
        entry["request"]["url"] = entry["request"]["url"].replace(
            server.url, HOSTS["openai_chat"].removesuffix("/v1")
        )
    path.write_text(json.dumps(document, indent=2) + "\n")


def write_examples(folder: Path) -> None:
    """Write the example recordings into `folder`."""
    for name, style, calls in CASSETTES:
        _record(folder, name, style, calls)
    (folder / HAR[0]).parent.mkdir(parents=True, exist_ok=True)
    _har(folder)


if __name__ == "__main__":
    write_examples(Path(sys.argv[1]) if len(sys.argv) > 1 else FOLDER)
