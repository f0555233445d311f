"""Reading `tests/payloads/<adapter>/<case>.json` and checking a `Stop` against its `expect`.

A case file is one JSON object:

    about    one sentence: what this reply shows
    source   where its shape comes from (SDK type, doc page)
    reply    the non-streaming body exactly as sent      (or)
    events   the stream, as the list of its event/chunk objects (files named *.stream.json)
    twin     for a stream: the file name of its non-streaming twin (same Stop expected)
    sdk      false when the SDK-object form must be skipped (say why in `about`)
    expect   the fields of the Stop it must give (see `check`)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import stopkit
from stopkit.testing import assert_stop
from tests._adapters import BY_FOLDER

PAYLOADS = Path(__file__).parent / "payloads"


@dataclass(frozen=True)
class Case:
    path: Path
    data: dict[str, Any]

    @property
    def folder(self) -> str:
        return self.path.parent.name

    @property
    def adapter(self) -> str:
        row = BY_FOLDER.get(self.folder)
        return row.name if row is not None else self.folder

    @property
    def is_stream(self) -> bool:
        return "events" in self.data

    @property
    def id(self) -> str:
        return f"{self.folder}/{self.path.name}"

    @property
    def expect(self) -> dict[str, Any]:
        expect: dict[str, Any] = self.data["expect"]
        return expect


def load_cases(folder: Path = PAYLOADS) -> list[Case]:
    """Every case file under `folder`, sorted by path."""
    return [
        Case(path, json.loads(path.read_text(encoding="utf-8")))
        for path in sorted(folder.rglob("*.json"))
    ]


def case_part(folder: str, name: str, part: str) -> Any:
    """The `reply` or `events` of one case file: `case_part("ollama", "stop.json", "reply")`."""
    return json.loads((PAYLOADS / folder / name).read_text(encoding="utf-8"))[part]


def claimed_by(case: Case) -> list[str] | None:
    """Name the registered adapters that detect `case`, in detection order.

    A reply is offered to `detects`, a stream's first event to `detects_event`; an empty stream
    has nothing to detect and gives None.
    """
    if case.is_stream and not case.data["events"]:
        return None
    body = case.data["events"][0] if case.is_stream else case.data["reply"]
    return [
        adapter.name
        for adapter in stopkit.registered_adapters()
        if (adapter.detects_event(body) if case.is_stream else adapter.detects(body))
    ]


def _call_view(call: stopkit.ToolCall) -> dict[str, Any]:
    return call.model_dump()


def check(stop: stopkit.Stop, expect: dict[str, Any]) -> None:
    """Assert that `stop` matches a case file's `expect`, one readable line per mismatch.

    The keys of `expect` are the keyword arguments of `stopkit.testing.assert_stop`: `reason`,
    `raw_reason`, `provider`, `detail`, `text`, `refusal`, `stop_sequence` compared exactly;
    `tool_calls` as a list of dicts, each key compared; `notes` as fragments some note must
    contain; `details` as keys that must be present; `usage` as the token counts; `n_tool_calls`.
    """
    assert_stop(stop, **expect)


def same_stop(a: stopkit.Stop, b: stopkit.Stop) -> None:
    """Assert two Stops agree on what a caller acts on (stream vs whole reply)."""
    fields = (
        "reason", "raw_reason", "detail", "text", "refusal", "stop_sequence", "provider", "usage"
    )  # fmt: skip
    diffs = [
        f"{f}: {getattr(a, f)!r} != {getattr(b, f)!r}"
        for f in fields
        if getattr(a, f) != getattr(b, f)
    ]
    calls_a = [_call_view(c) for c in a.tool_calls]
    calls_b = [_call_view(c) for c in b.tool_calls]
    if calls_a != calls_b:
        diffs.append(f"tool_calls: {calls_a} != {calls_b}")
    if diffs:
        raise AssertionError("the two Stops differ:\n  " + "\n  ".join(diffs))


def to_sse(events: list[Any]) -> str:
    """Render events as the SSE text a server would send (`event:` line when they have a type)."""
    out = []
    for event in events:
        kind = event.get("type") if isinstance(event, dict) else None
        head = f"event: {kind}\n" if isinstance(kind, str) else ""
        out.append(f"{head}data: {json.dumps(event)}\n\n")
    return "".join(out)
