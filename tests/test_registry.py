"""The test registry of built-in adapters (tests/_adapters.py) is the adapters stopkit ships."""

from __future__ import annotations

import functools
import importlib
from pathlib import Path
from typing import Any

import stopkit
from tests._adapters import BUILTINS, BY_FOLDER, FRAMEWORK_NAMES, FRAMEWORKS, NAMES
from tests._payloads import PAYLOADS, load_cases


def _shipped() -> list[str]:
    """The adapters stopkit registers itself (their classes live under stopkit.adapters)."""
    return [
        adapter.name
        for adapter in stopkit.registered_adapters()
        if type(adapter).__module__.startswith("stopkit.adapters.")
    ]


def test_every_shipped_adapter_has_exactly_one_row() -> None:
    """A built-in adapter without its row (or a row for none) fails here, naming it."""
    assert sorted(NAMES + FRAMEWORK_NAMES) == sorted(_shipped())
    assert len(set(NAMES + FRAMEWORK_NAMES)) == len(NAMES + FRAMEWORK_NAMES)


def test_each_row_names_its_module_and_payload_folder() -> None:
    """A row's folder is the adapter's module and holds its payload cases."""
    for row in BUILTINS:
        adapter = stopkit.get_adapter(row.name)
        assert type(adapter).__module__ == f"stopkit.adapters.{row.folder}", row.name
        assert any((PAYLOADS / row.folder).glob("*.json")), f"no payload cases for {row.name}"
    assert set(BY_FOLDER) == {p.name for p in PAYLOADS.iterdir() if p.is_dir()}


def test_each_framework_row_names_its_module_and_test_module() -> None:
    """A framework row names its adapter's module, its test module, and why payloads skip it."""
    for row in FRAMEWORKS:
        adapter = stopkit.get_adapter(row.name)
        assert type(adapter).__module__ == f"stopkit.adapters.{row.module}", row.name
        assert (Path(__file__).parent / "adapters" / f"test_{row.module}.py").is_file(), row.name
        assert row.why, row.name
        assert row.module not in BY_FOLDER, row.name


@functools.cache
def _forms(folder: str) -> Any:
    try:
        return importlib.import_module(f"tests.sdk_forms.{folder}")
    except ModuleNotFoundError:
        return None


def test_a_framework_adapter_claims_no_recorded_reply() -> None:
    """No recorded reply or first stream event, as JSON or as the SDK's object, is a framework's."""
    adapters = [stopkit.get_adapter(row.name) for row in FRAMEWORKS]
    for case in load_cases():
        forms = _forms(case.folder)
        if case.is_stream:
            events = case.data["events"][:1]
            to_event = getattr(forms, "to_sdk_event", lambda e: None)
            seen = [*events, *(to_event(e) for e in events)]
            assert not any(a.detects_event(e) for a in adapters for e in seen), case.id
        else:
            reply = case.data["reply"]
            seen = [reply]
            if forms is not None and case.data.get("sdk") is not False:
                seen.append(forms.to_sdk(reply))
            assert not any(a.detects(r) for a in adapters for r in seen), case.id
