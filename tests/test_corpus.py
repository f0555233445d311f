"""Conformance: the real replies in ../shared/corpus normalize to their labels.

Skipped when the corpus folder is absent. Labels we are sure are wrong are overridden, with
the reason, in tests/corpus_allowlist/<wire_format>.txt — never skipped silently.
"""

from __future__ import annotations

import pytest

import stopkit
from tests._corpus import ADAPTER_OF_WIRE, CORPUS, Row, allowlist, rows

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


def _expected(row: Row) -> str:
    override = allowlist(row.label["wire_format"]).get(row.file)
    return override if override else str(row.label["expected"])


@pytest.mark.parametrize("row", _cases(stream=False))
def test_reply_matches_label(row: Row) -> None:
    """A recorded non-streaming reply is read by the right adapter and gets its label."""
    _adapter_available(row)
    stop = stopkit.normalize(row.load())
    assert (stop.provider, stop.reason.value) == (row.adapter, _expected(row)), stop.notes


@pytest.mark.parametrize("row", _cases(stream=True))
def test_stream_matches_label(row: Row) -> None:
    """A recorded stream (its list of events) is read by the right adapter and gets its label."""
    _adapter_available(row)
    stop = stopkit.normalize_stream(row.load())
    assert (stop.provider, stop.reason.value) == (row.adapter, _expected(row)), stop.notes


def test_allowlists_name_real_files() -> None:
    """Every allowlisted file exists in the corpus and its override differs from the label."""
    for wire in ADAPTER_OF_WIRE:
        labels = {r.file: r.label["expected"] for r in rows(wire, stream=False)}
        labels |= {r.file: r.label["expected"] for r in rows(wire, stream=True)}
        for file, reason in allowlist(wire).items():
            assert file in labels, f"{wire} allowlist names a file not in the corpus: {file}"
            assert reason in {r.value for r in stopkit.StopReason}, (file, reason)
            assert reason != labels[file], f"{file}: the override equals the label"
