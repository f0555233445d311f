"""`stopkit.wrap` on the real anthropic, openai and google-genai clients, over ReplayTransport.

Every recording under tests/recordings (one per reason each wire API has, non-streaming and
streamed) and every adapter case under tests/payloads/<folder> is sent through a wrapped client
and an unwrapped one: the replies are the same, `on_stop` sees the adapter's `Stop`, and
`raise_on` raises the typed error carrying it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import stopkit
import stopkit.record
from stopkit._errors import error_for
from stopkit.record._payloads import Payload, load_payload
from tests import _wrap_clients as sdk
from tests._payloads import PAYLOADS, same_stop

RECORDED = sorted(
    path for folder in sdk.FOLDERS for path in (sdk.RECORDINGS / folder).glob("*.json")
)


def _folder(path: Path) -> str:
    return path.parent.name


def _expected(payload: Payload, result: Any, folder: str) -> tuple[stopkit.Stop, ...]:
    """The Stops the adapter gives the SDK's own return value (reply or event list).

    One per choice, where the adapter reads every choice.
    """
    adapter = stopkit.get_adapter(sdk.ADAPTER[folder])
    if isinstance(result, list):
        accumulator: Any = adapter.stream()
        for event in result:
            accumulator.feed(event)
        results = getattr(accumulator, "results", None)
        return tuple(results()) if results is not None else (accumulator.result(),)
    return stopkit.normalize_all(result, adapter=adapter)


def _run(path: Path, *, is_async: bool, **settings: Any) -> tuple[Any, list[stopkit.Stop]]:
    """Call through a wrapped client serving `path`; return the result and the Stops seen."""
    import asyncio

    folder = _folder(path)
    payload = load_payload(path)
    seen: list[stopkit.Stop] = []
    wrapped = stopkit.wrap(
        sdk.client(folder, stopkit.record.ReplayTransport([path]), is_async=is_async),
        on_stop=seen.append,
        **settings,
    )
    if is_async:
        result = asyncio.run(sdk.acall(folder, wrapped, payload.is_stream))
    else:
        result = sdk.call(folder, wrapped, payload.is_stream)
    return result, seen


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("path", RECORDED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_wrapped_client_reports_each_reason(path: Path, is_async: bool) -> None:
    """A wrapped client returns what the SDK returns and hands `on_stop` the adapter's Stop."""
    folder = _folder(path)
    payload = load_payload(path)
    result, seen = _run(path, is_async=is_async)
    replay = stopkit.record.ReplayTransport([path])
    plain = sdk.call(folder, sdk.client(folder, replay), payload.is_stream)
    assert sdk.dump(result) == sdk.dump(plain)
    assert len(seen) == 1
    assert payload.expect is not None
    assert seen[0].reason == payload.expect["reason"]
    (expected,) = _expected(payload, plain, folder)
    same_stop(seen[0], expected)
    if not payload.is_stream:
        assert seen[0].raw is result  # the very object returned was the one normalized
        assert type(result) is type(plain)
    else:
        assert [type(e) for e in result] == [type(e) for e in plain]


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("path", RECORDED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_raise_on_raises_the_typed_error_after_on_stop(path: Path, is_async: bool) -> None:
    """A reason in `raise_on` raises its typed error carrying the Stop, after `on_stop` ran."""
    reason = stopkit.StopReason(load_payload(path).expect["reason"])  # type: ignore[index]
    with pytest.raises(stopkit.StopReasonError) as caught:
        _run(path, is_async=is_async, raise_on={reason})
    assert type(caught.value) is type(error_for(caught.value.stop))
    assert caught.value.stop.reason is reason
    others = {r for r in stopkit.StopReason if r is not reason}
    _, seen = _run(path, is_async=is_async, raise_on=others)  # other reasons: no raise
    assert [s.reason for s in seen] == [reason]


def _case_files() -> list[Path]:
    return sorted(
        path
        for folder in sdk.FOLDERS
        if (PAYLOADS / folder).is_dir()
        for path in (PAYLOADS / folder).glob("*.json")
    )


@pytest.mark.parametrize("path", _case_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_adapter_cases_through_wrapped_clients(path: Path) -> None:
    """Each adapter case served to the real SDK client gives `on_stop` its SDK reply's Stop.

    The wrapped client behaves exactly like the unwrapped one, errors included.
    """
    folder = _folder(path)
    payload = load_payload(path)
    try:
        plain = sdk.call(
            folder, sdk.client(folder, stopkit.record.ReplayTransport([path])), payload.is_stream
        )
    except Exception as exc:  # the SDK itself refuses this payload: wrapping must not change it
        with pytest.raises(type(exc)):
            _run(path, is_async=False)
        return
    result, seen = _run(path, is_async=False)
    assert sdk.dump(result) == sdk.dump(plain)
    expected = _expected(payload, plain, folder)
    assert len(seen) == len(expected)  # one per choice / candidate
    for got, want in zip(seen, expected, strict=True):
        same_stop(got, want)


def test_wrap_rejects_unknown_clients_and_bad_reasons() -> None:
    """Wrapping something that is no known client, or raising on a bad reason, fails."""
    with pytest.raises(TypeError, match=r"does not know builtins\.object"):
        stopkit.wrap(object())
    with pytest.raises(ValueError, match="not_a_reason"):
        stopkit.wrap(sdk.client("anthropic"), raise_on={"not_a_reason"})
