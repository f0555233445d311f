"""`stopkit.wrap` on every client family beyond the official three, over real HTTP.

Each family's real SDK client talks to a loopback server this module starts (boto3 with
`endpoint_url=` and dummy credentials, its streams as real AWS event-stream frames; Ollama's and
Cohere v1's as newline-delimited JSON; the rest as SSE). For every call form (`families.FORMS`)
and every case (a tool request, a completion, a truncation, a filter where the provider has one,
an unknown value): the wrapped client returns what the unwrapped one returns, of the same types;
`on_stop` hears of the reply once with the case's reason; `raise_on` raises the typed error.
Streams are also cut short by the server, and closed on purpose after their first event.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import stopkit
from stopkit._errors import error_for
from stopkit._wrap._routes import FAMILIES as ROUTES
from stopkit._wrap._routes import watched_forms
from stopkit.record._payloads import Payload, load_payload
from tests._loopback import Loopback
from tests.adapters.test_litellm import _close_the_loop_litellm_leaves  # noqa: F401 -- an autouse fixture
from tests.adapters.test_litellm import pytestmark as litellm_warnings
from tests.wrap.families import BY_NAME, FORMS, Family, Form, served, settle

pytestmark = litellm_warnings  # LiteLLM's own pydantic warnings: not stopkit's doing


@pytest.fixture(scope="module")
def loopback() -> Iterator[Loopback]:
    """One loopback server for the module; each test queues what it is answered with."""
    with served() as server:
        yield server


def _family(form: Form) -> Family:
    return BY_NAME[form.family]


def _payload(form: Form, path: Path, keep: int | None = None) -> Payload:
    """The payload at `path`, framed as the family's streams are (its first `keep` events).

    A recording of another wire (Claude's SSE, served as InvokeModel chunks) takes the family's.
    """
    payload = load_payload(path)
    if payload.events is not None:
        framed = {**payload.response, "content_type": form.content_type}
        payload = replace(payload, response=framed)
    if keep is not None:
        assert payload.events is not None
        payload = replace(payload, events=payload.events[:keep])
    return payload


def _case_path(form: Form, case: str) -> Path:
    reply, stream = form.cases[case]
    path = stream if form.stream else reply
    assert path is not None
    return path


def _reason(form: Form, case: str) -> stopkit.StopReason:
    """The case's reason, as its payload says (or as the form says the SDK changed it)."""
    expect = load_payload(_case_path(form, case)).expect
    assert expect is not None, f"{form.id}:{case} says no reason"
    return stopkit.StopReason(form.reasons.get(case, expect["reason"]))


def _is_async_stream(stream: Any, form: Form) -> bool:
    """An async form's stream is read with `async for` (LiteLLM's iterates both ways)."""
    kind = type(stream)
    return hasattr(kind, "__aiter__") and (form.is_async or not hasattr(kind, "__iter__"))


async def _events(stream: Any, form: Form) -> list[Any]:
    if _is_async_stream(stream, form):
        return [event async for event in stream]
    return list(stream)


async def _read(form: Form, client: Any, url: str) -> Any:
    """Make the form's call and return what it gave, streams read to their end."""
    value = form.call(client, url)
    if form.is_async:
        value = await settle(value)
    if form.read == "raw-cm":
        if form.is_async:
            async with value as response:
                return await _events(await response.parse(), form)
        with value as response:
            return await _events(response.parse(), form)
    if form.read == "raw":
        value = await settle(value.parse())
    if not form.stream:
        return value
    if form.key is None:
        return await _events(value, form)
    return {**value, form.key: await _events(value[form.key], form)}


def _call(
    form: Form, url: str, seen: list[stopkit.Stop] | None = None, **settings: Any
) -> tuple[Any, list[stopkit.Stop]]:
    """Make the call on the family's client, wrapped with `settings`; read it.

    Return what it gave and the `Stop`s `on_stop` heard (into `seen`, when given).
    """
    heard: list[stopkit.Stop] = [] if seen is None else seen

    async def main() -> Any:
        client = stopkit.wrap(
            _family(form).make(url, form.is_async), on_stop=heard.append, **settings
        )
        return await _read(form, client, url)

    return asyncio.run(main()), heard


def _plain(form: Form, url: str) -> Any:
    async def main() -> Any:
        return await _read(form, _family(form).make(url, form.is_async), url)

    return asyncio.run(main())


# What differs between two calls answered the same: boto3's per-request metadata (a date
# header), the `created` time LiteLLM stamps on its stream chunks.
_PER_CALL = frozenset({"ResponseMetadata", "created"})


def _dump(value: Any) -> Any:
    """A comparable form of what a call returned (what differs per call left out)."""
    if isinstance(value, list | tuple):
        return [_dump(item) for item in value]
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", warnings=False)
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items() if k not in _PER_CALL}
    if callable(getattr(value, "read", None)):  # boto3's StreamingBody: read, as a caller would
        return value.read()
    return value


def _types(value: Any) -> Any:
    if isinstance(value, list):
        return [_types(item) for item in value]
    if isinstance(value, dict) and type(value) is dict:
        return {k: _types(v) for k, v in value.items() if k not in _PER_CALL}
    return type(value)


CASES = [(form, case) for form in FORMS for case in form.cases]


@pytest.mark.parametrize(("form", "case"), CASES, ids=[f"{f.id}:{c}" for f, c in CASES])
def test_each_form_reports_each_case_and_returns_the_sdks_own_value(
    loopback: Loopback, form: Form, case: str
) -> None:
    """Wrapped, the form returns what the SDK returns, and `on_stop` hears the reason once.

    Where the SDK raises its own error for the case, the wrapped form raises the same one, and
    `on_stop` still hears of the reply (as far as it was read).
    """
    path = _case_path(form, case)
    loopback.queue[:] = [_payload(form, path), _payload(form, path)]
    if case in form.raises:
        with pytest.raises(Exception) as plain_error:  # noqa: PT011 -- the SDK's own, any
            _plain(form, loopback.url)
        seen: list[stopkit.Stop] = []
        with pytest.raises(type(plain_error.value)):
            _call(form, loopback.url, seen)
        assert [s.reason for s in seen] == [_reason(form, case)]
        return
    plain = _dump_and_types(_plain(form, loopback.url))
    wrapped, seen = _call(form, loopback.url)
    assert _dump_and_types(wrapped) == plain
    assert [stop.reason for stop in seen] == [_reason(form, case)]
    # The adapter that read it: the family's, or the body's own (boto3's InvokeModel)
    assert seen[0].provider == (form.adapter or load_payload(path).stop().provider)
    assert loopback.queue == []


def _dump_and_types(value: Any) -> tuple[Any, Any]:
    return _types(value), _dump(value)


# Where the SDK raises its own error, it raises first: the case above checks it.
RETURNED = [(form, case) for form, case in CASES if case not in form.raises]


@pytest.mark.parametrize(("form", "case"), RETURNED, ids=[f"{f.id}:{c}" for f, c in RETURNED])
def test_raise_on_raises_the_typed_error_for_each_case(
    loopback: Loopback, form: Form, case: str
) -> None:
    """With the case's reason in `raise_on`, the form raises the typed error after `on_stop`."""
    path = _case_path(form, case)
    reason = _reason(form, case)
    loopback.queue[:] = [_payload(form, path)]
    with pytest.raises(stopkit.StopReasonError) as caught:
        _call(form, loopback.url, raise_on={reason})
    assert type(caught.value) is type(error_for(caught.value.stop))
    assert caught.value.stop.reason is reason


STREAMS = [form for form in FORMS if form.stream]


def _a_stream(form: Form) -> Path:
    """The form's completed stream (its tool request where it has no completion)."""
    return _case_path(form, "completed" if "completed" in form.cases else "tool_request")


@pytest.mark.parametrize("form", STREAMS, ids=lambda f: f.id)
def test_a_stream_the_server_cuts_short_is_stream_incomplete(
    loopback: Loopback, form: Form
) -> None:
    """A stream ending before its terminal event reports `unknown/stream_incomplete`, raising.

    Where the SDK raises its own error for a cut stream (LiteLLM), that error is raised, as
    unwrapped: a broken read is the SDK's to tell.
    """
    path = _a_stream(form)
    events = load_payload(path).events or []
    keep = len(events) // 2
    loopback.queue[:] = [_payload(form, path, keep), _payload(form, path, keep)]
    seen: list[stopkit.Stop] = []
    if "cut" in form.raises:
        with pytest.raises(Exception) as plain_error:  # noqa: PT011 -- the SDK's own, any
            _plain(form, loopback.url)
        with pytest.raises(type(plain_error.value)):
            _call(form, loopback.url, seen, raise_on={"unknown"})
    else:
        _call(form, loopback.url, seen)
        with pytest.raises(stopkit.UnknownStopReason):
            _call(form, loopback.url, raise_on={"unknown"})
    assert [(s.reason, s.detail) for s in seen] == [("unknown", "stream_incomplete")]


async def _close(stream: Any) -> None:
    await settle(stream.close())


@pytest.mark.parametrize("form", [f for f in STREAMS if f.read == "value"], ids=lambda f: f.id)
def test_a_stream_closed_on_purpose_reports_it_incomplete_once(
    loopback: Loopback, form: Form
) -> None:
    """Closing a stream after its first event reports `stream_incomplete` once, and nothing else."""
    loopback.queue[:] = [_payload(form, _a_stream(form))]
    seen: list[stopkit.Stop] = []

    async def main() -> None:
        client = stopkit.wrap(_family(form).make(loopback.url, form.is_async), on_stop=seen.append)
        value = form.call(client, loopback.url)
        if form.is_async:
            value = await settle(value)
        stream = value if form.key is None else value[form.key]
        if _is_async_stream(stream, form):
            await anext(aiter(stream))
        else:
            next(iter(stream))
        await _close(stream)

    asyncio.run(main())
    assert [(s.reason, s.detail) for s in seen] == [("unknown", "stream_incomplete")]


def test_the_forms_tested_are_the_forms_the_routes_table_watches() -> None:
    """Every watched method of every family (sync and async) is a tested form, and no other."""
    tested = {(form.family, form.name) for form in FORMS}
    watched = set()
    for family in ROUTES:
        if family.name not in BY_NAME:  # the official SDKs (tests/wrap/forms.py), xai (gRPC)
            continue
        for is_async in {False, bool(family.async_clients)}:
            watched |= {(family.name, name) for name in watched_forms(family.routes(is_async))}
    watched -= {(f, n) for f, n in watched if n.endswith(("with_options", "copy"))}
    assert tested == watched


def test_every_family_but_the_official_and_xai_has_its_forms_here() -> None:
    """The test families are the routes table's rows, less the official three and gRPC xAI."""
    assert set(BY_NAME) == {f.name for f in ROUTES} - {
        "anthropic", "openai", "google-genai", "xai_sdk"
    }  # fmt: skip
    assert all(inspect.isfunction(f.make) for f in BY_NAME.values())
