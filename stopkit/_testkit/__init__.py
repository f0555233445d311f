"""Asserting a reply's `Stop`, and one test parameter per payload file: `stopkit.testing`'s core.

A package of its own, not a core module (`stopkit/_*.py`): it reads payload files
(`stopkit.record`), and the core, at the bottom of the house, imports no subsystem.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from stopkit._adapter import Adapter
from stopkit._normalize import normalize
from stopkit._stop import Stop, ToolCall
from stopkit._stream import normalize_stream
from stopkit.record._payloads import Payload, load_payload, load_payloads

__all__ = ["assert_stop", "payload_params"]

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


def _field_problems(stop: Stop, wanted: Mapping[str, Any]) -> list[str]:
    """A line for each field given (not `_UNSET`) whose value the `Stop` does not have."""
    problems = []
    for key, value in wanted.items():
        if value is _UNSET:
            continue
        actual = getattr(stop, key)
        if _view(actual) != _view(value):
            problems.append(f"{key}: expected {_view(value)!r}, got {_view(actual)!r}")
    return problems


def _missing_problems(stop: Stop, notes: Iterable[str], details: Iterable[str]) -> list[str]:
    """A line for each note fragment no note holds, and each `details` key not there."""
    problems = [
        f"notes: none contains {fragment!r}"
        for fragment in notes
        if not any(fragment in note for note in stop.notes)
    ]
    problems += [
        f"details: no {key!r} (keys: {sorted(stop.details)})"
        for key in details
        if key not in stop.details
    ]
    return problems


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
    problems = _field_problems(stop, wanted)
    if tool_calls is not _UNSET:
        problems += _call_problems(stop.tool_calls, list(tool_calls))
    if n_tool_calls is not _UNSET and len(stop.tool_calls) != n_tool_calls:
        problems.append(f"n_tool_calls: expected {n_tool_calls}, got {len(stop.tool_calls)}")
    if usage is not _UNSET:
        problems += _usage_problems(stop, usage)
    problems += _missing_problems(
        stop, () if notes is _UNSET else notes, () if details is _UNSET else details
    )
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
