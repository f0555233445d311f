"""Conformance: the real replies in ../shared/corpus normalize to their labels.

Skipped when the corpus folder is absent. Every in-scope label is held as it stands: no reply is
overridden or skipped.
"""

from __future__ import annotations

import pytest

import stopkit
from tests._adapters import ADAPTER_OF_WIRE
from tests._corpus import CORPUS, Row, rows

if not (CORPUS / "labels.jsonl").is_file():
    pytest.skip(f"conformance corpus not found at {CORPUS}", allow_module_level=True)


def _cases(stream: bool) -> list[pytest.ParameterSet]:
    out = []
    for wire in ADAPTER_OF_WIRE:
        for row in rows(wire, stream=stream):
            out.append(pytest.param(row, id=row.file))
    return out


def _adapter_available(row: Row) -> None:
    if row.adapter not in {a.name for a in stopkit.registered_adapters()}:
        pytest.skip(f"adapter {row.adapter} is not in this checkout")


@pytest.mark.parametrize("row", _cases(stream=False))
def test_reply_matches_label(row: Row) -> None:
    """A recorded non-streaming reply is read by the right adapter and gets its label."""
    _adapter_available(row)
    stop = stopkit.normalize(row.load())
    assert (stop.provider, stop.reason.value) == (row.adapter, row.label["expected"]), stop.notes


@pytest.mark.parametrize("row", _cases(stream=True))
def test_stream_matches_label(row: Row) -> None:
    """A recorded stream (its list of events) is read by the right adapter and gets its label."""
    _adapter_available(row)
    stop = stopkit.normalize_stream(row.load())
    assert (stop.provider, stop.reason.value) == (row.adapter, row.label["expected"]), stop.notes
