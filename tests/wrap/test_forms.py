"""Every call form `stopkit.wrap` watches, on the real SDK clients over recorded replies.

Generated from `tests/wrap/forms.py` (one row per SDK x call form x sync/async x stream): the
wrapped client returns what the unwrapped one returns, of the same types; `on_stop` hears of
each reply once with the recording's reason; `raise_on` raises the typed error carrying it.
"""

from __future__ import annotations

from typing import Any

import pytest

import stopkit
import stopkit.record
from stopkit._errors import error_for
from stopkit.record._payloads import load_payload
from tests import _wrap_clients as sdk
from tests.wrap.forms import FORMS, Form, call, recordings


def _dump(value: Any) -> Any:
    if isinstance(value, list):
        return [_dump(item) for item in value]
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", warnings=False)
    return value


def _types(value: Any) -> Any:
    return [_types(item) for item in value] if isinstance(value, list) else type(value)


def _client(form: Form, **settings: Any) -> tuple[Any, list[stopkit.Stop]]:
    files = [sdk.RECORDINGS / form.sdk / name for name in recordings(form)]
    client = sdk.client(form.sdk, stopkit.record.ReplayTransport(files), is_async=form.is_async)
    if settings is None:
        return client, []
    seen: list[stopkit.Stop] = []
    return stopkit.wrap(client, on_stop=seen.append, **settings), seen


def _reasons(form: Form) -> list[stopkit.StopReason]:
    return [
        stopkit.StopReason(load_payload(sdk.RECORDINGS / form.sdk / name).expect["reason"])  # type: ignore[index]
        for name in recordings(form)
    ]


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.id)
def test_the_form_is_watched_and_unchanged(form: Form) -> None:
    """The wrapped form returns what the SDK returns, and `on_stop` hears of each reply once."""
    plain_client = sdk.client(
        form.sdk,
        stopkit.record.ReplayTransport([sdk.RECORDINGS / form.sdk / n for n in recordings(form)]),
        is_async=form.is_async,
    )
    plain = call(form, plain_client)
    wrapped_client, seen = _client(form)
    wrapped = call(form, wrapped_client)
    assert _dump(wrapped) == _dump(plain)
    assert _types(wrapped) == _types(plain)
    assert [s.reason for s in seen] == _reasons(form)
    for stop, name in zip(seen, recordings(form), strict=True):
        assert stop.provider == sdk.ADAPTER[form.sdk]
        assert stop.text == load_payload(sdk.RECORDINGS / form.sdk / name).stop().text


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.id)
def test_raise_on_raises_the_typed_error(form: Form) -> None:
    """With the reply's reason in `raise_on`, the form raises its typed error after `on_stop`."""
    reason = _reasons(form)[0]
    client, seen = _client(form, raise_on={reason})
    with pytest.raises(stopkit.StopReasonError) as caught:
        call(form, client)
    assert type(caught.value) is type(error_for(caught.value.stop))
    assert caught.value.stop.reason is reason
    assert caught.value.stop is seen[-1]
