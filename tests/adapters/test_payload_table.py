"""The payload table: every recorded case under tests/payloads gives the Stop its file expects.

Each case runs on the JSON dict, on the official SDK object (where tests/sdk_forms/<adapter>.py
can build one), and, for streams, on the raw SSE text and the non-streaming twin.
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

import pytest

import stopkit
from tests._adapters import BY_FOLDER, NAMES
from tests._payloads import Case, check, claimed_by, load_cases, same_stop, to_sse

CASES = load_cases()


def _sdk_forms(case: Case) -> ModuleType:
    try:
        return importlib.import_module(f"tests.sdk_forms.{case.folder}")
    except ModuleNotFoundError:
        pytest.skip(f"no tests/sdk_forms/{case.folder}.py")


def _ids(cases: list[Case]) -> list[str]:
    return [c.id for c in cases]


REPLIES = [c for c in CASES if not c.is_stream]
STREAMS = [c for c in CASES if c.is_stream]


@pytest.mark.parametrize("case", REPLIES, ids=_ids(REPLIES))
def test_reply_dict(case: Case) -> None:
    """The JSON dict of a reply normalizes, auto-detected, to the Stop its file expects."""
    stop = stopkit.normalize(case.data["reply"])
    assert stop.provider == case.adapter
    check(stop, case.expect)
    assert stop.raw is case.data["reply"]


@pytest.mark.parametrize("case", REPLIES, ids=_ids(REPLIES))
def test_reply_json_text(case: Case) -> None:
    """The reply's body as bytes gives the same Stop as its dict."""
    body = json.dumps(case.data["reply"]).encode()
    same_stop(stopkit.normalize(body), stopkit.normalize(case.data["reply"]))


@pytest.mark.parametrize("case", REPLIES, ids=_ids(REPLIES))
def test_reply_sdk_object(case: Case) -> None:
    """The official SDK object built from the same body gives the same expected Stop."""
    if case.data.get("sdk") is False:
        pytest.skip("case marked sdk: false")
    forms = _sdk_forms(case)
    obj = forms.to_sdk(case.data["reply"])
    if obj is None:
        pytest.skip("the SDK has no object for this reply")
    stop = stopkit.normalize(obj)
    assert stop.provider == case.adapter
    check(stop, case.expect)
    assert stop.raw is obj


@pytest.mark.parametrize("case", STREAMS, ids=_ids(STREAMS))
def test_stream_events(case: Case) -> None:
    """A recorded stream, fed event by event, gives the Stop its file expects (and its twin's)."""
    stop = stopkit.normalize_stream(case.data["events"])
    assert stop.provider == case.adapter
    check(stop, case.expect)
    twin = case.data.get("twin")
    if twin:
        whole = json.loads((case.path.parent / twin).read_text())["reply"]
        same_stop(stop, stopkit.normalize(whole))


TWINNED = [case for case in STREAMS if case.data.get("twin")]


@pytest.mark.parametrize("case", TWINNED, ids=_ids(TWINNED))
def test_a_finished_streams_raw_is_the_rebuilt_reply(case: Case) -> None:
    """A stream with a non-streaming twin keeps, as raw, a reply that normalizes to its Stop."""
    stop = stopkit.normalize_stream(case.data["events"])
    assert isinstance(stop.raw, dict)
    same_stop(stopkit.normalize(stop.raw), stop)


@pytest.mark.parametrize("case", STREAMS, ids=_ids(STREAMS))
def test_stream_raw_sse(case: Case) -> None:
    """The same stream as raw SSE text gives the same Stop as its parsed events."""
    events: list[Any] = case.data["events"]
    if not BY_FOLDER[case.folder].sse:
        pytest.skip("not an SSE wire format")
    same_stop(stopkit.normalize_stream(to_sse(events)), stopkit.normalize_stream(events))


@pytest.mark.parametrize("case", STREAMS, ids=_ids(STREAMS))
def test_stream_sdk_events(case: Case) -> None:
    """The same stream as the SDK's own event objects gives the same Stop."""
    if case.data.get("sdk") is False:
        pytest.skip("case marked sdk: false")
    forms = _sdk_forms(case)
    to_event = getattr(forms, "to_sdk_event", None)
    if to_event is None:
        pytest.skip("no SDK event form for this adapter")
    objects = [to_event(e) for e in case.data["events"]]
    if any(o is None for o in objects):
        pytest.skip("the SDK has no object for some event")
    same_stop(stopkit.normalize_stream(objects), stopkit.normalize_stream(case.data["events"]))


# --- across the adapters: detection never decides, every stop value is exercised ------------------


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_claimed_by_its_own_adapter_alone(case: Case) -> None:
    """No other adapter claims a case (a reply, or a stream's first event): order never decides."""
    claimed = claimed_by(case)
    if claimed is None:
        pytest.skip("an empty stream has no first event to detect")
    assert claimed == [case.adapter]


@pytest.mark.parametrize("name", NAMES)
def test_every_stop_value_has_a_case(name: str) -> None:
    """Each value of an adapter's stop-field table (its first) is a case's expected raw_reason."""
    stop_field = next(iter(stopkit.get_adapter(name).tables.values()))  # type: ignore[attr-defined]
    covered = {case.expect.get("raw_reason") for case in CASES if case.adapter == name}
    assert set(stop_field) <= covered, set(stop_field) - covered
