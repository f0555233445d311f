"""Reading payload files and asserting their `Stop`: the core of `stopkit.testing`.

A payload file holds one reply or one stream, in any of these forms:

- a stopkit case file: `{"reply": {...}}` or `{"events": [...]}`, with optional `expect`
  (the `Stop` fields it must give) and `about`;
- a recorded exchange written by `RecordingTransport`: `{"request": {...}, "response":
  {"status": ..., "body": {...}}}` or `... "response": {..., "events": [...]}}`;
- a bare reply body (a dict, or an SDK object dumped to JSON), or a JSON list of stream events;
- `.sse`/`.txt` raw server-sent events, `.jsonl`/`.ndjson` newline-delimited JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_core import from_json

from stopkit._adapter import Adapter
from stopkit._normalize import normalize
from stopkit._stop import Stop, ToolCall
from stopkit._stream import iter_events, normalize_stream

__all__ = ["Payload", "assert_stop", "load_payload", "load_payloads", "payload_params"]

SUFFIXES = (".json", ".sse", ".txt", ".jsonl", ".ndjson")


@dataclass(frozen=True)
class Payload:
    """One reply or stream read from a file, with what its file says about it.

    Example:
        >>> payload = load_payload("tests/payloads/anthropic/end_turn.json")  # doctest: +SKIP
        >>> payload.stop().reason  # doctest: +SKIP
        <StopReason.COMPLETED: 'completed'>
    """

    path: Path | None
    reply: Any = None
    """The non-streaming reply body (None for a stream)."""
    events: list[Any] | None = None
    """The stream's events, in order (None for a non-streaming reply)."""
    expect: dict[str, Any] | None = None
    """The `Stop` fields the file says the reply must give (case files)."""
    about: str | None = None
    request: dict[str, Any] | None = None
    """The recorded request summary (recorded exchanges)."""
    response: dict[str, Any] = field(default_factory=dict)
    """The recorded response: status, content_type, headers, SSE framing (recorded exchanges)."""

    @property
    def is_stream(self) -> bool:
        """Whether this payload is a stream of events."""
        return self.events is not None

    @property
    def name(self) -> str:
        """The file's name, or `<inline>`."""
        return self.path.name if self.path is not None else "<inline>"

    def stop(self, *, adapter: str | Adapter | None = None) -> Stop:
        """Return this payload's `Stop` (through `normalize_stream` for a stream)."""
        if self.events is not None:
            return normalize_stream(self.events, adapter=adapter)
        return normalize(self.reply, adapter=adapter)


def _from_value(value: Any, path: Path | None) -> Payload:
    if isinstance(value, list):
        return Payload(path, events=value)
    if not isinstance(value, dict):
        raise ValueError(f"{path}: a payload is a JSON object or a list of events")
    expect, about = value.get("expect"), value.get("about")
    if isinstance(value.get("events"), list):
        return Payload(path, events=value["events"], expect=expect, about=about)
    if isinstance(value.get("reply"), dict):
        return Payload(path, reply=value["reply"], expect=expect, about=about)
    response = value.get("response")
    if isinstance(response, dict) and ("body" in response or "events" in response):
        request = value.get("request")
        meta = {k: v for k, v in response.items() if k not in ("body", "events")}
        if isinstance(response.get("events"), list):
            return Payload(
                path, events=response["events"], request=request, response=meta, expect=expect
            )
        return Payload(
            path, reply=response.get("body"), request=request, response=meta, expect=expect
        )
    return Payload(path, reply=value)


def load_payload(path: str | Path) -> Payload:
    """Read one payload file (a case file, a recorded exchange, a bare reply or a stream).

    Example:
        >>> load_payload("recordings/0001-post-v1-messages.json").is_stream  # doctest: +SKIP
        False
    """
    path = Path(path)
    data = path.read_bytes()
    if path.suffix in (".sse", ".txt", ".jsonl", ".ndjson"):
        return Payload(path, events=list(iter_events(data)))
    try:
        value = from_json(data)
    except ValueError as exc:
        raise ValueError(f"{path}: not valid JSON: {exc}") from None
    return _from_value(value, path)


def load_payloads(folder: str | Path, pattern: str = "*") -> list[Payload]:
    """Read every payload file under `folder` (recursively), sorted by path.

    Files whose suffix is not a payload suffix (`.json`, `.sse`, `.txt`, `.jsonl`, `.ndjson`)
    are skipped; `pattern` narrows the file names (a glob, e.g. `"*.stream.json"`).

    Example:
        >>> [p.name for p in load_payloads("tests/payloads/gemini")][:1]  # doctest: +SKIP
        ['blocked_prompt.json']
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"no payload folder at {folder}")
    paths = sorted(p for p in folder.rglob(pattern) if p.is_file() and p.suffix in SUFFIXES)
    return [load_payload(p) for p in paths]


_UNSET: Any = object()


def _view(value: Any) -> Any:
    if isinstance(value, ToolCall):
        return value.model_dump()
    if hasattr(value, "value") and isinstance(getattr(value, "value", None), str):
        return value.value  # a StrEnum member compares as its value
    return value


def _call_problems(got: Sequence[ToolCall], want: Sequence[Any]) -> list[str]:
    problems: list[str] = []
    if len(got) != len(want):
        shown = [f"{c.name}({c.arguments})" for c in got]
        return [f"tool_calls: expected {len(want)} call(s), got {len(got)}: {shown}"]
    for i, (call, wanted) in enumerate(zip(got, want, strict=True)):
        if isinstance(wanted, str):
            wanted = {"name": wanted}
        elif isinstance(wanted, ToolCall):
            wanted = wanted.model_dump()
        for key, value in dict(wanted).items():
            actual = getattr(call, key, _UNSET)
            if actual is _UNSET:
                problems.append(f"tool_calls[{i}]: a ToolCall has no field {key!r}")
            elif actual != value:
                problems.append(f"tool_calls[{i}].{key}: expected {value!r}, got {actual!r}")
    return problems


def _usage_problems(stop: Stop, wanted: Mapping[str, int | None] | None) -> list[str]:
    if wanted is None or stop.usage is None:
        if (wanted is None) != (stop.usage is None):
            return [f"usage: expected {wanted!r}, got {stop.usage!r}"]
        return []
    problems = []
    for key, value in wanted.items():
        actual = getattr(stop.usage, key, _UNSET)
        if actual is _UNSET:
            problems.append(f"usage: a Usage has no field {key!r}")
        elif actual != value:
            problems.append(f"usage.{key}: expected {value!r}, got {actual!r}")
    return problems


def _resolve(reply_or_file: Any, adapter: str | Adapter | None) -> Stop:
    if isinstance(reply_or_file, Stop):
        return reply_or_file
    if isinstance(reply_or_file, Payload):
        return reply_or_file.stop(adapter=adapter)
    if isinstance(reply_or_file, Path) or (
        isinstance(reply_or_file, str) and not reply_or_file.lstrip().startswith(("{", "data:"))
    ):
        return load_payload(reply_or_file).stop(adapter=adapter)
    if isinstance(reply_or_file, list):
        return normalize_stream(reply_or_file, adapter=adapter)
    return normalize(reply_or_file, adapter=adapter)


def assert_stop(
    reply_or_file: Any,
    *,
    adapter: str | Adapter | None = None,
    reason: str | None = _UNSET,
    raw_reason: str | int | None = _UNSET,
    detail: str | None = _UNSET,
    provider: str = _UNSET,
    text: str = _UNSET,
    tool_calls: Iterable[Mapping[str, Any] | ToolCall | str] = _UNSET,
    refusal: str | None = _UNSET,
    stop_sequence: str | None = _UNSET,
    n_tool_calls: int = _UNSET,
    notes: Iterable[str] = _UNSET,
    details: Iterable[str] = _UNSET,
    usage: Mapping[str, int | None] | None = _UNSET,
) -> Stop:
    """Assert what a reply's `Stop` is; on a mismatch, raise AssertionError listing every field.

    `reply_or_file` is a reply (SDK object, dict, JSON text), a list of stream events, a
    `Stop`, a `Payload`, or a payload file path. Only the fields given are checked:
    `tool_calls` is a list with one entry per call, each a call name or a dict of the
    `ToolCall` fields to compare (`n_tool_calls` checks the count only); `notes` are
    fragments some note must contain; `details` are keys that must be present; `usage` is
    None or the token counts to compare (`{"input_tokens": 12, "reasoning_tokens": None}`).
    Returns the `Stop`.

    Example:
        >>> stop = assert_stop({"type": "message", "role": "assistant", "content": [],
        ...     "stop_reason": "max_tokens"}, reason="output_limit", detail="max_tokens")
    """
    stop = _resolve(reply_or_file, adapter)
    wanted = {
        "reason": reason,
        "raw_reason": raw_reason,
        "detail": detail,
        "provider": provider,
        "text": text,
        "refusal": refusal,
        "stop_sequence": stop_sequence,
    }
    problems: list[str] = []
    for key, value in wanted.items():
        if value is _UNSET:
            continue
        actual = getattr(stop, key)
        if _view(actual) != _view(value):
            problems.append(f"{key}: expected {_view(value)!r}, got {_view(actual)!r}")
    if tool_calls is not _UNSET:
        problems += _call_problems(stop.tool_calls, list(tool_calls))
    if n_tool_calls is not _UNSET and len(stop.tool_calls) != n_tool_calls:
        problems.append(f"n_tool_calls: expected {n_tool_calls}, got {len(stop.tool_calls)}")
    if notes is not _UNSET:
        for fragment in notes:
            if not any(fragment in note for note in stop.notes):
                problems.append(f"notes: none contains {fragment!r}")
    if usage is not _UNSET:
        problems += _usage_problems(stop, usage)
    if details is not _UNSET:
        for key in details:
            if key not in stop.details:
                problems.append(f"details: no {key!r} (keys: {sorted(stop.details)})")
    if problems:
        summary = (
            f"  the Stop: reason={stop.reason.value!r} raw_reason={stop.raw_reason!r} "
            f"detail={stop.detail!r} provider={stop.provider!r} text={stop.text[:80]!r} "
            f"tool_calls={[c.name for c in stop.tool_calls]} notes={list(stop.notes)}"
        )
        raise AssertionError(
            "the reply's Stop does not match:\n  - " + "\n  - ".join(problems) + "\n" + summary
        )
    return stop


def payload_params(folder: str | Path, pattern: str = "*") -> list[Any]:
    """Return one `pytest.param` per payload file under `folder`, with its path as the test id.

    Example:
        >>> @pytest.mark.parametrize("payload", payload_params("tests/payloads/mine"))
        ... def test_mine(payload): ...  # doctest: +SKIP
    """
    import pytest  # imported here: stopkit.testing must not need pytest

    folder = Path(folder)
    payloads = load_payloads(folder, pattern)
    if not payloads:
        raise FileNotFoundError(f"no payload files matching {pattern!r} under {folder}")
    return [pytest.param(p, id=str(p.path.relative_to(folder))) for p in payloads if p.path]
